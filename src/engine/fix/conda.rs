//! conda as a pin's installer: for a Python that lives in a conda environment (its prefix has
//! `conda-meta/`) whose packages conda installed, the pin is `conda install -p <prefix>` run
//! with that environment's own conda (`$CONDA_EXE`, else the `condabin`/`bin`/`Scripts` conda of
//! the prefix or of the installation whose `envs/` holds it), never the first `conda` on PATH.
//! The package set is `conda list --json -p <prefix>` (pip-installed entries left out), kept as
//! `name==version=build` lines; the preview is `conda install --dry-run --json`, whose `LINK`
//! actions are read in every shape conda has printed (objects since 4.6, strings in 4.2/4.4,
//! a list of action groups in 4.3).

use super::FixError;
use super::installer_process::output;
use super::plan::CondaEnv;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::scan::python::conda_dist;
use std::process::Command;

/// `conda` with no prompts (`--yes` goes with each command that changes something).
pub fn conda_process(env: &CondaEnv) -> Command {
    Command::new(&env.exe)
}

/// The conda environment `python` belongs to: its prefix, when `conda-meta/` is there.
pub fn prefix_of(ctx: &SystemContext, python: &str) -> Option<String> {
    let p = ctx.platform;
    let dir = p.parent(python)?;
    let prefix = match p {
        // <prefix>\python.exe
        Platform::Windows => dir,
        // <prefix>/bin/python3
        Platform::Linux => p.parent(&dir)?,
    };
    ctx.fs
        .is_dir(&p.join(&prefix, "conda-meta"))
        .then_some(prefix)
}

/// The name a requirement specifier names (`tensorflow<2.11` → `tensorflow`).
pub fn requirement_name(spec: &str) -> &str {
    let end = spec
        .find(|c: char| "<>=!~ [;".contains(c))
        .unwrap_or(spec.len());
    spec[..end].trim()
}

/// Whether conda installed one of the packages `requirements` name (a `conda-meta/NAME-VERSION-BUILD.json` record).
pub fn manages_any(ctx: &SystemContext, prefix: &str, requirements: &[String]) -> bool {
    let meta = ctx.platform.join(prefix, "conda-meta");
    let Ok(entries) = ctx.fs.read_dir(&meta) else {
        return false;
    };
    let names: Vec<String> = entries
        .iter()
        .filter_map(|e| {
            let (name, _) = conda_dist(e.name.strip_suffix(".json")?)?;
            Some(name.to_ascii_lowercase())
        })
        .collect();
    requirements
        .iter()
        .any(|r| names.contains(&requirement_name(r).to_ascii_lowercase()))
}

/// The environment's own conda: `$CONDA_EXE`, else the conda of the prefix or of the
/// installation whose `envs/` folder holds it.
pub fn exe_for(ctx: &SystemContext, prefix: &str) -> Option<String> {
    let p = ctx.platform;
    if let Some(exe) = ctx.env.get("CONDA_EXE").filter(|e| ctx.fs.is_file(e)) {
        return Some(exe.to_string());
    }
    let mut roots = vec![prefix.to_string()];
    if let Some(envs) = p.parent(prefix)
        && p.file_name(&envs).eq_ignore_ascii_case("envs")
        && let Some(root) = p.parent(&envs)
    {
        roots.push(root);
    }
    let tails: &[(&str, &str)] = match p {
        Platform::Windows => &[("condabin", "conda.bat"), ("Scripts", "conda.exe")],
        Platform::Linux => &[("condabin", "conda"), ("bin", "conda")],
    };
    roots.iter().find_map(|root| {
        tails
            .iter()
            .map(|(dir, name)| p.join(&p.join(root, dir), name))
            .find(|exe| ctx.fs.is_file(exe))
    })
}

/// `conda list --json -p PREFIX` as sorted `name==version=build` lines (pip-installed entries
/// are pip's to restore, not conda's).
pub fn snapshot(env: &CondaEnv) -> Result<Vec<u8>, FixError> {
    let mut cmd = conda_process(env);
    cmd.args(["list", "--json", "-p", &env.prefix]);
    let out = output(cmd, &env.exe, "list --json")?;
    list_lines(&out)
}

/// The lines of a `conda list --json` document.
pub fn list_lines(json: &[u8]) -> Result<Vec<u8>, FixError> {
    let doc: serde_json::Value = serde_json::from_slice(json)
        .map_err(|e| FixError::Refused(format!("conda list --json is not JSON: {e}")))?;
    let Some(items) = doc.as_array() else {
        return Err(FixError::Refused(format!(
            "conda list --json: {}",
            doc["message"].as_str().unwrap_or("not a package list")
        )));
    };
    let mut lines: Vec<String> = items
        .iter()
        .filter(|i| i["channel"].as_str() != Some("pypi"))
        .filter_map(|i| {
            Some(format!(
                "{}=={}={}",
                i["name"].as_str()?,
                i["version"].as_str()?,
                i["build_string"].as_str().unwrap_or("")
            ))
        })
        .collect();
    lines.sort();
    Ok(lines
        .iter()
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes())
}

/// What `conda install --dry-run --json -p PREFIX` would link, as `name==version`.
pub fn dry_run(
    env: &CondaEnv,
    extra: &[String],
    requirements: &[String],
) -> Result<Vec<String>, FixError> {
    let mut cmd = conda_process(env);
    cmd.args(["install", "-p", &env.prefix, "--yes", "--dry-run", "--json"])
        .args(extra)
        .args(requirements);
    parse_dry_run(&output(cmd, &env.exe, "install --dry-run --json")?)
}

/// The packages a `conda … --dry-run --json` document links, as sorted `name==version`
/// (empty when "All requested packages already installed").
pub fn parse_dry_run(json: &[u8]) -> Result<Vec<String>, FixError> {
    let doc: serde_json::Value = serde_json::from_slice(json)
        .map_err(|e| FixError::Refused(format!("conda's --dry-run --json is not JSON: {e}")))?;
    if let Some(err) = doc["error"].as_str() {
        return Err(FixError::Refused(format!("conda --dry-run: {err}")));
    }
    // conda 4.3 printed a list of action groups, every other version one object.
    let groups: Vec<&serde_json::Value> = match &doc["actions"] {
        serde_json::Value::Array(a) => a.iter().collect(),
        serde_json::Value::Object(_) => vec![&doc["actions"]],
        _ => Vec::new(),
    };
    let mut out: Vec<String> = groups
        .iter()
        .filter_map(|g| g["LINK"].as_array())
        .flatten()
        .filter_map(|l| match l {
            serde_json::Value::String(s) => dist_pin(s),
            _ => Some(format!(
                "{}=={}",
                l["name"].as_str()?,
                l["version"].as_str()?
            )),
        })
        .collect();
    out.sort();
    Ok(out)
}

/// `channel::name-version-build[ 1]` → `name==version`.
fn dist_pin(dist: &str) -> Option<String> {
    let dist = dist.split_whitespace().next()?;
    let (name, version) = conda_dist(dist.rsplit("::").next()?)?;
    Some(format!("{name}=={version}"))
}
