//! Symbols as ld.so binds them. The real `libnvJitLink.so.12` of nvidia-nvjitlink-cu12 12.4.127
//! and 12.1.105 (PyPI wheels, cached) both define the version `libnvJitLink.so.12`, but only
//! 12.4 defines `__nvJitLinkComplete_12_4`. A library linked against 12.4 with `-z now` (as
//! cuSPARSE 12.3 is; built here with gcc, soname `libcusparse.so.12`, RUNPATH to the 12.4 copy)
//! loads until LD_LIBRARY_PATH puts the 12.1 copy first — then the real loader (python's ctypes,
//! RTLD_NOW like an import) fails with exactly torch's error: `undefined symbol:
//! __nvJitLinkComplete_12_4, version libnvJitLink.so.12`. `tree` must say the same, naming
//! both files and LD_LIBRARY_PATH, and stay quiet when the right copy resolves. Last, a closure
//! miss in a conda environment names the conda-forge package beside the pip wheel.

use crate::fixtures_build::SoSpec;
use crate::support::json;
use crate::wheels::{WheelPlatform, wheel_member};
use std::path::{Path, PathBuf};
use std::process::Command;

const DIST: &str = "nvidia-nvjitlink-cu12";
const LIB: &str = "nvidia/nvjitlink/lib/libnvJitLink.so.12";

