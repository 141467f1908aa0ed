//! Who asked for what failed, when the text says it without naming a library: the Python
//! package whose import ended in "libX: cannot open shared object file" (the traceback's last
//! `from pkg import` or `site-packages/pkg/` frame: the package's compiled extension was built
//! for that CUDA release), and the framework a version line names ("the version torch was
//! compiled with" is PyTorch's build), and a system program (`/bin/bash`) that cannot start for
//! want of a CUDA library it never links: a library in LD_PRELOAD asked for it.

use super::extract::clip;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use regex::Regex;
use std::sync::OnceLock;

/// Frameworks by the words their messages use for themselves, most specific first.
const FRAMEWORKS: &[(&str, &str)] = &[
    ("pytorch", "PyTorch"),
    ("torch", "PyTorch"),
    ("tensorflow", "TensorFlow"),
    ("jaxlib", "JAX"),
    ("jax", "JAX"),
    ("paddle", "PaddlePaddle"),
    ("onnxruntime", "ONNX Runtime"),
    ("mxnet", "MXNet"),
    ("cupy", "CuPy"),
];

/// The framework a line names as a word (`torch`, `tensorflow`, ...), if any.
pub fn framework_named(line: &str) -> Option<&'static str> {
    // Lua Torch (Torch7) installs under ~/torch and runs .lua files: not PyTorch.
    let lower = line.to_ascii_lowercase();
    if lower.contains(".lua:") || lower.contains("/share/lua/") || lower.contains("luajit") {
        return Some("Torch7 (Lua)");
    }
    named_as_word(line, FRAMEWORKS)
}

/// The name of the first `(word, name)` of `table` whose word stands on `line` as a whole word.
fn named_as_word(line: &str, table: &[(&str, &'static str)]) -> Option<&'static str> {
    let lower = line.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    table
        .iter()
        .find(|(word, _)| words.contains(word))
        .map(|(_, name)| *name)
}

/// Programs and libraries beyond the frameworks that print CUDA codes on their own lines (the
/// word as their messages spell it, the name), for saying who reported a code.
const HOST_PROGRAMS: &[(&str, &str)] = &[
    ("ucx", "UCX"),
    ("ucc", "UCC"),
    ("nccl", "NCCL"),
    ("mpich", "MPICH"),
    ("yaksa", "MPICH (yaksa)"),
    ("ompi", "Open MPI"),
    ("openmpi", "Open MPI"),
    ("opencv", "OpenCV"),
    ("ffmpeg", "FFmpeg"),
    ("colmap", "COLMAP"),
    ("openmm", "OpenMM"),
    ("gromacs", "GROMACS"),
    ("lammps", "LAMMPS"),
    ("kokkos", "Kokkos"),
    ("ggml", "llama.cpp (ggml)"),
    ("ollama", "Ollama"),
    ("vllm", "vLLM"),
    ("tensorrt", "TensorRT"),
    ("numba", "Numba"),
    ("taichi", "Taichi"),
    ("xgboost", "XGBoost"),
    ("dlib", "dlib"),
    ("darknet", "darknet"),
    ("blender", "Blender"),
    ("hashcat", "hashcat"),
];

/// The framework, else the host program, a line names as a word: who reported what it carries.
pub fn reporter_named(line: &str) -> Option<&'static str> {
    framework_named(line).or_else(|| named_as_word(line, HOST_PROGRAMS))
}

struct Patterns {
    missing: Regex,
    system_program_missing: Regex,
    from_import: Regex,
    frame: Regex,
    cython_init: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            missing: re(
                r"(?:ImportError|OSError)\b[^\n]*?\b(lib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*): cannot open shared object file",
            ),
            // ld.so's "prog: error while loading shared libraries: lib: cannot open shared object
            // file" where prog is a shell, a core utility or the Python interpreter itself.
            system_program_missing: re(
                r"(?:^|[\s'\x22])(?:/usr)?(?:/s?bin/)?(bash|sh|dash|zsh|ksh|ls|cat|env|echo|sleep|mkdir|cp|mv|rm|ps|id|tail|grep|sed|awk|python[0-9.]*): error while loading shared libraries: (lib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*)",
            ),
            // An import statement, also behind a log prefix ("12:00:01 STDOUT 42]\t  from x import y").
            from_import: re(r"^(?:[^\n]*[\]\t|]\s*|\s*)(?:from|import)\s+([A-Za-z_][A-Za-z0-9_]*)"),
            // A Cython extension's module-init frame: `File "cupyx/cutensor.pyx", line 1, in init
            // cupyx.cutensor` names the compiled module whose load failed.
            cython_init: re(r"\bin init ([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"),
            frame: re(r#"(?:site|dist)-packages[/\\]([A-Za-z_][A-Za-z0-9_]*)[/\\]"#),
        }
    })
}

/// The release a library name pins what needs it to: "cuRAND 11.x-13.x", or for a name of one
/// toolkit release (the pre-11 sonames: libnppial.so.10.0) that CUDA's, "CUDA 10.0 (NPP)".
fn built_for(id: &crate::engine::knowledge::LibraryIdentity) -> String {
    match id.toolkits.as_slice() {
        [one] if *one == id.version_family => format!("CUDA {one} ({})", id.component),
        _ => format!("{} {}", id.component, id.version_family),
    }
}

