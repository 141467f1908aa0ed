//! Environment rules that need only the context: PATH / LD_LIBRARY_PATH entries that do not
//! exist (with the folder a typo most likely meant), CUDA_PATH / CUDA_HOME / CUDNN_PATH /
//! XLA_FLAGS pointing at missing folders, and several CUDA toolkits on PATH in an order that
//! makes the first one win for every file they both ship (DLLs, ptxas).

use super::RuleInput;
use crate::engine::context::did_you_mean::likely_intended_dir;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, PathEdit, Severity};
use regex::Regex;
use std::sync::OnceLock;

/// Variables that name one CUDA-related folder.
const DIR_VARIABLES: &[&str] = &[
    "CUDA_PATH",
    "CUDA_HOME",
    "CUDA_ROOT",
    "CUDNN_PATH",
    "CUDA_TOOLKIT_ROOT_DIR",
];

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let ctx = input.ctx;

    let mut findings = Vec::new();
    findings.extend(list_variable(ctx, "PATH"));
    if ctx.platform == Platform::Linux {
        findings.extend(list_variable(ctx, "LD_LIBRARY_PATH"));
    }
    findings.extend(directory_variables(ctx));
    findings.extend(xla_data_dir(ctx));
    findings.extend(toolkits_on_path(ctx));
    findings
}

/// Expands `%VAR%` (Windows) from the context's environment; `None` when a variable is unset.
fn expand(ctx: &SystemContext, entry: &str) -> Option<String> {
    if ctx.platform != Platform::Windows {
        return Some(entry.to_string());
    }
    match ctx.env.expand_percent(entry) {
        (expanded, true) => Some(expanded),
        _ => None,
    }
}

fn list_variable(ctx: &SystemContext, var: &str) -> Vec<Finding> {
    if !ctx.fs.has_files() {
        return Vec::new();
    }
    let Some(value) = ctx.env.get(var) else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    let mut missing_plain = Vec::new();
    for (index, raw) in ctx.platform.split_list(value).iter().enumerate() {
        let Some(entry) = expand(ctx, raw) else {
            continue;
        };
        if entry.is_empty() || !ctx.platform.is_absolute(&entry) || ctx.fs.is_dir(&entry) {
            continue;
        }
        match likely_intended_dir(ctx, &entry) {
            Some(intended) => findings.push(
                Finding::new(
                    codes::PATH_ENTRY_TYPO,
                    Severity::Warning,
                    format!("{var} entry {entry} does not exist; {intended} does"),
                    format!(
                        "Entry {} of {var} names a folder that does not exist, so nothing in it can be found. \
                         A folder with a nearly identical name exists: {intended}. This is usually a typo, and any \
                         library or tool (such as ptxas) the entry was meant to provide is taken from elsewhere or not found at all.",
                        index + 1
                    ),
                )
                .with_evidence(Evidence::at("env", format!("{var} entry {} does not exist", index + 1), entry.clone()))
                .with_evidence(Evidence::at("file", "existing folder with a close name", intended.clone()))
                .with_fix(FixRef {
                    id: format!("fix-{}-entry-{}", var.to_ascii_lowercase(), index + 1),
                    kind: FixKind::path(PathEdit::replace(var, raw, &intended)),
                    summary: format!("Replace {entry} with {intended} in {var}"),
                }),
            ),
            None => missing_plain.push((index, entry)),
        }
    }
    if !missing_plain.is_empty() {
        let mut finding = Finding::new(
            codes::PATH_ENTRIES_MISSING,
            Severity::Info,
            match missing_plain.len() {
                1 => format!("1 {var} entry does not exist"),
                n => format!("{n} {var} entries do not exist"),
            },
            format!(
                "These {var} entries name folders that do not exist. They are harmless to the loader but often left over from an uninstalled toolkit."
            ),
        );
        for (index, entry) in missing_plain {
            finding = finding.with_evidence(Evidence::at(
                "env",
                format!("{var} entry {} does not exist", index + 1),
                entry,
            ));
        }
        findings.push(finding);
    }
    findings
}

