//! What one `site-packages` holds, learned from files only (never by importing): the pip
//! `nvidia-*` wheels (dist-info METADATA) and their library folders here, and one reader per
//! framework beside this file — `tensorflow` (build_info.py), `torch` (version.py, torch/lib),
//! `jax` (jaxlib and its CUDA plugins), `cupy` (`cupy-cudaNNx`, `_wheel.json`) and
//! `onnxruntime` (`capi/version_info.py`, the CUDA provider), each named by its framework's row
//! in `specs.rs`. Each reader fills the framework's `expects` from the release's real files, says
//! where (`basis`), marks what it had to infer (`inferred_from`) and records what it could not
//! read (`unread`).

mod cupy;
mod cupy_nvcc;
mod jax;
mod onnxruntime;
mod specs;
mod tensorflow;
mod torch;
mod triton;

pub use specs::{FrameworkSpec, WindowsLoading};

use super::cudnn;
use super::tools;
use super::version_clues;
use super::walker::{Entry, Walker, is_cuda_library};
use crate::engine::context::Platform;
use crate::engine::inventory::{
    CudnnInstall, CudnnSource, NvidiaLibDir, Package, PythonEnv, ToolInfo, VersionEvidence,
    VersionSource,
};

/// One site-packages folder as the readers see it: its entries and the dist-info folders in it.
pub(super) struct Site {
    pub env_root: String,
    pub entries: Vec<Entry>,
    /// (normalised distribution name, version, the dist-info entry)
    pub dists: Vec<(String, String, Entry)>,
}

impl Site {
    pub fn dist(&self, name: &str) -> Option<&(String, String, Entry)> {
        self.dists.iter().find(|(n, _, _)| n == name)
    }

    /// The machine path of the package folder `name`, when it exists.
    pub fn dir(&self, name: &str) -> Option<String> {
        self.entries
            .iter()
            .find(|e| e.is_dir && e.name == name)
            .map(|e| e.path.clone())
    }
}

/// Reads every site-packages folder of `env` into it; returns the cuDNN copies found there.
pub fn read_site_packages(
    w: &mut Walker,
    env: &mut PythonEnv,
    run_tools: bool,
) -> Vec<CudnnInstall> {
    let mut cudnn_found = Vec::new();
    for site in env.site_packages.clone() {
        if w.should_stop(&site) {
            break;
        }
        let entries = w.list(&site);
        let dists = entries
            .iter()
            .filter_map(|e| version_clues::from_dist_info(&e.name).map(|(n, v)| (n, v, e.clone())))
            .collect();
        let site = Site {
            env_root: env.root.clone(),
            entries,
            dists,
        };
        read_nvidia_wheels(w, &site, env, &mut cudnn_found, run_tools);
        triton::read(w, &site, env, run_tools);
        cupy_nvcc::read(w, &site, env, run_tools);
        if env.xla_ptxas.is_empty()
            && (site.dist("tensorflow").is_some() || site.dist("jax").is_some())
        {
            env.xla_ptxas = xla_ptxas(w, run_tools);
        }
        for kind in crate::engine::inventory::FrameworkKind::ALL {
            let found = (kind.spec().read)(w, &site, &mut cudnn_found);
            env.frameworks.extend(found);
        }
    }
    if w.platform() == Platform::Linux {
        for f in &mut env.frameworks {
            f.search_library = super::search_library::find(w.ctx, f);
        }
    }
    cudnn_found
}

