//! JAX's start-up check of the CUDA components it loads (`jax/_src/lib/__init__.py`,
//! `_version_check`): "Outdated cuDNN installation found." followed by the version it was built
//! against, the minimum it supports and the one installed, as integers. Read as one finding with
//! the integers decoded and the minimum to install.

use super::extract::clip;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use regex::Regex;
use std::sync::OnceLock;

/// One "Outdated X installation found" block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutdatedComponent {
    pub product: String,
    pub built: Option<u64>,
    pub minimum: Option<u64>,
    pub installed: Option<u64>,
    pub line: String,
}

fn patterns() -> &'static [Regex; 4] {
    static RE: OnceLock<[Regex; 4]> = OnceLock::new();
    RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        [
            re(r"(?i)Outdated ([A-Za-z][A-Za-z0-9_.-]*) installation found"),
            re(r"(?i)Version JAX was built against:\s*([0-9]+)"),
            re(r"(?i)Minimum supported:\s*([0-9]+)|must be no lower than\s*([0-9]+)"),
            re(r"(?i)Installed version:\s*([0-9]+)"),
        ]
    })
}

/// Every block in the text; each number is read from the lines up to the next block.
pub fn outdated_components(text: &str) -> Vec<OutdatedComponent> {
    let [header, built, minimum, installed] = patterns();
    let mut out: Vec<OutdatedComponent> = Vec::new();
    let number = |re: &Regex, line: &str| {
        re.captures(line)
            .and_then(|c| c.get(1).or(c.get(2)))
            .and_then(|m| m.as_str().parse::<u64>().ok())
    };
    for line in text.lines() {
        if let Some(c) = header.captures(line) {
            out.push(OutdatedComponent {
                product: c[1].to_string(),
                built: None,
                minimum: None,
                installed: None,
                line: clip(line),
            });
        }
        let Some(last) = out.last_mut() else { continue };
        last.built = last.built.or(number(built, line));
        last.minimum = last.minimum.or(number(minimum, line));
        last.installed = last.installed.or(number(installed, line));
    }
    out
}

/// "9100 (9.1.0)" for the products whose integers CUDA Triage decodes.
fn decoded(product: &str, n: u64) -> String {
    let lower = product.to_ascii_lowercase();
    if lower == "cudnn" {
        format!(
            "{n} ({})",
            crate::engine::knowledge::decode_cudnn_version(n)
        )
    } else if lower == "cuda" && (7000..=14000).contains(&n) {
        format!("{n} ({})", super::chains::decode_cuda(n))
    } else {
        n.to_string()
    }
}

pub fn outdated_component_findings(text: &str) -> Vec<Finding> {
    outdated_components(text)
        .into_iter()
        .map(|o| {
            let p = &o.product;
            let part = |label: &str, n: Option<u64>| n.map(|n| format!("{label} {}", decoded(p, n)));
            let numbers: Vec<String> = [
                part("built against", o.built),
                part("minimum supported", o.minimum),
                part("installed", o.installed),
            ]
            .into_iter()
            .flatten()
            .collect();
            let need = o
                .minimum
                .or(o.built)
                .map(|n| format!("{p} {} or newer", decoded(p, n)))
                .unwrap_or_else(|| format!("the {p} release that JAX release was built with, or newer"));
            Finding::new(
                codes::VERSION_MISMATCH_REPORTED,
                Severity::Error,
                format!("JAX found an older {p} than it supports: it needs {need}"),
                format!(
                    "JAX checks the version of each CUDA component it loads at start-up and refuses the \
                     GPU backend (falling back to the CPU) when one is older than the minimum its build \
                     supports{}. The {p} it found comes from the environment (the nvidia-* pip wheels, a \
                     conda package) or from a folder on LD_LIBRARY_PATH that comes first.",
                    if numbers.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", numbers.join(", "))
                    }
                ),
            )
            .with_evidence(Evidence::new("log", o.line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "jax/_src/lib/__init__.py (_version_check: 'Outdated {name} installation found', the \
                 minimum supported version): https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py",
            ))
            .with_fix(FixRef {
                id: "advice-jax-component-version".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Install {need} where JAX loads it: pip install -U \"jax[cuda12]\" brings the \
                     matching nvidia-* wheels; in conda, install a {p} package of at least that version; \
                     remove older copies from LD_LIBRARY_PATH. Or install a jax/jaxlib release built \
                     for the {p} you have."
                ),
            })
        })
        .collect()
}
