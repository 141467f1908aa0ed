//! torch 2.5.1's CPU wheel for Windows (PyPI's Windows wheels are CPU builds) under Python 3.11:
//! `import torch` runs torch/__init__.py's `_load_dll_libraries`, which adds `torch\lib` with
//! `os.add_dll_directory` and loads every DLL there with `LoadLibraryExW(dll, NULL, 0x1100)`
//! (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR) — the DLL-directory logic
//! the emulation's `torch` context stands for. The import must work, the scan must say only that
//! this is a CPU build (the machine file states an NVIDIA driver), and
//! `tree` of `torch_cpu.dll` in that context must resolve each of its imports from `torch\lib` to
//! the file Wine's loader mapped.

use super::{assert_same_file, scan, tree, wheel};
use crate::wine_python::{PyEnv, python};
use std::sync::OnceLock;

/// torch's own wheel and the pure-Python packages `import torch` needs (its METADATA's
/// Requires-Dist), with numpy.
const WHEELS: &[(&str, &str)] = &[
    ("torch", "2.5.1"),
    ("numpy", "1.26.4"),
    ("typing-extensions", "4.16.0"),
    ("filelock", "4.3.1"),
    ("sympy", "1.13.1"),
    ("mpmath", "1.4.1"),
    ("networkx", "3.6.1"),
    ("jinja2", "3.1.6"),
    ("markupsafe", "3.0.4"),
    ("fsspec", "2026.9.0"),
];

fn ready() -> &'static PyEnv {
    static READY: OnceLock<PyEnv> = OnceLock::new();
    READY.get_or_init(|| {
        let env = python("3.11").env("torch-2.5.1-cpu");
        for (dist, version) in WHEELS {
            env.install(&wheel(dist, version), &[]);
        }
        env
    })
}

#[test]
fn torch_251_cpu_imports_its_dlls_from_torch_lib_where_the_torch_context_resolves_them() {
    let env = ready();
    let run = env.run(&["-c", "import torch; print(torch.__version__)"], &[], &[]);
    assert_eq!(run.stdout.trim(), "2.5.1+cpu", "{}", run.stderr);
    assert!(run.import_failures().is_empty(), "{}", run.stderr);
    let (loud, _dir, machine) = scan(env, &[], &[], ("546.33", "12.3"));
    // A CPU build on a machine with an NVIDIA driver is worth its warning, and nothing else is.
    let codes: Vec<&str> = loud.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["framework-cpu-build"], "{loud:#?}");
    let lib = format!(r"{}\torch\lib", env.site());
    let imports: Vec<_> = tree(
        &format!(r"{lib}\torch_cpu.dll"),
        &machine,
        &[
            "--context",
            "torch",
            "--app-dir",
            &env.home,
            "--dll-dir",
            &lib,
        ],
    )
    .into_iter()
    .filter(|(_, p)| {
        p.as_deref().is_some_and(|p| {
            p.to_ascii_lowercase()
                .starts_with(&lib.to_ascii_lowercase())
        })
    })
    .collect();
    let names: Vec<&str> = imports.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["c10.dll", "fbgemm.dll", "libiomp5md.dll", "uv.dll"],
        "torch_cpu.dll's imports from torch\\lib"
    );
    for (name, path) in &imports {
        assert_same_file(name, path.as_deref(), &run);
    }
}
