//! A driver's CUDA version and a CUDA runtime's version printed side by side ("Driver API
//! Version: 11.4, Runtime API Version: 11.7", "CUDA driver version 10.1 ... runtime version
//! 10.2"): the runtime needs a driver at least as new as itself, except within one CUDA 11+ major,
//! where minor-version compatibility lets it run without the newer PTX JIT and APIs. The two may
//! also be on consecutive lines.

use super::extract::clip;
use crate::engine::context::Platform;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::version::{compare, major_part as major};
use regex::Regex;
use std::cmp::Ordering;
use std::sync::OnceLock;

/// (driver's CUDA, runtime's CUDA, line) for each line that prints both.
pub fn driver_runtime_pairs(text: &str) -> Vec<(String, String, String)> {
    static RE: OnceLock<[Regex; 2]> = OnceLock::new();
    let [driver_first, runtime_first] = RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        [
            re(
                r"(?i)\bdriver(?: api)?(?: version)?\s*[:=]?\s*([1-9][0-9]?\.[0-9])\b[^\n]{0,60}?\bruntime(?: api)?(?: version)?\s*[:=]?\s*([1-9][0-9]?\.[0-9])\b",
            ),
            re(
                r"(?i)\bruntime(?: api)?(?: version)?\s*[:=]?\s*([1-9][0-9]?\.[0-9])\b[^\n]{0,60}?\bdriver(?: api)?(?: version)?\s*[:=]?\s*([1-9][0-9]?\.[0-9])\b",
            ),
        ]
    });
    let mut out: Vec<(String, String, String)> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    // Each line, then each line joined with the next: programs that log the two versions on
    // consecutive lines ("Cuda driver version: 11.2" / "Cuda runtime API version: 11.4").
    let joined = lines.windows(2).map(|w| format!("{} {}", w[0], w[1]));
    for line in lines.iter().map(|l| l.to_string()).chain(joined) {
        let line = line.as_str();
        let pair = driver_first
            .captures(line)
            .map(|c| (c[1].to_string(), c[2].to_string()))
            .or_else(|| {
                runtime_first
                    .captures(line)
                    .map(|c| (c[2].to_string(), c[1].to_string()))
            });
        if let Some((d, r)) = pair
            && !out.iter().any(|(od, or, _)| *od == d && *or == r)
        {
            out.push((d, r, clip(line)));
        }
    }
    out
}

/// A finding per pair whose runtime is newer than the driver.
pub fn driver_runtime_findings(text: &str, k: &Knowledge) -> Vec<Finding> {
    driver_runtime_pairs(text)
        .into_iter()
        .filter(|(d, r, _)| compare(r, d) == Some(Ordering::Greater))
        .map(|(d, r, line)| {
            let minimum = k
                .drivers
                .min_driver(&r, Platform::Linux)
                .map(|m| format!(" CUDA {r} needs driver {} or newer (Linux).", m.min_driver))
                .unwrap_or_default();
            // Within one major that has minor-version compatibility (the table's rows: 11, 12, 13).
            let same_major = major(&d) == major(&r)
                && major(&r)
                    .parse::<u64>()
                    .is_ok_and(|m| k.drivers.minor_compat(m).is_some());
            let (severity, summary, detail) = if same_major {
                (
                    Severity::Warning,
                    format!("The driver supports CUDA {d}; the CUDA runtime in use is {r}"),
                    format!(
                        "From CUDA 11 a runtime runs on the driver of an older minor release of the \
                         same major (minor-version compatibility), without what needs the newer \
                         driver: PTX built by CUDA {r} cannot be JIT-compiled (error 222, \
                         'unsupported toolchain') and newer API calls fail.{minimum}"
                    ),
                )
            } else {
                (
                    Severity::Error,
                    format!("The driver supports CUDA {d}, older than the CUDA {r} runtime in use"),
                    format!(
                        "A CUDA runtime needs a driver that supports its release (before CUDA 11 \
                         exactly, from CUDA 11 within the same major): this driver cannot run CUDA \
                         {r} programs.{minimum}"
                    ),
                )
            };
            Finding::new(codes::DRIVER_TOO_OLD, severity, summary, detail)
                .with_evidence(Evidence::new("log", line))
                .with_evidence(Evidence::new(
                    "source",
                    "NVIDIA CUDA Compatibility (minor-version compatibility, minimum drivers): https://docs.nvidia.com/deploy/cuda-compatibility/",
                ))
                .with_fix(FixRef {
                    id: "advice-update-driver".into(),
                    kind: FixKind::Manual,
                    summary: format!(
                        "Update the driver to one that supports CUDA {r}, or install the \
                         program's build for CUDA {d}."
                    ),
                })
        })
        .collect()
}
