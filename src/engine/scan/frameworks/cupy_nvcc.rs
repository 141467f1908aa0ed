//! The nvcc CuPy runs: NVRTC compiles most of its kernels, but `RawKernel`/`RawModule` with
//! `backend='nvcc'` and cuFFT callbacks (`cupy.fft.config.set_cufft_callbacks`) run nvcc, found
//! in CuPy's own order — `NVCC` (its first word), else `<CUDA path>/bin/nvcc`, the CUDA path being
//! `CUDA_PATH` when it exists, else the folder above the first nvcc on PATH, else
//! `/usr/local/cuda`. Source: https://github.com/cupy/cupy/blob/v13.3.0/cupy/_environment.py
//! (`_get_cuda_path`, `_get_nvcc_path`) and cupy/cuda/compiler.py (`compile_using_nvcc`). The
//! same CUDA path's `include` is added to every NVRTC compile after CuPy's bundled headers
//! (cupy/_core/core.pyx `assemble_cupy_compiler_options`).

use super::Site;
use crate::engine::context::Platform;
use crate::engine::inventory::{ChosenTool, NvccChoice, PythonEnv};
use crate::engine::scan::tools;
use crate::engine::scan::walker::Walker;

fn nvcc_name(p: Platform) -> &'static str {
    match p {
        Platform::Windows => "nvcc.exe",
        Platform::Linux => "nvcc",
    }
}

/// CuPy's `_get_cuda_path()`: the folder and what chose it (on Windows also the folder whose
/// `bin` `import cupy` adds with `os.add_dll_directory`).
pub(super) fn cuda_path(w: &Walker) -> Option<(String, NvccChoice)> {
    let p = w.platform();
    if let Some(c) = w.ctx.env.get("CUDA_PATH").filter(|c| !c.is_empty()) {
        let c = p.normalize(c);
        if w.is_dir(&c) || w.is_file(&c) {
            return Some((c, NvccChoice::CudaPath));
        }
    }
    let on_path = w
        .ctx
        .path_entries()
        .into_iter()
        .filter(|e| !e.trim().is_empty() && p.is_absolute(e))
        .map(|e| p.normalize(&e))
        .find(|e| w.is_file(&p.join(e, nvcc_name(p))))
        .and_then(|bin| p.parent(&bin));
    if let Some(root) = on_path {
        return Some((root, NvccChoice::NvccOnPath));
    }
    (p == Platform::Linux && w.is_dir("/usr/local/cuda"))
        .then(|| ("/usr/local/cuda".into(), NvccChoice::UsrLocalCuda))
}

/// Fills `env.cupy_nvcc` when `site` holds CuPy and CuPy would find an nvcc.
pub(super) fn read(w: &mut Walker, site: &Site, env: &mut PythonEnv, run_tools: bool) {
    if !site
        .dists
        .iter()
        .any(|(n, _, _)| n == "cupy" || n.starts_with("cupy-cuda"))
    {
        return;
    }
    let p = w.platform();
    let (path, how) = match w.ctx.env.get("NVCC") {
        // `_nvcc.split()`: the first word is the program.
        Some(v) => match v.split_whitespace().next() {
            Some(first) => (p.normalize(first), NvccChoice::NvccVariable),
            None => return,
        },
        None => {
            let Some((root, how)) = cuda_path(w) else {
                return;
            };
            (p.join(&p.join(&root, "bin"), nvcc_name(p)), how)
        }
    };
    if !w.is_file(&path) {
        return;
    }
    env.cupy_nvcc = Some(ChosenTool {
        how,
        tool: tools::tool_info(w, &path, run_tools),
    });
}
