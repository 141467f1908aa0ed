//! An image built for a newer CUDA than the host driver supports. NVIDIA's CUDA images set
//! `NVIDIA_REQUIRE_CUDA` (e.g. `cuda>=12.4 brand=tesla,driver>=470,driver<471 ...`): a space
//! separates alternatives, a comma joins conditions, and `nvidia-container-cli` refuses to start
//! the container when no alternative holds ("requirement error: unsatisfied condition:
//! cuda>=12.4, please update your driver to a newer version, or use an earlier cuda container").
//! An image with `CUDA_VERSION` and no `NVIDIA_REQUIRE_CUDA` implies `cuda>=<major.minor>`.
//! `NVIDIA_DISABLE_REQUIRE=true` skips the check only; CUDA then fails at run time (error 35).
//! Source: NVIDIA Container Toolkit, "Specialized configurations with Docker", environment
//! variables (linked from `finding_docs.toml`).

use super::RuleInput;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::{self, version::compare};
use std::cmp::Ordering;

/// The requirement an image states, and where it comes from.
fn requirement(ctx: &SystemContext) -> Option<(String, String)> {
    let disabled = ctx
        .env
        .get("NVIDIA_DISABLE_REQUIRE")
        .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "t" | "true"));
    if disabled {
        return None;
    }
    if let Some(r) = ctx
        .env
        .get("NVIDIA_REQUIRE_CUDA")
        .filter(|r| !r.trim().is_empty())
    {
        return Some((r.trim().to_string(), format!("NVIDIA_REQUIRE_CUDA={r}")));
    }
    let cuda = ctx.env.get("CUDA_VERSION")?;
    crate::engine::context::runs_in::RunsIn::detect(ctx).container?;
    let mm: Vec<&str> = cuda.split('.').take(2).collect();
    (mm.len() == 2).then(|| {
        (
            format!("cuda>={}", mm.join(".")),
            format!("CUDA_VERSION={cuda} without NVIDIA_REQUIRE_CUDA (a legacy image: cuda>={} implied)", mm.join(".")),
        )
    })
}

/// What the driver is, as the requirement's rules see it.
struct Host {
    driver: Option<String>,
    cuda: Option<String>,
    brand: Option<&'static str>,
    arch: Option<String>,
}

/// The brand NVML reports, where the name leaves no doubt (Tesla, a GeForce GTX); RTX and
/// data-center names map to brands that changed across drivers, so they stay unknown.
fn brand_of(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase();
    if n.starts_with("tesla") {
        Some("tesla")
    } else if n.contains("geforce") && !n.contains("rtx") {
        Some("geforce")
    } else {
        None
    }
}

/// One condition (`cuda>=12.4`, `driver<471`, `brand=tesla`): true, false or unknown.
fn condition(cond: &str, host: &Host) -> Option<bool> {
    let ops = [">=", "<=", "!=", "==", "=", ">", "<"];
    let (key, op, value) = ops.iter().find_map(|op| {
        let (k, v) = cond.split_once(op)?;
        Some((k.trim().to_ascii_lowercase(), *op, v.trim().to_string()))
    })?;
    let holds = |ord: Ordering| match op {
        ">=" => ord != Ordering::Less,
        "<=" => ord != Ordering::Greater,
        "!=" => ord != Ordering::Equal,
        "==" | "=" => ord == Ordering::Equal,
        ">" => ord == Ordering::Greater,
        _ => ord == Ordering::Less,
    };
    match key.as_str() {
        "cuda" => {
            if let Some(c) = &host.cuda {
                return compare(c, &value).map(holds);
            }
            // Without the driver's CUDA version: cuda>=X holds when the driver meets X's minimum.
            let req = knowledge::min_driver_for_cuda(&value, Platform::Linux)?;
            (op == ">=").then_some(())?;
            compare(host.driver.as_deref()?, &req.min_driver).map(|o| o != Ordering::Less)
        }
        "driver" => compare(host.driver.as_deref()?, &value).map(holds),
        "arch" => compare(host.arch.as_deref()?, &value).map(holds),
        "brand" => Some((host.brand? == value.to_ascii_lowercase()) == (op != "!=")),
        _ => None,
    }
}

