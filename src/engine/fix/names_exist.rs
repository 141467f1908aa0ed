//! Whether what a fix names exists: every package and version a pip command or pin names is
//! checked against PyPI's releases (the generated `package_releases.toml`: which versions have
//! wheels for which platform), and every folder a PATH edit or DLL-directory hook adds against
//! the diagnosed machine. Rules ask [`pip_package_exists`] before offering a package; the tests
//! run [`missing_names`] over every fix of every machine.

use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::FixRef;
use crate::engine::knowledge::generated::generated;
use crate::engine::knowledge::version::compare;
use crate::engine::scan::python::conda_dist;
use std::cmp::Ordering;

/// One pip requirement: `name[extras]` and its version clauses (`<2.11`, `==0.4.30`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub name: String,
    pub clauses: Vec<(String, String)>,
}

/// Parses `tensorflow<2.11`, `"jax[cuda12]==0.4.30"`, `nvidia-cudnn-cu12==9.1.0.70`,
/// `torch>=2.4,<2.6`; None for an option or anything that is not a requirement.
pub fn parse_requirement(text: &str) -> Option<Requirement> {
    let t = text.trim().trim_matches(['"', '\'']);
    if t.is_empty() || t.starts_with('-') || t.contains(['/', '\\']) {
        return None;
    }
    let t = t.split(';').next().unwrap_or(t).trim();
    let name_end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(t.len());
    let name = &t[..name_end];
    if name.is_empty() || !name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let mut rest = &t[name_end..];
    if rest.starts_with('[') {
        rest = rest.split_once(']').map(|(_, r)| r).unwrap_or("");
    }
    let mut clauses = Vec::new();
    for clause in rest.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let op_len = clause
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(clause.len());
        let (op, version) = clause.split_at(op_len);
        let op = op.trim();
        if !matches!(op, "==" | "<" | "<=" | ">" | ">=" | "~=" | "!=") || version.is_empty() {
            return None;
        }
        clauses.push((op.to_string(), version.trim_end_matches(".*").to_string()));
    }
    Some(Requirement {
        name: name.to_ascii_lowercase().replace('_', "-"),
        clauses,
    })
}

/// The requirements after each `pip install` in a command text (options skipped).
pub fn pip_requirements(text: &str) -> Vec<Requirement> {
    let mut out = Vec::new();
    for part in text.split("pip install").skip(1) {
        let words = part.split(|c: char| c.is_whitespace() || c == '(' || c == ')');
        for w in words {
            if w.is_empty() {
                continue;
            }
            if w.starts_with('-') {
                continue;
            }
            match parse_requirement(w) {
                // A bare word is a package only when it is one this tool may name ("then",
                // "with" end the command).
                Some(r)
                    if !r.clauses.is_empty()
                        || generated().package_known(&r.name)
                        || in_known_families(&r.name) =>
                {
                    out.push(r)
                }
                _ => break,
            }
        }
    }
    out
}

fn satisfies(version: &str, clauses: &[(String, String)]) -> bool {
    clauses.iter().all(|(op, want)| {
        let o = compare(version, want);
        match op.as_str() {
            "==" => o == Some(Ordering::Equal) || version.starts_with(&format!("{want}.")),
            "!=" => o != Some(Ordering::Equal),
            "<" => o == Some(Ordering::Less),
            "<=" => o.is_some_and(|o| o != Ordering::Greater),
            ">" => o == Some(Ordering::Greater),
            ">=" => o.is_some_and(|o| o != Ordering::Less),
            "~=" => {
                let prefix: Vec<&str> = want.split('.').collect();
                let head = prefix[..prefix.len().saturating_sub(1)].join(".");
                o.is_some_and(|o| o != Ordering::Less)
                    && (version == head || version.starts_with(&format!("{head}.")))
            }
            _ => false,
        }
    })
}

/// The platform name of the package table.
pub fn platform_name(p: Platform) -> &'static str {
    match p {
        Platform::Windows => "windows",
        Platform::Linux => "linux",
    }
}

