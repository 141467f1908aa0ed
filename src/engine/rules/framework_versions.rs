//! Versions, not only presence: the cuDNN a framework's process really gets, read from the file
//! that answers `cudnnGetVersion` (cuDNN 9's shim forwards it to `libcudnn_graph`, which the
//! shim opens by bare name — so LD_LIBRARY_PATH can put an older one behind the right shim),
//! compared with the version the framework was built for (its own pin) under the rule the
//! framework enforces (knowledge `framework_loads.toml` `[[pin]]`: torch and TensorFlow refuse a
//! runtime minor older than the build's). A refusal is an error naming the file, its version,
//! the pin, and the variable or folder that put the file first. Linux; a version that cannot be
//! read is never guessed.

use super::RuleInput;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::graph::process::{self, PresenceProbe};
use crate::engine::inventory::{Framework, Inventory, PythonEnv};
use crate::engine::knowledge::{self, framework_loads::PinRow};
use crate::engine::loader::{How, Resolution};

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    if ctx.platform != Platform::Linux {
        return Vec::new();
    }
    let probe = PresenceProbe::new(ctx);
    let pins = &knowledge::knowledge().loads.pins;
    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        if f.cuda_build == Some(false) {
            continue;
        }
        for pin in pins.iter().filter(|p| p.framework == f.kind.module()) {
            if pin.library != "cuDNN" {
                continue;
            }
            if let Some(finding) = cudnn(ctx, inv, env, f, pin, &probe) {
                out.push(finding);
            }
        }
    }
    out
}

/// The cuDNN version the build was made for, and where that is written: the `nvidia-cudnn-*`
/// pin of its metadata, else the build's own record when it has a minor.
fn built_cudnn(f: &Framework) -> Option<(String, String)> {
    for w in &f.expects.wheels {
        if w.name.starts_with("nvidia-cudnn-")
            && let Some(v) = w.version.as_deref()
        {
            let v = v.trim().trim_start_matches("==").trim();
            if v.contains('.') {
                return Some((v.to_string(), format!("{}=={v}", w.name)));
            }
        }
    }
    let v = f.expects.cudnn.clone()?;
    v.contains('.').then(|| {
        let basis = f.expects.basis.clone().unwrap_or_default();
        (v.clone(), format!("cuDNN {v} ({basis})"))
    })
}

fn cudnn(
    ctx: &SystemContext,
    inv: &Inventory,
    env: &PythonEnv,
    f: &Framework,
    pin: &PinRow,
    probe: &PresenceProbe,
) -> Option<Finding> {
    let (built, pin_text) = built_cudnn(f)?;
    let major = built.split('.').next()?.to_string();
    let shim_name = format!("libcudnn.so.{major}");
    let shim = process::framework_loader(ctx, env, Some(f)).resolve(&shim_name, probe);
    let shim_path = shim.path.clone()?;
    // cuDNN 9: the shim opens libcudnn_graph, which answers cudnnGetVersion.
    let (answer_name, answer) = if major.parse::<u32>().ok()? >= 9 {
        let name = format!("libcudnn_graph.so.{major}");
        let r = process::linux_dlopen_from(ctx, env, &shim_path).resolve(&name, probe);
        (name, r)
    } else {
        (shim_name.clone(), shim.clone())
    };
    let path = answer.path.clone()?;
    let (runtime, basis) = file_version(ctx, inv, &path)?;
    if pin.accepts(&runtime, &built) != Some(false) {
        return None;
    }
    let who = super::framework_libs::who(env, f);
    let dir = ctx.platform.parent(&path).unwrap_or_default();
    let first = first_because(ctx, &answer, &dir);
    let mut finding = Finding::new(
        codes::LIBRARY_VERSION_REFUSED,
        Severity::Error,
        format!("{path} is cuDNN {runtime}; {who} was built for cuDNN {built} and refuses it"),
        format!(
            "{who} pins {pin_text}. The cuDNN its process gets answers version {runtime}: {answer_name} at {path} ({basis}), found first because {first}. {} refuses a cuDNN whose major differs or whose minor is older than the build's: {}.",
            f.kind.display_name(),
            pin.refusal
        ),
    )
    .with_libraries([answer_name.clone()])
    .with_evidence(Evidence::at(
        "file",
        format!("{answer_name}: cuDNN {runtime} ({basis})"),
        path.clone(),
    ))
    .with_evidence(Evidence::new("pin", format!("{pin_text} ({who})")))
    .with_evidence(Evidence::new(
        "load-list",
        format!(
            "{answer_name}: {} checks the version of the cuDNN it loads{}; source: {}",
            f.kind.display_name(),
            if answer_name != shim_name {
                format!(" ({shim_name}, which it loads, opens {answer_name} at run time and reports its version)")
            } else {
                String::new()
            },
            pin.source
        ),
    ))
    .with_evidence(Evidence::new("searched", format!("found by {}: {first}", answer.how.as_str())));
    if answer_name != shim_name {
        finding = finding.with_evidence(Evidence::at(
            "file",
            format!("{shim_name} (the shim that opens {answer_name})"),
            shim_path,
        ));
    }
    if answer.how == How::LdLibraryPath {
        finding = finding.with_fix(FixRef {
            id: format!("ld-library-path-remove:{dir}"),
            kind: FixKind::ld_library_path_remove(&dir),
            summary: format!(
                "Remove {dir} from LD_LIBRARY_PATH for this process, so the pinned cuDNN beside the framework is loaded"
            ),
        });
    } else {
        finding = finding.with_fix(FixRef {
            id: format!("pin-{}", pin_text),
            kind: FixKind::unplanned_pin(),
            summary: format!("Reinstall {pin_text} (pip install --force-reinstall {pin_text})"),
        });
    }
    Some(finding)
}

