//! CUPTI lives in `extras\CUPTI\lib64` (or `libx64` up to CUDA 10.0), a folder the toolkit
//! installer does not put on PATH: TensorFlow's profiler then reports `cupti64_*.dll` missing.
//! And TensorFlow ≤ 2.10 on Windows asks for `"cupti" + TF_CUDA_VERSION` (`cupti64_112.dll`),
//! then `cupti.dll` (TensorFlow's dso_loader.cc `GetCuptiDsoHandle`), while CUDA 11+ names the file
//! after CUPTI's own release (`cupti64_2022.3.0.dll`, tensorflow/tensorflow#44697): the
//! findings name the file the framework asks for. On Linux TensorFlow asks for `libcupti.so.11.2`
//! (CUDA 11: major.minor) or `libcupti.so.12`, then `libcupti.so`, and a toolkit keeps CUPTI in
//! `extras/CUPTI/lib64`, which ld.so searches only when told (LD_LIBRARY_PATH, ld.so.conf).
//! Profiling is what is lost, so: a warning.

use super::RuleInput;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, PathEdit, Severity};
use crate::engine::graph::process::{self, PresenceProbe, attempts_evidence};
use crate::engine::inventory::{Cupti, FrameworkKind, Inventory, Toolkit};

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

/// Both halves: a toolkit's CUPTI folder missing from PATH (Windows), then the names the
/// frameworks ask for.
pub fn check(input: &RuleInput) -> Vec<Finding> {
    let mut out = toolkit_folder_not_searched(input.ctx, input.inventory);
    out.extend(asked_names(input.ctx, input.inventory));
    out
}

/// A toolkit's CUPTI folder that a framework built for its CUDA would need, missing from PATH.
pub(super) fn toolkit_folder_not_searched(ctx: &SystemContext, inv: &Inventory) -> Vec<Finding> {
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
        // What the framework asks for, when it is not the installed file's name.
        let asked = users
            .first()
            .and_then(|(_, f)| f.expects.cupti.first())
            .filter(|a| !cupti.libraries.iter().any(|l| ctx.platform.same_name(l, a)));
        let (wanted, renamed) = match asked {
            Some(a) => (
                a.clone(),
                format!(
                    " Even from PATH it would not load: {who} asks for {a} (then cupti.dll), and CUDA {} names the file {lib}; copy it as {a} into a folder that is searched.",
                    t.version.as_deref().unwrap_or("?")
                ),
            ),
            None => (lib.clone(), String::new()),
        };
        let mut f = Finding::new(
            codes::CUPTI_NOT_SEARCHED,
            severity,
            format!("{lib} is in {}, which is not on PATH", cupti.dir),
            format!(
                "CUDA {} keeps CUPTI in {}{legacy}. The installer does not add that folder to PATH, so {who} cannot load {wanted}: TensorFlow prints \"Could not load dynamic library '{wanted}'\" when profiling starts, and profiling/tracing of GPU work is disabled (training itself is unaffected).{renamed}",
                t.version.as_deref().unwrap_or("?"),
                cupti.dir
            ),
        )
        .with_libraries([wanted.clone()])
        .with_evidence(Evidence::at("file", format!("{lib} present"), process::join(ctx, &cupti.dir, lib)))
        .with_fix(FixRef { id: format!("path-append:{}", cupti.dir), kind: FixKind::path(PathEdit::add("PATH", &cupti.dir, false)), summary: format!("Add {} to PATH", cupti.dir) });
        if asked.is_some() {
            f = f.with_fix(copy_as_fix(&process::join(ctx, &cupti.dir, lib), &wanted));
        }
        if let Some((_, user)) = users.first() {
            let names = if user.expects.cupti.is_empty() {
                vec![wanted.clone()]
            } else {
                user.expects.cupti.clone()
            };
            f.evidence.push(asked_evidence(&names));
        }
        f.evidence.extend(attempts_evidence(&loader, &r));
        out.push(f);
    }
    out
}

/// The load-list row behind TensorFlow's CUPTI names (evidence kind `load-list`): its DsoLoader's
/// `GetCuptiDsoHandle` asks for `asked` in turn when profiling starts.
fn asked_evidence(asked: &[String]) -> Evidence {
    Evidence::new(
        "load-list",
        format!(
            "{}: TensorFlow's DsoLoader GetCuptiDsoHandle (the GPU profiler) asks for {}; source: {CUPTI_LOADER}",
            asked.first().map(String::as_str).unwrap_or("CUPTI"),
            asked.join(", then ")
        ),
    )
}

/// TensorFlow's loader code for CUPTI: `"cupti" + TF_CUPTI_VERSION`, then the unversioned name.
const CUPTI_LOADER: &str = "https://github.com/tensorflow/tensorflow/blob/v2.4.0/tensorflow/stream_executor/platform/default/dso_loader.cc";

fn copy_as_fix(from: &str, wanted: &str) -> FixRef {
    FixRef {
        id: format!("copy-as:{wanted}"),
        kind: FixKind::Manual,
        summary: format!(
            "Copy {from} as {wanted} into a folder on PATH (the workaround in tensorflow#44697)"
        ),
    }
}

/// Whether a `framework_loads.toml` row names CUPTI for this release (TensorFlow 2.18 on Linux,
/// JAX): framework_libs reports it then, searched from the row's calling library.
fn cupti_row_covers(ctx: &SystemContext, f: &crate::engine::inventory::Framework) -> bool {
    crate::engine::knowledge::knowledge()
        .loads
        .rows_for(
            f.kind.module(),
            ctx.platform,
            f.version.as_deref().unwrap_or(""),
            f.expects.cuda.as_deref(),
        )
        .iter()
        .any(|r| r.components.iter().any(|c| c == "CUPTI"))
}

