//! What one `site-packages` holds, learned from files only (never by importing): TensorFlow
//! (`tensorflow/python/platform/build_info.py`), PyTorch (`torch/version.py`, `torch/lib`),
//! JAX/jaxlib and its CUDA plugins, CuPy (`cupy-cudaNNx`), ONNX Runtime (GPU provider
//! library), the pip `nvidia-*` wheels (dist-info METADATA) and their library folders.
//! cuda-facts §1.6, §3.5, §4.1, §4.4.

use super::cudnn;
use super::inventory::{
    CudnnInstall, CudnnSource, Framework, FrameworkKind, NvidiaLibDir, Package, PythonEnv,
    VersionEvidence,
};
use super::pyparse::{apply_build_info, py_assignment};
use super::tools;
use super::version;
use super::walk::{Entry, Walker, is_cuda_library};
use crate::engine::context::Platform;

const TF_DISTS: &[&str] = &[
    "tensorflow",
    "tensorflow-gpu",
    "tensorflow-cpu",
    "tensorflow-intel",
    "tf-nightly",
    "tensorflow-macos",
];

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
        let dists: Vec<(String, String, Entry)> = entries
            .iter()
            .filter_map(|e| version::from_dist_info(&e.name).map(|(n, v)| (n, v, e.clone())))
            .collect();
        let dist = |name: &str| dists.iter().find(|(n, _, _)| n == name);
        let has_dir = |name: &str| {
            entries
                .iter()
                .find(|e| e.is_dir && e.name == name)
                .map(|e| e.path.clone())
        };
        let p = w.platform();
        // nvidia-* wheels
        for (name, ver, e) in dists.iter().filter(|(n, _, _)| n.starts_with("nvidia-")) {
            let meta = read_metadata(w, &e.path, 16 << 10);
            env.nvidia_wheels.push(Package {
                name: name.clone(),
                version: meta.0.or(Some(ver.clone())),
            });
        }
        if let Some(nv) = has_dir("nvidia") {
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
                    if let Some((_, v, e)) =
                        dists.iter().find(|(n, _, _)| n.starts_with("nvidia-cudnn"))
                    {
                        let ev = VersionEvidence {
                            source: "wheel".into(),
                            path: e.path.clone(),
                            version: v.clone(),
                        };
                        let at = usize::from(
                            c.version_evidence
                                .first()
                                .is_some_and(|e| e.source != "library name"),
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
        // TensorFlow
        let tf_dist = TF_DISTS.iter().find_map(|n| dist(n));
        if let Some(tf_dir) = has_dir("tensorflow") {
            let mut f = Framework::new(
                FrameworkKind::TensorFlow,
                tf_dist.map_or("tensorflow", |d| d.0.as_str()),
                tf_dist.map(|d| d.1.clone()),
                &tf_dir,
            );
            let bi = p.normalize(&p.join(&tf_dir, "python/platform/build_info.py"));
            if let Some(text) = w.read_text(&bi, 256 << 10) {
                apply_build_info(&mut f, &text);
                f.evidence.push(bi);
            }
            if let Some(d) = tf_dist {
                f.expects.wheels = read_metadata(w, &d.2.path, 512 << 10).1;
                f.evidence.push(d.2.path.clone());
            }
            env.frameworks.push(f);
        }
        // PyTorch
        if let Some(torch_dir) = has_dir("torch") {
            let d = dist("torch");
            let mut f = Framework::new(
                FrameworkKind::PyTorch,
                "torch",
                d.map(|d| d.1.clone()),
                &torch_dir,
            );
            let vp = p.join(&torch_dir, "version.py");
            if let Some(text) = w.read_text(&vp, 64 << 10) {
                if let Some(v) = py_assignment(&text, "__version__").flatten() {
                    f.version = Some(v);
                }
                match py_assignment(&text, "cuda") {
                    Some(Some(c)) => {
                        f.cuda_build = Some(true);
                        f.expects.cuda = Some(c);
                    }
                    Some(None) => f.cuda_build = Some(false),
                    None => {}
                }
                f.evidence.push(vp);
            }
            let lib = p.join(&torch_dir, "lib");
            let bundled: Vec<String> = w
                .list(&lib)
                .into_iter()
                .filter(|e| !e.is_dir && is_cuda_library(&e.name))
                .map(|e| e.name)
                .collect();
            if !bundled.is_empty() {
                let src = CudnnSource::Bundled {
                    env: env.root.clone(),
                    framework: "torch".into(),
                };
                if let Some(c) = cudnn::install(w, &torch_dir, src, std::slice::from_ref(&lib), &[])
                {
                    f.expects.cudnn = c.version.clone();
                    cudnn_found.push(c);
                }
                f.bundled_libraries = bundled;
                f.bundled_dir = Some(lib);
            }
            if let Some(d) = d {
                f.expects.wheels = read_metadata(w, &d.2.path, 512 << 10).1;
                f.evidence.push(d.2.path.clone());
            }
            if f.expects.cudnn.is_none() {
                f.expects.cudnn = f
                    .expects
                    .wheels
                    .iter()
                    .find(|w| w.name.starts_with("nvidia-cudnn"))
                    .and_then(|w| w.version.as_ref())
                    .map(|s| s.trim_start_matches("==").to_string());
            }
            env.frameworks.push(f);
        }
        // JAX
        if let Some(jax_dir) = has_dir("jax").or_else(|| has_dir("jaxlib")) {
            let d = dist("jax").or_else(|| dist("jaxlib"));
            let mut f = Framework::new(
                FrameworkKind::Jax,
                d.map_or("jax", |d| d.0.as_str()),
                d.map(|d| d.1.clone()),
                &jax_dir,
            );
            for (name, ver, e) in dists
                .iter()
                .filter(|(n, _, _)| n == "jaxlib" || n.starts_with("jax-cuda"))
            {
                f.plugins.push(Package {
                    name: name.clone(),
                    version: Some(ver.clone()),
                });
                f.evidence.push(e.path.clone());
                if let Some(major) = name
                    .strip_prefix("jax-cuda")
                    .and_then(|r| r.split('-').next())
                {
                    f.expects.cuda.get_or_insert_with(|| major.to_string());
                    f.cuda_build = Some(true);
                    let wheels = read_metadata(w, &e.path, 64 << 10).1;
                    f.expects.wheels.extend(wheels);
                }
                // jaxlib-0.4.13+cuda12.cudnn89: the old combined CUDA wheels.
                if let Some(tag) = ver.split_once('+').map(|(_, t)| t.to_string()) {
                    for part in tag.split('.') {
                        if let Some(c) = part.strip_prefix("cuda") {
                            f.expects.cuda.get_or_insert_with(|| c.to_string());
                            f.cuda_build = Some(true);
                        } else if let Some(c) = part.strip_prefix("cudnn") {
                            let v = if c.len() >= 2 {
                                format!("{}.{}", &c[..1], &c[1..])
                            } else {
                                c.to_string()
                            };
                            f.expects.cudnn.get_or_insert(v);
                        }
                    }
                }
            }
            env.frameworks.push(f);
        }
        // CuPy
        if let Some((name, ver, e)) = dists
            .iter()
            .find(|(n, _, _)| n == "cupy" || n.starts_with("cupy-cuda"))
        {
            let loc = has_dir("cupy").unwrap_or_else(|| e.path.clone());
            let mut f = Framework::new(FrameworkKind::CuPy, name, Some(ver.clone()), &loc);
            if let Some(tag) = name.strip_prefix("cupy-cuda") {
                f.cuda_build = Some(true);
                f.expects.cuda = match tag.strip_suffix('x') {
                    Some(major) => Some(format!("{major}.x")),
                    None => version::family_from_digits(tag),
                };
            }
            f.evidence.push(e.path.clone());
            env.frameworks.push(f);
        }
        // ONNX Runtime
        if let Some(ort_dir) = has_dir("onnxruntime") {
            let d = dists
                .iter()
                .find(|(n, _, _)| n.starts_with("onnxruntime") || n == "ort-nightly-gpu");
            let mut f = Framework::new(
                FrameworkKind::OnnxRuntime,
                d.map_or("onnxruntime", |d| d.0.as_str()),
                d.map(|d| d.1.clone()),
                &ort_dir,
            );
            let capi = p.join(&ort_dir, "capi");
            let providers: Vec<String> = w
                .list(&capi)
                .into_iter()
                .filter(|e| {
                    e.name.contains("providers_cuda") || e.name.contains("providers_tensorrt")
                })
                .map(|e| e.name)
                .collect();
            f.cuda_build = Some(!providers.is_empty() || d.is_some_and(|d| d.0.contains("gpu")));
            if !providers.is_empty() {
                f.plugins = providers
                    .iter()
                    .map(|n| Package {
                        name: n.clone(),
                        version: None,
                    })
                    .collect();
                f.bundled_dir = Some(capi);
            }
            if let Some(d) = d {
                f.expects.wheels = read_metadata(w, &d.2.path, 256 << 10).1;
                f.evidence.push(d.2.path.clone());
            }
            env.frameworks.push(f);
        }
    }
    if w.platform() == Platform::Linux {
        for f in &mut env.frameworks {
            f.search_library = super::search_library::find(w.ctx, f);
        }
    }
    cudnn_found
}

/// Version and `nvidia-*` requirements from `<dist-info>/METADATA` (head only).
fn read_metadata(w: &mut Walker, dist_info: &str, limit: u64) -> (Option<String>, Vec<Package>) {
    let path = w.join(dist_info, "METADATA");
    let Some(bytes) = w.read_bytes(&path, limit, true) else {
        return (None, Vec::new());
    };
    let (v, req) = version::from_metadata(&String::from_utf8_lossy(&bytes));
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
