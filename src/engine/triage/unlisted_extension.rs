//! A compiled Python extension that `torch_extensions.toml` does not list (research code's
//! `_C`, a ComfyUI node's `custom_rasterizer_kernel`), named by the module Windows refused while
//! Python imported it. A PyTorch CUDA extension links torch's own DLLs, found only once `import
//! torch` has added torch's folder, and functions of the torch it was compiled against: error 126
//! reads as imported before torch (or built for another torch/CUDA), 127 as built for another torch.

use super::extension_package::{
    LOOK_BACK, importing_module, named_extension, says_procedure_not_found,
};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use regex::Regex;
use std::sync::OnceLock;

/// A traceback frame's package folder (`site-packages\\pkg\\__init__.py`).
fn package_frame() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?:site|dist)-packages[/\\]+([A-Za-z_][A-Za-z0-9_]*)[/\\]",
        )
    })
}

/// Packages whose own modules have their own readings (the frameworks, Python's and Qt's).
const NOT_AN_EXTENSION_PACKAGE: &[&str] = &[
    "torch",
    "torchvision",
    "torchaudio",
    "tensorflow",
    "onnxruntime",
    "jaxlib",
    "jax",
    "paddle",
    "cupy",
    "cupy_backends",
    "mxnet",
    "numpy",
    "scipy",
    "cv2",
    "PyQt5",
    "PyQt6",
    "PySide6",
];

/// Words of a GPU extension module's or package's name.
const EXTENSION_WORDS: &[&str] = &["cuda", "kernel", "_ext", "rasteriz", "attn", "_ops", "gpu"];

fn looks_like_gpu_extension(module: &str, package: &str) -> bool {
    module == "_C"
        || module.ends_with("_C")
        || [module, package].iter().any(|n| {
            let lower = n.to_ascii_lowercase();
            EXTENSION_WORDS.iter().any(|w| lower.contains(w))
        })
}

/// One finding per unlisted extension module whose import Windows refused.
pub fn unlisted_extension_findings(text: &str, k: &Knowledge) -> Vec<Finding> {
    let listed = |line: &str| named_extension(line).is_some();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Finding> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(module) = importing_module(line).map(str::to_string) else {
            continue;
        };
        let above = &lines[i.saturating_sub(LOOK_BACK)..i];
        if listed(line) || above.iter().any(|l| listed(l)) {
            continue;
        }
        let frame = above
            .iter()
            .rev()
            .find_map(|l| package_frame().captures(l).map(|c| c[1].to_string()));
        // Every extension may call its module _C: alone it names no package.
        if frame.is_none() && (module == "_C" || module.ends_with("_C")) {
            continue;
        }
        let package = frame.unwrap_or_else(|| module.clone());
        if NOT_AN_EXTENSION_PACKAGE.contains(&package.as_str())
            || NOT_AN_EXTENSION_PACKAGE.contains(&module.as_str())
            || !looks_like_gpu_extension(&module, &package)
            || out.iter().any(|f| f.summary.starts_with(&module))
        {
            continue;
        }
        let of = if package == module {
            String::new()
        } else {
            format!(" of {package}")
        };
        let (summary, detail, fix) = if says_procedure_not_found(line, k) {
            (
                format!(
                    "{module} (a compiled extension{of}) was built against another PyTorch than the installed one: rebuild or reinstall it"
                ),
                format!(
                    "{module} is a compiled Python extension (.pyd){of}. Windows found its DLLs, but \
                     one lacks a function the extension was built against (error 127, the specified \
                     procedure could not be found): a PyTorch CUDA extension calls torch's C++ \
                     functions, which change between torch releases, so the build is tied to the \
                     torch (and CUDA) it was compiled with. Torch was upgraded or downgraded after \
                     {package} was built (a requirements update, a git pull that pinned another \
                     torch), or a wheel for another torch was installed."
                ),
                format!(
                    "Rebuild or reinstall {package} against the installed torch (in its source folder: \
                     pip install --no-build-isolation --force-reinstall .), or install the torch \
                     release it was built for."
                ),
            )
        } else {
            (
                format!(
                    "{module} (a compiled extension{of}) could not be loaded: a DLL it links, torch's or CUDA's, was not found"
                ),
                format!(
                    "{module} is a compiled Python extension (.pyd){of}. Windows could not load it or \
                     a DLL it was linked against. A PyTorch CUDA extension links torch's own DLLs \
                     (c10.dll, torch_cpu.dll, torch_cuda.dll in site-packages\\torch\\lib) and the CUDA \
                     runtime it was built with. Python finds torch's folder only after import torch has \
                     run (torch adds it with os.add_dll_directory), so importing the extension before \
                     torch fails this way; so does a build for another torch or CUDA release."
                ),
                format!(
                    "Import torch before {module} (make import torch the first import of the script \
                     or node); if it still fails, run cuda-triage tree on the .pyd to see which DLL is \
                     missing, and rebuild or reinstall {package} against the installed torch and CUDA."
                ),
            )
        };
        out.push(
            Finding::new(codes::TORCH_EXTENSION_OTHER_TORCH, Severity::Error, summary, detail)
                .with_evidence(Evidence::new("log", super::extract::clip(line.trim())))
                .with_evidence(Evidence::new(
                    "source",
                    "https://github.com/kijai/ComfyUI-Hunyuan3DWrapper/pull/112 (custom_rasterizer_kernel \
                     imported before torch: error 126; importing torch first fixed it), \
                     https://github.com/dreamgaussian/dreamgaussian/issues/100 (diff_gaussian_rasterization's \
                     _C after a torch upgrade: error 127; rebuilding the extension fixed it); PyTorch adds \
                     torch\\lib with os.add_dll_directory in torch/__init__.py: \
                     https://github.com/pytorch/pytorch/blob/main/torch/__init__.py",
                ))
                .with_fix(FixRef {
                    id: "advice-unlisted-extension".into(),
                    kind: FixKind::Manual,
                    summary: fix,
                }),
        );
    }
    out
}