/// The pip `nvidia-*` wheels: versions, library folders, the cuDNN copy and ptxas.
fn read_nvidia_wheels(
    w: &mut Walker,
    site: &Site,
    env: &mut PythonEnv,
    cudnn_found: &mut Vec<CudnnInstall>,
    run_tools: bool,
) {
    let p = w.platform();
    for (name, ver, e) in site
        .dists
        .iter()
        .filter(|(n, _, _)| n.starts_with("nvidia-"))
    {
        let meta = read_metadata(w, &e.path, 16 << 10);
        env.nvidia_wheels.push(Package {
            name: name.clone(),
            version: meta.0.or(Some(ver.clone())),
        });
    }
    let Some(nv) = site.dir("nvidia") else {
        return;
    };
    for comp in w.list(&nv).into_iter().filter(|e| e.is_dir) {
        for sub in ["lib", "bin", r"bin\x86_64", "lib/x86_64"] {
            let dir = p.normalize(&p.join(&comp.path, sub));
            let libraries: Vec<String> = w
                .list(&dir)
                .into_iter()
                .filter(|e| !e.is_dir && is_cuda_library(&e.name))
                .map(|e| e.name)
                .collect();
            if !libraries.is_empty() {
                env.nvidia_lib_dirs.push(NvidiaLibDir {
                    component: comp.name.clone(),
                    dir,
                    libraries,
                });
            }
        }
    }
    let cudnn_root = p.join(&nv, "cudnn");
    if w.is_dir(&cudnn_root) {
        let dirs = [p.join(&cudnn_root, "lib"), p.join(&cudnn_root, "bin")];
        let headers = [p.join(&cudnn_root, &p.normalize("include/cudnn_version.h"))];
        let src = CudnnSource::Pip {
            env: env.root.clone(),
        };
        if let Some(mut c) = cudnn::install(w, &cudnn_root, src, &dirs, &headers) {
            if let Some((_, v, e)) = site
                .dists
                .iter()
                .find(|(n, _, _)| n.starts_with("nvidia-cudnn"))
            {
                let ev = VersionEvidence {
                    source: VersionSource::Wheel,
                    path: e.path.clone(),
                    version: v.clone(),
                };
                let at = usize::from(
                    c.version_evidence
                        .first()
                        .is_some_and(|e| e.source != VersionSource::LibraryName),
                );
                c.version_evidence.insert(at, ev);
                c.version = c.version_evidence.first().map(|e| e.version.clone());
            }
            cudnn_found.push(c);
        }
    }
    let ptxas = p.join(
        &nv,
        if p == Platform::Windows {
            r"cuda_nvcc\bin\ptxas.exe"
        } else {
            "cuda_nvcc/bin/ptxas"
        },
    );
    if env.pip_ptxas.is_none() && w.is_file(&ptxas) {
        env.pip_ptxas = Some(tools::tool_info(w, &ptxas, run_tools));
    }
}

/// How many ptxas binaries outside the wheel are read for their versions (each read is a few MB).
const MAX_XLA_PTXAS: usize = 4;

/// The ptxas binaries in `CUDA_ROOT`/bin and the PATH folders, in that order, with their versions.
fn xla_ptxas(w: &mut Walker, run_tools: bool) -> Vec<ToolInfo> {
    let p = w.platform();
    let name = if p == Platform::Windows {
        "ptxas.exe"
    } else {
        "ptxas"
    };
    let root = w.ctx.env.get("CUDA_ROOT").map(|r| p.join(r.trim(), "bin"));
    let dirs: Vec<String> = root.into_iter().chain(w.ctx.path_entries()).collect();
    let mut found: Vec<ToolInfo> = Vec::new();
    for dir in dirs {
        if found.len() == MAX_XLA_PTXAS {
            break;
        }
        if dir.trim().is_empty() || !p.is_absolute(&dir) {
            continue;
        }
        let path = p.join(&p.normalize(&dir), name);
        if w.is_file(&path) && !found.iter().any(|t| t.path == path) {
            found.push(tools::tool_info(w, &path, run_tools));
        }
    }
    found
}

/// Version and `nvidia-*` requirements from `<dist-info>/METADATA` (head only).
fn read_metadata(w: &mut Walker, dist_info: &str, limit: u64) -> (Option<String>, Vec<Package>) {
    let path = w.join(dist_info, "METADATA");
    let Some(bytes) = w.read_bytes(&path, limit, true) else {
        return (None, Vec::new());
    };
    let platform = w.platform().as_str();
    let (v, req) =
        version_clues::from_metadata_on(&String::from_utf8_lossy(&bytes), Some(platform));
    (
        v,
        req.into_iter()
            .map(|(name, spec)| Package {
                name,
                version: Some(spec).filter(|s| !s.is_empty()),
            })
            .collect(),
    )
}

/// The cuDNN a package's `nvidia-cudnn-cu*` requirement names: `==9.1.0.70` → `9.1.0.70`,
/// `<10.0,>=9.8` → `9.8` (the lower bound: the oldest it accepts).
fn cudnn_from_wheels(wheels: &[Package]) -> Option<String> {
    let spec = wheels
        .iter()
        .find(|w| w.name.starts_with("nvidia-cudnn"))?
        .version
        .as_deref()?;
    spec_lower_bound(spec).map(str::to_string)
}

/// The lower bound of a requirement's version spec, the oldest release it accepts:
/// `==9.1.0.70` → `9.1.0.70`, `<10.0,>=9.8` → `9.8`, `~=13.0` → `13.0`.
fn spec_lower_bound(spec: &str) -> Option<&str> {
    spec.split(',').find_map(|part| {
        let part = part.trim();
        let v = ["==", ">=", "~="]
            .iter()
            .find_map(|op| part.strip_prefix(op))
            .unwrap_or(part)
            .trim();
        v.starts_with(|c: char| c.is_ascii_digit()).then_some(v)
    })
}
