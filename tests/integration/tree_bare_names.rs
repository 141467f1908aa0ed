//! `tree NAME`: a bare name resolved as the process would resolve `LoadLibraryExW(name)` /
//! `dlopen(name)`. Windows layouts are built with mingw (a 32-bit copy earlier on PATH, a copy in
//! an added DLL folder); on Linux the real loader is the oracle: python3's ctypes opens the same
//! name under the same LD_LIBRARY_PATH and /proc/self/maps says which file it mapped.

use crate::fixtures_build::{DllSpec, PeArch, SoSpec};
use crate::support::{json, run_cli, stderr};
use std::path::Path;

/// C:\x86\bin holds a 32-bit cublas64_11.dll before C:\cuda\bin's 64-bit one on PATH;
/// C:\other holds a third copy only an added DLL folder reaches.
fn windows_machine(dir: &Path) -> std::path::PathBuf {
    let c = dir.join("C");
    for (folder, arch) in [
        ("x86/bin", PeArch::I686),
        ("cuda/bin", PeArch::X86_64),
        ("other", PeArch::X86_64),
    ] {
        let d = c.join(folder);
        std::fs::create_dir_all(&d).unwrap();
        DllSpec::new("cublas64_11.dll")
            .arch(arch)
            .import("KERNEL32.dll", &["GetTickCount"])
            .version_field("ProductVersion", "11.11.3.6")
            .build(&d)
            .expect("mingw builds DLLs (install gcc-mingw-w64-x86-64 and gcc-mingw-w64-i686)");
    }
    std::fs::create_dir_all(c.join("Windows/System32")).unwrap();
    let toml = dir.join("machine.toml");
    std::fs::write(
        &toml,
        "platform = \"windows\"\n[drives]\nC = \"C\"\n[env]\nPATH = 'C:\\x86\\bin;C:\\cuda\\bin'\n",
    )
    .unwrap();
    toml
}

fn tree(machine: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "tree",
        "cublas64_11.dll",
        "--machine",
        machine.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    run_cli(&args)
}

#[test]
fn a_bare_dll_name_resolves_through_the_process_search_and_skips_the_32_bit_copy() {
    let dir = tempfile::tempdir().unwrap();
    let m = windows_machine(dir.path());
    let o = tree(&m, &[]);
    assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
    let v = json(&o);
    let r = &v["root_resolution"];
    assert_eq!(r["path"], r"C:\cuda\bin\cublas64_11.dll");
    assert_eq!(r["how"], "path");
    let attempts = r["attempts"].as_array().unwrap();
    let x86 = attempts
        .iter()
        .find(|a| a["directory"] == r"C:\x86\bin")
        .expect("the 32-bit copy's folder was tried");
    assert_eq!(x86["outcome"], "wrong_machine", "{x86}");
    assert!(x86["found"].as_str().unwrap().contains("i386"), "{x86}");
    assert_eq!(v["root_info"]["bits"], 64);
    assert_eq!(v["root"], r"C:\cuda\bin\cublas64_11.dll");

    // An added DLL folder with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: PATH is not searched at all.
    let v = json(&tree(
        &m,
        &["--load-flags", "0x1000", "--dll-dir", r"C:\other"],
    ));
    assert_eq!(v["root_resolution"]["path"], r"C:\other\cublas64_11.dll");
    assert_eq!(v["root_resolution"]["how"], "dll_directory");
}

#[test]
fn dll_load_dir_with_a_bare_name_is_error_87_and_a_missing_name_is_an_error_finding() {
    let dir = tempfile::tempdir().unwrap();
    let m = windows_machine(dir.path());
    let o = tree(&m, &["--load-flags", "0x1100"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("(87)"), "{}", stderr(&o));

    let o = run_cli(&[
        "tree",
        "cudnn64_8.dll",
        "--machine",
        m.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    let f = &v["findings"][0];
    assert_eq!(f["code"], "library-not-found");
    assert!(f["detail"].as_str().unwrap().contains("126"));
    let tried: Vec<&str> = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["path"].as_str())
        .collect();
    assert!(
        tried.contains(&r"C:\cuda\bin"),
        "every place tried: {tried:?}"
    );
}

#[test]
fn a_bare_so_name_resolves_where_the_real_loader_maps_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for d in [&a, &b] {
        std::fs::create_dir_all(d).unwrap();
        SoSpec::new("libtriage_bare.so.1")
            .soname("libtriage_bare.so.1")
            .build(d)
            .expect("gcc builds the library");
    }
    let ld_path = format!("{}:{}", b.display(), a.display());
    // The oracle: ld.so itself, through python3's ctypes.
    let mapped = real_loader_maps(
        "libtriage_bare.so.1",
        std::process::Command::new("python3").env("LD_LIBRARY_PATH", &ld_path),
    );
    assert!(
        mapped.starts_with(&b.display().to_string()),
        "oracle: {mapped}"
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(["tree", "libtriage_bare.so.1", "--json"])
        .env("LD_LIBRARY_PATH", &ld_path)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["root_resolution"]["path"], mapped.as_str());
    assert_eq!(v["root_resolution"]["how"], "ld_library_path");
    assert_eq!(v["root_info"]["machine"], "x86_64");
}

#[test]
fn from_a_library_its_runpath_finds_the_bare_name() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("deps");
    std::fs::create_dir_all(&lib).unwrap();
    SoSpec::new("libtriage_dep.so.2")
        .soname("libtriage_dep.so.2")
        .build(&lib)
        .unwrap();
    let caller = SoSpec::new("libcaller.so")
        .runpath(&["$ORIGIN/deps"])
        .build(dir.path())
        .unwrap();
    let o = run_cli(&[
        "tree",
        "libtriage_dep.so.2",
        "--from",
        caller.to_str().unwrap(),
        "--json",
    ]);
    let v = json(&o);
    assert_eq!(v["root_resolution"]["how"], "runpath", "{v}");
    assert_eq!(
        v["root_resolution"]["path"],
        lib.join("libtriage_dep.so.2").display().to_string()
    );
    let without = json(&run_cli(&["tree", "libtriage_dep.so.2", "--json"]));
    assert_eq!(without["findings"][0]["code"], "library-not-found");
}