/// Why the loader took this copy first, in words.
fn first_because(ctx: &SystemContext, r: &Resolution, dir: &str) -> String {
    match r.how {
        How::LdLibraryPath => format!(
            "LD_LIBRARY_PATH ({}) lists {dir}, and ld.so searches LD_LIBRARY_PATH before the RUNPATH of the library that opens it",
            ctx.env.get("LD_LIBRARY_PATH").unwrap_or_default()
        ),
        How::Rpath | How::Runpath => {
            format!("{dir} is in the RPATH/RUNPATH of the loading library")
        }
        How::LdSoCache => format!("{dir} is registered in /etc/ld.so.cache"),
        other => format!("{dir} ({})", other.as_str()),
    }
}

/// The version of a library file: the full version in its real file name (a cuDNN tarball's
/// `libcudnn_graph.so.9.0.0` behind the `libcudnn_graph.so.9` link), the pip wheel that owns
/// its folder (`nvidia_cudnn_cu12-9.1.0.70.dist-info`), or the cuDNN install the scan read.
pub fn file_version(ctx: &SystemContext, inv: &Inventory, path: &str) -> Option<(String, String)> {
    let p = ctx.platform;
    let mut real = path.to_string();
    for _ in 0..8 {
        match ctx.fs.read_link(&real) {
            Ok(t) if t != real => real = t,
            _ => break,
        }
    }
    let name = p.file_name(&real);
    if let Some((_, v)) = name.split_once(".so.")
        && v.matches('.').count() >= 2
        && v.split('.').all(|x| x.parse::<u64>().is_ok())
    {
        return Some((v.to_string(), format!("file name {name}")));
    }
    let dir = p.parent(path)?;
    wheel_version(ctx, &dir).or_else(|| {
        inv.cudnn
            .iter()
            .find(|c| c.library_dirs.iter().any(|d| d == &dir))
            .and_then(|c| c.version.clone().filter(|v| v.contains('.')))
            .map(|v| (v, format!("cuDNN install at {dir}")))
    })
}

/// The version of the pip wheel whose library folder is `dir` (`site-packages/nvidia/<folder>/lib`):
/// its `nvidia_<folder>_cu*-<version>.dist-info` beside `nvidia/`.
fn wheel_version(ctx: &SystemContext, dir: &str) -> Option<(String, String)> {
    let p = ctx.platform;
    let folder_dir = p.parent(dir)?;
    let folder = p.file_name(&folder_dir);
    let site = p.parent(&p.parent(&folder_dir)?)?;
    let prefix = format!("nvidia_{folder}_cu");
    ctx.fs
        .read_dir(&site)
        .unwrap_or_default()
        .into_iter()
        .find_map(|e| {
            let stem = e.name.strip_prefix(&prefix)?.strip_suffix(".dist-info")?;
            let (_, v) = stem.split_once('-')?;
            Some((v.to_string(), format!("wheel {}", e.name)))
        })
}
