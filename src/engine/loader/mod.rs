//! Loader emulation: where the Windows loader or glibc's `ld.so` would find a library, and why.
//!
//! Like libtree, every answer is data, not a print statement: a [`Resolution`] carries the path
//! found (or none), *how* it was found ([`How`]: RPATH, LD_LIBRARY_PATH, KnownDLLs, PATH, ...)
//! and every directory tried on the way ([`Attempt`]), with what was there (nothing, a file of
//! the wrong machine, an unreadable file). Like lucasg/Dependencies, the search strategy is a
//! value ([`linux::LinuxSearch`], [`windows::WindowsSearch`]) built once from a `SystemContext`;
//! resolving never reads the live environment, only the strategy and a [`FileProbe`] that looks
//! at candidate files through the context's filesystem view.

pub mod ldcache;
pub mod ldconf;
pub mod linux;
pub mod locate;
pub mod runtime;
pub mod sxs;
pub mod where_else;
pub mod windows;

use crate::engine::binfmt::{BinaryInfo, Machine};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which step of a loader's search found a library (or was being tried).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// ELF DT_RPATH of the loading object or one of the objects that loaded it.
    Rpath,
    /// The LD_LIBRARY_PATH environment variable.
    LdLibraryPath,
    /// ELF DT_RUNPATH of the loading object.
    Runpath,
    /// `/etc/ld.so.cache` (or, without one, the directories of `/etc/ld.so.conf`).
    LdSoCache,
    /// The dynamic linker's built-in default directories.
    Default,
    /// The name contains a slash (Linux) or is an absolute path: used as it is.
    Direct,
    /// Windows: the application's directory.
    AppDir,
    /// Windows: the system directory (System32, or SysWOW64 for a 32-bit process).
    System32,
    /// Windows: the 16-bit system directory and the Windows directory.
    WindowsDir,
    /// Windows: the current directory.
    Cwd,
    /// Windows: the PATH environment variable.
    Path,
    /// Windows: listed under the KnownDLLs registry key, always mapped from System32.
    KnownDll,
    /// Windows: an API-set contract (`api-ms-win-*`, `ext-ms-*`) the loader maps to the system.
    ApiSet,
    /// Windows: a directory added with AddDllDirectory or SetDllDirectory.
    DllDirectory,
    /// Windows: the directory of the DLL being loaded (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR or
    /// LOAD_WITH_ALTERED_SEARCH_PATH).
    DllLoadDir,
    /// Windows: redirected by a side-by-side manifest's activation context (WinSxS or a private
    /// assembly beside the application).
    SideBySide,
    /// Already loaded in the process (same module name or soname): reused, not searched.
    Loaded,
    /// Not a load-time import: the parent opens it with LoadLibrary/dlopen at run time.
    Runtime,
}

impl How {
    /// The JSON spelling (`ld_library_path`), also used in text output.
    pub fn as_str(self) -> &'static str {
        match self {
            How::Rpath => "rpath",
            How::LdLibraryPath => "ld_library_path",
            How::Runpath => "runpath",
            How::LdSoCache => "ld_so_cache",
            How::Default => "default",
            How::Direct => "direct",
            How::AppDir => "app_dir",
            How::System32 => "system32",
            How::WindowsDir => "windows_dir",
            How::Cwd => "cwd",
            How::Path => "path",
            How::KnownDll => "known_dll",
            How::ApiSet => "api_set",
            How::DllDirectory => "dll_directory",
            How::DllLoadDir => "dll_load_dir",
            How::SideBySide => "side_by_side",
            How::Loaded => "loaded",
            How::Runtime => "runtime",
        }
    }
}

/// What one attempt found in one directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The library is there and usable: the search ends.
    Found,
    /// No file of that name.
    NotFound,
    /// A file of that name for another machine (32/64-bit, other CPU): skipped, the search goes
    /// on (Windows error 193 / "wrong ELF class" if nothing else is found).
    WrongMachine { found: String },
    /// A file that cannot be read as a library: the real loaders stop here with an error.
    Unreadable { message: String },
}

/// One place a loader looked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// The directory searched (or the file, for a name used as a path, or the cache file).
    pub directory: String,
    /// The search step this directory belongs to.
    pub source: How,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Where a library resolved, how, and everything tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    /// Machine path of the library, `None` when not found (and for API sets, which have no file).
    pub path: Option<String>,
    /// The step that found it; for a miss, the last step tried.
    pub how: How,
    pub attempts: Vec<Attempt>,
}

impl Resolution {
    /// Whether the loader would succeed (a file was found, or an API set resolved by the system).
    pub fn is_resolved(&self) -> bool {
        self.path.is_some() || self.how == How::ApiSet
    }

