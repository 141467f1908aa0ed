//! Run-time loaded dependencies: libraries a CUDA library opens with LoadLibrary/dlopen, which
//! no import table shows (cuDNN 8 → zlibwapi.dll and its sub-libraries, cuDNN 9 → cublasLt and
//! nvrtc, cuFFT → nvJitLink, everything → the driver). They come from the knowledge table
//! `assets/knowledge/runtime_loads.toml` (every row cites its source) and from library names
//! embedded as strings in the binary (`BinaryInfo.embedded_library_names`).

use super::glob_match;
use crate::engine::binfmt::BinaryInfo;
use crate::engine::context::Platform;
use serde::Deserialize;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../assets/knowledge/runtime_loads.toml");

/// One row of the table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRule {
    pub platform: Platform,
    pub parents: Vec<String>,
    pub loads: Vec<String>,
    pub required: bool,
    pub source: String,
    pub note: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    load: Vec<LoadRule>,
}

/// One library a binary opens at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeLoad {
    pub name: String,
    /// A miss breaks ordinary work (error) rather than one feature (warning) or nothing known.
    pub required: bool,
    /// Why we think it is loaded: the table's note and source, or "name embedded in the binary".
    pub reason: String,
}

/// The parsed table (empty if the built-in file were broken; a unit test keeps it valid).
pub fn rules() -> &'static [LoadRule] {
    static RULES: OnceLock<Vec<LoadRule>> = OnceLock::new();
    RULES.get_or_init(|| {
        toml::from_str::<Table>(TABLE)
            .map(|t| t.load)
            .unwrap_or_default()
    })
}

fn looks_like_library(platform: Platform, name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let plain = !name.contains(['/', '\\', ' ', '%', '*']) && !name.is_empty();
    plain
        && match platform {
            Platform::Windows => lower.ends_with(".dll"),
            Platform::Linux => lower.starts_with("lib") && lower.contains(".so"),
        }
}

/// Linux system libraries (glibc, the compiler runtimes, zlib) whose embedded strings name
/// optional plug-ins (NSS modules, `libgcc_s` from glibc's unwinder...), never CUDA libraries.
const LINUX_SYSTEM_LIBRARIES: &[&str] = &[
    "libc.so",
    "libm.so",
    "libdl.so",
    "libpthread.so",
    "librt.so",
    "ld-linux",
    "libresolv.so",
    "libutil.so",
    "libnsl.so",
    "libanl.so",
    "libstdc++.so",
    "libgcc_s.so",
    "libz.so",
    "libatomic.so",
    "libgomp.so",
];

/// Whether a library that resolved to `path` is the operating system's own (Windows: the Windows
/// folder, System32, SysWOW64; Linux: glibc and the compiler runtimes). Names embedded in such a
/// library are not followed as run-time loads: a clean cudart tree must not list `mono-2.0.dll`.
pub fn is_os_library(platform: Platform, path: &str, system_root: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    match platform {
        Platform::Windows => {
            let root = system_root.trim_end_matches('\\').to_ascii_lowercase();
            let dir = platform.parent(&lower).unwrap_or_default();
            dir == root || dir == format!("{root}\\system32") || dir == format!("{root}\\syswow64")
        }
        Platform::Linux => {
            let name = platform.file_name(&lower);
            LINUX_SYSTEM_LIBRARIES.iter().any(|s| name.starts_with(s))
        }
    }
}

/// Whether the names embedded in the library at `path` are followed as run-time loads: only for
/// NVIDIA's libraries (the knowledge table identifies them) and a Python framework's own files
/// (under site-packages), never for the operating system's or any other library's — their
/// strings name optional plug-ins (`mono-2.0.dll`, libselinux's helpers) that are noise here.
pub fn follows_embedded_names(platform: Platform, path: &str, system_root: &str) -> bool {
    if is_os_library(platform, path, system_root) {
        return false;
    }
    let lower = path.to_ascii_lowercase().replace('\\', "/");
    crate::engine::knowledge::identify_library(platform.file_name(path)).is_some()
        || lower.contains("/site-packages/")
        || lower.contains("/dist-packages/")
}