struct Layout {
    _dir: tempfile::TempDir,
    consumer: PathBuf,
    old_dir: PathBuf,
    new_lib: PathBuf,
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let new_dir = dir.path().join("new");
    let old_dir = dir.path().join("old");
    let lib_dir = dir.path().join("lib");
    for d in [&new_dir, &old_dir, &lib_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let new_lib = new_dir.join("libnvJitLink.so.12");
    std::fs::copy(
        wheel_member(DIST, "12.4.127", WheelPlatform::Linux, LIB),
        &new_lib,
    )
    .unwrap();
    std::fs::copy(
        wheel_member(DIST, "12.1.105", WheelPlatform::Linux, LIB),
        old_dir.join("libnvJitLink.so.12"),
    )
    .unwrap();
    let consumer = SoSpec::new("libcusparse.so.12")
        .soname("libcusparse.so.12")
        .link_with(&new_lib)
        .runpath(&["$ORIGIN/../new"])
        .source(
            "extern int __nvJitLinkComplete_12_4(void *);\n\
             int fixture_use(void *h) { return __nvJitLinkComplete_12_4(h); }\n",
        )
        .build(&lib_dir)
        .expect("gcc builds the consumer (install gcc)");
    Layout {
        _dir: dir,
        consumer,
        old_dir,
        new_lib,
    }
}

/// The real loader: python3's ctypes opens the library with RTLD_NOW.
fn real_load(lib: &Path, ld_library_path: Option<&Path>) -> Result<(), String> {
    let mut cmd = Command::new("python3");
    cmd.args(["-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])"])
        .arg(lib);
    match ld_library_path {
        Some(p) => cmd.env("LD_LIBRARY_PATH", p),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    let out = cmd.output().expect("python3 runs (install python3)");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `cuda-triage tree LIB --json --no-runtime` on this computer with the given LD_LIBRARY_PATH.
fn tree(lib: &Path, ld_library_path: Option<&Path>) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
    cmd.args(["tree", "--json", "--no-runtime"])
        .arg(lib)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    match ld_library_path {
        Some(p) => cmd.env("LD_LIBRARY_PATH", p),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    json(&cmd.output().expect("the built binary runs"))
}

fn findings_with_code<'a>(doc: &'a serde_json::Value, code: &str) -> Vec<&'a serde_json::Value> {
    doc["findings"]
        .as_array()
        .map(|a| a.iter().filter(|f| f["code"] == code).collect())
        .unwrap_or_default()
}

#[test]
fn an_older_nvjitlink_first_on_ld_library_path_is_named_with_the_missing_symbol() {
    let l = layout();
    let err = real_load(&l.consumer, Some(&l.old_dir)).expect_err("the real loader refuses");
    assert!(
        err.contains("undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12"),
        "{err}"
    );
    let doc = tree(&l.consumer, Some(&l.old_dir));
    let found = findings_with_code(&doc, "missing-symbol");
    assert_eq!(found.len(), 1, "{doc:#}");
    let f = found[0];
    assert_eq!(f["severity"], "error");
    let evidence = f["evidence"].as_array().unwrap();
    let old = l.old_dir.join("libnvJitLink.so.12").display().to_string();
    assert!(
        evidence
            .iter()
            .any(|e| e["kind"] == "resolved" && e["path"] == old.as_str()),
        "names the copy that resolved: {f:#}"
    );
    assert!(
        evidence.iter().any(|e| e["kind"] == "missing"
            && e["text"]
                .as_str()
                .unwrap()
                .contains("__nvJitLinkComplete_12_4, version libnvJitLink.so.12")),
        "names the symbol as ld.so does: {f:#}"
    );
    assert!(
        f["detail"].as_str().unwrap().contains("LD_LIBRARY_PATH"),
        "says what put it first: {f:#}"
    );
    assert!(
        f["libraries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == "libcusparse.so.12"),
        "names the library that needs it: {f:#}"
    );
}

#[test]
fn the_matching_nvjitlink_binds_every_symbol() {
    let l = layout();
    real_load(&l.consumer, None).expect("the real loader binds every symbol");
    let doc = tree(&l.consumer, None);
    assert!(
        findings_with_code(&doc, "missing-symbol").is_empty(),
        "{doc:#}"
    );
    let nodes = doc["nodes"].as_array().unwrap();
    let jit = nodes
        .iter()
        .find(|n| n["name"] == "libnvJitLink.so.12")
        .expect("a node for libnvJitLink.so.12");
    assert_eq!(jit["path"], l.new_lib.display().to_string().as_str());
    assert_eq!(jit["how"], "runpath");
}

/// In a conda environment the closure finding names the conda-forge package beside the pip wheel
/// (a gcc-built `libtorch_global_deps.so` with torch's real RUNPATH entry for the cudart wheel,
/// NEEDED libcudart.so.12, which is nowhere on the machine).
#[test]
fn a_miss_in_a_conda_environment_names_the_conda_package_it_records() {
    // conda installed cuda-cudart (conda-meta records it) and the library went missing: the
    // reinstall names that package and version. Without the record no conda command is offered:
    // conda's channels cannot be checked, so a conda name is only ever the environment's own.
    let recorded = conda_miss(true);
    assert!(
        recorded.contains(
            "conda install -p \"/opt/conda/envs/t\" --force-reinstall cuda-cudart=12.4.127"
        ),
        "{recorded}"
    );
    let unrecorded = conda_miss(false);
    assert!(!unrecorded.contains("conda install"), "{unrecorded}");
}

/// The closure finding for libcudart.so.12 in a conda environment whose conda-meta does (or does
/// not) record cuda-cudart 12.4.127.
fn conda_miss(recorded: bool) -> String {
    use cuda_triage::engine::context::Platform;
    use cuda_triage::engine::context::fake::FakeMachine;
    const ENV: &str = "/opt/conda/envs/t";
    let build = tempfile::tempdir().unwrap();
    let python = SoSpec::new("python")
        .executable()
        .source("int main(void) { return 0; }\n")
        .build(build.path())
        .expect("gcc builds the python stand-in");
    let deps = SoSpec::new("libtorch_global_deps.so")
        .soname("libtorch_global_deps.so")
        .needed("libcudart.so.12")
        .rpath(&["$ORIGIN/../../nvidia/cuda_runtime/lib", "$ORIGIN"])
        .build(build.path())
        .unwrap();
    let site = format!("{ENV}/lib/python3.11/site-packages");
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.copy(&format!("{ENV}/bin/python"), &python)
        .dir(&format!("{ENV}/conda-meta"))
        .file(
            &format!("{ENV}/conda-meta/python-3.11.9-h955ad1f_0.json"),
            "{}",
        )
        .copy(&format!("{site}/torch/lib/libtorch_global_deps.so"), &deps)
        .file(
            &format!("{site}/torch/version.py"),
            "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n",
        )
        .file(
            &format!("{site}/torch-2.5.1.dist-info/METADATA"),
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\nRequires-Dist: nvidia-cuda-runtime-cu12 (==12.4.127) ; platform_system == \"Linux\"\n",
        );
    if recorded {
        m.file(
            &format!("{ENV}/conda-meta/cuda-cudart-12.4.127-0.json"),
            "{}",
        );
    }
    m.env("PATH", &format!("{ENV}/bin:/usr/bin:/bin"))
        .env("CONDA_PREFIX", ENV)
        .driver("550.54.15", "12.4");
    let file = m.write_machine_file().unwrap().display().to_string();
    let doc = json(&crate::support::run_cli(&[
        "scan",
        "--machine",
        &file,
        "--json",
    ]));
    let f = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["libraries"][0] == "libcudart.so.12"
                && f["evidence"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e["kind"] == "entry library")
        })
        .unwrap_or_else(|| panic!("the closure names libcudart.so.12: {doc:#}"));
    let text = f.to_string();
    assert!(
        text.contains("nvidia-cuda-runtime-cu12==12.4.127"),
        "{text}"
    );
    assert_eq!(f["severity"], "error");
    f["detail"].as_str().unwrap_or_default().to_string()
}
