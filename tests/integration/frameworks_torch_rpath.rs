//! torch 2.11's real RPATHs, judged by the real ld.so. In the PyPI wheel of torch 2.11.0 every
//! library in `torch/lib` carries `RPATH $ORIGIN/../../nvidia/<cudnn,nvshmem,nccl,cusparselt,
//! cu13>/lib:$ORIGIN`, and the `_C` extension one folder higher carries the same list (plus
//! `$ORIGIN/lib`), where `$ORIGIN/../../nvidia` leads nowhere. On a real torch 2.11.0+cu130 install
//! (an H200 machine) the process maps only the wheels' CUDA libraries; the scan, searching from
//! `_C`, had sent torch's loads to whatever `LD_LIBRARY_PATH` or the ld cache held.
//!
//! The layout here: the real `libtorch_global_deps.so`, `_C` and metadata of the torch 2.11.0
//! wheel and the real `libcudart.so.13` of nvidia-cuda-runtime 13.0.96 (HTTP Range fetches of
//! those members only), the wheel folders torch's RPATH names, and a second `libcudart.so.13` on
//! `LD_LIBRARY_PATH`. `ldd` of the real `libtorch_global_deps.so` says which copy ld.so loads (the
//! wheel's: RPATH comes before `LD_LIBRARY_PATH`); the library set the scan gives torch must be
//! that same file.

use crate::release_files::{Wheel, wheel_files};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The wheel's `members` (and its RECORD's name), fetched once into the test cache.
fn wheel(dist: &str, version: &str, members: &[&str]) -> PathBuf {
    wheel_files(
        &Wheel {
            dist: dist.into(),
            version: version.into(),
            members: members.iter().map(|m| m.to_string()).collect(),
            list: vec![r"\.dist-info/RECORD$".to_string()],
        },
        "linux",
    )
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let dest = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// What `ldd` says `lib` loads for `name`, with `LD_LIBRARY_PATH` set.
fn ldd_answer(lib: &Path, name: &str, ld_library_path: &Path) -> String {
    let out = Command::new("ldd")
        .arg(lib)
        .env("LD_LIBRARY_PATH", ld_library_path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ldd (Debian package libc-bin): {e}"));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .find_map(|l| {
            let (left, right) = l.trim().split_once(" => ")?;
            (left == name).then(|| right.split(" (").next().unwrap_or("").to_string())
        })
        .unwrap_or_else(|| panic!("ldd names no {name} for {}: {text}", lib.display()))
}

#[test]
fn torch_2_11_loads_what_its_torch_lib_rpath_finds_not_what_c_points_at() {
    let torch = wheel(
        "torch",
        "2.11.0",
        &[
            r"^torch/lib/libtorch_global_deps\.so$",
            r"^torch/_C\.cpython-[0-9a-z]+-x86_64-linux-gnu\.so$",
            r"^torch/version\.py$",
            r"^torch-2\.11\.0\.dist-info/METADATA$",
        ],
    );
    let cudart = wheel(
        "nvidia-cuda-runtime",
        "13.0.96",
        &[r"^nvidia/cu13/lib/libcudart\.so\.13$"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let venv = root.join("venv");
    let site = venv.join("lib/python3.11/site-packages");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /usr/bin\nversion = 3.11.4\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("/usr/bin/python3", venv.join("bin/python")).unwrap();
    copy_tree(&torch, &site);
    copy_tree(&cudart, &site);
    // The wheel folders a real install of torch 2.11.0 has (its Requires-Dist).
    for wheel_dir in ["cudnn", "nvshmem", "nccl", "cusparselt"] {
        std::fs::create_dir_all(site.join("nvidia").join(wheel_dir).join("lib")).unwrap();
    }
    let decoy = root.join("elsewhere");
    std::fs::create_dir_all(&decoy).unwrap();
    std::fs::copy(
        site.join("nvidia/cu13/lib/libcudart.so.13"),
        decoy.join("libcudart.so.13"),
    )
    .unwrap();

    let loaded = ldd_answer(
        &site.join("torch/lib/libtorch_global_deps.so"),
        "libcudart.so.13",
        &decoy,
    );
    let wheel_copy = site.join("nvidia/cu13/lib/libcudart.so.13");
    assert_eq!(
        std::fs::canonicalize(&loaded).unwrap(),
        std::fs::canonicalize(&wheel_copy).unwrap(),
        "ld.so takes the wheel's copy through torch/lib's RPATH"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(["gpu-test", "--sets", "--json"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", &root)
        .env("LD_LIBRARY_PATH", &decoy)
        .env_remove("CONDA_PREFIX")
        .output()
        .expect("the built binary runs");
    let doc = crate::support::json(&out);
    let sets = doc["gpu_sets"].as_array().expect("gpu_sets");
    let torch_set = sets
        .iter()
        .find(|s| s["framework"] == "py-torch")
        .unwrap_or_else(|| panic!("no torch set: {doc:#}"));
    let scanned = torch_set["cudart"].as_str().unwrap_or_default();
    assert_eq!(
        std::fs::canonicalize(scanned).ok(),
        std::fs::canonicalize(&wheel_copy).ok(),
        "the scan gives torch the copy ld.so loads, not the one on LD_LIBRARY_PATH: {torch_set:#}"
    );
}
