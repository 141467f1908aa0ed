//! A framework whose own import code raises on this machine, as its installed files say: CuPy 7 on
//! Windows with Python ≥ 3.8 calls `_environment._setup_win32_dll_directory()` from
//! `cupy/__init__.py`, which raises `RuntimeError('CUDA path could not be detected.')` when
//! CUDA_PATH is unset (or names no folder) and no `nvcc` is on PATH (real cupy-cuda101 7.8.0
//! files). `import cupy` then fails before any library is loaded: an error, fixed by CUDA_PATH.

use super::RuleInput;
use super::framework_libs::who;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Finding, FixKind, FixRef, Severity};
use crate::engine::graph::process::python_ignores_path;

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let inv = input.inventory;

    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        let Some(error) = &f.import_error else {
            continue;
        };
        if python_ignores_path(env) != Some(true) {
            continue;
        }
        let who = who(env, f);
        let module = f.kind.module();
        let mut finding = Finding::new(
            codes::FRAMEWORK_IMPORT_FAILS,
            Severity::Error,
            format!("import {module} fails: {error}"),
            format!(
                "{who} looks for the CUDA toolkit when imported (CUDA_PATH, else the folder above the first nvcc on PATH) to add its bin folder with os.add_dll_directory, and raises {error} when it finds none: CUDA_PATH is not set to an existing folder and no nvcc is on PATH."
            ),
        );
        let matching = inv.toolkits.iter().find(|t| {
            let major = |v: &str| v.split('.').next().unwrap_or("").to_string();
            match (&t.version, &f.expects.cuda) {
                (Some(tv), Some(fc)) => major(tv) == major(fc),
                _ => false,
            }
        });
        if let Some(t) = matching.or(inv.toolkits.first()) {
            finding = finding.with_fix(FixRef {
                id: format!("set-cuda-path:{}", t.root),
                kind: FixKind::env("CUDA_PATH", Some(t.root.clone())),
                summary: format!("Set CUDA_PATH to {}", t.root),
            });
        }
        out.push(finding);
    }
    out
}
