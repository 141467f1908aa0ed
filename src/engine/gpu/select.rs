//! Which library files the test loads: given one by one (`--driver`, `--cudart`, `--cublas`,
//! `--cudnn`), picked from a folder (`--dir`: a toolkit `bin`/`lib64`, pip `nvidia/*/lib`,
//! `torch\lib`), or left to the OS loader by the usual names. CUDA 11/12/13 and cuDNN 8/9 names
//! are recognised on Windows and Linux; the newest major version in a folder wins.

use super::results::Role;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where each library comes from: an absolute path, or `None` for "the OS loader's choice".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    pub driver: Option<PathBuf>,
    pub cudart: Option<PathBuf>,
    pub cublas: Option<PathBuf>,
    pub cudnn: Option<PathBuf>,
}

impl Selection {
    pub fn get(&self, role: Role) -> Option<&Path> {
        match role {
            Role::Driver => self.driver.as_deref(),
            Role::Cudart => self.cudart.as_deref(),
            Role::Cublas => self.cublas.as_deref(),
            Role::Cudnn => self.cudnn.as_deref(),
        }
    }

    pub fn set(&mut self, role: Role, path: Option<PathBuf>) {
        *self.slot(role) = path;
    }

    fn slot(&mut self, role: Role) -> &mut Option<PathBuf> {
        match role {
            Role::Driver => &mut self.driver,
            Role::Cudart => &mut self.cudart,
            Role::Cublas => &mut self.cublas,
            Role::Cudnn => &mut self.cudnn,
        }
    }

    /// Takes `other`'s file for every role this selection leaves to the OS.
    pub fn fill_unset(&mut self, other: &Selection) {
        for role in Role::ALL {
            if self.get(role).is_none() {
                self.set(role, other.get(role).map(Path::to_path_buf));
            }
        }
    }

    /// Fills the roles not chosen explicitly from files found under `dir`.
    pub fn fill_from(&mut self, files: &[PathBuf], windows: bool) {
        for role in Role::ALL {
            if self.get(role).is_none() {
                *self.slot(role) = pick(files, role, windows);
            }
        }
    }

    /// Command-line arguments that hand this selection to the child.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for role in Role::ALL {
            if let Some(p) = self.get(role) {
                args.push(format!("--{}", role.as_str()));
                args.push(p.display().to_string());
            }
        }
        args
    }
}

/// Names the OS loader is asked for, newest first, when no file was chosen for a role.
pub fn default_names(role: Role, windows: bool) -> &'static [&'static str] {
    match (role, windows) {
        (Role::Driver, true) => &["nvcuda.dll"],
        (Role::Driver, false) => &["libcuda.so.1"],
        (Role::Cudart, true) => &["cudart64_13.dll", "cudart64_12.dll", "cudart64_110.dll"],
        (Role::Cudart, false) => &["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"],
        (Role::Cublas, true) => &["cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"],
        (Role::Cublas, false) => &["libcublas.so.13", "libcublas.so.12", "libcublas.so.11"],
        (Role::Cudnn, true) => &["cudnn64_9.dll", "cudnn64_8.dll"],
        (Role::Cudnn, false) => &["libcudnn.so.9", "libcudnn.so.8"],
    }
}

/// NVML's library name, for messages.
pub fn nvml_name(windows: bool) -> &'static str {
    if windows {
        "nvml.dll"
    } else {
        "libnvidia-ml.so.1"
    }
}

/// The major version a file name carries for a role, if the name is that role's library
/// (`cublas64_12.dll` → 12, `libcudnn.so.8.9.2` → 8, `cudart64_110.dll` → 11). Names of
/// helper libraries (`cublasLt64_12.dll`, `libcudnn_ops.so.9`) do not match.
pub fn role_version(name: &str, role: Role, windows: bool) -> Option<u32> {
    let lower = name.to_ascii_lowercase();
    if windows {
        let stem = match role {
            Role::Driver => return (lower == "nvcuda.dll").then_some(0),
            Role::Cudart => "cudart64_",
            Role::Cublas => "cublas64_",
            Role::Cudnn => "cudnn64_",
        };
        let digits = lower.strip_prefix(stem)?.strip_suffix(".dll")?;
        let v: u32 = digits.parse().ok()?;
        // cudart64_110.dll / cudart64_101.dll name major*10+minor.
        Some(if v >= 100 { v / 10 } else { v })
    } else {
        let stem = match role {
            Role::Driver => "libcuda.so",
            Role::Cudart => "libcudart.so",
            Role::Cublas => "libcublas.so",
            Role::Cudnn => "libcudnn.so",
        };
        let rest = lower.strip_prefix(stem)?;
        if rest.is_empty() {
            return Some(0);
        }
        let major = rest.strip_prefix('.')?.split('.').next()?;
        major.parse().ok()
    }
}

/// The best file for a role among `files`: the highest major version, then the shortest name
/// (the SONAME link rather than a fully versioned file).
pub fn pick(files: &[PathBuf], role: Role, windows: bool) -> Option<PathBuf> {
    files
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            role_version(name, role, windows).map(|v| (v, name.len(), p))
        })
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, _, p)| p.clone())
}

