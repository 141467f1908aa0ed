//! CUPTI lives in `extras\CUPTI\lib64` (or `libx64` up to CUDA 10.0), a folder the toolkit
//! installer does not put on PATH: TensorFlow's profiler then reports `cupti64_*.dll` missing.

use super::process::{self, PresenceProbe, attempts_evidence};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, PathEdit, Severity};
use crate::engine::scan::inventory::{FrameworkKind, Inventory, Toolkit};

/// Whether a framework built for `cuda` would load this toolkit's CUPTI (same major.minor
/// before CUDA 11, same major from 11 on).
fn matches(t: &Toolkit, cuda: &str) -> bool {
    let Some(v) = t.version.as_deref() else {
        return false;
    };
    let mm = |s: &str| s.split('.').take(2).collect::<Vec<_>>().join(".");
    let major = |s: &str| s.split('.').next().unwrap_or("").to_string();
    let m: u32 = major(v).parse().unwrap_or(0);
    if m >= 11 {
        major(v) == major(cuda)
    } else {
        mm(v) == mm(cuda)
    }
}

pub fn check(ctx: &SystemContext, inv: &Inventory) -> Vec<Finding> {
    if ctx.platform != Platform::Windows {
        return Vec::new();
    }
    let probe = PresenceProbe::new(ctx);
    let mut out = Vec::new();
    for t in &inv.toolkits {
        let Some(cupti) = &t.cupti else { continue };
        let Some(lib) = cupti.libraries.first() else {
            continue;
        };
        let users: Vec<_> = inv
            .frameworks()
            .filter(|(_, f)| {
                f.kind == FrameworkKind::TensorFlow
                    && f.expects.cuda.as_deref().is_some_and(|c| matches(t, c))
            })
            .collect();
        let (loader, who) = match users.first() {
            Some((env, f)) => (
                process::framework_loader(ctx, env, None),
                format!(
                    "TensorFlow {} in {}",
                    f.version.as_deref().unwrap_or(""),
                    env.root
                ),
            ),
            None => (
                process::host_app(ctx, None),
                "an application using CUPTI".to_string(),
            ),
        };
        let r = loader.resolve(lib, &probe);
        if r.is_resolved() {
            continue;
        }
        let severity = if users.is_empty() {
            Severity::Info
        } else {
            Severity::Warning
        };
        let legacy = if cupti.legacy_libx64 {
            " (CUDA 10.0 and older put it in libx64)"
        } else {
            ""
        };
        let mut f = Finding::new(
            "cupti-not-searched",
            severity,
            format!("{lib} is in {}, which is not on PATH", cupti.dir),
            format!(
                "CUDA {} keeps CUPTI in {}{legacy}. The installer does not add that folder to PATH, so {who} cannot load {lib}: TensorFlow prints \"Could not load dynamic library '{lib}'\" and profiling/tracing is disabled.",
                t.version.as_deref().unwrap_or("?"),
                cupti.dir
            ),
        )
        .with_libraries([lib.clone()])
        .with_evidence(Evidence::at("file", format!("{lib} present"), process::join(ctx, &cupti.dir, lib)))
        .with_fix(FixRef { id: format!("path-append:{}", cupti.dir), kind: FixKind::path(PathEdit::add("PATH", &cupti.dir, false)), summary: format!("Add {} to PATH", cupti.dir) });
        f.evidence.extend(attempts_evidence(&loader, &r));
        out.push(f);
    }
    out
}
