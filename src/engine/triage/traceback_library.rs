//! The library a Python traceback was loading when Windows refused a DLL without naming it
//! ("OSError: [WinError 126] The specified module could not be found", in any display language):
//! the innermost frame whose function, file or code names an NVIDIA library (pynvrtc's
//! `_load_nvrtc_lib`, a `load_cudnn` helper) says which one. Its file names carry the CUDA
//! release, from the generated file lists, so a binding that asks for one release's file needs
//! that release.

use super::extract::clip;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::generated::generated;
use crate::engine::knowledge::libraries::component_of_file;
use regex::Regex;
use std::sync::OnceLock;

struct Patterns {
    refused: Regex,
    frame: Regex,
    library_word: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            refused: re(r"\[WinError 126\]"),
            frame: re(r#"^\s*File "([^"]+)", line [0-9]+, in ([A-Za-z0-9_<>]+)"#),
            library_word: re(
                r"(?i)(?:^|[^a-z0-9])(nvrtc|cudnn|cublaslt|cublas|cufft|curand|cusolver|cusparse|nccl|nvml|nvjitlink|cupti|cudart|nvcuda|nvinfer)",
            ),
        }
    })
}

/// A finding for each refused load whose traceback names the library being loaded, where the
/// refusal line names no DLL itself.
pub fn traceback_library_findings(text: &str) -> Vec<Finding> {
    let p = patterns();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let lower = line.to_ascii_lowercase();
        if !p.refused.is_match(line) || lower.contains(".dll") || lower.contains(".pyd") {
            continue;
        }
        if let Some((word, frame)) = innermost_library_frame(&lines[..at]) {
            out.push(finding(&word, &frame, line));
        }
    }
    out
}

/// The innermost frame of the traceback just above the refusal that names a library: the word
/// and the frame's lines (its `File ...` line and its code).
fn innermost_library_frame(above: &[&str]) -> Option<(String, String)> {
    let p = patterns();
    let frames: Vec<usize> = above
        .iter()
        .enumerate()
        .filter(|(_, l)| p.frame.is_match(l))
        .map(|(i, _)| i)
        .collect();
    frames.iter().rev().find_map(|&i| {
        let c = p.frame.captures(above[i])?;
        let file = c[1].replace('\\', "/");
        // Python's own ctypes wrapper is how every load is made, not what was loaded.
        if file.contains("/ctypes/") || file.contains("ctypes_init") {
            return None;
        }
        let code = above.get(i + 1).filter(|l| !p.frame.is_match(l)).copied();
        let stem = file.rsplit('/').next().unwrap_or(&file).to_string();
        [&c[2], stem.as_str(), code.unwrap_or("")]
            .into_iter()
            .find_map(|part| p.library_word.captures(part).map(|w| w[1].to_string()))
            .map(|word| {
                let frame = std::iter::once(above[i].trim())
                    .chain(code.map(str::trim))
                    .collect::<Vec<_>>()
                    .join(" / ");
                (word, frame)
            })
    })
}

fn finding(word: &str, frame: &str, line: &str) -> Finding {
    let component = component_of_file(word).unwrap_or("the NVIDIA library");
    let mut names: Vec<&str> = generated()
        .libraries
        .file
        .iter()
        .filter(|f| f.platform == "windows" && f.component == component)
        .map(|f| f.name.as_str())
        .filter(|n| !n.contains(".alt."))
        .collect();
    names.sort_unstable();
    names.dedup();
    let named = if names.is_empty() {
        String::new()
    } else {
        format!(
            " Its DLL is named after the CUDA release it belongs to ({} among them), so a binding or \
             package that asks for one release's file loads nothing on a machine with another: \
             that release's toolkit (its bin folder on PATH), or a release of the binding made \
             for the CUDA installed, is what it needs.",
            names.join(", ")
        )
    };
    Finding::new(
        codes::LIBRARY_FROM_TRACEBACK,
        Severity::Error,
        format!("The DLL Windows could not load is {component}'s: the traceback was loading it"),
        format!(
            "Windows' error 126 names no file, but the innermost frame of the traceback that \
             names a library shows what was being loaded: {frame}.{named} The file itself may \
             be present with a DLL it needs missing; `cuda-triage scan` on that machine shows \
             which of its files are there and which the search finds."
        ),
    )
    .with_libraries([component.to_string()])
    .with_evidence(Evidence::new("log", clip(line)))
    .with_evidence(Evidence::new("log", clip(frame)))
    .with_evidence(Evidence::new(
        "source",
        "https://github.com/asappresearch/sru/issues/72 (pynvrtc's _load_nvrtc_lib refused with \
         WinError 126: a pynvrtc made for another CUDA release's nvrtc64 DLL)",
    ))
    .with_fix(FixRef {
        id: "advice-install-traced-library".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Install the CUDA release whose {component} DLL the program asks for and put its bin \
             folder on PATH (or let the package add it with os.add_dll_directory), or install \
             the release of the package or binding made for the CUDA you have."
        ),
    })
}
