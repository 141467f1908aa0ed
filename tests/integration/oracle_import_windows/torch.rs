//! torch 2.5.1's CPU wheel for Windows (PyPI's Windows wheels are CPU builds) under Python 3.11,
//! and under every other minor it has Windows wheels for, 3.9 (its oldest), 3.10 and 3.12 (its
//! newest) (the loads are torch's own, the same under each; the real import must agree):
//! `import torch` runs torch/__init__.py's `_load_dll_libraries`, which adds `torch\lib` with
//! `os.add_dll_directory` and loads every DLL there with `LoadLibraryExW(dll, NULL, 0x1100)`
//! (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR) — the DLL-directory logic
//! the emulation's `torch` context stands for. The import must work, the scan must say only that
//! this is a CPU build (the machine file states an NVIDIA driver), and
//! `tree` of `torch_cpu.dll` in that context must resolve each of its imports from `torch\lib` to
//! the file Wine's loader mapped.
//!
//! A load that fails with error 126 is retried with `LoadLibraryW` after those folders are put in
//! front of PATH (`_load_dll_libraries`, torch/__init__.py at v2.5.1), so a DLL deleted from
//! `torch\lib` — libiomp5md.dll, as the advice for OpenMP's "OMP: Error #15" has people do — is
//! still found on PATH. Two environments without it (hard-linked copies of the first): with its
//! folder on PATH the import works and `tree` resolves it there, as Wine does; with it nowhere the
//! import fails ("Error loading ...fbgemm.dll or one of its dependencies"), `tree` misses it, and
//! the scan's errors name it — a CPU build whose own DLLs cannot load is an error too. Under 3.9
//! the healthy case and the PATH copy are judged, under 3.10 and 3.12 the healthy case and no
//! copy (one breakage per minor: the 0x1100 load runs with the DLL directory Python >= 3.8's
//! `os.add_dll_directory` added). Their own downloads are torch's cp39, cp310 and cp312 wheels
//! (194 MB each: each minor's `torch\lib` DLLs are builds of their own, ~400 MB unpacked),
//! numpy's and markupsafe's, and under 3.9 and 3.10 older releases of filelock, networkx and
//! fsspec (3.11's need 3.11 or 3.10).

use super::{
    assert_same_file, codes, error_libraries, made_once, python, scan, scan_report,
    scanned_python_version, sorted, tree, without_wine_stubs,
};
use crate::wine_python::PyEnv;
use cuda_triage::engine::findings::Severity;

/// torch's own wheel and the pure-Python packages `import torch` needs (its METADATA's
/// Requires-Dist), with numpy, at versions that install under Python 3.11 and 3.12.
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

/// The same under Python 3.9 (torch 2.5's oldest) and 3.10: the newest releases of filelock,
/// networkx and fsspec that still install under 3.9 (their Requires-Python; filelock 4 and
/// networkx 3.6 need 3.11).
const WHEELS_BEFORE_311: &[(&str, &str)] = &[
    ("torch", "2.5.1"),
    ("numpy", "1.26.4"),
    ("typing-extensions", "4.16.0"),
    ("filelock", "3.19.1"),
    ("sympy", "1.13.1"),
    ("mpmath", "1.4.1"),
    ("networkx", "3.2.1"),
    ("jinja2", "3.1.6"),
    ("markupsafe", "3.0.4"),
    ("fsspec", "2025.10.0"),
];

const ENV: &str = "torch-2.5.1-cpu";