/// The Python package whose folder a line's path goes through (`site-packages/xformers/...`).
pub(super) fn site_package_on(line: &str) -> Option<String> {
    patterns().frame.captures(line).map(|c| c[1].to_string())
}

/// Python's own machinery, never the package that asked.
const NOT_A_PACKAGE: &[&str] = &[
    "importlib",
    "ctypes",
    "__future__",
    "os",
    "sys",
    "pkg_resources",
];

/// The package the traceback before line `at` was importing: the nearest Cython `in init
/// pkg.module` frame (the dotted module), `site-packages/pkg/` frame or `from pkg import` /
/// `import pkg` line (a relative import names no package).
pub(super) fn importer(lines: &[&str], at: usize) -> Option<String> {
    let p = patterns();
    lines[..at].iter().rev().take(12).find_map(|l| {
        p.cython_init
            .captures(l)
            .or_else(|| p.frame.captures(l))
            .or_else(|| p.from_import.captures(l))
            .map(|c| c[1].to_string())
            .filter(|n| !NOT_A_PACKAGE.contains(&top_level(n)))
    })
}

/// The distribution-level name of a dotted module (`cupyx.cutensor` is part of `cupyx`).
fn top_level(module: &str) -> &str {
    module.split('.').next().unwrap_or(module)
}

/// One finding per missing NVIDIA library whose import a Python package made.
pub fn importer_findings(text: &str, k: &Knowledge) -> Vec<Finding> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Finding> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(c) = patterns().missing.captures(line) else {
            continue;
        };
        let lib = &c[1];
        let (Some(id), Some(module)) = (k.libraries.identify(lib), importer(&lines, i)) else {
            continue;
        };
        let pkg = top_level(&module);
        let built_for = built_for(&id);
        out.push(
            Finding::new(
                codes::LIBRARY_DEPENDENCY_MISSING,
                Severity::Error,
                format!(
                    "{module} needs {lib}: the installed {pkg}, or a library it loads, was built for \
                     {built_for}"
                ),
                format!(
                    "Importing {module} loads its compiled extension, which is linked against {lib} \
                     ({built_for}). The {pkg} installed, or a native library it loads (a separately \
                     installed cuTENSOR, cuDNN or NCCL), was built for that release, not for the CUDA \
                     this machine or the framework has: a wheel for another CUDA, or two builds of the \
                     package (a pip and a conda copy, or a CPU and a GPU variant such as mmcv and \
                     mmcv-full) where the wrong one is imported."
                ),
            )
            .with_libraries([lib.to_string()])
            .with_evidence(Evidence::new("log", clip(lines[i.saturating_sub(1)])))
            .with_evidence(Evidence::new("log", clip(line)))
            .with_fix(FixRef {
                id: "advice-reinstall-importer".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Reinstall {pkg} built for the CUDA release the framework uses (python -c \"import \
                     torch; print(torch.version.cuda)\" for PyTorch), or the release of {pkg} matching \
                     the CUDA installed here (its release notes name the CUDA each build needs), after \
                     removing every other build of it (pip list and conda list show them); or install \
                     {built_for} so that {lib} is found."
                ),
            }),
        );
    }
    out
}

/// A shell, core utility or Python interpreter that ld.so could not start for want of an NVIDIA
/// library: none of them links one, so a library preloaded into every process (LD_PRELOAD,
/// /etc/ld.so.preload) needs it, and that library was built for a CUDA this environment lacks.
pub fn preloaded_findings(text: &str, k: &Knowledge) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for line in text.lines() {
        let Some(c) = patterns().system_program_missing.captures(line) else {
            continue;
        };
        let (program, lib) = (&c[1], &c[2]);
        let Some(id) = k.libraries.identify(lib) else {
            continue;
        };
        let built_for = built_for(&id);
        out.push(
            Finding::new(
                codes::LIBRARY_PRELOADED_DEPENDENCY_MISSING,
                Severity::Error,
                format!(
                    "{program} does not use {lib}: a preloaded library (LD_PRELOAD) built for {built_for} needs it"
                ),
                format!(
                    "{program} links no NVIDIA library, so ld.so loads {lib} only because a library \
                     injected into every process asks for it: one named in LD_PRELOAD or \
                     /etc/ld.so.preload, typically a plugin (a TensorRT plugin library, a custom op, \
                     a shim) built elsewhere against {built_for}. This environment (often a container \
                     with another CUDA or TensorRT release) lacks {lib}, so every program started with \
                     that preload fails the same way."
                ),
            )
            .with_libraries([lib.to_string()])
            .with_evidence(Evidence::new("log", clip(line)))
            .with_fix(FixRef {
                id: "advice-rebuild-preloaded-library".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Find the preloaded library (echo $LD_PRELOAD; cat /etc/ld.so.preload; ldd on \
                     it shows that it wants {lib}) and rebuild it against the CUDA and TensorRT release \
                     of this environment, for a container inside that same image; or unset \
                     LD_PRELOAD until it is rebuilt."
                ),
            }),
        );
    }
    out
}
