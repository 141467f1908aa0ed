//! The Windows loader's search for a DLL, as data (Microsoft's "Dynamic-link library search
//! order" and `LoadLibraryExW` pages; Python 3.8's `os.add_dll_directory`):
//!
//! Before any directory: API sets (`api-ms-win-*`, `ext-ms-*`: mapped by the system, never
//! missing), the loaded-module list (the graph builder's job) and KnownDLLs (registry
//! `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\KnownDLLs`, always from System32).
//! Then one of two orders:
//!
//! * **standard** (no `LOAD_LIBRARY_SEARCH_*` flag), SafeDllSearchMode on: application
//!   directory (or, with `LOAD_WITH_ALTERED_SEARCH_PATH` 0x8, the loaded DLL's directory),
//!   the SetDllDirectory directory if any, System32, the 16-bit `System` directory, the Windows
//!   directory, the current directory (not when SetDllDirectory is set), PATH. With
//!   SafeDllSearchMode off the current directory comes second.
//! * **flags** (`LoadLibraryExW`/`SetDefaultDllDirectories`): `DLL_LOAD_DIR` 0x100,
//!   `APPLICATION_DIR` 0x200, `USER_DIRS` 0x400 (AddDllDirectory, then SetDllDirectory),
//!   `SYSTEM32` 0x800, `DEFAULT_DIRS` 0x1000 = 0x200|0x400|0x800; PATH and the current
//!   directory are not searched. This is what Python ≥ 3.8, conda's Python and torch use.
//!
//! Dependencies are searched by module name with the same order (the DLL-load directory stays the
//! directory of the DLL given to LoadLibraryExW). Names compare case-insensitively; a name without
//! an extension gets `.dll`. A DLL of the wrong machine is skipped and the search goes on
//! (reported as error 193 when nothing else is found). A 32-bit process on 64-bit Windows sees
//! `SysWOW64` as its system directory.

use super::{Attempt, FileProbe, How, Resolution, try_dir};
use crate::engine::binfmt::Machine;
use crate::engine::context::{Platform, SystemContext};
use serde::{Deserialize, Serialize};

pub const LOAD_WITH_ALTERED_SEARCH_PATH: u32 = 0x8;
pub const LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR: u32 = 0x100;
pub const LOAD_LIBRARY_SEARCH_APPLICATION_DIR: u32 = 0x200;
pub const LOAD_LIBRARY_SEARCH_USER_DIRS: u32 = 0x400;
pub const LOAD_LIBRARY_SEARCH_SYSTEM32: u32 = 0x800;
pub const LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: u32 = 0x1000;
const SEARCH_FLAGS: u32 = 0x1f00;

const KNOWN_DLLS_KEY: &str = r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\KnownDLLs";
const SESSION_MANAGER_KEY: &str = r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager";

/// A loading context people actually run DLLs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// An application loading the DLL the classic way (standard order).
    App,
    /// Python ≥ 3.8 importing an extension or ctypes DLL: 0x1100, PATH ignored.
    Python,
    /// conda's Python: as Python plus the five conda directories of the prefix.
    CondaPython,
    /// torch/__init__.py: `LoadLibraryExW(dll, None, 0x1100)` after `os.add_dll_directory`
    /// of `torch\lib` and `<prefix>\Library\bin`; on error 126, `LoadLibraryW(dll)` with those
    /// folders put in front of PATH (`_load_dll_libraries`, torch/__init__.py at v2.5.1).
    Torch,
}

/// What the user says about the loading context (CLI flags), before reading the machine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowsOptions {
    pub preset: Option<Preset>,
    /// The directory of the .exe (python.exe for the Python presets).
    pub app_dir: Option<String>,
    /// AddDllDirectory / os.add_dll_directory directories, in call order.
    pub dll_dirs: Vec<String>,
    pub set_dll_dir: Option<String>,
    /// LoadLibraryExW / SetDefaultDllDirectories flags.
    pub load_flags: Option<u32>,
    pub cwd: Option<String>,
}

/// The search strategy of one Windows process, read once from the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowsSearch {
    /// 0 for the standard order, else `LOAD_LIBRARY_SEARCH_*` / 0x8 bits.
    pub flags: u32,
    pub safe_dll_search: bool,
    pub app_dir: Option<String>,
    /// Directory of the DLL handed to LoadLibraryExW (for 0x100 and 0x8).
    pub dll_load_dir: Option<String>,
    pub user_dirs: Vec<String>,
    pub set_dll_dir: Option<String>,
    pub system32: String,
    pub system16: String,
    pub windows_dir: String,
    pub cwd: Option<String>,
    pub path: Vec<String>,
    /// KnownDLLs file names, lower case.
    pub known_dlls: Vec<String>,
    /// torch's retry: after a miss under `flags`, `LoadLibraryW`'s standard order with
    /// `user_dirs` in front of PATH.
    pub then_standard: bool,
}

