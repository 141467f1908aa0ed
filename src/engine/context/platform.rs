//! The platform being diagnosed (not the host): path syntax, list separators and name
//! comparison rules for Windows and Linux, so the engine can reason about either on any host.

use serde::{Deserialize, Serialize};

/// The operating system whose loader and layout the engine emulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Windows,
    Linux,
}

impl Platform {
    /// The platform of the machine this binary runs on.
    pub fn host() -> Platform {
        if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Linux
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Windows => "windows",
            Platform::Linux => "linux",
        }
    }

    /// File names compare case-insensitively on Windows.
    pub fn case_insensitive(self) -> bool {
        self == Platform::Windows
    }

    pub fn separator(self) -> char {
        match self {
            Platform::Windows => '\\',
            Platform::Linux => '/',
        }
    }

    /// Separator of list variables such as PATH or LD_LIBRARY_PATH.
    pub fn list_separator(self) -> char {
        match self {
            Platform::Windows => ';',
            Platform::Linux => ':',
        }
    }

    /// Splits a PATH-like value into its entries, keeping empty entries (they mean the current
    /// directory to ld.so) as empty strings; surrounding quotes are removed on Windows.
    pub fn split_list(self, value: &str) -> Vec<String> {
        value
            .split(self.list_separator())
            .map(|entry| match self {
                Platform::Windows => entry.trim().trim_matches('"').to_string(),
                Platform::Linux => entry.to_string(),
            })
            .collect()
    }

    fn is_sep(self, c: char) -> bool {
        match self {
            Platform::Windows => c == '\\' || c == '/',
            Platform::Linux => c == '/',
        }
    }

    /// Whether `path` is absolute in this platform's syntax (`C:\x`, `\\server\x`, `/x`).
    pub fn is_absolute(self, path: &str) -> bool {
        match self {
            Platform::Linux => path.starts_with('/'),
            Platform::Windows => {
                let b = path.as_bytes();
                (b.len() >= 3
                    && b[0].is_ascii_alphabetic()
                    && b[1] == b':'
                    && self.is_sep(b[2] as char))
                    || path.starts_with("\\\\")
            }
        }
    }

    /// Joins a directory and a relative name with this platform's separator.
    pub fn join(self, dir: &str, name: &str) -> String {
        if dir.is_empty() {
            return name.to_string();
        }
        if dir.ends_with(|c| self.is_sep(c)) {
            format!("{dir}{name}")
        } else {
            format!("{dir}{}{name}", self.separator())
        }
    }

    /// The last component of a path.
    pub fn file_name(self, path: &str) -> &str {
        let trimmed = path.trim_end_matches(|c| self.is_sep(c));
        match trimmed.rfind(|c| self.is_sep(c)) {
            Some(i) => &trimmed[i + 1..],
            None => trimmed,
        }
    }

    /// The directory part of a path, without a trailing separator (`C:\` stays `C:\`).
    pub fn parent(self, path: &str) -> Option<String> {
        let trimmed = path.trim_end_matches(|c| self.is_sep(c));
        let i = trimmed.rfind(|c| self.is_sep(c))?;
        let head = &trimmed[..i];
        Some(match self {
            Platform::Linux if head.is_empty() => "/".to_string(),
            Platform::Windows if head.len() == 2 && head.ends_with(':') => format!("{head}\\"),
            _ => head.to_string(),
        })
    }

    /// Normalises a path for display and comparison: one separator style, no `.` components,
    /// `..` applied, no trailing separator (except a root).
    pub fn normalize(self, path: &str) -> String {
        // Most paths a scan meets are already normal: return them without splitting.
        if self == Platform::Linux && already_normal_linux(path) {
            return path.to_string();
        }
        let absolute = self.is_absolute(path);
        let mut prefix = String::new();
        let mut rest = path;
        if self == Platform::Windows && absolute && !path.starts_with("\\\\") {
            prefix = format!("{}:\\", path[..1].to_ascii_uppercase());
            rest = &path[3..];
        } else if self == Platform::Windows && path.starts_with("\\\\") {
            prefix = "\\\\".to_string();
            rest = &path[2..];
        } else if self == Platform::Linux && absolute {
            prefix = "/".to_string();
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in rest.split(|c| self.is_sep(c)) {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.last().is_some_and(|p| *p != "..") {
                        parts.pop();
                    } else if !absolute {
                        parts.push("..");
                    }
                }
                other => parts.push(other),
            }
        }
        format!("{prefix}{}", parts.join(&self.separator().to_string()))
    }

    /// Compares two file names (or paths) the way this platform's file system does.
    pub fn same_name(self, a: &str, b: &str) -> bool {
        if self.case_insensitive() {
            a.eq_ignore_ascii_case(b) || a.to_lowercase() == b.to_lowercase()
        } else {
            a == b
        }
    }

    /// Compares two paths after normalisation, honouring case rules.
    pub fn same_path(self, a: &str, b: &str) -> bool {
        self.same_name(&self.normalize(a), &self.normalize(b))
    }
}

/// An absolute Linux path with no empty, `.` or `..` component and no trailing `/`.
fn already_normal_linux(path: &str) -> bool {
    path.starts_with('/')
        && (path.len() == 1 || !path.ends_with('/'))
        && !path.contains("//")
        && !path.contains("/./")
        && !path.contains("/../")
        && !path.ends_with("/.")
        && !path.ends_with("/..")
}

#[cfg(test)]
mod tests {
    use super::Platform::*;

    #[test]
    fn windows_paths() {
        assert!(Windows.is_absolute(r"C:\Windows"));
        assert!(Windows.is_absolute("c:/x"));
        assert!(!Windows.is_absolute(r"Windows\x"));
        assert_eq!(Windows.join(r"C:\a", "b.dll"), r"C:\a\b.dll");
        assert_eq!(Windows.join("C:\\", "b.dll"), r"C:\b.dll");
        assert_eq!(Windows.file_name(r"C:\a\B.DLL"), "B.DLL");
        assert_eq!(Windows.parent(r"C:\a\b.dll").as_deref(), Some(r"C:\a"));
        assert_eq!(Windows.parent(r"C:\b.dll").as_deref(), Some("C:\\"));
        assert_eq!(Windows.normalize(r"c:/a/./b\..\c\"), r"C:\a\c");
        assert!(Windows.same_path(r"C:\Program Files\X", r"c:\program files\x\"));
        assert_eq!(
            Windows.split_list(r#"C:\a;"C:\b c";;"#),
            vec![r"C:\a", r"C:\b c", "", ""]
        );
    }

    #[test]
    fn linux_paths() {
        assert_eq!(Linux.parent("/lib").as_deref(), Some("/"));
        assert_eq!(Linux.normalize("/usr//lib/../lib64/"), "/usr/lib64");
        assert!(!Linux.same_name("libA.so", "liba.so"));
        assert_eq!(Linux.split_list("/a::/b"), vec!["/a", "", "/b"]);
        assert_eq!(
            Linux.file_name("/usr/lib/libcudart.so.12"),
            "libcudart.so.12"
        );
    }
}
