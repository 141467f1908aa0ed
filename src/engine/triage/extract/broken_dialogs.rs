//! Windows' loader dialog pasted as it was laid out on screen: "The procedure entry point" on
//! one line, the decorated name on the next, "could not be located in the dynamic link library"
//! and a path broken after a backslash on the lines after it
//! (https://github.com/pytorch/TensorRT/pull/3086). Joined into the one line the dialog's text
//! is, so every reader sees the symbol and the DLL together.

use std::borrow::Cow;

/// The most lines one dialog's text is read across.
const MOST_LINES: usize = 6;

/// The text with each broken loader dialog joined into one line; the text itself where none is.
pub fn joined_dialogs(text: &str) -> Cow<'_, str> {
    let lines: Vec<&str> = text.lines().collect();
    let starts_broken = |i: usize| {
        let lower = lines[i].to_ascii_lowercase();
        lower.contains("entry point") && !lower.contains(".dll")
    };
    if !(0..lines.len()).any(starts_broken) {
        return Cow::Borrowed(text);
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let end = starts_broken(i)
            .then(|| dialog_end(&lines[i..]))
            .flatten()
            .filter(|&n| n > 0);
        match end {
            Some(n) => {
                let mut joined = lines[i].trim_end().to_string();
                for next in &lines[i + 1..=i + n] {
                    if !(joined.ends_with('\\') || joined.ends_with('/')) {
                        joined.push(' ');
                    }
                    joined.push_str(next.trim());
                }
                out.push(joined);
                i += n + 1;
            }
            None => {
                out.push(lines[i].to_string());
                i += 1;
            }
        }
    }
    Cow::Owned(out.join("\n"))
}

/// How many lines after the first the dialog runs on: to the first line naming a DLL, when
/// "dynamic link library" comes before it within [`MOST_LINES`].
fn dialog_end(lines: &[&str]) -> Option<usize> {
    let mut said_library = false;
    for (n, line) in lines.iter().enumerate().take(MOST_LINES) {
        let lower = line.to_ascii_lowercase();
        said_library |= lower.contains("dynamic link library");
        if n > 0 && said_library && lower.contains(".dll") {
            return Some(n);
        }
        if n > 0 && line.trim().is_empty() {
            return None;
        }
    }
    None
}
