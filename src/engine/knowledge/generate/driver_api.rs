//! From each CUDA release: the driver API entry points its `cuda.h` declares (functions
//! returning `CUresult`, and the versioned names its `#define cuX cuX_vN` lines bind them to),
//! with the first release that has each; and the GPU architectures its `ptxas` accepts, read
//! from `ptxas --help` of the `nvidia-cuda-nvcc` wheel (run here: the Linux x86-64 binary).

use super::{Cache, GenerateError, read, sort_versions};
use crate::engine::knowledge::generated::{Architectures, EntryPoint, EntryPoints, PtxasArchs};
use regex::Regex;
use std::collections::BTreeMap;
use std::process::Command;

fn cuda_minors(cache: &Cache) -> Vec<String> {
    let mut minors: Vec<String> = cache.manifest.toolkits.keys().cloned().collect();
    sort_versions(&mut minors);
    minors
}

pub fn entry_points(cache: &Cache) -> Result<EntryPoints, GenerateError> {
    let declared = Regex::new(r"CUresult\s+CUDAAPI\s+(cu[A-Za-z0-9_]+)\s*\(").map_err(re_err)?;
    let bound = Regex::new(r"(?m)^\s*#\s*define\s+cu[A-Za-z0-9_]+\s+(cu[A-Za-z0-9_]+_v[0-9]+)\b")
        .map_err(re_err)?;
    let mut since: BTreeMap<String, String> = BTreeMap::new();
    let mut sampled_from = String::new();
    for minor in cuda_minors(cache) {
        let Some(path) = cache
            .toolkit_listing(&minor, "cuda-runtime")
            .and_then(|l| cache.fetched(l, "include/cuda.h"))
        else {
            continue;
        };
        if sampled_from.is_empty() {
            sampled_from = minor.clone();
        }
        let text = read(&path)?;
        for c in declared
            .captures_iter(&text)
            .chain(bound.captures_iter(&text))
        {
            since
                .entry(c[1].to_string())
                .or_insert_with(|| minor.clone());
        }
    }
    if since.is_empty() {
        return Err(GenerateError::Missing("no cuda.h in the cache".into()));
    }
    Ok(EntryPoints {
        sampled_from,
        entry: since
            .into_iter()
            .map(|(name, since)| EntryPoint { name, since })
            .collect(),
    })
}

fn re_err(e: regex::Error) -> GenerateError {
    GenerateError::Missing(format!("pattern: {e}"))
}

pub fn ptxas_architectures(cache: &Cache) -> Result<Architectures, GenerateError> {
    let quoted = Regex::new(r"'((?:sm|compute)_[0-9]+[a-z]?)'").map_err(re_err)?;
    let build = Regex::new(r"V[0-9]+\.[0-9]+\.[0-9]+").map_err(re_err)?;
    let mut out = Architectures::default();
    for minor in cuda_minors(cache) {
        let Some(ptxas) = cache
            .toolkit_listing(&minor, "cuda-nvcc")
            .and_then(|l| cache.fetched(l, "bin/ptxas"))
        else {
            continue;
        };
        make_executable(&ptxas);
        let run = |arg: &str| {
            Command::new(&ptxas)
                .arg(arg)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .map_err(|source| GenerateError::Read {
                    path: ptxas.clone(),
                    source,
                })
        };
        let help = run("--help")?;
        let section = help
            .split("--gpu-name")
            .nth(1)
            .and_then(|s| s.split("\n--").next())
            .unwrap_or("");
        let archs: Vec<String> = quoted
            .captures_iter(section)
            .map(|c| c[1].to_string())
            .collect();
        let mut unique: Vec<String> = Vec::new();
        for a in archs {
            if !unique.contains(&a) {
                unique.push(a);
            }
        }
        let archs = unique;
        if archs.is_empty() {
            return Err(GenerateError::Missing(format!(
                "{}: --help lists no --gpu-name values",
                ptxas.display()
            )));
        }
        let version = run("--version")?;
        out.ptxas.push(PtxasArchs {
            cuda: minor,
            build: build
                .find(&version)
                .map(|m| m.as_str().to_string())
                .unwrap_or_default(),
            archs,
        });
    }
    Ok(out)
}

#[cfg(unix)]
fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
}

#[cfg(not(unix))]
fn make_executable(_: &std::path::Path) {}
