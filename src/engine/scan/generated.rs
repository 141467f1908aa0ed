//! A generated benchmark machine (not a test): a Linux machine file with 3 CUDA toolkits,
//! 20 Python environments (conda envs and venvs with TensorFlow, PyTorch, JAX and pip
//! `nvidia-*` wheels) and about 5,000 library files, all empty placeholders. Used by
//! the scan benchmark (`cargo bench --bench scan`) and by the resilience tests that need a big
//! tree. Built only for tests and benchmarks (feature `testing`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// CUDA component stems a toolkit's lib64 gets (each with several soname links).
const COMPONENTS: &[&str] = &[
    "cudart",
    "cublas",
    "cublasLt",
    "cufft",
    "cufftw",
    "curand",
    "cusolver",
    "cusolverMg",
    "cusparse",
    "nvrtc",
    "nvrtc-builtins",
    "nvJitLink",
    "nppc",
    "nppial",
    "nppicc",
    "nppidei",
    "nppif",
    "nppig",
    "nppim",
    "nppist",
    "nppisu",
    "nppitc",
    "npps",
    "nvjpeg",
    "cufile",
    "nvToolsExt",
    "cupti",
    "nvperf_host",
    "nvperf_target",
    "accinj64",
    "cuinj64",
    "nvblas",
];
/// pip wheel components put into every environment's `site-packages/nvidia`.
const WHEELS: &[(&str, &str)] = &[
    ("cublas", "12.1.3.1"),
    ("cuda_runtime", "12.1.105"),
    ("cuda_nvrtc", "12.1.105"),
    ("cuda_cupti", "12.1.105"),
    ("cudnn", "8.9.2.26"),
    ("cufft", "11.0.2.54"),
    ("curand", "10.3.2.106"),
    ("cusolver", "11.4.5.107"),
    ("cusparse", "12.1.0.106"),
    ("nccl", "2.18.1"),
    ("nvtx", "12.1.105"),
    ("nvjitlink", "12.4.127"),
];

fn touch(path: &Path, text: &str) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, text)
}