/// Whether PyPI has a release of `req` with a wheel for `platform` that satisfies its clauses.
/// `None` when the package is outside the table (not one a fix of this tool names).
pub fn pip_package_exists(req: &Requirement, platform: Platform) -> Option<bool> {
    let g = generated();
    let row = g
        .packages
        .package
        .iter()
        .find(|p| p.name.to_ascii_lowercase().replace('_', "-") == req.name)?;
    let plat = platform_name(platform);
    Some(row.releases.iter().any(|r| {
        let mut words = r.split(' ');
        let version = words.next().unwrap_or("");
        satisfies(version, &req.clauses)
            && words.any(|w| {
                let p = w.split('=').next().unwrap_or("");
                p == plat || p == "any"
            })
    }))
}

/// A package name the table ought to know (the families whose fixes this tool writes) but
/// does not: `nvidia-cuda-nvcc-cu10` never existed.
fn in_known_families(name: &str) -> bool {
    [
        "nvidia-",
        "cupy-cuda",
        "jax-cuda",
        "tensorrt",
        "onnxruntime",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || matches!(
            name,
            "tensorflow" | "tensorflow-gpu" | "torch" | "jax" | "jaxlib"
        )
}

/// Whether a fix may name the requirement `text` on `platform`: PyPI has a matching wheel, or
/// the package is outside the families this tool's table covers. False for a name that
/// cannot be parsed.
pub fn may_offer(text: &str, platform: Platform) -> bool {
    let Some(req) = parse_requirement(text) else {
        return false;
    };
    match pip_package_exists(&req, platform) {
        Some(exists) => exists,
        None => !in_known_families(&req.name),
    }
}

/// Everything a fix names that does not exist for `ctx`: packages (with the version asked)
/// without a wheel for the machine's platform, and folders a PATH edit or DLL hook adds that
/// are not on the machine.
pub fn missing_names(fix: &FixRef, ctx: &SystemContext) -> Vec<String> {
    let kind = super::kinds::module(&fix.kind);
    let mut reqs: Vec<Requirement> = kind
        .requirements()
        .iter()
        .filter_map(|r| parse_requirement(r))
        .collect();
    reqs.extend(pip_requirements(&fix.summary));
    let mut out = Vec::new();
    for r in &reqs {
        let exists = pip_package_exists(r, ctx.platform);
        if !exists.unwrap_or(!in_known_families(&r.name)) {
            let clauses: Vec<String> = r.clauses.iter().map(|(o, v)| format!("{o}{v}")).collect();
            out.push(format!(
                "package {}{} ({} wheel)",
                r.name,
                clauses.join(","),
                platform_name(ctx.platform)
            ));
        }
    }
    out.extend(missing_conda_names(&fix.summary, ctx));
    for d in kind.folders() {
        if !ctx.fs.is_dir(d) {
            out.push(format!("folder {d}"));
        }
    }
    out
}

/// The packages of each `conda install -p <prefix> ... pkg[=version]` in a text: (prefix, name,
/// version).
pub fn conda_requirements(text: &str) -> Vec<(Option<String>, String, Option<String>)> {
    let mut out = Vec::new();
    for part in text.split("conda install").skip(1) {
        // The command ends with its sentence (". "), a ";" or the line.
        let end = [". ", ";", "\n"]
            .iter()
            .filter_map(|t| part.find(t))
            .min()
            .unwrap_or(part.len());
        let command = part[..end].trim_end_matches('.');
        let words = shell_words(command);
        let mut prefix = None;
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            if matches!(
                w.as_str(),
                "-p" | "--prefix" | "-n" | "--name" | "-c" | "--channel"
            ) {
                if matches!(w.as_str(), "-p" | "--prefix") {
                    prefix = words.get(i + 1).cloned();
                }
                i += 2;
                continue;
            }
            if !w.starts_with('-') {
                let (name, version) = match w.split_once('=') {
                    Some((n, v)) => (n, Some(v.trim_start_matches('=').to_string())),
                    None => (w.as_str(), None),
                };
                out.push((prefix.clone(), name.to_ascii_lowercase(), version));
            }
            i += 1;
        }
    }
    out
}