/// The five directories conda's patched Python adds for a prefix (conda-forge/python-feedstock's
/// `0007-Add-CondaEcosystemModifyDllSearchPath.patch`).
pub fn conda_dirs(prefix: &str) -> Vec<String> {
    let w = Platform::Windows;
    [
        "bin",
        "Scripts",
        r"Library\bin",
        r"Library\usr\bin",
        r"Library\mingw-w64\bin",
    ]
    .iter()
    .map(|d| w.join(prefix, d))
    .collect()
}

impl WindowsSearch {
    /// Builds the strategy for loading `root` (a machine path) into a process of machine `m`.
    pub fn from_context(
        ctx: &SystemContext,
        opts: &WindowsOptions,
        root: &str,
        m: &Machine,
    ) -> WindowsSearch {
        let w = Platform::Windows;
        let norm = |d: &String| w.normalize(d);
        let root_dir = w.parent(&w.normalize(root));
        let windows_dir = ctx
            .env
            .get("SystemRoot")
            .or_else(|| ctx.env.get("windir"))
            .filter(|d| w.is_absolute(d))
            .map(|d| w.normalize(d))
            .unwrap_or_else(|| r"C:\Windows".to_string());
        let wow64 = w.join(&windows_dir, "SysWOW64");
        let system32 = if m.bits == 32 && ctx.fs.is_dir(&wow64) {
            wow64
        } else {
            w.join(&windows_dir, "System32")
        };
        let prefix = ctx.env.get("CONDA_PREFIX").map(|p| w.normalize(p));
        let preset = opts.preset.unwrap_or(Preset::App);
        let mut app_dir = opts.app_dir.as_ref().map(norm);
        let mut user_dirs: Vec<String> = Vec::new();
        let mut flags = 0;
        match preset {
            Preset::App => app_dir = app_dir.or_else(|| root_dir.clone()),
            Preset::Python => flags = 0x1100,
            Preset::CondaPython => {
                flags = 0x1100;
                app_dir = app_dir.or_else(|| prefix.clone());
            }
            Preset::Torch => {
                flags = 0x1100;
                user_dirs.extend(root_dir.clone());
                let exec_prefix = prefix.clone().or_else(|| app_dir.clone());
                if let Some(p) = exec_prefix {
                    let lib_bin = w.join(&p, r"Library\bin");
                    if ctx.fs.is_dir(&lib_bin) {
                        user_dirs.push(lib_bin);
                    }
                }
            }
        }
        user_dirs.extend(opts.dll_dirs.iter().map(norm));
        if preset == Preset::CondaPython
            && let Some(p) = app_dir.clone().or(prefix)
        {
            user_dirs.extend(conda_dirs(&p));
        }
        let flags = opts.load_flags.unwrap_or(flags);
        let safe_dll_search = ctx
            .registry
            .value(SESSION_MANAGER_KEY, "SafeDllSearchMode")
            .is_none_or(|v| v.trim() != "0" && v.trim() != "0x0");
        let known_dlls = ctx
            .registry
            .key(KNOWN_DLLS_KEY)
            .map(|values| {
                values
                    .iter()
                    .filter(|(name, _)| !name.to_ascii_lowercase().starts_with("dlldirectory"))
                    .map(|(_, file)| file.trim().to_lowercase())
                    .filter(|f| !f.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        WindowsSearch {
            flags,
            safe_dll_search,
            app_dir,
            dll_load_dir: root_dir,
            user_dirs,
            set_dll_dir: opts.set_dll_dir.as_ref().map(norm),
            system16: w.join(&windows_dir, "System"),
            system32,
            windows_dir,
            cwd: opts.cwd.as_ref().map(norm),
            path: ctx
                .path_entries()
                .into_iter()
                .filter(|p| w.is_absolute(p))
                .map(|p| w.normalize(&p))
                .collect(),
            known_dlls,
            then_standard: preset == Preset::Torch && opts.load_flags.is_none(),
        }
    }

    /// The directories searched, in order, with the step each belongs to (duplicates dropped).
    pub fn steps(&self) -> Vec<(How, String)> {
        let mut steps: Vec<(How, String)> = Vec::new();
        let f = self.flags;
        let mut push = |how: How, dir: &Option<String>| {
            if let Some(d) = dir {
                steps.push((how, d.clone()));
            }
        };
        if f & SEARCH_FLAGS != 0 {
            let f = if f & LOAD_LIBRARY_SEARCH_DEFAULT_DIRS != 0 {
                f | 0xe00
            } else {
                f
            };
            if f & LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR != 0 {
                push(How::DllLoadDir, &self.dll_load_dir);
            }
            if f & LOAD_LIBRARY_SEARCH_APPLICATION_DIR != 0 {
                push(How::AppDir, &self.app_dir);
            }
            if f & LOAD_LIBRARY_SEARCH_USER_DIRS != 0 {
                for d in &self.user_dirs {
                    push(How::DllDirectory, &Some(d.clone()));
                }
                push(How::DllDirectory, &self.set_dll_dir);
            }
            if f & LOAD_LIBRARY_SEARCH_SYSTEM32 != 0 {
                push(How::System32, &Some(self.system32.clone()));
            }
            if self.then_standard {
                steps.extend(self.standard_steps(0, &self.user_dirs));
            }
        } else {
            steps.extend(self.standard_steps(f, &[]));
        }
        let mut seen: Vec<String> = Vec::new();
        steps.retain(|(_, d)| {
            let key = d.to_lowercase();
            let fresh = !seen.contains(&key);
            seen.push(key);
            fresh
        });
        steps
    }

    /// The standard order (SafeDllSearchMode, SetDllDirectory) for `flags` without search bits,
    /// with `path_front` before PATH.
    fn standard_steps(&self, flags: u32, path_front: &[String]) -> Vec<(How, String)> {
        let mut steps: Vec<(How, String)> = Vec::new();
        let mut push = |how: How, dir: &Option<String>| {
            if let Some(d) = dir {
                steps.push((how, d.clone()));
            }
        };
        if flags & LOAD_WITH_ALTERED_SEARCH_PATH != 0 && self.dll_load_dir.is_some() {
            push(How::DllLoadDir, &self.dll_load_dir);
        } else {
            push(How::AppDir, &self.app_dir);
        }
        let cwd = if self.set_dll_dir.is_some() {
            None
        } else {
            self.cwd.clone()
        };
        if !self.safe_dll_search {
            push(How::Cwd, &cwd);
        }
        push(How::DllDirectory, &self.set_dll_dir);
        push(How::System32, &Some(self.system32.clone()));
        push(How::WindowsDir, &Some(self.system16.clone()));
        push(How::WindowsDir, &Some(self.windows_dir.clone()));
        if self.safe_dll_search {
            push(How::Cwd, &cwd);
        }
        for d in path_front.iter().chain(&self.path) {
            push(How::Path, &Some(d.clone()));
        }
        steps
    }

    /// Resolves a DLL name (or path) for a process of machine `want`.
    pub fn resolve(&self, name: &str, want: &Machine, probe: &dyn FileProbe) -> Resolution {
        let w = Platform::Windows;
        let mut attempts: Vec<Attempt> = Vec::new();
        let mut name = name.trim().to_string();
        if !w.file_name(&name).contains('.') {
            name.push_str(".dll");
        }
        if name.contains(['\\', '/']) {
            let path = if w.is_absolute(&name) {
                w.normalize(&name)
            } else {
                let base = self.dll_load_dir.clone().unwrap_or_default();
                w.normalize(&w.join(&base, &name))
            };
            let dir = w.parent(&path).unwrap_or_default();
            return try_dir(probe, want, &path, &dir, How::Direct, &mut attempts)
                .unwrap_or_else(|| Resolution::missing(How::Direct, attempts));
        }
        let lower = name.to_lowercase();
        if is_api_set(&lower) {
            return Resolution::missing(How::ApiSet, attempts);
        }
        if self.known_dlls.contains(&lower) {
            let path = w.join(&self.system32, &name);
            if let Some(r) = try_dir(
                probe,
                want,
                &path,
                &self.system32,
                How::KnownDll,
                &mut attempts,
            ) {
                return r;
            }
        }
        for (how, dir) in self.steps() {
            let candidate = w.join(&dir, &name);
            if let Some(r) = try_dir(probe, want, &candidate, &dir, how, &mut attempts) {
                return r;
            }
        }
        let how = attempts.last().map_or(How::Path, |a| a.source);
        Resolution::missing(how, attempts)
    }
}

impl WindowsSearch {
    /// `LoadLibraryExW("bin\\x.dll")`: a relative path is searched for like a name, with the whole
    /// relative path appended to each folder of the search order (LoadLibrary's documentation:
    /// "If the string specifies a relative path or a module name without a path, the function
    /// uses a standard search strategy"). KnownDLLs and API sets never match a path.
    pub fn resolve_relative(&self, rel: &str, want: &Machine, probe: &dyn FileProbe) -> Resolution {
        let w = Platform::Windows;
        let mut attempts: Vec<Attempt> = Vec::new();
        let rel = rel.trim().replace('/', "\\");
        for (how, dir) in self.steps() {
            let candidate = w.normalize(&w.join(&dir, &rel));
            let folder = w.parent(&candidate).unwrap_or(dir);
            if let Some(r) = try_dir(probe, want, &candidate, &folder, how, &mut attempts) {
                return r;
            }
        }
        let how = attempts.last().map_or(How::Path, |a| a.source);
        Resolution::missing(how, attempts)
    }
}

/// API-set contract names: resolved by the loader from the API-set schema, never from disk.
pub fn is_api_set(lower_name: &str) -> bool {
    lower_name.starts_with("api-ms-win-") || lower_name.starts_with("ext-ms-")
}

/// `--load-flags` text that is not a number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a flag value (write it as hex, e.g. 0x1100)")]
pub struct BadFlags(pub String);

/// Parses `--load-flags` text: `0x1100`, `1100h` or decimal.
pub fn parse_flags(text: &str) -> Result<u32, BadFlags> {
    let t = text.trim();
    let parsed = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16)
    } else if let Some(hex) = t.strip_suffix(['h', 'H']) {
        u32::from_str_radix(hex, 16)
    } else {
        t.parse::<u32>()
    };
    parsed.map_err(|_| BadFlags(text.to_string()))
}

#[cfg(test)]
mod tests;
