//! Findings from what a message says beyond its names and codes ([`super::chains`]): the library
//! that is really missing in a chain, version integers decoded, a GPU architecture a tool
//! refused (with the CUDA releases whose `ptxas` knows it), and a driver API entry point the
//! loaded driver lacks (with the CUDA release whose `cuda.h` introduced it).

use super::chains::{Chain, RefusedArch, VersionInteger};
use super::extract::MissingSymbol;
use crate::engine::context::Platform;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixRef, Severity};
use crate::engine::knowledge::generated::generated;
use crate::engine::knowledge::{Knowledge, LibraryIdentity};

fn what(id: Option<&LibraryIdentity>) -> String {
    id.map(LibraryIdentity::describe)
        .unwrap_or_else(|| "a library CUDA Triage's tables do not name".to_string())
}

/// "A could not be loaded because B is missing": B is the library to install.
pub fn chain_findings(chains: &[Chain], k: &Knowledge) -> Vec<Finding> {
    chains
        .iter()
        .map(|c| {
            let missing = k.libraries.identify(&c.missing);
            let needer = k.libraries.identify(&c.needed_by);
            let missing_what = what(missing.as_ref());
            Finding::new(
                codes::LIBRARY_DEPENDENCY_MISSING,
                Severity::Error,
                format!(
                    "{} is missing: {} needs it ({missing_what})",
                    c.missing, c.needed_by
                ),
                format!(
                    "{} itself was found, but the loader could not load {}, which it depends on. \
                     Installing or re-linking {} does not help: {} ({missing_what}) must be installed and \
                     reachable by the loader. {} is {}.",
                    c.needed_by,
                    c.missing,
                    c.needed_by,
                    c.missing,
                    c.needed_by,
                    what(needer.as_ref())
                ),
            )
            .with_libraries([c.missing.clone(), c.needed_by.clone()])
            .with_evidence(Evidence::new("log", c.line.clone()))
            .with_fix(FixRef {
                id: "advice-install-dependency".into(),
                kind: "manual".into(),
                summary: format!(
                    "Install {missing_what} so that {} is found (on Linux: its folder on \
                     LD_LIBRARY_PATH or in the ld cache; on Windows: next to the program, on PATH, \
                     or in a folder added with os.add_dll_directory), then retry.",
                    c.missing
                ),
            })
        })
        .collect()
}

pub fn version_findings(ints: &[VersionInteger]) -> Vec<Finding> {
    if ints.is_empty() {
        return Vec::new();
    }
    let parts: Vec<String> = ints
        .iter()
        .map(|v| format!("{} = {} {}", v.number, v.product, v.decoded))
        .collect();
    let mut f = Finding::new(
        codes::VERSION_NUMBERS_DECODED,
        Severity::Info,
        format!("Version numbers in the text: {}", parts.join(", ")),
        "CUDA prints versions as integers: major × 1000 + minor × 10 (12010 = 12.1); cuDNN as \
         major × 1000 + minor × 100 + patch up to 8.x (8902 = 8.9.2) and major × 10000 + minor × 100 \
         + patch from 9.0 (90100 = 9.1.0)."
            .to_string(),
    );
    for v in ints {
        f = f.with_evidence(Evidence::new("log", v.line.clone()));
    }
    vec![f.with_evidence(Evidence::new(
        "source",
        "CUDA_VERSION in cuda.h and CUDNN_VERSION in cudnn_version.h of the nvidia-* wheels",
    ))]
}

pub fn arch_findings(archs: &[RefusedArch]) -> Vec<Finding> {
    let g = generated();
    let releases = g.ptxas_releases();
    let (Some(oldest), Some(newest)) = (releases.first(), releases.last()) else {
        return Vec::new();
    };
    archs
        .iter()
        .map(|a| {
            let detail = match g.arch_span(&a.arch) {
                Some((first, last)) if last == newest.cuda => format!(
                    "{} is known to ptxas from CUDA {first} on (of the releases read, {}-{}). The \
                     compiler that refused it is older than CUDA {first}: use a CUDA toolkit (ptxas/nvcc) \
                     of {first} or newer, or a framework build made with one.",
                    a.arch, oldest.cuda, newest.cuda
                ),
                Some((first, last)) => format!(
                    "{} is known to ptxas from CUDA {first} to {last} and was dropped after {last}. The \
                     compiler that refused it is newer: build this GPU's code with CUDA {last} or older \
                     (or upgrade the GPU).",
                    a.arch
                ),
                None => format!(
                    "No ptxas from CUDA {} to {} accepts {}: it is not an NVIDIA architecture name, or \
                     it is newer than every release read.",
                    oldest.cuda, newest.cuda, a.arch
                ),
            };
            Finding::new(
                codes::GPU_ARCH_REFUSED,
                Severity::Error,
                format!("The GPU architecture {} was refused", a.arch),
                detail,
            )
            .with_evidence(Evidence::new("log", a.line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "`ptxas --help` (--gpu-name values) of each nvidia-cuda-nvcc wheel on PyPI",
            ))
        })
        .collect()
}

/// Missing symbols that are CUDA driver API entry points: the driver is older than the CUDA
/// that introduced them.
pub fn driver_symbol_findings(symbols: &[MissingSymbol], k: &Knowledge) -> Vec<Finding> {
    let g = generated();
    symbols
        .iter()
        .filter_map(|s| {
            let e = g.entry_point(&s.symbol)?;
            let mins: Vec<String> = [Platform::Linux, Platform::Windows]
                .iter()
                .filter_map(|p| {
                    let r = k.drivers.min_driver(&e.since, *p)?;
                    Some(format!("{} on {p:?}", r.min_driver))
                })
                .collect();
            let since = if e.since == g.entry_points.sampled_from {
                format!("CUDA {} or earlier", e.since)
            } else {
                format!("CUDA {}", e.since)
            };
            let detail = format!(
                "{} is a CUDA driver API entry point, first declared in {since}'s cuda.h. The NVIDIA \
                 driver library that was loaded (libcuda.so.1 / nvcuda.dll) does not export it, so it \
                 is older than the CUDA release the program was built with. {}",
                s.symbol,
                if mins.is_empty() {
                    "Update the NVIDIA driver.".to_string()
                } else {
                    format!(
                        "Update the NVIDIA driver to at least {} ({since}'s minimum), or use a \
                         build of the program made for an older CUDA.",
                        mins.join(", ")
                    )
                }
            );
            Some(
                Finding::new(
                    codes::DRIVER_ENTRY_POINT_MISSING,
                    Severity::Error,
                    format!("The NVIDIA driver is older than the program needs: it lacks {}", s.symbol),
                    detail,
                )
                .with_evidence(Evidence::new("log", s.line.clone()))
                .with_evidence(Evidence::new(
                    "source",
                    "the CUresult functions and #define cuX cuX_vN lines of each CUDA release's cuda.h (nvidia-cuda-runtime wheels)",
                ))
                .with_fix(FixRef {
                    id: "advice-update-driver".into(),
                    kind: "manual".into(),
                    summary: "Install a newer NVIDIA driver (https://www.nvidia.com/Download/index.aspx) and reboot.".into(),
                }),
            )
        })
        .collect()
}