/// Files under `dir`, up to three folders deep (enough for `site-packages/nvidia/*/lib` and
/// `torch/lib`), in a stable order. Unreadable folders are skipped, and so are `stubs` folders:
/// a toolkit's `lib64/stubs` holds link-time stand-ins (`libcuda.so`, `libcublas.so`) whose
/// every call fails, `CUDA_ERROR_STUB_LIBRARY` (34) for the driver (cuda.h: "the CUDA driver
/// that the application has loaded is a stub library"). On an H100, `--dir /usr/local/cuda/lib64`
/// picked the stub driver before this.
pub fn list_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                if depth > 0 && path.file_name().is_none_or(|n| n != "stubs") {
                    walk(&path, depth - 1, out);
                }
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, 3, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(names: &[&str]) -> Vec<PathBuf> {
        names
            .iter()
            .map(|n| PathBuf::from(format!("/x/{n}")))
            .collect()
    }

    #[test]
    fn windows_names_of_every_generation() {
        assert_eq!(
            role_version("cublas64_11.dll", Role::Cublas, true),
            Some(11)
        );
        assert_eq!(
            role_version("cuBLAS64_13.DLL", Role::Cublas, true),
            Some(13)
        );
        assert_eq!(role_version("cublasLt64_12.dll", Role::Cublas, true), None);
        assert_eq!(
            role_version("cudart64_110.dll", Role::Cudart, true),
            Some(11)
        );
        assert_eq!(
            role_version("cudart64_12.dll", Role::Cudart, true),
            Some(12)
        );
        assert_eq!(role_version("cudnn64_8.dll", Role::Cudnn, true), Some(8));
        assert_eq!(role_version("cudnn_ops64_9.dll", Role::Cudnn, true), None);
        assert_eq!(role_version("nvcuda.dll", Role::Driver, true), Some(0));
    }

    #[test]
    fn linux_names_of_every_generation() {
        assert_eq!(
            role_version("libcudnn.so.8.9.2", Role::Cudnn, false),
            Some(8)
        );
        assert_eq!(role_version("libcudnn.so.9", Role::Cudnn, false), Some(9));
        assert_eq!(role_version("libcudnn_cnn.so.9", Role::Cudnn, false), None);
        assert_eq!(role_version("libcublasLt.so.12", Role::Cublas, false), None);
        assert_eq!(
            role_version("libcublas.so.13", Role::Cublas, false),
            Some(13)
        );
        assert_eq!(
            role_version("libcudart.so.11.0", Role::Cudart, false),
            Some(11)
        );
        assert_eq!(role_version("libcuda.so.1", Role::Driver, false), Some(1));
        assert_eq!(
            role_version("libcudart_static.a", Role::Cudart, false),
            None
        );
    }

    #[test]
    fn pick_prefers_the_newest_major_and_the_shortest_name() {
        let files = paths(&[
            "libcublas.so.11",
            "libcublas.so.12.4.5.8",
            "libcublas.so.12",
            "libcublasLt.so.12",
            "libcudnn.so.8",
            "libcudnn.so.9",
            "libcudnn_ops.so.9",
        ]);
        assert_eq!(
            pick(&files, Role::Cublas, false),
            Some("/x/libcublas.so.12".into())
        );
        assert_eq!(
            pick(&files, Role::Cudnn, false),
            Some("/x/libcudnn.so.9".into())
        );
        assert_eq!(pick(&files, Role::Cudart, false), None);
    }

    #[test]
    fn fill_keeps_explicit_choices_and_builds_child_arguments() {
        let mut sel = Selection {
            cublas: Some("/chosen/libcublas.so.11".into()),
            ..Default::default()
        };
        sel.fill_from(&paths(&["libcublas.so.12", "libcudart.so.12"]), false);
        assert_eq!(sel.cublas, Some("/chosen/libcublas.so.11".into()));
        assert_eq!(sel.cudart, Some("/x/libcudart.so.12".into()));
        assert_eq!(sel.driver, None);
        assert_eq!(
            sel.to_args(),
            [
                "--cudart",
                "/x/libcudart.so.12",
                "--cublas",
                "/chosen/libcublas.so.11"
            ]
        );
    }

    #[test]
    fn a_toolkit_folder_never_gives_its_stub_driver() {
        let dir = tempfile::tempdir().unwrap();
        let lib64 = dir.path().join("lib64");
        std::fs::create_dir_all(lib64.join("stubs")).unwrap();
        for name in ["libcudart.so.13", "stubs/libcuda.so", "stubs/libcublas.so"] {
            std::fs::write(lib64.join(name), b"").unwrap();
        }
        std::fs::write(lib64.join("libcublas.so.13"), b"").unwrap();
        let files = list_files(dir.path());
        assert_eq!(pick(&files, Role::Driver, false), None);
        assert_eq!(
            pick(&files, Role::Cublas, false),
            Some(lib64.join("libcublas.so.13"))
        );
        assert_eq!(
            pick(&files, Role::Cudart, false),
            Some(lib64.join("libcudart.so.13"))
        );
    }

    #[test]
    fn a_pip_layout_is_found_three_levels_down() {
        let dir = tempfile::tempdir().unwrap();
        for (sub, file) in [
            ("nvidia/cublas/lib", "libcublas.so.12"),
            ("nvidia/cudnn/lib", "libcudnn.so.9"),
            ("nvidia/cuda_runtime/lib", "libcudart.so.12"),
        ] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            std::fs::write(dir.path().join(sub).join(file), b"").unwrap();
        }
        let files = list_files(dir.path());
        let mut sel = Selection::default();
        sel.fill_from(&files, false);
        assert!(
            sel.cublas
                .unwrap()
                .ends_with("nvidia/cublas/lib/libcublas.so.12")
        );
        assert!(sel.cudnn.unwrap().ends_with("libcudnn.so.9"));
        assert!(sel.cudart.is_some());
        assert!(list_files(Path::new("/no/such/dir")).is_empty());
    }

    #[test]
    fn defaults_cover_cuda_13_and_cudnn_8() {
        assert!(default_names(Role::Cublas, false).contains(&"libcublas.so.13"));
        assert!(default_names(Role::Cudnn, true).contains(&"cudnn64_8.dll"));
        assert_eq!(nvml_name(false), "libnvidia-ml.so.1");
    }
}
