//! The versions of a report as a flat list of components — driver, GPUs, toolkits, cuDNN copies,
//! Python environments, frameworks and what they expect, the libraries a GPU test mapped — read
//! from the typed report (its machine, inventory and GPU test). Markdown and HTML render it as
//! the versions table; `compare` matches it between machines.

use super::Report;
use crate::engine::inventory::{Framework, Inventory};
use serde::Serialize;

/// What a component is (`"kind"` of a compare's component: `driver`, `gpu`, `cuda-toolkit`,
/// `cudnn`, `python`, `framework`, `gpu-library`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComponentKind {
    Driver,
    Gpu,
    CudaToolkit,
    Cudnn,
    Python,
    Framework,
    GpuLibrary,
}

impl ComponentKind {
    /// The JSON word.
    pub fn as_str(self) -> &'static str {
        match self {
            ComponentKind::Driver => "driver",
            ComponentKind::Gpu => "gpu",
            ComponentKind::CudaToolkit => "cuda-toolkit",
            ComponentKind::Cudnn => "cudnn",
            ComponentKind::Python => "python",
            ComponentKind::Framework => "framework",
            ComponentKind::GpuLibrary => "gpu-library",
        }
    }
}

/// One versioned thing on a machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    pub kind: ComponentKind,
    /// Which one: the framework name, the GPU model, the library role... (compare keys on kind+name).
    pub name: String,
    pub version: Option<String>,
    /// Where it is, or what it expects.
    pub detail: String,
    /// The folder or file it was found at (install root, environment root, framework package,
    /// the library the GPU test mapped); `None` for the driver and GPUs. Compare checks it.
    pub path: Option<String>,
}

impl Component {
    /// The label a person reads in a table.
    pub fn label(&self) -> String {
        match self.kind {
            ComponentKind::Driver => "NVIDIA driver".to_string(),
            ComponentKind::Gpu => format!("GPU {}", self.name),
            ComponentKind::CudaToolkit => "CUDA toolkit".to_string(),
            ComponentKind::Cudnn => "cuDNN".to_string(),
            ComponentKind::Python => format!("Python ({})", self.name),
            ComponentKind::GpuLibrary => format!("GPU test: {}", self.name),
            ComponentKind::Framework => self.name.clone(),
        }
    }
}

/// Every component a document tells of, in a stable order.
pub fn components(doc: &Report) -> Vec<Component> {
    let mut out = Vec::new();
    let m = &doc.machine;
    if let Some(d) = &m.driver {
        out.push(Component {
            kind: ComponentKind::Driver,
            name: "driver".into(),
            version: Some(d.version.clone()),
            detail: d
                .cuda
                .as_ref()
                .map(|c| format!("supports CUDA up to {c}"))
                .unwrap_or_default(),
            path: None,
        });
    }
    for (i, g) in m.gpus.iter().enumerate() {
        out.push(Component {
            kind: ComponentKind::Gpu,
            name: format!("{}", i),
            version: g.compute_capability.clone(),
            detail: format!(
                "{}{}",
                g.name,
                g.memory_mib
                    .map(|mib| format!(", {mib} MiB"))
                    .unwrap_or_default()
            ),
            path: None,
        });
    }
    if let Some(inventory) = &doc.inventory {
        inventory_components(inventory, &mut out);
    }
    for lib in doc.gpu.iter().flat_map(|gpu| &gpu.libraries) {
        let file = lib.mapped.clone().unwrap_or_else(|| lib.requested.clone());
        out.push(Component {
            kind: ComponentKind::GpuLibrary,
            name: lib.role.as_str().to_string(),
            version: lib.version.clone().or_else(|| lib.file_version.clone()),
            detail: file.clone(),
            path: Some(file),
        });
    }
    out
}

