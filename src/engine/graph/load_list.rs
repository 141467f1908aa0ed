//! A framework's load list: the CUDA libraries its own code opens at run time, beyond the
//! import tables of its entry libraries — the rows of knowledge `framework_loads.toml` for its
//! release, platform and CUDA (TensorFlow's DsoLoader, torch's LazyNVRTC, the JAX CUDA plugin),
//! each name with the row it comes from. A framework no row speaks for, whose entry libraries
//! cannot be read (placeholders in a machine file), gets the generic component list as a guess
//! (`row: None`), which findings may only warn about and must call a guess. File names follow the
//! CUDA family of the build (knowledge `shipped_by`), never TensorFlow's build_info DLL names.

use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::{Evidence, Severity};
use crate::engine::graph::process::PresenceProbe;
use crate::engine::inventory::{Framework, FrameworkKind};
use crate::engine::knowledge::framework_loads::{LoadRow, LoadWhen};
use crate::engine::knowledge::{self, LibraryRow};

/// The generic guess for a framework no `framework_loads.toml` row speaks for (besides cuDNN).
const GUESSED_COMPONENTS: &[&str] = &[
    "CUDA runtime",
    "cuBLAS",
    "cuBLASLt",
    "cuFFT",
    "cuRAND",
    "cuSOLVER",
    "cuSPARSE",
];

/// One library on a framework's load list, and the row it comes from (`None`: guessed).
pub struct Load {
    pub name: String,
    pub row: Option<&'static LoadRow>,
}

impl Load {
    pub fn severity(&self) -> Severity {
        match self.row.map(|r| r.when) {
            Some(LoadWhen::Device) => Severity::Error,
            _ => Severity::Warning,
        }
    }

    /// What the finding adds about this load: what fails, or that it is a guess.
    pub fn consequence(&self) -> String {
        match self.row {
            Some(r) if r.when == LoadWhen::Feature => format!(
                " It is opened only at run time, so the import works and this fails later: {}.",
                r.fails
            ),
            Some(r) => format!(" Without it: {}.", r.fails),
            None => " This name is a guess from the CUDA components a framework build usually loads: neither the framework's own loader code (no row in the load list) nor its entry libraries (not readable here) say it is loaded, so this is only a warning.".to_string(),
        }
    }

    /// The row this load comes from, naming the library (evidence kind `load-list`).
    pub fn evidence(&self) -> Evidence {
        match self.row {
            Some(r) => Evidence::new("load-list", format!("{}: {}", self.name, r.evidence_text())),
            None => Evidence::new(
                "load-list",
                format!(
                    "{}: guessed: the generic CUDA component list (no load-list row for this framework)",
                    self.name
                ),
            ),
        }
    }
}

fn plat(p: Platform) -> &'static str {
    match p {
        Platform::Windows => "windows",
        Platform::Linux => "linux",
    }
}

/// The library names a build for CUDA `cuda` (`11.2`, `12`, `12.x`) loads: one per component.
pub fn needed_names(platform: Platform, cuda: &str, cudnn: Option<&str>) -> Vec<String> {
    component_names(platform, cuda, cudnn, GUESSED_COMPONENTS, true)
}

/// The file names of `components` for a build for CUDA `cuda`, and of cuDNN (`cudnn`'s major)
/// when `with_cudnn`.
fn component_names(
    platform: Platform,
    cuda: &str,
    cudnn: Option<&str>,
    components: &[impl AsRef<str>],
    with_cudnn: bool,
) -> Vec<String> {
    let k = knowledge::knowledge();
    let cuda = cuda.trim_end_matches(".x");
    let mut parts = cuda.split('.');
    let major = parts.next().unwrap_or("");
    let mm = parts.next().map(|m| format!("{major}.{m}"));
    let rows = mm
        .as_deref()
        .map(|v| k.libraries.shipped_by(v, plat(platform)))
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| {
            k.libraries
                .rows
                .iter()
                .filter(|r| {
                    r.platform == plat(platform)
                        && r.toolkits
                            .iter()
                            .any(|t| t.split('.').next() == Some(major))
                })
                .collect()
        });
    let mut names: Vec<String> = Vec::new();
    // cuDNN follows its own major (below), not the CUDA family.
    for c in components
        .iter()
        .map(AsRef::as_ref)
        .filter(|c| *c != "cuDNN")
    {
        // Framework processes are 64-bit: a 32-bit runtime (cudart32_110.dll) is never theirs.
        let fits = |r: &&&LibraryRow| r.component == c && !r.pattern && r.bits != Some(32);
        if let Some(row) = rows.iter().rev().find(fits) {
            names.push(row.file.clone());
        }
    }
    if let Some(m) = cudnn
        .filter(|_| with_cudnn)
        .and_then(|v| v.split('.').next())
        .filter(|m| !m.is_empty())
    {
        names.push(match platform {
            Platform::Windows => format!("cudnn64_{m}.dll"),
            Platform::Linux => format!("libcudnn.so.{m}"),
        });
    }
    names
}

/// The framework's run-time load list on this machine: the rows of `framework_loads.toml` for
/// its release, platform and CUDA; for a framework (or release) no row speaks for, the generic
/// guess — only when it does not bundle its libraries and its entry libraries cannot be read
/// (when they can, their import tables are the truth and the closure rule reads them).
pub fn load_list(ctx: &SystemContext, f: &Framework, probe: &PresenceProbe) -> Vec<Load> {
    let k = knowledge::knowledge();
    let module = f.kind.module();
    let cuda = f.expects.cuda.clone().unwrap_or_default();
    let cudnn = f.expects.cudnn.as_deref();
    let version = f.version.as_deref().unwrap_or("");
    let rows = k
        .loads
        .rows_for(module, ctx.platform, version, Some(cuda.as_str()));
    if !rows.is_empty() {
        let mut out: Vec<Load> = Vec::new();
        for row in rows {
            let names = if row.names.is_empty() {
                let with_cudnn = row.components.iter().any(|c| c == "cuDNN");
                component_names(
                    ctx.platform,
                    &cuda,
                    cudnn,
                    row.components.as_slice(),
                    with_cudnn,
                )
            } else {
                row.names.clone()
            };
            for name in names {
                if !out.iter().any(|l| l.name == name) {
                    out.push(Load {
                        name,
                        row: Some(row),
                    });
                }
            }
        }
        return out;
    }
    // torch's import tables and bundled libraries are its whole story; no guess for it.
    if f.kind == FrameworkKind::PyTorch {
        return Vec::new();
    }
    let readable = crate::engine::graph::framework::entry_libraries(ctx, f)
        .iter()
        .any(|p| probe.info(p).is_some());
    if !f.bundled_libraries.is_empty() || readable {
        return Vec::new();
    }
    needed_names(ctx.platform, &cuda, cudnn)
        .into_iter()
        .map(|name| Load { name, row: None })
        .collect()
}