    /// A resolution that ended without a file.
    pub fn missing(how: How, attempts: Vec<Attempt>) -> Resolution {
        Resolution {
            path: None,
            how,
            attempts,
        }
    }

    /// Candidates of the wrong machine seen on the way (for error 193 / wrong ELF class).
    #[cfg(any(test, feature = "testing"))]
    pub fn wrong_machine(&self) -> impl Iterator<Item = (&Attempt, &str)> {
        self.attempts.iter().filter_map(|a| match &a.outcome {
            Outcome::WrongMachine { found } => Some((a, found.as_str())),
            _ => None,
        })
    }

    /// The file that stopped the search because it could not be read, if any.
    pub fn unreadable(&self) -> Option<(&Attempt, &str)> {
        self.attempts.iter().find_map(|a| match &a.outcome {
            Outcome::Unreadable { message } => Some((a, message.as_str())),
            _ => None,
        })
    }
}

/// What is at a candidate path.
#[derive(Debug, Clone)]
pub enum Probe {
    /// No regular file there.
    Missing,
    /// A binary, parsed.
    Binary(Arc<BinaryInfo>),
    /// A file that is not a readable PE/ELF binary.
    Unreadable(String),
}

/// Looks at candidate files by machine path. The graph builder implements it over
/// `ctx.fs` + `binfmt::read_binary` (with a cache); tests implement it with hand-made values.
pub trait FileProbe {
    fn probe(&self, machine_path: &str) -> Probe;
}

/// Which machine a loaded object must have to be accepted next to the process's main binary.
pub fn machine_label(m: &Machine) -> String {
    format!("{} ({}-bit)", m.arch, m.bits)
}

/// Whether a candidate of machine `found` can be loaded into a process of machine `want`.
pub fn machine_matches(want: &Machine, found: &Machine) -> bool {
    want.arch == found.arch && want.bits == found.bits
}

/// Tries `dir/name`: records the attempt and returns the resolution when the search ends here.
pub(crate) fn try_dir(
    probe: &dyn FileProbe,
    want: &Machine,
    candidate: &str,
    directory: &str,
    source: How,
    attempts: &mut Vec<Attempt>,
) -> Option<Resolution> {
    let outcome = match probe.probe(candidate) {
        Probe::Missing => Outcome::NotFound,
        Probe::Binary(info) if machine_matches(want, &info.machine) => Outcome::Found,
        Probe::Binary(info) => Outcome::WrongMachine {
            found: machine_label(&info.machine),
        },
        Probe::Unreadable(message) => Outcome::Unreadable { message },
    };
    let ends = matches!(outcome, Outcome::Found | Outcome::Unreadable { .. });
    let found = outcome == Outcome::Found;
    attempts.push(Attempt {
        directory: directory.to_string(),
        source,
        outcome,
    });
    if !ends {
        return None;
    }
    Some(Resolution {
        path: found.then(|| candidate.to_string()),
        how: source,
        attempts: std::mem::take(attempts),
    })
}

/// Simple glob: `*` any run of characters, `?` one character; optionally ignoring ASCII case.
pub fn glob_match(pattern: &str, text: &str, ignore_case: bool) -> bool {
    let fold = |s: &str| -> Vec<char> {
        if ignore_case {
            s.to_lowercase().chars().collect()
        } else {
            s.chars().collect()
        }
    };
    let (p, t) = (fold(pattern), fold(text));
    let (mut pi, mut ti) = (0usize, 0usize);
    let (mut star, mut mark) = (None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_spells_like_the_json_contract() {
        for how in [
            How::LdLibraryPath,
            How::LdSoCache,
            How::KnownDll,
            How::DllLoadDir,
        ] {
            let json = serde_json::to_string(&how).unwrap();
            assert_eq!(json, format!("\"{}\"", how.as_str()));
        }
        let a = Attempt {
            directory: "/x".into(),
            source: How::Rpath,
            outcome: Outcome::WrongMachine {
                found: "i386 (32-bit)".into(),
            },
        };
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["outcome"], "wrong_machine");
        assert_eq!(v["found"], "i386 (32-bit)");
        assert_eq!(v["source"], "rpath");
    }

    #[test]
    fn glob() {
        assert!(glob_match("libcudnn.so.8*", "libcudnn.so.8.9.7", false));
        assert!(glob_match("cublasLt64_*.dll", "CUBLASLT64_12.DLL", true));
        assert!(!glob_match("cublasLt64_*.dll", "CUBLASLT64_12.DLL", false));
        assert!(glob_match("a?c", "abc", false));
        assert!(!glob_match("a*d", "abc", false));
        assert!(glob_match("*", "", false));
    }
}
