//! A library a build cannot find: the linker's `cannot find -lnvinfer` (GNU ld, gold, lld's
//! `unable to find library -lX`, Apple ld's `library not found for -lX`, MSVC's `LNK1181: cannot open input file 'X.lib'`) and CMake's
//! `Could NOT find NVML (missing: NVML_LIBRARIES)`. The name is identified from the library
//! tables (the wheels' generated file lists first), and the finding says what installs it: the
//! NVIDIA driver for its own libraries (the toolkit has only link-time stubs of them), the CUDA
//! toolkit or a wheel for the others; a name no release read ships is said to be one.

use super::load_error_sources::installed_by;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::generated::generated;
use crate::engine::knowledge::{Knowledge, LibraryIdentity};
use regex::Regex;
use std::sync::OnceLock;

/// How the build asked for the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asker {
    /// GNU ld, gold or lld: `-l<name>`.
    Linker,
    /// MSVC's linker: `<name>.lib`.
    MsvcLinker,
    CMake,
}

/// A library a build step could not find, as its line names it.
#[derive(Debug, Clone)]
struct MissingAtBuild {
    asker: Asker,
    /// The name as written: `nvinfer` (`-lnvinfer`), `cudnn` (`cudnn.lib`), `NVML` (CMake).
    written: String,
    line: String,
}

fn patterns() -> &'static [(Regex, Asker); 3] {
    static RE: OnceLock<[(Regex, Asker); 3]> = OnceLock::new();
    RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        [
            (
                re(r"(?:cannot find|unable to find library|library not found for) -l:?(?:lib)?([A-Za-z0-9_+\-]+?)(?:\.so[0-9.]*|\.a)?(?:[:\s]|$)"),
                Asker::Linker,
            ),
            (
                re(r"(?i)LNK1181:\s*cannot open input file '([A-Za-z0-9_+\-]+)\.lib'"),
                Asker::MsvcLinker,
            ),
            (
                re(r"Could NOT find ([A-Za-z][A-Za-z0-9_]*)\s*\(missing:"),
                Asker::CMake,
            ),
        ]
    })
}

/// CMake find-module names whose library file has another stem (CMake's FindCUDAToolkit names
/// NVML's target `CUDA::nvml` for `libnvidia-ml`; TensorRT's runtime is `libnvinfer`).
const MODULE_STEMS: &[(&str, &str)] = &[("nvml", "nvidia-ml"), ("tensorrt", "nvinfer")];

/// CMake packages other rows read (the toolkit itself: "No CMAKE_CUDA_COMPILER could be found").
const TOOLKIT_MODULES: &[&str] = &["cuda", "cudatoolkit", "cudnn_frontend"];

fn missing_at_build(text: &str) -> Vec<MissingAtBuild> {
    let mut out: Vec<MissingAtBuild> = Vec::new();
    for line in text.lines() {
        for (re, asker) in patterns() {
            for c in re.captures_iter(line) {
                let written = c[1].to_string();
                if *asker == Asker::CMake
                    && TOOLKIT_MODULES.contains(&written.to_ascii_lowercase().as_str())
                {
                    continue;
                }
                if !out.iter().any(|m| m.written == written) {
                    out.push(MissingAtBuild {
                        asker: *asker,
                        written,
                        line: super::extract::clip(line),
                    });
                }
            }
        }
    }
    out
}

/// The identity of a link stem: `lib<stem>.so`, a versioned file the wheels ship under that
/// name (`libnccl.so.2`), or the Windows `<stem>.dll`.
fn identify_stem(k: &Knowledge, stem: &str) -> Option<LibraryIdentity> {
    let lower = stem.to_ascii_lowercase();
    let stem = MODULE_STEMS
        .iter()
        .find(|(module, _)| *module == lower)
        .map_or(stem, |(_, s)| *s);
    let so = format!("lib{stem}.so");
    let known = |id: &LibraryIdentity| id.version_family != "unknown" || id.component != "unknown";
    if let Some(id) = k.libraries.identify(&so).filter(known) {
        return Some(id);
    }
    // The versioned file stands for the link name: what installs it installs both.
    k.libraries.identify(versioned_file(&so)?)
}

/// A versioned file the wheels ship under a link name (`libcufile.so` → `libcufile.so.0`).
fn versioned_file(link_name: &str) -> Option<&'static str> {
    let prefix = format!("{}.", link_name.to_ascii_lowercase());
    generated()
        .libraries
        .file
        .iter()
        .find(|f| f.name.to_ascii_lowercase().starts_with(&prefix))
        .map(|f| f.name.as_str())
}

/// What installs an unversioned link name, from the versioned file the wheels ship under it
/// (`libcufile.so` → `libcufile.so.0`).
fn versioned_install(k: &Knowledge, id: &LibraryIdentity) -> Option<String> {
    installed_by(&k.libraries.identify(versioned_file(&id.file)?)?)
}

/// Whether the driver installs the library (`libcuda.so.1`, `libnvidia-ml.so.1`).
fn from_the_driver(k: &Knowledge, id: &LibraryIdentity) -> bool {
    id.version_family == "driver"
        || id.component == "driver"
        || k.libraries
            .identify(&format!("{}.1", id.file))
            .is_some_and(|d| d.version_family == "driver")
}

