//! A compile error against a CUDA header whose driver API function changed its parameters.
//! cuda.h binds each plain name to a versioned symbol (`#define cuCtxCreate cuCtxCreate_v2`),
//! and a later release can bind it to another with other parameters (13.0: `cuCtxCreate_v4`,
//! which takes a `CUctxCreateParams*`): code written for the earlier symbol then no longer
//! compiles, and the compiler names the new symbol ("cannot convert ... initializing argument 2
//! of 'CUresult cuCtxCreate_v4(...)'", MSVC's "C2664: 'CUresult cuCtxCreate_v4(...)'"). The
//! release and the symbol replaced come from the generated entry-point table (each release's
//! cuda.h), so every rebinding NVIDIA made is read, not a typed list.

use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::generated::generated;
use regex::Regex;
use std::sync::OnceLock;

/// A versioned driver API symbol printed with its parameter list, as compilers print a callee.
fn signature() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| crate::engine::static_regex::compile(r"\b(cu[A-Z][A-Za-z0-9]*_v[0-9]+)\s*\("))
}

/// Whether a line is a compiler's diagnostic (GCC/Clang's `error:`/`note:`, MSVC's `error C2664`).
fn is_compiler_diagnostic(line: &str) -> bool {
    const WORDS: [&str; 8] = [
        "error:",
        "note:",
        "error C",
        "cannot convert",
        "too few arguments",
        "too many arguments",
        "no matching function",
        "candidate",
    ];
    WORDS.iter().any(|w| line.contains(w))
}

/// One finding per rebound symbol a compiler diagnostic names.
pub fn rebound_api_findings(text: &str) -> Vec<Finding> {
    let g = generated();
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| is_compiler_diagnostic(l)) {
        for c in signature().captures_iter(line) {
            let symbol = c[1].to_string();
            if seen.contains(&symbol) {
                continue;
            }
            let Some((entry, release, replaced)) = g.rebound_entry_point(&symbol) else {
                continue;
            };
            seen.push(symbol.clone());
            let plain = symbol.rsplit_once("_v").map_or(symbol.as_str(), |(b, _)| b);
            let declared = if entry.exact {
                format!(" (declared since CUDA {})", entry.since)
            } else {
                String::new()
            };
            out.push(
                Finding::new(
                    codes::CUDA_API_CHANGED,
                    Severity::Error,
                    format!(
                        "From CUDA {release} on, {plain} means {symbol}, with another signature: the code was written for the older {replaced}"
                    ),
                    format!(
                        "The CUDA toolkit this build compiles against is {release} or newer: its cuda.h \
                         #defines {plain} as {symbol}{declared}, whose parameters differ from those of \
                         {replaced}, what {plain} meant in the releases before. The code calls {plain} \
                         with the earlier parameters, so it does not compile: an API change in CUDA \
                         {release}, not a broken install. The program (or the version of it) was written \
                         for a CUDA older than {release}."
                    ),
                )
                .with_evidence(Evidence::new("log", line.trim().to_string()))
                .with_evidence(Evidence::new(
                    "source",
                    format!(
                        "#define {plain} {symbol} in cuda.h from CUDA {release} (each release's cuda.h, \
                         the nvidia-cuda-runtime wheels on PyPI); https://docs.nvidia.com/cuda/cuda-driver-api/index.html"
                    ),
                ))
                .with_fix(FixRef {
                    id: "advice-update-code-for-cuda-api".into(),
                    kind: FixKind::Manual,
                    summary: format!(
                        "Update the program to a release that supports CUDA {release} (or change the call \
                         to {symbol}'s parameters under #if CUDA_VERSION >= {}), or build it with a CUDA \
                         toolkit older than {release} (point CUDA_HOME / PATH or CMake's \
                         CMAKE_CUDA_COMPILER at it).",
                        cuda_version_macro(release)
                    ),
                }),
            );
        }
    }
    out
}

/// "13.0" → 13000, as cuda.h's `CUDA_VERSION` spells a release.
fn cuda_version_macro(release: &str) -> String {
    let mut parts = release.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major * 1000 + minor * 10).to_string()
}
