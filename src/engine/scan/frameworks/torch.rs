//! PyTorch: `torch/version.py` (`cuda = '10.2'` in 1.8, `cuda: Optional[str] = '12.4'` from
//! ~1.10; `None` for CPU builds such as the Windows wheels on PyPI), the CUDA libraries bundled
//! in `torch/lib` (1.8–1.12 Linux wheels carry `libcudart-<hash>.so.11.0`; Windows CUDA wheels
//! carry cuDNN) and the `nvidia-*` wheels its METADATA pins (1.13+ Linux), which give the cuDNN
//! (pytorch/pytorch `torch/__init__.py`, `_preload_cuda_deps` and `_load_dll_libraries`).

use super::{Site, cudnn_from_wheels, read_metadata};
use crate::engine::inventory::{CudnnInstall, CudnnSource, Framework, FrameworkKind};
use crate::engine::scan::cudnn;
use crate::engine::scan::pyparse::py_assignment;
use crate::engine::scan::walker::{Walker, is_cuda_library};

pub(super) fn read(
    w: &mut Walker,
    site: &Site,
    cudnn_found: &mut Vec<CudnnInstall>,
) -> Option<Framework> {
    let torch_dir = site.dir("torch")?;
    let p = w.platform();
    let d = site.dist("torch");
    let mut f = Framework::new(
        FrameworkKind::PyTorch,
        "torch",
        d.map(|d| d.1.clone()),
        &torch_dir,
    );
    let vp = p.join(&torch_dir, "version.py");
    match w.read_text(&vp, 64 << 10) {
        Some(text) => {
            if let Some(v) = py_assignment(&text, "__version__").flatten() {
                f.version = Some(v);
            }
            match py_assignment(&text, "cuda") {
                Some(Some(c)) => {
                    f.cuda_build = Some(true);
                    f.expects.cuda = Some(c);
                    f.expects.basis = Some("torch/version.py".into());
                }
                Some(None) => f.cuda_build = Some(false),
                None => f
                    .expects
                    .unread
                    .push("torch/version.py has no `cuda` field".into()),
            }
            f.evidence.push(vp);
        }
        None => f
            .expects
            .unread
            .push("no torch/version.py (PyTorch records its CUDA build there)".into()),
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
            env: site.env_root.clone(),
            framework: "torch".into(),
        };
        if let Some(c) = cudnn::install(w, &torch_dir, src, std::slice::from_ref(&lib), &[]) {
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
        f.expects.cudnn = cudnn_from_wheels(&f.expects.wheels);
    }
    Some(f)
}
