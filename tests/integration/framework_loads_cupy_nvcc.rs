//! Issue 25 item 5 for CuPy: the nvcc the real CuPy 13.3.0 (`cupy-cuda12x`, the venv of
//! `closure_installs`) runs for `backend='nvcc'` kernels and cuFFT callbacks, found through
//! `CUDA_PATH` or PATH. The real nvcc of CUDA 13.5 (`nvidia-cuda-nvcc` 13.5.37, one ~35 MB
//! member of its wheel) sits in a toolkit-shaped folder; the oracles are CuPy's own
//! `cupy.cuda.get_nvcc_path()` in the copy's python and that nvcc's own `--version`. The scan
//! must name the same file, its version and what chose it, against CuPy's CUDA 12 — and say
//! nothing when CuPy finds no nvcc.

use crate::closure_installs::{Copy, cupy_venv, env_for};
use crate::framework_loads::with_code;
use crate::wheels::{WheelPlatform, wheel_member};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const CUPY_NVCC: &str = "import cupy.cuda as c\nprint('NVCC', c.get_nvcc_path())";

/// `<copy>/cuda-13.5/bin/nvcc`: the real nvcc of CUDA 13.5, executable.
fn nvcc_13_5(c: &Copy) -> PathBuf {
    let member = wheel_member(
        "nvidia-cuda-nvcc",
        "13.5.37",
        WheelPlatform::Linux,
        "nvidia/cu13/bin/nvcc",
    );
    let bin = c.root.join("cuda-13.5/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let nvcc = bin.join("nvcc");
    std::fs::copy(member, &nvcc).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
    nvcc
}

/// CuPy's answer and the scan's, with the venv activated, LD_LIBRARY_PATH over the wheels'
/// folders (CuPy 13 needs it for its library modules) and `vars` set.
fn cupy_and_scan(c: &Copy, vars: &[(&str, String)]) -> (String, Value) {
    let ld = c.nvidia_lib_path();
    let with = |cmd: &mut Command| {
        env_for(cmd, &c.root, Some(Path::new(&ld)));
        for (k, v) in vars {
            cmd.env(k, v);
        }
    };
    let mut py = Command::new(c.root.join("bin/python"));
    py.args(["-c", CUPY_NVCC]);
    with(&mut py);
    let out = py.output().expect("the venv's python starts");
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut scan = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
    scan.args(["scan", "--json"]);
    with(&mut scan);
    let doc = crate::support::json(&scan.output().expect("the built binary runs"));
    crate::framework_loads_audit::assert_rows_cited(&doc);
    (said, doc)
}

/// The one `cupy-nvcc-mismatch` finding: a note (no GPU here) naming `nvcc`, 13.5.37 and `how`.
fn named(doc: &Value, nvcc: &Path, how: &str) {
    let found = with_code(doc, "cupy-nvcc-mismatch");
    assert_eq!(found.len(), 1, "{doc:#}");
    let f = found[0];
    assert_eq!(f["severity"], "info", "{f:#}");
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!("nvcc 13.5.37 ({how})")) && summary.contains("CUDA 12.x"),
        "{f:#}"
    );
    assert_eq!(
        f["evidence"][0]["path"],
        nvcc.display().to_string(),
        "{f:#}"
    );
}

#[test]
fn cupy_runs_the_nvcc_of_cuda_path_or_path_and_the_scan_names_it_with_its_version() {
    let c = Copy::of(cupy_venv(), "cupy-nvcc");
    let (said, doc) = cupy_and_scan(&c, &[]);
    assert!(said.contains("NVCC None"), "CuPy finds no nvcc: {said}");
    assert_eq!(
        with_code(&doc, "cupy-nvcc-mismatch"),
        Vec::<&Value>::new(),
        "{doc:#}"
    );

    let nvcc = nvcc_13_5(&c);
    let version = Command::new(&nvcc)
        .arg("--version")
        .output()
        .expect("nvcc runs");
    assert!(
        String::from_utf8_lossy(&version.stdout).contains("release 13.5, V13.5.37"),
        "{version:?}"
    );
    let root = nvcc.parent().unwrap().parent().unwrap();
    let (said, doc) = cupy_and_scan(&c, &[("CUDA_PATH", root.display().to_string())]);
    assert!(said.contains(&format!("NVCC {}", nvcc.display())), "{said}");
    named(&doc, &nvcc, "CUDA_PATH");
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");

    let path = format!(
        "{}:{}/bin:/usr/bin:/bin",
        nvcc.parent().unwrap().display(),
        c.root.display()
    );
    let (said, doc) = cupy_and_scan(&c, &[("PATH", path)]);
    assert!(said.contains(&format!("NVCC {}", nvcc.display())), "{said}");
    named(&doc, &nvcc, "the nvcc on PATH");
}