/// Words of a command line, with double-quoted words kept whole.
fn shell_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, chunk) in text.split('"').enumerate() {
        if i % 2 == 1 {
            out.push(chunk.to_string());
        } else {
            out.extend(chunk.split_whitespace().map(str::to_string));
        }
    }
    out
}

/// Conda packages a text names that the named environment's `conda-meta` does not record
/// (`<name>-<version>-<build>.json`): conda's channels are not reachable to check, so a conda
/// command may only name what that environment's own conda installed.
pub fn missing_conda_names(text: &str, ctx: &SystemContext) -> Vec<String> {
    let p = ctx.platform;
    // (name, version) of each record, read once per prefix named.
    let mut records: std::collections::HashMap<String, Vec<(String, String)>> =
        std::collections::HashMap::new();
    let mut out = Vec::new();
    for (prefix, name, version) in conda_requirements(text) {
        let recorded = prefix.is_some_and(|prefix| {
            records
                .entry(prefix)
                .or_insert_with_key(|prefix| {
                    ctx.fs
                        .read_dir(&p.join(prefix, "conda-meta"))
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|e| conda_dist(e.name.strip_suffix(".json")?))
                        .map(|(n, v)| (n.to_string(), v.to_string()))
                        .collect()
                })
                .iter()
                .any(|(n, v)| {
                    n.eq_ignore_ascii_case(&name) && version.as_deref().is_none_or(|want| v == want)
                })
        });
        if !recorded {
            let v = version.map(|v| format!("={v}")).unwrap_or_default();
            out.push(format!(
                "conda package {name}{v} (not recorded in the environment's conda-meta)"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conda_commands_parse() {
        let got = conda_requirements(
            "ships it. To reinstall it: conda install -p \"/opt/my env\" --force-reinstall libcublas=12.4.5.8. Then",
        );
        assert_eq!(
            got,
            vec![(
                Some("/opt/my env".to_string()),
                "libcublas".to_string(),
                Some("12.4.5.8".to_string())
            )]
        );
        assert!(conda_requirements("pip install torch").is_empty());
    }

    #[test]
    fn requirements_parse() {
        let r = parse_requirement("\"jax[cuda12]==0.4.30\"").unwrap();
        assert_eq!(r.name, "jax");
        assert_eq!(r.clauses, vec![("==".into(), "0.4.30".into())]);
        let r = parse_requirement("torch>=2.4,<2.6").unwrap();
        assert_eq!(r.clauses.len(), 2);
        assert!(parse_requirement("--force-reinstall").is_none());
        let got: Vec<String> = pip_requirements(
            "python -m pip install --no-deps \"nvidia-cudnn-cu12==9.1.0.70\" then",
        )
        .into_iter()
        .map(|r| r.name)
        .collect();
        assert_eq!(got, ["nvidia-cudnn-cu12"]);
    }

    #[test]
    fn the_table_knows_what_pypi_has() {
        let req = |s: &str| parse_requirement(s).unwrap();
        assert_eq!(
            pip_package_exists(&req("nvidia-cuda-nvcc-cu10"), Platform::Linux),
            None
        );
        assert_eq!(
            pip_package_exists(&req("nvidia-cuda-nvcc-cu11"), Platform::Linux),
            Some(true)
        );
        assert_eq!(
            pip_package_exists(&req("tensorflow<2.11"), Platform::Windows),
            Some(true)
        );
        // TensorFlow's last native-Windows GPU release is 2.10; no tensorflow-gpu 2.12 exists.
        assert_eq!(
            pip_package_exists(&req("tensorflow-gpu==2.12"), Platform::Windows),
            Some(false)
        );
        assert!(satisfies("2.10.1", &[("<".into(), "2.11".into())]));
        assert!(satisfies("12.4.5.8", &[("~=".into(), "12.4".into())]));
        assert!(!satisfies("13.0.1", &[("~=".into(), "12.4".into())]));
    }
}