/// Writes the machine under `dir` and returns the path of its `machine.toml`; also returns
/// how many library files were created.
pub fn generate(dir: &Path) -> io::Result<(PathBuf, usize)> {
    let root = dir.join("fs");
    let mut libs = 0usize;
    for (i, ver) in ["11.8.89", "12.1.105", "12.4.131"].iter().enumerate() {
        let mm: String = ver.split('.').take(2).collect::<Vec<_>>().join(".");
        let major = ver.split('.').next().unwrap_or("12");
        let tk = root.join(format!("usr/local/cuda-{mm}"));
        touch(
            &tk.join("version.json"),
            &format!("{{\"cuda\": {{\"name\": \"CUDA SDK\", \"version\": \"{ver}\"}}}}"),
        )?;
        touch(
            &tk.join("bin/ptxas"),
            &format!("\x7fELF....Cuda compilation tools, release {mm}, V{ver}\0"),
        )?;
        touch(&tk.join("bin/nvcc"), "")?;
        touch(&tk.join("nvvm/libdevice/libdevice.10.bc"), "")?;
        touch(
            &tk.join("include/cudnn_version.h"),
            "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n",
        )?;
        let lib = tk.join("targets/x86_64-linux/lib");
        fs::create_dir_all(&lib)?;
        for c in COMPONENTS {
            for n in 0..28 {
                touch(&lib.join(format!("lib{c}.so.{major}.{i}.{n}")), "")?;
                libs += 1;
            }
        }
        touch(&tk.join("extras/CUPTI/lib64/libcupti.so.12"), "")?;
        libs += 1;
        #[cfg(unix)]
        {
            let _ = std::os::unix::fs::symlink("targets/x86_64-linux/lib", tk.join("lib64"));
        }
    }
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink("cuda-12.4", root.join("usr/local/cuda"));
    }
    let mut envs = Vec::new();
    for i in 0..20 {
        let (prefix, conda) = if i % 2 == 0 {
            (root.join(format!("opt/conda/envs/env{i}")), true)
        } else {
            (root.join(format!("home/dev/projects/p{i}/.venv")), false)
        };
        let site = prefix.join("lib/python3.10/site-packages");
        if conda {
            touch(
                &prefix.join("conda-meta/python-3.10.13-h955ad1f_0.json"),
                "{}",
            )?;
        } else {
            touch(
                &prefix.join("pyvenv.cfg"),
                "home = /usr/bin\nversion = 3.10.12\n",
            )?;
        }
        touch(&prefix.join("bin/python3"), "")?;
        for (comp, ver) in WHEELS {
            let dist = format!(
                "nvidia_{}_cu12-{ver}.dist-info",
                comp.replace("cuda_", "cuda-").replace('-', "_")
            );
            touch(
                &site.join(&dist).join("METADATA"),
                &format!("Metadata-Version: 2.1\nName: nvidia-{comp}-cu12\nVersion: {ver}\n\n"),
            )?;
            for n in 0..10 {
                touch(
                    &site.join(format!("nvidia/{comp}/lib/lib{comp}.so.12.{n}")),
                    "",
                )?;
                libs += 1;
            }
        }
        touch(
            &site.join("nvidia/cudnn/include/cudnn_version.h"),
            "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 2\n",
        )?;
        touch(&site.join("nvidia/cudnn/lib/libcudnn.so.8"), "")?;
        match i % 3 {
            0 => {
                touch(
                    &site.join("torch-2.1.0.dist-info/METADATA"),
                    "Name: torch\nVersion: 2.1.0\nRequires-Dist: nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == \"Linux\"\n\n",
                )?;
                touch(
                    &site.join("torch/version.py"),
                    "__version__ = '2.1.0+cu121'\ncuda: Optional[str] = '12.1'\n",
                )?;
            }
            1 => {
                touch(
                    &site.join("tensorflow-2.15.0.dist-info/METADATA"),
                    "Name: tensorflow\nVersion: 2.15.0\n\n",
                )?;
                touch(
                    &site.join("tensorflow/python/platform/build_info.py"),
                    "build_info = collections.OrderedDict()\nbuild_info['cuda_version'] = '12.2'\nbuild_info['cudnn_version'] = '8'\nbuild_info['is_cuda_build'] = True\n",
                )?;
            }
            _ => {
                touch(
                    &site.join("jax-0.4.30.dist-info/METADATA"),
                    "Name: jax\nVersion: 0.4.30\n\n",
                )?;
                touch(&site.join("jax/__init__.py"), "")?;
                touch(
                    &site.join("jax_cuda12_plugin-0.4.30.dist-info/METADATA"),
                    "Name: jax-cuda12-plugin\nVersion: 0.4.30\n\n",
                )?;
            }
        }
        envs.push(prefix);
    }
    touch(
        &root.join("opt/conda/conda-meta/python-3.11.5-h955ad1f_0.json"),
        "{}",
    )?;
    fs::create_dir_all(root.join("opt/conda/condabin"))?;
    touch(
        &root.join("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"),
        "",
    )?;
    touch(&root.join("usr/lib/x86_64-linux-gnu/libcuda.so.1"), "")?;
    let machine = dir.join("machine.toml");
    let text = "# Generated by `cuda-triage scan --bench-generate`: 3 toolkits, 20 Python environments, ~5,000 libraries.\nplatform = \"linux\"\nroot = \"fs\"\n[env]\nPATH = \"/usr/local/cuda/bin:/usr/bin:/bin\"\nLD_LIBRARY_PATH = \"/usr/local/cuda/lib64\"\n[driver]\nversion = \"550.54.15\"\ncuda = \"12.4\"\n[[gpu]]\nname = \"NVIDIA A100-SXM4-40GB\"\ncompute_capability = \"8.0\"\nmemory_mib = 40960\n";
    fs::write(&machine, text)?;
    Ok((machine, libs))
}