/// The run-time loads of one binary named `file_name`, minus what it imports at load time.
/// `follow_embedded` is false for the operating system's own libraries (see [`is_os_library`]):
/// only the knowledge table's rows apply to them.
pub fn runtime_loads(
    platform: Platform,
    file_name: &str,
    info: &BinaryInfo,
    follow_embedded: bool,
) -> Vec<RuntimeLoad> {
    let ci = platform.case_insensitive();
    let same = |a: &str, b: &str| platform.same_name(a, b);
    let mut out: Vec<RuntimeLoad> = Vec::new();
    let add = |out: &mut Vec<RuntimeLoad>, name: &str, required: bool, reason: String| {
        let taken = out.iter().any(|l| same(&l.name, name))
            || info.imports.iter().any(|i| same(&i.name, name))
            || same(name, file_name)
            || info.soname.as_deref().is_some_and(|s| same(s, name));
        if !taken {
            out.push(RuntimeLoad {
                name: name.to_string(),
                required,
                reason,
            });
        }
    };
    for rule in rules().iter().filter(|r| r.platform == platform) {
        if !rule.parents.iter().any(|p| glob_match(p, file_name, ci)) {
            continue;
        }
        let reason = format!("{} ({})", rule.note, rule.source);
        for load in &rule.loads {
            if load.contains(['*', '?']) {
                for embedded in &info.embedded_library_names {
                    if glob_match(load, embedded, ci) {
                        add(&mut out, embedded, rule.required, reason.clone());
                    }
                }
            } else {
                add(&mut out, load, rule.required, reason.clone());
            }
        }
    }
    for embedded in info
        .embedded_library_names
        .iter()
        .filter(|_| follow_embedded)
    {
        if looks_like_library(platform, embedded) {
            add(
                &mut out,
                embedded,
                false,
                "the name is embedded in the binary, which suggests it is opened at run time"
                    .to_string(),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operating_systems_own_libraries_are_recognised() {
        let w = Platform::Windows;
        assert!(is_os_library(
            w,
            r"C:\Windows\System32\ole32.dll",
            r"C:\Windows"
        ));
        assert!(is_os_library(
            w,
            r"c:\windows\SysWOW64\x.dll",
            r"C:\WINDOWS"
        ));
        assert!(!is_os_library(
            w,
            r"C:\Program Files\NVIDIA\CUDNN\v8.9\bin\cudnn64_8.dll",
            r"C:\Windows"
        ));
        let l = Platform::Linux;
        assert!(is_os_library(l, "/lib/x86_64-linux-gnu/libc.so.6", ""));
        assert!(is_os_library(
            l,
            "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
            ""
        ));
        assert!(!is_os_library(
            l,
            "/usr/lib/x86_64-linux-gnu/libcublas.so.12",
            ""
        ));
    }

    #[test]
    fn names_embedded_in_an_os_library_are_not_followed() {
        let mut info = pe64(&["KERNEL32.dll"]);
        info.embedded_library_names = vec!["mono-2.0.dll".into()];
        assert!(runtime_loads(Platform::Windows, "ole32.dll", &info, false).is_empty());
        let followed = runtime_loads(Platform::Windows, "mylib.dll", &info, true);
        assert_eq!(followed.len(), 1);
    }
    use crate::engine::loader::testing::{elf64, pe64};

    #[test]
    fn table_parses_and_cites_sources() {
        let parsed: Table = toml::from_str(TABLE).expect("runtime_loads.toml parses");
        assert!(parsed.load.len() >= 10);
        for rule in &parsed.load {
            assert!(rule.source.contains("https://"), "{rule:?}");
            assert!(!rule.parents.is_empty() && !rule.loads.is_empty());
        }
    }

    #[test]
    fn cudnn8_windows_loads_zlib_and_sub_libraries() {
        let info = pe64(&["cudnn_ops_infer64_8.dll", "KERNEL32.dll"]);
        let loads = runtime_loads(Platform::Windows, "CUDNN64_8.DLL", &info, true);
        let names: Vec<&str> = loads.iter().map(|l| l.name.as_str()).collect();
        assert!(names.contains(&"zlibwapi.dll"));
        assert!(names.contains(&"cudnn_cnn_infer64_8.dll"));
        assert!(
            !names.contains(&"cudnn_ops_infer64_8.dll"),
            "already imported"
        );
        assert!(names.contains(&"nvcuda.dll"));
    }

    #[test]
    fn patterns_take_names_from_the_binary() {
        let mut info = elf64(&["libz.so.1"]);
        info.soname = Some("libcudnn_engines_precompiled.so.9".into());
        info.embedded_library_names = vec![
            "libcublasLt.so.12".into(),
            "libnvrtc.so.12".into(),
            "libz.so.1".into(),
            "not a lib".into(),
        ];
        let loads = runtime_loads(
            Platform::Linux,
            "libcudnn_engines_precompiled.so.9.1.0",
            &info,
            true,
        );
        let names: Vec<(&str, bool)> = loads
            .iter()
            .map(|l| (l.name.as_str(), l.required))
            .collect();
        assert_eq!(
            names,
            vec![("libcublasLt.so.12", true), ("libnvrtc.so.12", true)]
        );
    }
}
