//! Findings from what a message says beyond its names and codes ([`super::chains`]): the library
//! that is really missing in a chain, version integers decoded, PTX ISA refusals, and the CUDA a
//! driver supports (refused GPU architectures: [`super::arch_findings`]).

use super::chains::{Chain, VersionInteger, VersionPair};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::ptx_isa;
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
                kind: FixKind::Manual,
                summary: format!(
                    "Install {missing_what} so that {} is found (on Linux: its folder on \
                     LD_LIBRARY_PATH or in the ld cache; on Windows: next to the program, on PATH, \
                     or in a folder added with os.add_dll_directory), then retry.{}",
                    c.missing,
                    missing
                        .as_ref()
                        .map(|m| super::library_failure::pinned_release_advice(m, &c.needed_by))
                        .unwrap_or_default()
                ),
            })
        })
        .collect()
}

/// "Built with X, loaded Y": the library found first is not the one the program was built with.
pub fn pair_findings(pairs: &[VersionPair]) -> Vec<Finding> {
    pairs
        .iter()
        .map(|v| {
            // "the version torch was compiled with": the build is that framework's.
            let program = super::requester::framework_named(&v.line)
                .map(|f| format!("The program ({f})"))
                .unwrap_or_else(|| "The program".to_string());
            Finding::new(
                codes::VERSION_MISMATCH_REPORTED,
                Severity::Error,
                format!(
                    "{} mismatch: built with {} {}, but {} {} was loaded",
                    v.product, v.product, v.built, v.product, v.loaded
                ),
                format!(
                    "{program} was built against {p} {b}; the {p} found at run time is {l}. {p} is found \
                     through the library search (LD_LIBRARY_PATH, the ld cache, PATH, a conda \
                     environment's own lib folder or the program's own folders), so another copy of {p} \
                     comes first (a conda environment's {p} package, a pip wheel, a system install), or \
                     the one it needs is not installed.",
                    p = v.product,
                    b = v.built,
                    l = v.loaded
                ),
            )
            .with_evidence(Evidence::new("log", v.line.clone()))
            .with_fix(FixRef {
                id: "advice-matching-version".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Install {} {} (or a release the program accepts) and put its folder first on the \
                     library path, removing the {} copy from it; or use a build of the program made for {} {}.",
                    v.product, v.built, v.loaded, v.product, v.loaded
                ),
            })
        })
        .collect()
}

/// NVIDIA driver versions in the text, with the newest CUDA each supports.
pub fn driver_version_findings(drivers: &[(String, String)], k: &Knowledge) -> Vec<Finding> {
    drivers
        .iter()
        .map(|(v, line)| {
            let newest = k.drivers.newest_cuda_for_linux_driver(v);
            let detail = match &newest {
                Some(c) => format!(
                    "NVIDIA driver {v} supports CUDA up to {c} (NVIDIA's minimum driver per CUDA release, \
                     Linux). A program built for a newer CUDA needs a newer driver; when two driver \
                     versions appear (the kernel module's and the library's), they must be the same."
                ),
                None => format!(
                    "NVIDIA driver {v} is older than every CUDA release in the driver table: update the driver."
                ),
            };
            Finding::new(
                codes::VERSION_NUMBERS_DECODED,
                Severity::Info,
                format!(
                    "NVIDIA driver {v}{}",
                    newest.map(|c| format!(": supports CUDA up to {c}")).unwrap_or_default()
                ),
                detail,
            )
            .with_evidence(Evidence::new("log", line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html (CUDA Toolkit and minimum driver versions)",
            ))
        })
        .collect()
}

/// A ptxas refusing PTX of a newer ISA: the CUDA releases each PTX ISA belongs to (the
/// generated ptxas table, each release's ptxas naming its newest ISA, and the typed rows of the
/// releases before it).
pub fn ptx_isa_findings(refusals: &[(String, String, String)], k: &Knowledge) -> Vec<Finding> {
    refusals
        .iter()
        .map(|(asked, current, line)| {
            let first = ptx_isa::first_cuda_for_ptx_isa(asked, &k.compute);
            let needs = first
                .as_ref()
                .map(|cuda| format!("CUDA {cuda}"))
                .unwrap_or_else(|| "a CUDA release newer than any read".into());
            // The driver's own ptxas assembles PTX that is JIT-compiled: it needs that release's driver.
            let driver = first
                .and_then(|cuda| crate::engine::knowledge::drivers::requirement_words(&cuda, &k.drivers))
                .map(|w| format!(" For the driver's JIT: {w}"))
                .unwrap_or_default();
            let has = ptx_isa::cuda_releases_of_ptx_isa(current, &k.compute);
            let has = if has.is_empty() {
                format!("PTX ISA {current}")
            } else {
                format!("PTX ISA {current}, CUDA {}", has.join("/"))
            };
            Finding::new(
                codes::PTXAS_TOO_OLD,
                Severity::Error,
                format!("PTX ISA {asked} needs the ptxas of {needs}; the one that ran knows {has}"),
                format!(
                    "The PTX was generated for ISA {asked} (by a newer nvcc, NVRTC or Triton than the \
                     ptxas that assembles it); the ptxas that ran accepts up to {has}. PTX ISA {asked} \
                     is accepted from {needs}'s ptxas on. Use a ptxas (or, for PTX JIT-compiled by the \
                     driver, an NVIDIA driver) of {needs} or newer, or generate PTX for the older ISA.{driver}"
                ),
            )
            .with_evidence(Evidence::new("log", line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "the PTX ISA each nvidia-cuda-nvcc wheel's ptxas accepts (it names it when refusing a newer .version); before CUDA 11.8, NVIDIA's PTX ISA release history: https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#release-notes",
            ))
            .with_fix(FixRef {
                id: "advice-newer-ptxas".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Upgrade the ptxas to {needs}'s or newer (a newer CUDA toolkit first on PATH, or \
                     TRITON_PTXAS_PATH for Triton); where the driver's JIT compiles the PTX, update the \
                     driver to one of {needs} or newer; or generate PTX for ISA {current}."
                ),
            })
        })
        .collect()
}

pub fn version_findings(ints: &[VersionInteger], k: &Knowledge) -> Vec<Finding> {
    if ints.is_empty() {
        return Vec::new();
    }
    // A driver's own number ("NVIDIA driver ... too old (found version 6000)") is the newest CUDA
    // it runs: what the next releases need is the answer.
    let driver_limits: Vec<String> = ints
        .iter()
        .filter(|v| v.product == "CUDA" && v.line.to_ascii_lowercase().contains("driver"))
        .filter_map(|v| {
            let next = crate::engine::knowledge::drivers::minimums_after(&k.drivers, &v.decoded, 4);
            (!next.is_empty()).then(|| {
                format!(
                    " {} is the newest CUDA the driver supports ({}): programs built with a later CUDA \
                     need a newer driver. The minimum Linux driver of the next CUDA releases: {next}.",
                    v.decoded, v.number
                )
            })
        })
        .collect();
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
            .to_string()
            + &driver_limits.concat(),
    );
    for v in ints {
        f = f.with_evidence(Evidence::new("log", v.line.clone()));
    }
    vec![f.with_evidence(Evidence::new(
        "source",
        "CUDA_VERSION in cuda.h and CUDNN_VERSION in cudnn_version.h of the nvidia-* wheels",
    ))]
}
