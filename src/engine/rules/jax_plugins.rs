//! JAX's CUDA support is three wheels of one release: `jaxlib`, `jax-cuda12-plugin` and the PJRT
//! plugin `jax-cuda12-pjrt`. Their own METADATA says so: the plugin pins `jax-cuda12-pjrt ==` its
//! version, and `jax[cuda12]` pins jaxlib and the plugin to jax's (real jax 0.4.26 and 0.6.0
//! files). The PJRT C API version they speak is compiled into `xla_cuda_plugin.so` and cannot be
//! read from the small files, but pieces of different releases are what JAX reports as
//! "Mismatched PJRT plugin PJRT API version" (error catalog `pjrt-api-mismatch`), after which it
//! runs on the CPU: a warning naming each piece and its version, the pinned reinstall as the fix.

use super::framework_libs::who;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::inventory::{FrameworkKind, Inventory};

pub fn check(inv: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        if f.kind != FrameworkKind::Jax {
            continue;
        }
        // (name, release) of each piece: `0.4.26+cuda12.cudnn89` is release 0.4.26.
        let pieces: Vec<(&str, &str)> = f
            .plugins
            .iter()
            .filter_map(|p| {
                let v = p.version.as_deref()?;
                Some((p.name.as_str(), v.split('+').next().unwrap_or(v)))
            })
            .collect();
        let Some(extra) = pieces.iter().find_map(|(n, _)| {
            n.strip_prefix("jax-")
                .and_then(|r| r.strip_suffix("-plugin"))
        }) else {
            continue;
        };
        let first = pieces[0].1;
        if pieces.iter().all(|(_, v)| *v == first) {
            continue;
        }
        let listed: Vec<String> = pieces.iter().map(|(n, v)| format!("{n} {v}")).collect();
        let release = f.version.as_deref().unwrap_or(first);
        let who = who(env, f);
        let mut finding = Finding::new(
            codes::JAX_PLUGIN_MISMATCH,
            Severity::Warning,
            format!("JAX's CUDA pieces come from different releases: {}", listed.join(", ")),
            format!(
                "{who} loads its GPU support from {}. These wheels are built as one release (the plugin pins its PJRT plugin to its own version, and jax[{extra}] pins jaxlib and the plugin to jax's); mixed, JAX refuses the plugin with \"Mismatched PJRT plugin PJRT API version\" (or fails on a missing symbol) and runs on the CPU.",
                listed.join(", ")
            ),
        )
        .with_fix(FixRef {
            id: format!("pin-jax-{extra}-{release}"),
            kind: FixKind::PinVersion {
                requirements: vec![format!("jax[{extra}]=={release}")],
                python: env.python_exe.clone(),
                reinstall: false,
            },
            summary: format!(
                "pip install \"jax[{extra}]=={release}\" (jaxlib, the plugin and its PJRT plugin of one release)"
            ),
        });
        for path in f.evidence.iter().filter(|p| p.ends_with(".dist-info")) {
            finding = finding.with_evidence(Evidence::at("file", "installed wheel", path.clone()));
        }
        out.push(finding);
    }
    out
}
