//! JAX's CUDA support is three wheels: `jaxlib`, `jax-cuda12-plugin` and the PJRT plugin
//! `jax-cuda12-pjrt`, of the versions jax's own METADATA pins for the extra (`Requires-Dist:
//! jaxlib==0.4.34; extra == "cuda12"` and `jax-cuda12-plugin[with_cuda]<=0.4.35,>=0.4.34` in the
//! real jax 0.4.35 — so jaxlib 0.4.34 with plugin 0.4.35 is what `pip install jax[cuda12]==0.4.35`
//! installs, and healthy); the plugin pins `jax-cuda12-pjrt ==` its own version. Without jax's
//! METADATA the pieces must be of one release (real jax 0.4.26 and 0.6.0 files). The PJRT C API
//! version they speak is compiled into `xla_cuda_plugin.so` and cannot be read from the small
//! files, but pieces outside those pins are what JAX reports as "Mismatched PJRT plugin PJRT API
//! version" (error catalog `pjrt-api-mismatch`), after which it runs on the CPU: a warning naming
//! each piece and its version, the pinned reinstall as the fix.

use super::RuleInput;
use super::framework_libs::who;
use crate::engine::context::SystemContext;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::inventory::{Framework, FrameworkKind};
use crate::engine::knowledge::version::compare;
use std::cmp::Ordering;

/// `(name, version spec)` of each `Requires-Dist` of jax's METADATA for `extra`.
fn jax_pins(ctx: &SystemContext, f: &Framework, extra: &str) -> Option<Vec<(String, String)>> {
    let p = ctx.platform;
    // jax's own dist-info, beside its package folder.
    let site = p.parent(&f.location)?;
    let dist_info = ctx
        .fs
        .read_dir(&site)
        .ok()?
        .into_iter()
        .map(|e| e.name)
        .find(|n| {
            n.strip_prefix("jax-").is_some_and(|r| {
                r.starts_with(|c: char| c.is_ascii_digit()) && r.ends_with(".dist-info")
            })
        })?;
    let text = ctx
        .fs
        .read_to_string(&p.join(&p.join(&site, &dist_info), "METADATA"), 64 << 10)
        .ok()?;
    let marker = format!("extra == \"{extra}\"");
    Some(
        text.lines()
            .filter_map(|l| l.strip_prefix("Requires-Dist:"))
            .filter(|l| l.contains(&marker))
            .filter_map(|l| {
                let req = l.split(';').next()?.trim();
                let end = req.find(|c: char| "=<>!~ [(".contains(c))?;
                let spec =
                    req[end..].trim_start_matches(|c| c != '=' && c != '<' && c != '>' && c != '!');
                Some((
                    req[..end].to_ascii_lowercase(),
                    spec.trim_end_matches(')').to_string(),
                ))
            })
            .collect(),
    )
}

/// Whether `version` meets every clause of `spec` (`==0.4.34`, `<=0.4.35,>=0.4.34`).
fn satisfies(version: &str, spec: &str) -> bool {
    spec.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .all(|c| {
            let (op, v) = match ["==", ">=", "<=", "!=", ">", "<"]
                .iter()
                .find(|op| c.starts_with(**op))
            {
                Some(op) => (*op, c[op.len()..].trim()),
                None => return true,
            };
            let Some(o) = compare(version, v) else {
                return true;
            };
            match op {
                "==" => o == Ordering::Equal,
                ">=" => o != Ordering::Less,
                "<=" => o != Ordering::Greater,
                "!=" => o != Ordering::Equal,
                ">" => o == Ordering::Greater,
                _ => o == Ordering::Less,
            }
        })
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

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
        let pjrt = format!("jax-{extra}-pjrt");
        let plugin = format!("jax-{extra}-plugin");
        let version_of = |name: &str| pieces.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        let healthy = match jax_pins(ctx, f, extra) {
            // jax's own pins for the extra, and the plugin's pin of its PJRT plugin.
            Some(pins) if !pins.is_empty() => {
                pieces.iter().all(|(n, v)| {
                    pins.iter()
                        .filter(|(pn, _)| pn == n)
                        .all(|(_, spec)| satisfies(v, spec))
                }) && match (version_of(&plugin), version_of(&pjrt)) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
            }
            _ => pieces.iter().all(|(_, v)| *v == first),
        };
        if healthy {
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

#[cfg(test)]
mod tests {
    use super::satisfies;

    #[test]
    fn requirement_clauses_are_all_checked() {
        assert!(satisfies("0.4.34", "==0.4.34"));
        assert!(!satisfies("0.4.35", "==0.4.34"));
        assert!(satisfies("0.4.35", "<=0.4.35,>=0.4.34"));
        assert!(!satisfies("0.4.33", "<=0.4.35,>=0.4.34"));
        assert!(!satisfies("0.4.36", "<=0.4.35,>=0.4.34"));
        assert!(satisfies("0.4.26", "==0.4.26)".trim_end_matches(')')));
    }
}