/// Python opens a bare name with `ctypes.CDLL(name)`: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (0x1000;
/// CPython adds DLL_LOAD_DIR only for a path), so the app folder and added DLL folders are
/// searched and PATH is not — never an invented "DLL load folder", never error 87.
#[test]
fn a_bare_name_in_a_python_context_is_searched_as_ctypes_does() {
    let dir = tempfile::tempdir().unwrap();
    let m = windows_machine(dir.path());
    for context in ["python", "conda-python", "torch"] {
        let o = tree(&m, &["--context", context, "--dll-dir", r"C:\other"]);
        assert!(
            o.status.code().is_some_and(|c| c < 2),
            "{context}: {}",
            stderr(&o)
        );
        let v = json(&o);
        let r = &v["root_resolution"];
        assert_eq!(r["path"], r"C:\other\cublas64_11.dll", "{context}: {r:#}");
        assert_eq!(r["how"], "dll_directory", "{context}: {r:#}");
        let text = r.to_string();
        assert!(!text.contains("not given"), "{context}: {text}");
        assert!(
            !text.contains(r"C:\\x86\\bin"),
            "PATH is not searched: {text}"
        );
    }
    // Without an added folder the name is not found: PATH does not count for Python.
    let o = tree(&m, &["--context", "python"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// A relative Windows path is searched for (the whole relative path appended to each folder of
/// the order, as LoadLibrary documents); Python's ctypes instead makes it absolute against the
/// current folder, which --cwd gives (without it the tool says so and fails).
#[test]
fn a_relative_windows_path_is_searched_or_taken_from_the_current_folder_for_python() {
    let dir = tempfile::tempdir().unwrap();
    let m = windows_machine(dir.path());
    let sub = dir.path().join("C/cuda/bin/plugins");
    std::fs::create_dir_all(&sub).unwrap();
    DllSpec::new("cufft_plugin.dll")
        .import("KERNEL32.dll", &["GetTickCount"])
        .build(&sub)
        .expect("mingw builds DLLs (install gcc-mingw-w64-x86-64)");
    let machine = m.to_str().unwrap();
    let rel = r"plugins\cufft_plugin.dll";
    let v = json(&run_cli(&["tree", rel, "--machine", machine, "--json"]));
    let r = &v["root_resolution"];
    assert_eq!(r["path"], r"C:\cuda\bin\plugins\cufft_plugin.dll", "{r:#}");
    assert_eq!(r["how"], "path", "{r:#}");
    assert!(
        r["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["directory"] == r"C:\x86\bin\plugins"),
        "every PATH folder is tried with the relative path: {r:#}"
    );
    let o = run_cli(&[
        "tree",
        rel,
        "--machine",
        machine,
        "--json",
        "--context",
        "python",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--cwd"), "{}", stderr(&o));
    let v = json(&run_cli(&[
        "tree",
        rel,
        "--machine",
        machine,
        "--json",
        "--context",
        "python",
        "--cwd",
        r"C:\cuda\bin",
    ]));
    assert_eq!(
        v["root_resolution"]["path"],
        r"C:\cuda\bin\plugins\cufft_plugin.dll"
    );
    assert_eq!(v["root_resolution"]["how"], "direct");
}

/// dlopen("lib/x.so") opens the path relative to the current folder, searching nothing: the real
/// loader (python3's ctypes run in that folder) is the oracle; on a machine file --cwd gives it.
#[test]
fn a_relative_so_path_opens_from_the_current_folder() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("app/lib");
    std::fs::create_dir_all(&lib).unwrap();
    SoSpec::new("libtriage_rel.so")
        .soname("libtriage_rel.so")
        .build(&lib)
        .expect("gcc builds the library");
    let app = dir.path().join("app");
    let mapped = real_loader_maps(
        "lib/libtriage_rel.so",
        std::process::Command::new("python3").current_dir(&app),
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(["tree", "lib/libtriage_rel.so", "--json"])
        .current_dir(&app)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["root"], mapped.as_str());

    let toml = dir.path().join("machine.toml");
    std::fs::write(&toml, "platform = \"linux\"\nroot = \"/\"\n").unwrap();
    let machine = toml.to_str().unwrap();
    let o = run_cli(&[
        "tree",
        "lib/libtriage_rel.so",
        "--machine",
        machine,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--cwd"), "{}", stderr(&o));
    let cwd = app.display().to_string();
    let v = json(&run_cli(&[
        "tree",
        "lib/libtriage_rel.so",
        "--machine",
        machine,
        "--json",
        "--cwd",
        &cwd,
    ]));
    assert_eq!(v["root"], mapped.as_str());
}

/// The file the real loader maps for `dlopen(name)`: python3's ctypes opens it in `python3` (a
/// command with its environment and folder set) and /proc/self/maps says which file it mapped.
fn real_loader_maps(name: &str, python3: &mut std::process::Command) -> String {
    let stem = name.rsplit('/').next().unwrap_or(name);
    let code = format!(
        "import ctypes; ctypes.CDLL('{name}'); \
         print([l.split()[-1] for l in open('/proc/self/maps') if '{stem}' in l][0])"
    );
    let out = python3
        .args(["-c", &code])
        .output()
        .expect("python3 runs (install python3)");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