fn finding_for(m: &MissingAtBuild, k: &Knowledge) -> Option<Finding> {
    let (what, how) = match m.asker {
        Asker::Linker => (
            format!("The linker cannot find lib{w} (-l{w})", w = m.written),
            "Linking searches the -L folders, LIBRARY_PATH and the system's library folders, not LD_LIBRARY_PATH.",
        ),
        Asker::MsvcLinker => (
            format!("The linker cannot find {}.lib", m.written),
            "MSVC's linker searches the /LIBPATH folders and the LIB environment variable for import libraries; the CUDA toolkit keeps its own in <toolkit>\\lib\\x64.",
        ),
        Asker::CMake => (
            format!("CMake could not find {}", m.written),
            "CMake looks in the system's folders and in those its hint variables name (<Package>_ROOT, CMAKE_PREFIX_PATH, or the find module's own variables).",
        ),
    };
    let Some(id) = identify_stem(k, &m.written) else {
        let lower = m.written.to_ascii_lowercase();
        if !(lower.starts_with("nv") || lower.starts_with("cu")) {
            return None;
        }
        return Some(
            Finding::new(
                codes::BUILD_LIBRARY_UNKNOWN_RELEASE,
                Severity::Warning,
                format!("{what}: no CUDA, cuDNN, NCCL or TensorRT release read ships lib{}", m.written),
                format!(
                    "{how} lib{w} is not among the files of the NVIDIA packages this tool has read (the wheels of CUDA 11.x-13.x, cuDNN, NCCL, cuSPARSELt, cuTENSOR and TensorRT on PyPI): a library of an older release that was removed or merged into another, one from an SDK outside these (JetPack, DeepStream, the Video Codec SDK), or a misspelt name.",
                    w = m.written
                ),
            )
            .with_evidence(Evidence::new("log", m.line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "the file lists of the nvidia-*, cutensor-* and tensorrt-*-libs wheels on PyPI (generated); an example: https://github.com/dusty-nv/jetson-inference/issues/1298 (-lnvcaffe_parser, a library the installed TensorRT no longer had; linking nvparsers fixed the build)",
            ))
            .with_fix(FixRef {
                id: "advice-build-library-release".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Check which release of the SDK the project was written for and install that one, or update the project's build files to the library that replaced lib{} in the release you have (its release notes say which).",
                    m.written
                ),
            }),
        );
    };
    let named = match m.asker {
        Asker::MsvcLinker => id.component.clone(),
        _ => format!("{}, {}", id.file, id.component),
    };
    let installed = if from_the_driver(k, &id) {
        format!(
            " {} ({}) is installed by the NVIDIA driver, not by the CUDA toolkit: the toolkit has only a link-time stub of it in <toolkit>/lib64/stubs. A build on a machine (or in a container image) without the driver must point the linker at that stub; on WSL 2 the driver's libraries are in /usr/lib/wsl/lib, which no linker searches by default.",
            id.file, id.component
        )
    } else if m.asker == Asker::MsvcLinker {
        format!(
            " {}.lib is {}'s import library, installed with its DLLs.",
            m.written, id.component
        )
    } else {
        installed_by(&id)
            .or_else(|| versioned_install(k, &id))
            .unwrap_or_else(|| format!(" {} is {}'s library.", id.file, id.component))
    };
    let fix = match m.asker {
        Asker::MsvcLinker => format!(
            "Find the folder that holds {stem}.lib (the CUDA toolkit's lib\\x64, cuDNN's lib\\x64 or lib\\<CUDA version>\\x64) and add it to the project's Additional Library Directories (/LIBPATH) or to LIB.",
            stem = m.written
        ),
        Asker::Linker => format!(
            "Find where {file} is installed (ldconfig -p | grep {stem}; find / -name '{file}*' 2>/dev/null) and pass that folder with -L or LIBRARY_PATH; install the package that provides it if it is nowhere.",
            file = id.file,
            stem = m.written
        ),
        Asker::CMake => format!(
            "Install what provides {file} (see above) and tell CMake where it is: {pkg}_ROOT or CMAKE_PREFIX_PATH set to its install folder (delete CMakeCache.txt before re-running).",
            file = id.file,
            pkg = m.written
        ),
    };
    Some(
        Finding::new(
            codes::BUILD_LIBRARY_NOT_FOUND,
            Severity::Error,
            format!("{what} ({named})"),
            format!("{how}{installed}"),
        )
        .with_evidence(Evidence::new("log", m.line.clone()))
        .with_evidence(Evidence::new("source", id.source.clone()))
        .with_fix(FixRef {
            id: "advice-build-library-path".into(),
            kind: FixKind::Manual,
            summary: fix,
        }),
    )
}

/// Findings for the libraries build steps could not find, on lines `unread` allows (a line a
/// specific catalog row reads keeps that row's reading).
pub fn build_link_findings(
    text: &str,
    k: &Knowledge,
    unread: impl Fn(&str) -> bool,
) -> Vec<Finding> {
    missing_at_build(text)
        .iter()
        .filter(|m| unread(&m.line))
        .filter_map(|m| finding_for(m, k))
        .collect()
}
