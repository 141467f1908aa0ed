//! A line that says an NVIDIA library (any name the library tables identify, not the driver's:
//! see [`super::driver_library`]) did not load, in a host's own words — Julia's `could not load
//! library "libcublas"`, Rust's `Could not load the "libcublasLt.so.12" library`, MXNet's
//! `Cannot find libcudnn.so.7`, TensorRT-LLM's `Failed to load library: X` — where no more
//! specific finding (the Linux loader's message, a catalog row, a chain) already names it.

use super::driver_library::FAILURE_WORDS;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::LibraryIdentity;
use crate::engine::knowledge::generated::generated;

/// Words some hosts use beyond the driver finding's list.
const MORE_FAILURE_WORDS: &[&str] = &[
    "cannot find",
    "cannot found",
    "can't find",
    "failed to locate",
    // NVEncC's "requires \"nppc64_11.dll\", not available on your system"
    "not available on your system",
    // cuDNN's "Please make sure cudnn_cnn_infer64_8.dll is in your library path!"
    "is in your library path",
];

/// A catalog message whose line says a library did not load ("The Linux loader could not find
/// libcufft.so.10.0") names the file; what the file's name says of its release (cuFFT of CUDA
/// 10.0, cuDNN 8) is added to the error itself, so the reading says which release is missing and
/// that what asks for it was built for that release, not only in a note below. A message about a
/// library that did load (a symbol version it lacks, the glibc it needs) gets nothing: its log
/// line must pass [`failure_line`], as a library's own failure finding must.
pub fn name_releases_in_load_errors(findings: &mut [Finding], identities: &[LibraryIdentity]) {
    for (f, id) in failed_libraries(findings, identities) {
        if matches!(
            id.version_family.as_str(),
            "unknown" | "unversioned" | "any" | "driver"
        ) || f.detail.contains(&id.describe())
        {
            continue;
        }
        f.detail.push_str(&format!(
            " {} is {}: what asks for it was built against that release, so that release's library is the one missing (installing another release does not satisfy it).",
            id.file,
            id.describe()
        ));
    }
}

/// A load error for a library of a component that lives outside the folders a loader searches
/// (NVVM in the toolkit's nvvm/lib64) says where it is and how programs are pointed at it.
pub fn name_own_folders_in_load_errors(findings: &mut [Finding], identities: &[LibraryIdentity]) {
    let k = crate::engine::knowledge::knowledge();
    for f in load_errors(findings) {
        for id in identities.iter().filter(|id| f.summary.contains(&id.file)) {
            let off_path = k
                .locations
                .locations
                .iter()
                .any(|l| l.what == id.component && l.on_search_path == Some(false));
            if !off_path {
                continue;
            }
            let words = super::classify::own_folders(&id.component, &id.file);
            if !f.detail.contains(words.trim()) {
                f.detail.push_str(&words);
            }
        }
    }
}

/// Each load error that names exactly one identified library, with that library, where the
/// error's log line says the library did not load (not a library that loaded and lacks a symbol).
pub(super) fn failed_libraries<'f, 'i>(
    findings: &'f mut [Finding],
    identities: &'i [LibraryIdentity],
) -> impl Iterator<Item = (&'f mut Finding, &'i LibraryIdentity)> {
    load_errors(findings).filter_map(move |f| {
        let mut named = identities.iter().filter(|id| f.summary.contains(&id.file));
        let (Some(id), None) = (named.next(), named.next()) else {
            return None;
        };
        let said_to_fail = f.evidence.iter().any(|e| {
            e.kind == "log"
                && failure_line(&e.text, &id.file, &[FAILURE_WORDS, MORE_FAILURE_WORDS]).is_some()
        });
        said_to_fail.then_some((f, id))
    })
}

/// The error findings the catalog's message rows made (`log-…`), and this module's own
/// (`library-not-found`): a load failure a log reports.
pub(super) fn load_errors(findings: &mut [Finding]) -> impl Iterator<Item = &mut Finding> {
    findings.iter_mut().filter(|f| {
        f.severity == Severity::Error
            && (f.code.starts_with("log-") || f.code == codes::LIBRARY_NOT_FOUND)
    })
}