/// Toolkits, cuDNN copies, Python environments and their frameworks.
fn inventory_components(inventory: &Inventory, out: &mut Vec<Component>) {
    let installs = inventory
        .toolkits
        .iter()
        .map(|t| (ComponentKind::CudaToolkit, &t.root, &t.version))
        .chain(
            inventory
                .cudnn
                .iter()
                .map(|c| (ComponentKind::Cudnn, &c.root, &c.version)),
        );
    for (kind, root, version) in installs {
        out.push(Component {
            kind,
            name: root.clone(),
            version: version.clone(),
            detail: root.clone(),
            path: Some(root.clone()),
        });
    }
    for env in &inventory.python_envs {
        out.push(Component {
            kind: ComponentKind::Python,
            name: env.root.clone(),
            version: env.python_version.clone(),
            detail: env.kind.as_str().to_string(),
            path: Some(env.root.clone()),
        });
        for f in &env.frameworks {
            out.push(framework(f, &env.root));
        }
    }
}

fn framework(f: &Framework, env_root: &str) -> Component {
    let expects = &f.expects;
    let mut wants = Vec::new();
    if let Some(cuda) = &expects.cuda {
        wants.push(format!("CUDA {cuda}"));
    }
    if let Some(cudnn) = &expects.cudnn {
        wants.push(format!("cuDNN {cudnn}"));
    }
    let build = match f.cuda_build {
        Some(true) if wants.is_empty() => "CUDA build, versions unknown".to_string(),
        Some(true) => format!("expects {}", wants.join(", ")),
        Some(false) => "CPU-only build".to_string(),
        None => "build unknown".to_string(),
    };
    // What it loads: the DLL names its build names, and the nvidia-* wheels it pins.
    let mut loads = expects.dll_names.clone();
    loads.extend(expects.wheels.iter().map(|w| match &w.version {
        Some(v) => format!("{} {v}", w.name),
        None => w.name.clone(),
    }));
    let detail = match loads.len() {
        0 => build,
        n if n <= 8 => format!("{build}; loads {}", loads.join(", ")),
        n => format!("{build}; loads {}, … ({n} in all)", loads[..8].join(", ")),
    };
    Component {
        kind: ComponentKind::Framework,
        name: format!("{} ({env_root})", f.package),
        version: f.version.clone(),
        detail,
        path: Some(f.location.clone()),
    }
}

/// The report's one-line facts: platform, driver, source, the wizard's window renderer, capture
/// time, tool version, redaction.
pub fn header_facts(doc: &Report) -> Vec<String> {
    let m = &doc.machine;
    let mut facts = vec![format!("{}{}", m.platform.as_str(), m.placement())];
    facts.push(match &m.driver {
        Some(d) => format!(
            "driver {}{}",
            d.version,
            d.cuda
                .as_ref()
                .map(|c| format!(" (CUDA ≤ {c})"))
                .unwrap_or_default()
        ),
        None => "no NVIDIA driver found".to_string(),
    });
    facts.extend(super::runs_in_lines(m));
    facts.push(m.source.describe());
    if let Some(r) = &m.renderer {
        facts.push(format!("window drawn with {}", r.summary()));
    }
    if let Some(t) = &doc.captured_at {
        facts.push(format!("captured {t}"));
    }
    if let Some(tool) = &doc.tool {
        facts.push(format!("cuda-triage {}", tool.version));
    }
    if doc.redacted == Some(true) {
        facts.push("redacted".to_string());
    }
    facts
}

/// A part of the report as its JSON, pretty-printed, in lines (for the folded parts of Markdown
/// and HTML): keys sorted as in the JSON report.
pub fn json_lines(value: &impl Serialize) -> Vec<String> {
    serde_json::to_value(value)
        .and_then(|v| serde_json::to_string_pretty(&v))
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

/// Counts of findings by severity: (errors, warnings, notes).
pub fn severity_counts(doc: &Report) -> (usize, usize, usize) {
    use crate::engine::findings::Severity;
    let count = |s| doc.findings.iter().filter(|f| f.severity == s).count();
    (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    )
}
