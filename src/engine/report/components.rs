//! The versions of a report as a flat list of components — driver, GPUs, toolkits, cuDNN copies,
//! Python environments, frameworks and what they expect, the libraries a GPU test mapped — read
//! from the document's JSON so reports of older and newer builds read alike. Markdown and HTML
//! render it as the versions table; `compare` matches it between machines.

use super::Report;
use serde_json::Value;

/// One versioned thing on a machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    /// What it is: `driver`, `gpu`, `cuda-toolkit`, `cudnn`, `python`, `framework`, `gpu-library`.
    pub kind: &'static str,
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
            "driver" => "NVIDIA driver".to_string(),
            "gpu" => format!("GPU {}", self.name),
            "cuda-toolkit" => "CUDA toolkit".to_string(),
            "cudnn" => "cuDNN".to_string(),
            "python" => format!("Python ({})", self.name),
            "gpu-library" => format!("GPU test: {}", self.name),
            _ => self.name.clone(),
        }
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn list<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// Every component a document tells of, in a stable order.
pub fn components(doc: &Report) -> Vec<Component> {
    let extra = doc.keys();
    let mut out = Vec::new();
    let m = &doc.machine;
    if let Some(d) = &m.driver {
        out.push(Component {
            kind: "driver",
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
            kind: "gpu",
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
    let empty = Value::Null;
    let inventory = extra.get("inventory").unwrap_or(&empty);
    for (key, kind) in [("toolkits", "cuda-toolkit"), ("cudnn", "cudnn")] {
        for install in list(inventory, key) {
            let root = text(install, "root");
            out.push(Component {
                kind,
                name: root.clone().unwrap_or_default(),
                version: text(install, "version"),
                detail: root.clone().unwrap_or_default(),
                path: root,
            });
        }
    }
    for env in list(inventory, "python_envs") {
        let root = text(env, "root").unwrap_or_default();
        out.push(Component {
            kind: "python",
            name: root.clone(),
            version: text(env, "python_version"),
            detail: text(env, "kind").unwrap_or_default(),
            path: text(env, "root"),
        });
        for f in list(env, "frameworks") {
            out.push(framework(f, &root));
        }
    }
    let gpu = extra.get("gpu").unwrap_or(&empty);
    for lib in list(gpu, "libraries") {
        let file = text(lib, "mapped").or_else(|| text(lib, "requested"));
        out.push(Component {
            kind: "gpu-library",
            name: text(lib, "role").unwrap_or_default(),
            version: text(lib, "version").or_else(|| text(lib, "file_version")),
            detail: file.clone().unwrap_or_default(),
            path: file,
        });
    }
    out
}

fn framework(f: &Value, env_root: &str) -> Component {
    let package = text(f, "package").unwrap_or_else(|| text(f, "kind").unwrap_or_default());
    let empty = Value::Null;
    let expects = f.get("expects").unwrap_or(&empty);
    let mut wants = Vec::new();
    if let Some(cuda) = text(expects, "cuda") {
        wants.push(format!("CUDA {cuda}"));
    }
    if let Some(cudnn) = text(expects, "cudnn") {
        wants.push(format!("cuDNN {cudnn}"));
    }
    let build = match f.get("cuda_build").and_then(Value::as_bool) {
        Some(true) if wants.is_empty() => "CUDA build, versions unknown".to_string(),
        Some(true) => format!("expects {}", wants.join(", ")),
        Some(false) => "CPU-only build".to_string(),
        None => "build unknown".to_string(),
    };
    // What it loads: the DLL names its build names, and the nvidia-* wheels it pins.
    let mut loads: Vec<String> = list(expects, "dll_names")
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    loads.extend(list(expects, "wheels").map(|w| {
        let name = text(w, "name").unwrap_or_default();
        match text(w, "version") {
            Some(v) => format!("{name} {v}"),
            None => name,
        }
    }));
    let detail = match loads.len() {
        0 => build,
        n if n <= 8 => format!("{build}; loads {}", loads.join(", ")),
        n => format!("{build}; loads {}, … ({n} in all)", loads[..8].join(", ")),
    };
    Component {
        kind: "framework",
        name: format!("{package} ({env_root})"),
        version: text(f, "version"),
        detail,
        path: text(f, "location").or_else(|| Some(env_root.to_string()).filter(|r| !r.is_empty())),
    }
}

/// The report's one-line facts: platform, driver, source, capture time, tool version, redaction.
pub fn header_facts(doc: &Report) -> Vec<String> {
    let extra = doc.keys();
    let m = &doc.machine;
    let mut facts = vec![format!(
        "{}{}",
        m.platform.as_str(),
        if m.wsl { " (WSL)" } else { "" }
    )];
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
    facts.push(m.source.describe());
    if let Some(t) = extra.get("captured_at").and_then(Value::as_str) {
        facts.push(format!("captured {t}"));
    }
    if let Some(v) = extra
        .get("tool")
        .and_then(|t| t.get("version"))
        .and_then(Value::as_str)
    {
        facts.push(format!("cuda-triage {v}"));
    }
    if extra.get("redacted").and_then(Value::as_bool) == Some(true) {
        facts.push("redacted".to_string());
    }
    facts
}

/// A JSON value as pretty-printed lines (for the folded parts of Markdown and HTML).
pub fn json_lines(value: &Value) -> Vec<String> {
    serde_json::to_string_pretty(value)
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