/// A framework that asks for CUPTI by a name found nowhere it searches, where
/// `toolkit_folder_not_searched` has not already reported a toolkit's CUPTI folder missing from
/// PATH: the folder is on PATH but holds another name (CUDA 11+), or no CUPTI exists at all.
fn asked_names(ctx: &SystemContext, inv: &Inventory) -> Vec<Finding> {
    let probe = PresenceProbe::new(ctx);
    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        let Some(first) = f.expects.cupti.first() else {
            continue;
        };
        if cupti_row_covers(ctx, f) {
            continue;
        }
        let loader = process::framework_loader(ctx, env, None);
        if f.expects
            .cupti
            .iter()
            .any(|n| loader.resolve(n, &probe).is_resolved())
        {
            continue;
        }
        let cuda = f.expects.cuda.as_deref().unwrap_or("");
        let toolkits: Vec<&Toolkit> = inv
            .toolkits
            .iter()
            .filter(|t| {
                t.cupti.as_ref().is_some_and(|c| !c.libraries.is_empty()) && matches(t, cuda)
            })
            .collect();
        // `check` reports a Windows toolkit's CUPTI folder missing from PATH; Linux has no such rule.
        let linux = ctx.platform == Platform::Linux;
        let reported = !linux
            && toolkits.iter().any(|t| {
                t.cupti
                    .as_ref()
                    .and_then(|c| c.libraries.first())
                    .is_some_and(|l| !loader.resolve(l, &probe).is_resolved())
            });
        if reported {
            continue;
        }
        let who = super::framework_libs::who(env, f);
        let asked = f.expects.cupti.join(", then ");
        let mut detail = format!(
            "{who} asks for {asked} when profiling starts (tf.profiler, TensorBoard's Profile tab). None is found where it searches, so it prints \"Could not load dynamic library '{first}'\" and records no GPU activity; training and inference are unaffected."
        );
        let mut finding = Finding::new(
            codes::FRAMEWORK_CUPTI_MISSING,
            Severity::Warning,
            format!("{who} asks for {first}, which it will not find (profiling disabled)"),
            String::new(),
        )
        .with_libraries(f.expects.cupti.clone())
        .with_evidence(asked_evidence(&f.expects.cupti));
        for t in &toolkits {
            let Some(c) = &t.cupti else { continue };
            let lib = &c.libraries[0];
            let path = process::join(ctx, &c.dir, lib);
            let version = t.version.as_deref().unwrap_or("?");
            finding =
                finding.with_evidence(Evidence::at("file", format!("{lib} present"), path.clone()));
            if linux {
                let searched = loader.resolve(lib, &probe).is_resolved();
                let (text, fixes) = linux_toolkit_cupti(c, version, &f.expects.cupti, searched);
                detail.push_str(&text);
                for fix in fixes {
                    finding = finding.with_fix(fix);
                }
            } else {
                detail.push_str(&format!(
                    " CUDA {version} ships CUPTI as {lib}: from CUDA 11 the file is named after CUPTI's own release, a name TensorFlow never asks for."
                ));
                finding = finding.with_fix(copy_as_fix(&path, first));
            }
        }
        if toolkits.is_empty() {
            detail.push_str(&format!(" No CUDA {cuda} toolkit with CUPTI was found."));
        }
        finding.detail = detail;
        let r = loader.resolve(first, &probe);
        finding.evidence.extend(attempts_evidence(&loader, &r));
        out.push(finding);
    }
    out
}

/// What a Linux toolkit's CUPTI folder (`extras/CUPTI/lib64`, which ld.so searches only when
/// told) offers a framework asking for `asked`: searched, it serves an asked name it holds
/// (`libcupti.so`, TensorFlow's fallback, is a symlink there); a folder holding none of them needs
/// a link by the asked name (TF 2.5–2.11 ask for `libcupti.so.11.2`, CUDA 11.8 ships
/// `libcupti.so.11.8`). `searched`: ld.so already finds the folder's own file for this process.
fn linux_toolkit_cupti(
    c: &Cupti,
    version: &str,
    asked: &[String],
    searched: bool,
) -> (String, Vec<FixRef>) {
    let dir = &c.dir;
    let mut fixes = Vec::new();
    let mut text = String::new();
    if !searched {
        text.push_str(&format!(
            " CUDA {version} keeps CUPTI in {dir}, a folder ld.so does not search for this process (not in LD_LIBRARY_PATH, ld.so.cache or an RPATH)."
        ));
        fixes.push(FixRef {
            id: format!("ld-library-path-prepend:{dir}"),
            kind: FixKind::path(PathEdit::add("LD_LIBRARY_PATH", dir, true)),
            summary: format!(
                "Add {dir} to LD_LIBRARY_PATH for this process (or list it in /etc/ld.so.conf.d and run ldconfig)"
            ),
        });
    }
    if !asked.iter().any(|a| c.libraries.contains(a)) {
        let lib = &c.libraries[0];
        let wanted = &asked[0];
        text.push_str(&format!(
            " It holds CUPTI as {lib} only, none of the names asked for: a link by the asked name is needed."
        ));
        fixes.push(FixRef {
            id: format!("link-as:{wanted}"),
            kind: FixKind::Manual,
            summary: format!("ln -s {lib} {dir}/{wanted}"),
        });
    }
    (text, fixes)
}