fn directory_variables(ctx: &SystemContext) -> Vec<Finding> {
    if !ctx.fs.has_files() {
        return Vec::new();
    }
    let mut findings = Vec::new();
    let versioned: Vec<(String, String)> = ctx
        .env
        .with_prefix("CUDA_PATH_V")
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let plain = DIR_VARIABLES
        .iter()
        .filter_map(|name| ctx.env.get(name).map(|v| (name.to_string(), v.to_string())));
    for (name, value) in plain.chain(versioned) {
        let Some(dir) = expand(ctx, value.trim()) else {
            continue;
        };
        if dir.is_empty() || ctx.fs.is_dir(&dir) {
            continue;
        }
        let intended = likely_intended_dir(ctx, &dir);
        let mut finding = Finding::new(
            codes::CUDA_ENV_VAR_MISSING_DIR,
            Severity::Warning,
            format!("{name} points at {dir}, which does not exist"),
            format!(
                "{name} is meant to name a CUDA installation, but the folder does not exist. Tools and frameworks \
                 that read it (CUDA-aware builds, XLA's ptxas/libdevice search, installers) will not find the toolkit there.{}",
                intended.as_ref().map(|i| format!(" A folder with a nearly identical name exists: {i}.")).unwrap_or_default()
            ),
        )
        .with_evidence(Evidence::at("env", format!("{name} = {value}"), dir.clone()));
        if let Some(intended) = intended {
            finding = finding.with_fix(FixRef {
                id: format!("fix-{}", name.to_ascii_lowercase()),
                kind: FixKind::env(&name, Some(intended.clone())),
                summary: format!("Set {name} to {intended}"),
            });
        }
        findings.push(finding);
    }
    findings
}

/// `XLA_FLAGS=--xla_gpu_cuda_data_dir=DIR`: the folder XLA searches for bin/ptxas and nvvm/libdevice.
fn xla_data_dir(ctx: &SystemContext) -> Vec<Finding> {
    if !ctx.fs.has_files() {
        return Vec::new();
    }
    let Some(flags) = ctx.env.get("XLA_FLAGS") else {
        return Vec::new();
    };
    let Some(dir) = flags
        .split_whitespace()
        .find_map(|f| f.strip_prefix("--xla_gpu_cuda_data_dir="))
    else {
        return Vec::new();
    };
    let dir = dir.trim_matches(|c| c == '"' || c == '\'');
    let evidence = Evidence::at("env", format!("XLA_FLAGS = {flags}"), dir);
    if !ctx.fs.is_dir(dir) {
        let intended = likely_intended_dir(ctx, dir);
        let fix = intended.as_ref().map(|i| FixRef {
            id: "fix-xla-flags".into(),
            kind: FixKind::env("XLA_FLAGS", Some(flags.replacen(dir, i, 1))),
            summary: format!("Set XLA_FLAGS to {}", flags.replacen(dir, i, 1)),
        });
        let finding = Finding::new(
            codes::XLA_CUDA_DATA_DIR_MISSING,
            Severity::Error,
            format!("XLA_FLAGS points XLA at {dir}, which does not exist"),
            format!(
                "--xla_gpu_cuda_data_dir tells TensorFlow/JAX (XLA) where to find bin/ptxas and nvvm/libdevice. \
                 The folder does not exist, so XLA cannot compile GPU kernels there.{}",
                intended.map(|i| format!(" Did you mean {i}?")).unwrap_or_default()
            ),
        )
        .with_libraries(["ptxas", "libdevice.10.bc"])
        .with_evidence(evidence);
        return vec![match fix {
            Some(fix) => finding.with_fix(fix),
            None => finding,
        }];
    }
    let p = ctx.platform;
    let ptxas = p.join(
        &p.join(dir, "bin"),
        if p == Platform::Windows {
            "ptxas.exe"
        } else {
            "ptxas"
        },
    );
    let libdevice = p.join(
        &p.join(&p.join(dir, "nvvm"), "libdevice"),
        "libdevice.10.bc",
    );
    let missing: Vec<&str> = [
        (ptxas.as_str(), "ptxas"),
        (libdevice.as_str(), "libdevice.10.bc"),
    ]
    .into_iter()
    .filter(|(path, _)| !ctx.fs.is_file(path))
    .map(|(_, name)| name)
    .collect();
    if missing.is_empty() {
        return Vec::new();
    }
    vec![Finding::new(
        codes::XLA_CUDA_DATA_DIR_INCOMPLETE,
        Severity::Warning,
        format!("The XLA CUDA data folder {dir} lacks {}", missing.join(" and ")),
        "XLA looks for bin/ptxas and nvvm/libdevice/libdevice.10.bc under --xla_gpu_cuda_data_dir. Point it at a full CUDA toolkit (or a conda env with cuda-nvcc).".to_string(),
    )
    .with_libraries(missing.iter().map(|s| s.to_string()))
    .with_evidence(evidence)]
}