/// torch's environment under Python `minor`, made once per test run.
fn ready(minor: &'static str) -> &'static PyEnv {
    made_once(&format!("{minor} {ENV}"), || {
        let env = python(minor).env(ENV);
        let wheels = if ["3.9", "3.10"].contains(&minor) {
            WHEELS_BEFORE_311
        } else {
            WHEELS
        };
        for (dist, version) in wheels {
            env.install_wheel(dist, version);
        }
        env
    })
}

/// `import torch` works, Wine's loader found every import, the scan says only that this is a
/// CPU build (and read the environment's Python as `minor`), and `tree` of `torch_cpu.dll` in
/// torch's context resolves its imports from `torch\lib` to the files Wine mapped.
fn assert_healthy(minor: &'static str) {
    let env = ready(minor);
    let run = env.run(&["-c", "import torch; print(torch.__version__)"], &[], &[]);
    assert_eq!(run.stdout.trim(), "2.5.1+cpu", "{}", run.stderr);
    assert!(run.import_failures().is_empty(), "{}", run.stderr);
    let (loud, _dir, machine) = scan(env, &[], &[], ("546.33", "12.3"));
    let loud = without_wine_stubs(loud, &run);
    // A CPU build on a machine with an NVIDIA driver is worth its warning, and nothing else is.
    let codes: Vec<&str> = loud.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["framework-cpu-build"], "{loud:#?}");
    let (report, ..) = scan_report(env, &[], &[], Some(("546.33", "12.3")));
    assert_eq!(
        scanned_python_version(&report, env).as_deref(),
        Some(minor),
        "the scan reads the environment's Python"
    );
    let lib = format!(r"{}\torch\lib", env.site());
    let imports: Vec<_> = torch_cpu_tree(env, &machine)
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

#[test]
fn torch_251_cpu_imports_its_dlls_from_torch_lib_where_the_torch_context_resolves_them() {
    assert_healthy("3.11");
}

/// The other minors torch 2.5.1 has Windows wheels for: 3.9 (its oldest), 3.10 and 3.12 (its
/// newest).
const OTHER_MINORS: &[&str] = &["3.9", "3.10", "3.12"];

/// Under each other minor: the same DLL-directory logic, the same agreement.
#[test]
fn torch_251_cpu_other_minors_import_their_dlls_from_torch_lib_where_the_torch_context_resolves() {
    for minor in OTHER_MINORS {
        eprintln!("torch under Python {minor}");
        assert_healthy(minor);
    }
}

/// Where a copy of the OpenMP runtime torch ships sits on PATH (as another package's
/// `Library\bin` holds one).
const OMP_DIR: &str = r"C:\tools\openmp";

/// The torch environment of Python `minor` without `torch\lib\libiomp5md.dll`: a hard-linked
/// copy of the first (`cp -al`, no second GB on disk), made once, and [`OMP_DIR`] holding the
/// removed file.
fn without_libiomp5md(minor: &'static str) -> &'static PyEnv {
    let name = "torch-2.5.1-cpu-no-libiomp5md";
    made_once(&format!("{minor} {name}"), || {
        let full = ready(minor);
        let host = full.host(&full.py.env_home(name));
        let lib = format!(r"{}\torch\lib\libiomp5md.dll", full.site());
        if !host.join("python.exe").is_file() {
            let tmp = crate::wheels::unique_tmp(&host);
            let ok = std::process::Command::new("cp")
                .arg("-al")
                .arg(full.host(&full.home))
                .arg(&tmp)
                .status()
                .expect("cp runs (coreutils)");
            assert!(ok.success(), "cp -al {}", full.home);
            let rel = lib.trim_start_matches(&format!(r"{}\", full.home));
            std::fs::remove_file(tmp.join(rel.replace('\\', "/"))).unwrap();
            std::fs::rename(&tmp, &host).unwrap();
        }
        let omp = full.host(OMP_DIR).join("libiomp5md.dll");
        if !omp.is_file() {
            std::fs::create_dir_all(omp.parent().unwrap()).unwrap();
            std::fs::hard_link(full.host(&lib), &omp).unwrap();
        }
        full.py.env(name)
    })
}

/// `tree torch_cpu.dll` in torch's context (its DLL folder added, as torch's import does):
/// each import with its resolved path, if any.
fn torch_cpu_tree(env: &PyEnv, machine: &std::path::Path) -> Vec<(String, Option<String>)> {
    let lib = format!(r"{}\torch\lib", env.site());
    tree(
        &format!(r"{lib}\torch_cpu.dll"),
        machine,
        &[
            "--context",
            "torch",
            "--app-dir",
            &env.home,
            "--dll-dir",
            &lib,
        ],
    )
}

/// `tree torch_cpu.dll` in torch's context: libiomp5md.dll's resolved path, if any.
fn tree_libiomp5md(env: &PyEnv, machine: &std::path::Path) -> Option<String> {
    torch_cpu_tree(env, machine)
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("libiomp5md.dll"))
        .expect("torch_cpu.dll imports libiomp5md.dll")
        .1
}

/// libiomp5md.dll only on PATH: the 0x1100 load of fbgemm.dll misses it (Wine: "not found"),
/// torch's `LoadLibraryW` retry finds it on PATH and the import works; `tree` in torch's context
/// resolves it to the file Wine mapped, and the scan says only that this is a CPU build.
#[test]
fn torch_251_cpu_with_libiomp5md_only_on_path_imports_through_its_retry_and_tree_agrees() {
    assert_retry_finds_it_on_path("3.11");
}

/// The same under Python 3.9: torch's retry is its own code, not Python's.
#[test]
fn torch_251_cpu_python39_with_libiomp5md_only_on_path_imports_through_its_retry() {
    assert_retry_finds_it_on_path("3.9");
}

fn assert_retry_finds_it_on_path(minor: &'static str) {
    let env = without_libiomp5md(minor);
    let front = vec![OMP_DIR.to_string()];
    let run = env.run(
        &["-c", "import torch; print(torch.__version__)"],
        &front,
        &[],
    );
    assert_eq!(run.stdout.trim(), "2.5.1+cpu", "{}", run.stderr);
    assert!(
        run.import_failures()
            .iter()
            .any(|(lib, needer, _)| lib == "libiomp5md.dll" && needer.ends_with("fbgemm.dll")),
        "the first, 0x1100 load misses it: {}",
        run.stderr
    );
    let (loud, _dir, machine) = scan(env, &front, &[], ("546.33", "12.3"));
    let loud = without_wine_stubs(loud, &run);
    let codes: Vec<&str> = loud.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["framework-cpu-build"], "{loud:#?}");
    let resolved = tree_libiomp5md(env, &machine);
    assert_same_file("libiomp5md.dll", resolved.as_deref(), &run);
}

/// libiomp5md.dll nowhere: both of torch's loads of fbgemm.dll miss it and `import torch` fails
/// with error 126; `tree` in torch's context does not resolve it either, and the scan's errors
/// name exactly the library the real load missed — a CPU build whose own DLLs do not load is an
/// error too — as one of torch's own files (its RECORD lists it), with torch's reinstall at the
/// installed version as the fix, beside the CPU-build warning.
#[test]
fn torch_251_cpu_without_libiomp5md_fails_126_and_the_scan_and_tree_name_it() {
    assert_fails_126_and_named("3.11");
}

/// The same under Python 3.10 and 3.12: the load that misses it is torch's own, with the DLL
/// directory its import adds (`os.add_dll_directory`, Python >= 3.8), under each minor.
#[test]
fn torch_251_cpu_python310_and_312_without_libiomp5md_fail_126_and_the_scan_and_tree_name_it() {
    for minor in ["3.10", "3.12"] {
        eprintln!("torch under Python {minor}");
        assert_fails_126_and_named(minor);
    }
}

fn assert_fails_126_and_named(minor: &'static str) {
    let env = without_libiomp5md(minor);
    let run = env.run(&["-c", "import torch; print(torch.__version__)"], &[], &[]);
    assert!(
        run.stderr.contains("[WinError 126]") && run.stderr.contains(r"torch\lib\fbgemm.dll"),
        "{}",
        run.stderr
    );
    let missing = sorted(run.import_failures().into_iter().map(|(lib, ..)| lib));
    assert!(
        !missing.is_empty() && missing.iter().all(|l| l == "libiomp5md.dll"),
        "{missing:?}"
    );
    let (loud, _dir, machine) = scan(env, &[], &[], ("546.33", "12.3"));
    let loud = without_wine_stubs(loud, &run);
    assert_eq!(tree_libiomp5md(env, &machine), None);
    assert_eq!(error_libraries(&loud), missing, "{loud:#?}");
    assert_eq!(
        codes(&loud, Severity::Warning),
        ["framework-cpu-build"],
        "{loud:#?}"
    );
    let errors: Vec<_> = loud
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    for f in &errors {
        // Who needs it: the DLL whose load failed (fbgemm.dll) or torch_cpu.dll, both in torch\lib.
        let text = format!("{} {}", f.summary, f.detail);
        assert!(
            text.contains("fbgemm.dll") || text.contains("torch_cpu.dll"),
            "{f:#?}"
        );
        assert!(text.contains("torch/lib/libiomp5md.dll"), "{f:#?}");
        assert!(
            f.fixes.iter().any(|x| x
                .summary
                .ends_with("--force-reinstall --no-deps \"torch==2.5.1\"")),
            "{f:#?}"
        );
    }
}
