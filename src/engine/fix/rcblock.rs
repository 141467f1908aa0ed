//! The one marked block CUDA Triage keeps in a shell file (`# >>> cuda-triage >>>` …
//! `# <<< cuda-triage <<<`, as `conda init` does). The file is handled as bytes: non-UTF-8
//! content, CRLF line ends, a BOM and a missing final newline stay as they are; the block's own
//! line ends are the caller's choice (LF for sh, which cannot run a CRLF line; CRLF for cmd); it
//! is replaced in place when present, and holds one section per fix (a `# fix: ID` line and
//! its commands), so applying a fix twice changes nothing.

//! `cmd` scripts take the same block with `@rem` in place of `#`.

pub const BEGIN: &str = "# >>> cuda-triage >>>";
pub const END: &str = "# <<< cuda-triage <<<";

/// The marker lines for a comment leader (`#` or `@rem`).
struct Markers {
    begin: String,
    end: String,
    section: String,
    header: String,
}

impl Markers {
    fn new(comment: &str) -> Markers {
        Markers {
            begin: format!("{comment} >>> cuda-triage >>>"),
            end: format!("{comment} <<< cuda-triage <<<"),
            section: format!("{comment} fix: "),
            header: format!(
                "{comment} Written by cuda-triage; `cuda-triage fix undo` takes it out again."
            ),
        }
    }
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Byte range of the block, from its first byte to just after its end marker's line end.
pub fn block_range(bytes: &[u8], comment: &str) -> Option<(usize, usize)> {
    let m = Markers::new(comment);
    let start = find(bytes, m.begin.as_bytes(), 0)?;
    let end_marker = find(bytes, m.end.as_bytes(), start)?;
    let mut end = end_marker + m.end.len();
    if bytes.get(end) == Some(&b'\r') {
        end += 1;
    }
    if bytes.get(end) == Some(&b'\n') {
        end += 1;
    }
    Some((start, end))
}

/// The sections of the block as (fix id, command lines), in order.
pub fn sections(bytes: &[u8], comment: &str) -> Vec<(String, Vec<String>)> {
    let m = Markers::new(comment);
    let Some((start, end)) = block_range(bytes, comment) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes[start..end]);
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        if let Some(id) = line.strip_prefix(&m.section) {
            out.push((id.to_string(), Vec::new()));
        } else if line != m.begin
            && line != m.end
            && line != m.header
            && let Some((_, lines)) = out.last_mut()
        {
            lines.push(line.to_string());
        }
    }
    out
}

/// The file with section `id` set to `lines` (or removed when `lines` is `None`). The block is
/// created at the end when missing and removed entirely when its last section goes.
pub fn with_section(bytes: &[u8], id: &str, lines: Option<&[String]>) -> Vec<u8> {
    with_section_in(bytes, "#", "\n", id, lines)
}

/// [`with_section`] for a script whose comment leader is `comment`.
pub fn with_section_in(
    bytes: &[u8],
    comment: &str,
    eol: &str,
    id: &str,
    lines: Option<&[String]>,
) -> Vec<u8> {
    let m = Markers::new(comment);
    let mut all = sections(bytes, comment);
    match (all.iter().position(|(s, _)| s == id), lines) {
        (Some(i), Some(l)) => all[i].1 = l.to_vec(),
        (Some(i), None) => {
            all.remove(i);
        }
        (None, Some(l)) => all.push((id.to_string(), l.to_vec())),
        (None, None) => return bytes.to_vec(),
    }
    let eol = eol.as_bytes();
    let mut block = Vec::new();
    if !all.is_empty() {
        let mut push = |line: &str| {
            block.extend_from_slice(line.as_bytes());
            block.extend_from_slice(eol);
        };
        push(&m.begin);
        push(&m.header);
        for (section, lines) in &all {
            push(&format!("{}{section}", m.section));
            for l in lines {
                push(l);
            }
        }
        push(&m.end);
    }
    let mut out = Vec::with_capacity(bytes.len() + block.len() + 2);
    match block_range(bytes, comment) {
        Some((start, end)) => {
            out.extend_from_slice(&bytes[..start]);
            out.extend_from_slice(&block);
            out.extend_from_slice(&bytes[end..]);
        }
        None => {
            out.extend_from_slice(bytes);
            if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                out.extend_from_slice(eol);
            }
            out.extend_from_slice(&block);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn keeps_crlf_bom_latin1_and_a_missing_final_newline() {
        let before = b"\xef\xbb\xbfexport A=1\r\n# caf\xe9\r\nalias x=y".to_vec();
        let after = with_section(&before, "fix-a", Some(&lines(&["export B=2"])));
        assert!(after.starts_with(
            b"\xef\xbb\xbfexport A=1\r\n# caf\xe9\r\nalias x=y\n# >>> cuda-triage >>>\n"
        ));
        assert!(after.ends_with(b"# fix: fix-a\nexport B=2\n# <<< cuda-triage <<<\n"));
        // Idempotent: the same section again changes nothing.
        assert_eq!(
            with_section(&after, "fix-a", Some(&lines(&["export B=2"]))),
            after
        );
        // A second fix joins the same block; removing both leaves the user's bytes plus the newline.
        let two = with_section(&after, "fix-b", Some(&lines(&["export C=3"])));
        assert_eq!(
            two.windows(BEGIN.len())
                .filter(|w| *w == BEGIN.as_bytes())
                .count(),
            1
        );
        let none = with_section(&with_section(&two, "fix-a", None), "fix-b", None);
        assert_eq!(none, b"\xef\xbb\xbfexport A=1\r\n# caf\xe9\r\nalias x=y\n");
        // cmd scripts: `@rem` markers and CRLF.
        let bat = with_section_in(
            b"@echo off\r\n",
            "@rem",
            "\r\n",
            "f",
            Some(&lines(&["@set A=1"])),
        );
        assert_eq!(
            bat,
            b"@echo off\r\n@rem >>> cuda-triage >>>\r\n@rem Written by cuda-triage; `cuda-triage fix undo` takes it out again.\r\n@rem fix: f\r\n@set A=1\r\n@rem <<< cuda-triage <<<\r\n"
        );
    }

    #[test]
    fn replaces_the_block_in_place() {
        let before = b"a\n# >>> cuda-triage >>>\n# fix: f\nold\n# <<< cuda-triage <<<\nb\n";
        let after = with_section(before, "f", Some(&lines(&["new"])));
        let text = String::from_utf8(after).unwrap();
        assert!(text.starts_with("a\n# >>> cuda-triage >>>\n"), "{text}");
        assert!(
            text.ends_with("# fix: f\nnew\n# <<< cuda-triage <<<\nb\n"),
            "{text}"
        );
        assert_eq!(
            sections(text.as_bytes(), "#"),
            vec![("f".to_string(), lines(&["new"]))]
        );
    }
}