/// The CUDA version a toolkit folder on PATH belongs to, from its name or the link it is.
fn toolkit_version(ctx: &SystemContext, dir: &str) -> Option<String> {
    static WIN: OnceLock<Regex> = OnceLock::new();
    static LINUX: OnceLock<Regex> = OnceLock::new();
    let re = match ctx.platform {
        Platform::Windows => WIN.get_or_init(|| {
            crate::engine::static_regex::compile(r"(?i)\\CUDA\\v(\d+\.\d+)\\bin(\\x64)?$")
        }),
        Platform::Linux => {
            LINUX.get_or_init(|| crate::engine::static_regex::compile(r"/cuda-(\d+\.\d+)/bin$"))
        }
    };
    let normalized = ctx.platform.normalize(dir);
    if let Some(c) = re.captures(&normalized) {
        return Some(c[1].to_string());
    }
    if ctx.platform == Platform::Linux && normalized.ends_with("/cuda/bin") {
        let link = ctx.fs.read_link(&normalized[..normalized.len() - 4]).ok()?;
        return re
            .captures(&format!("{link}/bin"))
            .map(|c| c[1].to_string());
    }
    None
}

fn toolkits_on_path(ctx: &SystemContext) -> Vec<Finding> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for entry in ctx.path_entries() {
        if let Some(version) = toolkit_version(ctx, &entry)
            && !seen.iter().any(|(v, _)| *v == version)
        {
            seen.push((version, entry));
        }
    }
    let mut findings = Vec::new();
    if seen.len() >= 2 {
        let order: Vec<String> = seen.iter().map(|(v, _)| format!("CUDA {v}")).collect();
        let mut finding = Finding::new(
            codes::MULTIPLE_TOOLKITS_ON_PATH,
            Severity::Warning,
            format!(
                "PATH holds {} CUDA toolkits: {}",
                seen.len(),
                order.join(", then ")
            ),
            format!(
                "Every program that searches PATH takes each file from the first toolkit that has it, so anything \
                 CUDA {} ships — ptxas, nvcc, and DLLs with the same name in both — comes from it, even for software \
                 built for another version. Keep only the toolkit you need on PATH, or put it first.",
                seen[0].0
            ),
        );
        for (i, (version, dir)) in seen.iter().enumerate() {
            finding = finding.with_evidence(Evidence::at(
                "env",
                format!("PATH position {}: CUDA {version}", i + 1),
                dir.clone(),
            ));
        }
        findings.push(finding);
    }
    if let (Some((first, first_dir)), Some(cuda_path)) = (seen.first(), ctx.env.get("CUDA_PATH")) {
        static V: OnceLock<Regex> = OnceLock::new();
        let re = V.get_or_init(|| crate::engine::static_regex::compile(r"(?i)v(\d+\.\d+)\\?$"));
        if let Some(c) = re.captures(cuda_path.trim())
            && c[1] != *first
            && ctx.platform == Platform::Windows
        {
            findings.push(
                    Finding::new(
                        codes::CUDA_PATH_MISMATCH,
                        Severity::Warning,
                        format!("CUDA_PATH names CUDA {} but PATH finds CUDA {first} first", &c[1]),
                        "Build tools and some frameworks (PyTorch on Windows) use CUDA_PATH, while the DLL loader and command \
                         lines use PATH. With different versions, a program can be built against one toolkit and load the other's DLLs.",
                    )
                    .with_evidence(Evidence::at("env", "CUDA_PATH", cuda_path.to_string()))
                    .with_evidence(Evidence::at("env", "first toolkit on PATH", first_dir.clone())),
                );
        }
    }
    findings
}

#[cfg(test)]
mod tests;
