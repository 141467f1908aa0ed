//! Edits a list variable's value (PATH, LD_LIBRARY_PATH, the registry's `Path`) entry by entry:
//! one entry is added, moved or replaced and every other byte of the value stays as it was —
//! `%VARS%` unexpanded, empty entries and a trailing separator kept, no length limit. Windows
//! entries compare case-insensitively with a trailing backslash ignored. Pure and platform-free,
//! so the Windows logic is tested on Linux.

use crate::engine::findings::PathEdit;

/// How a platform writes a list variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListStyle {
    pub separator: char,
    pub case_insensitive: bool,
}

impl ListStyle {
    pub const WINDOWS: ListStyle = ListStyle {
        separator: ';',
        case_insensitive: true,
    };
    pub const UNIX: ListStyle = ListStyle {
        separator: ':',
        case_insensitive: false,
    };

    /// Whether two entries name the same folder (`C:\A\` = `c:\a`; `/a/` = `/a`).
    pub fn same_entry(self, a: &str, b: &str) -> bool {
        let trim = |s: &str| {
            let t = s.trim_end_matches(['/', '\\']);
            if t.is_empty() {
                s.to_string()
            } else {
                t.to_string()
            }
        };
        let (a, b) = (trim(a), trim(b));
        if self.case_insensitive {
            a.to_lowercase() == b.to_lowercase()
        } else {
            a == b
        }
    }

    fn position(self, entries: &[String], entry: &str) -> Option<usize> {
        entries.iter().position(|e| self.same_entry(e, entry))
    }
}

/// Applies `edit` to `value`; returns the new value (equal to `value` when nothing changes).
pub fn apply_edit(value: &str, edit: &PathEdit, style: ListStyle) -> String {
    let sep = style.separator;
    let mut entries: Vec<String> = if value.is_empty() {
        Vec::new()
    } else {
        value.split(sep).map(str::to_string).collect()
    };
    let mut removed_at = None;
    if let Some(remove) = &edit.remove {
        while let Some(i) = style.position(&entries, remove) {
            entries.remove(i);
            removed_at.get_or_insert(i);
        }
    }
    if let Some(add) = &edit.add {
        match (style.position(&entries, add), removed_at) {
            (Some(_), Some(_)) => {}
            (None, Some(i)) => entries.insert(i, add.clone()),
            (Some(i), None) if edit.first && i != 0 => {
                let moved = entries.remove(i);
                entries.insert(0, moved);
            }
            (Some(_), None) => {}
            (None, None) if edit.first => entries.insert(0, add.clone()),
            (None, None) => {
                // Keep a trailing separator trailing.
                let at = match entries.last() {
                    Some(last) if last.is_empty() => entries.len() - 1,
                    _ => entries.len(),
                };
                entries.insert(at, add.clone());
            }
        }
    }
    entries.join(&sep.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(entry: &str, first: bool) -> PathEdit {
        PathEdit::add("PATH", entry, first)
    }

    #[test]
    fn replaces_a_typo_in_place_keeping_every_other_byte() {
        let value = r"%SystemRoot%\system32;C:\CUDA\v11.2\bn;;C:\Tools\";
        let edit = PathEdit::replace("Path", r"c:\cuda\V11.2\BN\", r"C:\CUDA\v11.2\bin");
        assert_eq!(
            apply_edit(value, &edit, ListStyle::WINDOWS),
            r"%SystemRoot%\system32;C:\CUDA\v11.2\bin;;C:\Tools\"
        );
    }

    #[test]
    fn adds_once_and_is_idempotent() {
        let value = "/usr/bin:/bin";
        let once = apply_edit(value, &add("/opt/cuda/bin", false), ListStyle::UNIX);
        assert_eq!(once, "/usr/bin:/bin:/opt/cuda/bin");
        assert_eq!(
            apply_edit(&once, &add("/opt/cuda/bin/", false), ListStyle::UNIX),
            once
        );
        let first = apply_edit(value, &add("/opt/cuda/bin", true), ListStyle::UNIX);
        assert_eq!(first, "/opt/cuda/bin:/usr/bin:/bin");
        assert_eq!(apply_edit("", &add("/a", false), ListStyle::UNIX), "/a");
        assert_eq!(
            apply_edit("a;b;", &add("c", false), ListStyle::WINDOWS),
            "a;b;c;"
        );
    }

    #[test]
    fn moves_an_entry_first() {
        let value = r"C:\CUDA\v10.0\bin;C:\CUDA\v11.2\bin;C:\Windows";
        assert_eq!(
            apply_edit(value, &add(r"c:\cuda\v11.2\bin", true), ListStyle::WINDOWS),
            r"C:\CUDA\v11.2\bin;C:\CUDA\v10.0\bin;C:\Windows"
        );
        // Linux compares exactly: a different case is another folder.
        assert_eq!(
            apply_edit("/A:/a", &add("/a", true), ListStyle::UNIX),
            "/a:/A"
        );
    }

    #[test]
    fn a_path_over_3000_characters_is_not_truncated() {
        let long: Vec<String> = (0..200)
            .map(|i| format!(r"C:\Program Files\Vendor {i:03}\Some Tool\bin"))
            .collect();
        let value = long.join(";");
        assert!(value.len() > 3000, "{}", value.len());
        let out = apply_edit(
            &value,
            &add(r"C:\CUDA\v12.1\bin", false),
            ListStyle::WINDOWS,
        );
        assert_eq!(out.len(), value.len() + r";C:\CUDA\v12.1\bin".len());
        assert!(out.starts_with(&value));
        let back = apply_edit(
            &out,
            &PathEdit {
                remove: Some(r"C:\CUDA\v12.1\bin".into()),
                add: None,
                first: false,
                variable: "Path".into(),
            },
            ListStyle::WINDOWS,
        );
        assert_eq!(back, value);
    }
}
