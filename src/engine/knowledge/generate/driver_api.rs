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

/// The parameter names of a C parameter list (`CUcontext *pctx, unsigned int flags` → pctx, flags).
fn param_names(params: &str) -> Vec<String> {
    params
        .split(',')
        .filter_map(|p| {
            p.trim()
                .trim_end_matches(']')
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .rfind(|w| !w.is_empty())
                .map(str::to_string)
        })
        .filter(|w| w != "void")
        .collect()
}

/// `cuCtxCreate_v3` → (`cuCtxCreate`, 3); `cuInit` → (`cuInit`, 1).
fn split_version(name: &str) -> (&str, usize) {
    if let Some((base, k)) = name.rsplit_once("_v")
        && let Ok(k) = k.parse::<usize>()
    {
        return (base, k);
    }
    (name, 1)
}

/// 11040 → "11.4".
fn decode(v: u64) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// The CUDA version cudaTypedefs.h gives a symbol: among the `PFN_<base>_v<version>` typedefs
/// with the symbol's parameter names, sorted, the K-th for `_vK` (the first for no suffix).
fn pfn_since(
    pfn: &BTreeMap<String, Vec<(u64, Vec<String>)>>,
    name: &str,
    params: &[String],
) -> Option<u64> {
    let (base, k) = split_version(name);
    let mut versions: Vec<u64> = pfn
        .get(base)?
        .iter()
        .filter(|(_, p)| p == params)
        .map(|(v, _)| *v)
        .collect();
    versions.sort_unstable();
    versions.dedup();
    versions
        .get((k - 1).min(versions.len().checked_sub(1)?))
        .copied()
}