/// One error per identified library that a line says did not load and no finding names yet.
pub fn library_failure_findings(
    text: &str,
    identities: &[LibraryIdentity],
    earlier: &[Finding],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for id in identities
        .iter()
        .filter(|id| id.version_family != "driver" && id.component != "driver")
    {
        // Any finding that names it already says how it failed (a warning for an optional one).
        if earlier.iter().any(|f| names_library(f, &id.file)) {
            continue;
        }
        let Some(line) = failure_line(text, &id.file, &[FAILURE_WORDS, MORE_FAILURE_WORDS]) else {
            continue;
        };
        let what = id.describe();
        let shipped = if id.toolkits.is_empty() {
            String::new()
        } else {
            format!(
                " The CUDA toolkit releases that ship this name: CUDA {}.",
                id.toolkits.join(", ")
            )
        };
        let note = id
            .note
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let rebuild = pinned_release_advice(id, "the program");
        out.push(
            Finding::new(
                codes::LIBRARY_NOT_FOUND,
                Severity::Error,
                format!(
                    "{} could not be loaded: {what} is missing or not on the library search path",
                    id.file
                ),
                format!(
                    "The program asked the loader for {} ({what}) and did not get it: that library (in \
                     the major version the program was built for) is not installed, or is installed in \
                     a folder the loader does not search for this process.{shipped}{note}",
                    id.file
                ),
            )
            .with_libraries([id.file.clone()])
            .with_evidence(Evidence::new("log", super::extract::clip(line.trim())))
            .with_evidence(Evidence::new("source", id.source.clone()))
            .with_fix(FixRef {
                id: "advice-install-library".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Install {what} in the version the program needs ({}) and make it findable: on Linux its \
                     folder on LD_LIBRARY_PATH or in the ld cache (ldconfig); on Windows its bin folder \
                     on PATH or added with os.add_dll_directory; cuda-triage why {} shows where copies \
                     are on this machine.{rebuild}",
                    install_source(&id.file),
                    id.file
                ),
            }),
        );
    }
    out
}

/// Where `file` comes from: the pip wheels that ship it, as the generated file lists of the
/// wheels say ("the nvidia-cublas-cu11 11.11.3.6 wheel"), else the CUDA toolkit or a package.
fn install_source(file: &str) -> String {
    let mut wheels: Vec<&str> = generated()
        .files_named(file)
        .into_iter()
        .flat_map(|f| f.wheels.iter().map(String::as_str))
        .collect();
    wheels.sort_unstable();
    wheels.dedup();
    if wheels.is_empty() {
        "the CUDA toolkit or the matching nvidia-* pip wheel / conda package".to_string()
    } else {
        format!(
            "the pip wheel that ships it: {}; or the CUDA toolkit / conda package of that release",
            wheels.join(", ")
        )
    }
}

/// Whether a finding already names `file` (among its libraries or in its summary).
fn names_library(f: &Finding, file: &str) -> bool {
    f.libraries.iter().any(|l| l.eq_ignore_ascii_case(file)) || f.summary.contains(file)
}

/// The line of `text` that names `file` and says it did not load: the line itself holds one of
/// `words`, or (a message wrapped over lines, MATLAB's "The CUDA driver could not be loaded. /
/// The library name used was 'nvcuda.dll'.") the line before or after does and names no library
/// of its own. A line that says the library opened is never one.
pub(super) fn failure_line<'a>(text: &'a str, file: &str, words: &[&[&str]]) -> Option<&'a str> {
    let file = file.to_ascii_lowercase();
    // .NET names a DLL without its extension: "Unable to load DLL 'npps64_75'".
    let quoted_stem = file.strip_suffix(".dll").map(|stem| format!("'{stem}'"));
    let names = |lower: &str| {
        lower.contains(&file) || quoted_stem.as_ref().is_some_and(|q| lower.contains(q))
    };
    let lines: Vec<&str> = text.lines().collect();
    // "could not load symbol", "undefined symbol": the library loaded, a function of it is
    // missing (a finding of its own).
    let fails = |line: &str| {
        let lower = line.to_ascii_lowercase();
        !lower.contains("symbol")
            && words
                .iter()
                .flat_map(|w| w.iter())
                .any(|w| lower.contains(w))
    };
    let bare_failure = |i: usize| {
        lines
            .get(i)
            .is_some_and(|l| fails(l) && super::extract::libraries(l).is_empty())
    };
    lines.iter().enumerate().find_map(|(i, line)| {
        let lower = line.to_ascii_lowercase();
        // "libm.so.6: version `GLIBC_2.27' not found": the library loaded, a symbol version of it
        // is missing (a finding of its own).
        let symbol_version = (lower.contains("version `") || lower.contains("version '"))
            && lower.contains("' not found");
        // Ollama's "Unable to load cudart library .../libcuda.so.575.57.08: cuda driver library
        // init failure: 3": the library loaded and its initialisation returned that status
        // (https://github.com/ollama/ollama/issues/11593).
        let loaded_then_failed = lower.contains("init failure");
        if !names(&lower) || lower.contains("success") || symbol_version || loaded_then_failed {
            return None;
        }
        (fails(line) || (i > 0 && bare_failure(i - 1)) || bare_failure(i + 1)).then_some(*line)
    })
}