/// Whether the whole expression holds: `Some(false)` only when every alternative fails.
fn holds(expr: &str, host: &Host) -> Option<bool> {
    let mut unknown = false;
    for alternative in expr.split_whitespace() {
        let results: Vec<Option<bool>> = alternative
            .split(',')
            .filter(|c| !c.is_empty())
            .map(|c| condition(c, host))
            .collect();
        if results.contains(&Some(false)) {
            continue;
        }
        if results.iter().all(|r| *r == Some(true)) {
            return Some(true);
        }
        unknown = true;
    }
    (!unknown).then_some(false)
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let ctx = input.ctx;

    let Some((expr, origin)) = requirement(ctx) else {
        return Vec::new();
    };
    let driver = ctx
        .driver
        .as_ref()
        .map(|d| d.version.clone())
        .or_else(|| crate::engine::context::runs_in::RunsIn::detect(ctx).kernel_module);
    let host = Host {
        driver: driver.clone(),
        cuda: ctx.driver.as_ref().and_then(|d| d.cuda.clone()),
        brand: ctx.gpus.first().and_then(|g| brand_of(&g.name)),
        arch: ctx.gpus.first().and_then(|g| g.compute_capability.clone()),
    };
    if holds(&expr, &host) != Some(false) {
        return Vec::new();
    }
    let needed = expr
        .split_whitespace()
        .flat_map(|a| a.split(','))
        .find_map(|c| c.trim().strip_prefix("cuda>="))
        .map(str::to_string);
    let req = needed
        .as_deref()
        .and_then(|c| knowledge::min_driver_for_cuda(c, Platform::Linux));
    let driver_words = match (&driver, &host.cuda) {
        (Some(d), Some(c)) => format!("driver {d}, which supports CUDA up to {c}"),
        (Some(d), None) => format!("driver {d}"),
        _ => "an unknown driver".into(),
    };
    let needs = match (&needed, &req) {
        (Some(c), Some(r)) => format!(
            "CUDA {c}, which needs driver {} or newer on Linux",
            r.min_driver
        ),
        (Some(c), None) => format!("CUDA {c}"),
        _ => format!("`{expr}`"),
    };
    let mut f = Finding::new(
        codes::CONTAINER_CUDA_TOO_NEW,
        Severity::Error,
        format!("The image needs {needs}; the host has {driver_words}"),
        format!(
            "The image states the requirement `{expr}` and the driver mounted from the host does not meet it. nvidia-container-cli refuses to start such a container (\"requirement error: unsatisfied condition: {}\"); started another way (CDI, or NVIDIA_DISABLE_REQUIRE=true, which skips the check only), the image's CUDA runtime fails with \"CUDA driver version is insufficient for CUDA runtime version\" (error 35).",
            expr.split_whitespace().next().unwrap_or(&expr)
        ),
    )
    .with_libraries(["libcuda.so.1"])
    .with_evidence(Evidence::new("env", origin));
    if let Some(d) = &driver {
        f = f.with_evidence(Evidence::new("driver", format!("host driver {d}")));
    }
    if let Some(r) = &req {
        f = f
            .with_evidence(Evidence::new(
                "knowledge",
                format!("CUDA {} needs {} ({})", r.cuda, r.min_driver, r.source),
            ))
            .with_fix(FixRef {
                id: format!("install-driver-{}", r.min_driver),
                kind: FixKind::Install,
                summary: format!(
                    "Update the driver on the host to {} or newer and reboot the host",
                    r.min_driver
                ),
            });
    }
    let older = host
        .cuda
        .as_ref()
        .map(|c| format!(" (CUDA {c} or older, e.g. a nvidia/cuda:{c}.x tag)"))
        .unwrap_or_default();
    vec![f.with_fix(FixRef {
        id: "older-cuda-image".into(),
        kind: FixKind::Manual,
        summary: format!("Or use an image built for the CUDA the host driver supports{older}"),
    })]
}

#[cfg(test)]
pub(super) fn holds_for(expr: &str, driver: &str, cuda: Option<&str>, gpu: &str) -> Option<bool> {
    let host = Host {
        driver: Some(driver.into()),
        cuda: cuda.map(str::to_string),
        brand: brand_of(gpu),
        arch: None,
    };
    holds(expr, &host)
}