pub fn entry_points(cache: &Cache) -> Result<EntryPoints, GenerateError> {
    let declared =
        Regex::new(r"CUresult\s+CUDAAPI\s+(cu[A-Za-z0-9_]+)\s*\(([^;{]*)\)\s*;").map_err(re_err)?;
    let bound = Regex::new(r"(?m)^\s*#\s*define\s+(cu[A-Za-z0-9_]+)\s+(cu[A-Za-z0-9_]+_v[0-9]+)\b")
        .map_err(re_err)?;
    let typedef = Regex::new(
        r"typedef\s+CUresult\s+\(CUDAAPI\s+\*PFN_(cu[A-Za-z0-9_]+)_v([0-9]+)\)\s*\(([^;]*)\)\s*;",
    )
    .map_err(re_err)?;
    let runtime =
        Regex::new(r"cudaError_t\s+CUDARTAPI\s+(cuda[A-Za-z0-9_]+)\s*\(").map_err(re_err)?;
    let mut first_seen: BTreeMap<(String, &'static str), String> = BTreeMap::new();
    let mut params_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut pfn: BTreeMap<String, Vec<(u64, Vec<String>)>> = BTreeMap::new();
    let mut sampled_from = String::new();
    // The symbol each plain name meant in the release read before, and, for a symbol a later
    // release made the plain name mean, that release and the symbol it replaced.
    let mut meant: BTreeMap<String, String> = BTreeMap::new();
    let mut rebound: BTreeMap<String, (String, String)> = BTreeMap::new();
    for minor in cuda_minors(cache) {
        let Some(l) = cache.toolkit_listing(&minor, "cuda-runtime") else {
            continue;
        };
        let Some(cuda_h) = cache.fetched(l, "include/cuda.h") else {
            continue;
        };
        if sampled_from.is_empty() {
            sampled_from = minor.clone();
        }
        let text = read(&cuda_h)?;
        // `#define cuCtxCreate cuCtxCreate_v2`: the declaration of cuCtxCreate is the _v2 symbol.
        let defines: BTreeMap<String, String> = bound
            .captures_iter(&text)
            .map(|c| (c[1].to_string(), c[2].to_string()))
            .collect();
        let plain: BTreeMap<String, String> = declared
            .captures_iter(&text)
            .map(|c| {
                let name = c[1].to_string();
                let symbol = defines.get(&name).cloned().unwrap_or_else(|| name.clone());
                (name, symbol)
            })
            .collect();
        for (name, symbol) in &plain {
            if let Some(before) = meant.get(name)
                && before != symbol
            {
                rebound
                    .entry(symbol.clone())
                    .or_insert_with(|| (minor.clone(), before.clone()));
            }
        }
        meant.extend(plain);
        for c in declared.captures_iter(&text) {
            let name = defines
                .get(&c[1])
                .cloned()
                .unwrap_or_else(|| c[1].to_string());
            params_of
                .entry(name.clone())
                .or_insert_with(|| param_names(&c[2]));
            first_seen
                .entry((name, "driver"))
                .or_insert_with(|| minor.clone());
        }
        for target in defines.values() {
            first_seen
                .entry((target.clone(), "driver"))
                .or_insert_with(|| minor.clone());
        }
        if let Some(path) = cache.fetched(l, "include/cudaTypedefs.h") {
            for c in typedef.captures_iter(&read(&path)?) {
                if let Ok(v) = c[2].parse::<u64>() {
                    pfn.entry(c[1].to_string())
                        .or_default()
                        .push((v, param_names(&c[3])));
                }
            }
        }
        if let Some(path) = cache.fetched(l, "include/cuda_runtime_api.h") {
            for c in runtime.captures_iter(&read(&path)?) {
                first_seen
                    .entry((c[1].to_string(), "runtime"))
                    .or_insert_with(|| minor.clone());
            }
        }
    }
    if first_seen.is_empty() {
        return Err(GenerateError::Missing("no cuda.h in the cache".into()));
    }
    let entry = first_seen
        .into_iter()
        .map(|((name, api), seen)| {
            let exact_pfn = (api == "driver")
                .then(|| params_of.get(&name).and_then(|p| pfn_since(&pfn, &name, p)))
                .flatten()
                .map(decode);
            let (since, exact) = match exact_pfn {
                Some(v) => (v, true),
                None => (seen.clone(), seen != sampled_from),
            };
            let (plain_name_since, replaces) = match rebound.get(&name) {
                Some((release, before)) => (Some(release.clone()), Some(before.clone())),
                None => (None, None),
            };
            EntryPoint {
                name,
                api: api.to_string(),
                since,
                exact,
                plain_name_since,
                replaces,
            }
        })
        .collect();
    Ok(EntryPoints {
        sampled_from,
        entry,
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
        let target = archs
            .iter()
            .find(|a| a.starts_with("sm_"))
            .cloned()
            .unwrap_or_else(|| "sm_90".into());
        let ptx_isa = newest_ptx_isa(&ptxas, &target)?;
        out.ptxas.push(PtxasArchs {
            ptx_isa,
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

/// The newest PTX ISA a ptxas accepts: it names it when refusing a module of `.version 99.9`
/// ("Unsupported .version 99.9; current version is '8.4'").
fn newest_ptx_isa(ptxas: &std::path::Path, target: &str) -> Result<String, GenerateError> {
    let io = |source| GenerateError::Read {
        path: ptxas.to_path_buf(),
        source,
    };
    let dir = tempfile::tempdir().map_err(io)?;
    let ptx = dir.path().join("probe.ptx");
    std::fs::write(
        &ptx,
        format!(".version 99.9\n.target {target}\n.address_size 64\n"),
    )
    .map_err(io)?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(&ptx)
        .arg("-o")
        .arg(dir.path().join("probe.cubin"))
        .output()
        .map_err(io)?;
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let re = Regex::new(r"current version is '([0-9]+\.[0-9]+)'").map_err(re_err)?;
    re.captures(&text).map(|c| c[1].to_string()).ok_or_else(|| {
        GenerateError::Missing(format!("{}: no PTX ISA version in {text}", ptxas.display()))
    })
}

#[cfg(unix)]
fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
}

#[cfg(not(unix))]
fn make_executable(_: &std::path::Path) {}