/// One error per library-like name the tables do not know (`libdcgm.so`, `nvToolsExt64_1.dll`)
/// that a line says did not load, where no finding names it yet: the text's own fact, said with
/// no claim about what the library belongs to.
pub fn unknown_library_failure_findings(
    text: &str,
    unrecognized: &[String],
    earlier: &[Finding],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for name in unrecognized {
        if earlier.iter().chain(&out).any(|f| names_library(f, name)) {
            continue;
        }
        let Some(line) = failure_line(text, name, &[FAILURE_WORDS, MORE_FAILURE_WORDS]) else {
            continue;
        };
        // "llamamodel-mainline-cuda.dll", "…\llama_cpp_cuda\lib\llama.dll", "win-cuda-12-0/…":
        // the program's own CUDA build, whose load also needs the driver and a CUDA runtime.
        let lower = line.to_ascii_lowercase();
        let lower_name = name.to_ascii_lowercase();
        let cuda_build = ["cuda", "cublas"].iter().any(|w| lower.contains(w))
            || ["_gpu", "-gpu", "gpu_", "cudnn"]
                .iter()
                .any(|w| lower_name.contains(w));
        let cuda_needs = if cuda_build {
            " Its name or folder says it is a CUDA build of the program: besides the file itself, \
             loading it needs the NVIDIA driver's library (nvcuda.dll on Windows, libcuda.so.1 on \
             Linux) and the CUDA runtime libraries it was linked against (cudart, cuBLAS of the CUDA \
             version it was built for). On Windows 'could not be found' (error 126, 0x7e) more often \
             means one of those is missing than the file itself."
        } else {
            ""
        };
        // xmr-stak's "cannot load backend library: xmrstak_cuda_backend.dll": antivirus software
        // had removed the program's own CUDA backend (fireice-uk/xmr-stak-nvidia#238).
        let quarantined = if cuda_build && name.to_ascii_lowercase().ends_with(".dll") {
            " Antivirus software also removes or blocks such files of GPU programs (miners above \
             all): when the file is missing from the program's folder, check the antivirus \
             quarantine, allow the folder, and extract the program again."
        } else {
            ""
        };
        let mut f = Finding::new(
                codes::LIBRARY_NOT_FOUND,
                Severity::Error,
                format!("{name} could not be loaded: it is missing or not on the library search path"),
                format!(
                    "The program asked the loader for {name} and did not get it. {name} is not a \
                     CUDA, cuDNN or driver library in CUDA Triage's tables: it belongs to the program \
                     itself or to another package it depends on, which is not installed, not in the \
                     version the program was built for, or in a folder the loader does not search.\
                     {cuda_needs}{quarantined}"
                ),
            )
            .with_libraries([name.clone()])
            .with_evidence(Evidence::new("log", super::extract::clip(line.trim())))
            .with_fix(FixRef {
                id: "advice-install-library".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Find the package that ships {name} (the program's install guide, or a search of \
                     its name) and install it in the version the program needs; then make its folder \
                     findable (Linux: LD_LIBRARY_PATH or ldconfig; Windows: PATH or \
                     os.add_dll_directory) and retry."
                ),
            });
        // yolo_cpp_dll_gpu.dll built for CUDA 9.2 on a machine with 9.1
        // (https://github.com/AlturosDestinations/Alturos.Yolo/issues/13).
        if cuda_build {
            f = f.with_fix(FixRef {
                id: "advice-install-build-cuda".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "If {name} is there, install the matching CUDA release it was built with (the \
                     required CUDA version the program's documentation names; before CUDA 11 each \
                     release's DLLs and sonames have their own names, so another release's do not \
                     serve) and its cuDNN, with their folders on PATH / the library path; cuda-triage \
                     tree on {name} lists which of its imports is missing."
                ),
            });
        }
        out.push(f);
    }
    out
}

/// A name only one CUDA release ships pins whatever was linked against it to that release:
/// where another release is installed (a system upgrade), `program` needs a build for it.
pub fn pinned_release_advice(id: &LibraryIdentity, program: &str) -> String {
    match &id.toolkits[..] {
        [only] => format!(
            " Or, where another CUDA release replaced {only} on purpose (a system or conda upgrade), \
             reinstall or rebuild {program} against the CUDA release installed: it was linked against \
             CUDA {only}'s file names."
        ),
        _ => String::new(),
    }
}
