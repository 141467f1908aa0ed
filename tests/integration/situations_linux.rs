//! A Linux conda environment whose TensorFlow dlopens its CUDA libraries. conda installs cuDNN
//! and the CUDA runtime into the environment's `lib` folder, which ld.so searches only through
//! the python executable's RPATH (`$ORIGIN/../lib`, how conda builds python). The python here is
//! a real executable built with gcc, so the search runs on its real dynamic section: with the
//! RPATH the libraries are found; without it the finding names the folder, the folders ld.so
//! did search, and an LD_LIBRARY_PATH fix.

use crate::fixtures_build::SoSpec;
use crate::support::{json, run_cli};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::FakeMachine;
use serde_json::Value;

const ENV: &str = "/opt/conda/envs/tf";
const LIBS: [&str; 8] = [
    "libcudart.so.11.0",
    "libcublas.so.11",
    "libcublasLt.so.11",
    "libcufft.so.10",
    "libcurand.so.10",
    "libcusolver.so.11",
    "libcusparse.so.11",
    "libcudnn.so.8",
];

fn conda_tf_machine(python_rpath: Option<&str>) -> (FakeMachine, String) {
    let build = tempfile::tempdir().unwrap();
    let mut spec = SoSpec::new("python")
        .executable()
        .source("int main(void) { return 0; }\n");
    if let Some(r) = python_rpath {
        spec = spec.rpath(&[r]);
    }
    let python = spec
        .build(build.path())
        .expect("gcc builds the python stand-in");
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.copy(&format!("{ENV}/bin/python"), &python);
    m.dir(&format!("{ENV}/conda-meta"));
    for lib in LIBS {
        m.file(&format!("{ENV}/lib/{lib}"), b"\x7fELF");
    }
    let site = format!("{ENV}/lib/python3.10/site-packages");
    m.file(
        &format!("{site}/tensorflow-2.12.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.12.0\n",
    );
    m.file(
        &format!("{site}/tensorflow/python/platform/build_info.py"),
        "build_info = {'cuda_version': '11.8', 'cudnn_version': '8', 'is_cuda_build': True, 'is_rocm_build': False}\n",
    );
    m.env("PATH", &format!("{ENV}/bin:/usr/bin:/bin"))
        .env("CONDA_PREFIX", ENV)
        .driver("535.104.05", "12.2");
    let file = m.write_machine_file().unwrap().display().to_string();
    (m, file)
}

fn findings_naming(doc: &Value, lib: &str) -> Vec<Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["libraries"].to_string().contains(lib))
        .cloned()
        .collect()
}

#[test]
fn conda_env_lib_found_through_python_rpath() {
    let (_m, file) = conda_tf_machine(Some("$ORIGIN/../lib"));
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    let tf = &doc["inventory"]["python_envs"][0]["frameworks"][0];
    assert_eq!(
        tf["expects"]["cuda"], "11.8",
        "TensorFlow's build is read: {tf:#}"
    );
    for lib in LIBS {
        let about = findings_naming(&doc, lib);
        assert!(about.is_empty(), "{lib} is reachable: {about:#?}");
    }
}

#[test]
fn conda_env_lib_not_searched_without_python_rpath() {
    let (_m, file) = conda_tf_machine(None);
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    let about = findings_naming(&doc, "libcudnn.so.8");
    let f = about
        .iter()
        .find(|f| f["code"] == "library-not-searched")
        .unwrap_or_else(|| panic!("no library-not-searched for libcudnn.so.8: {about:#?}"));
    let evidence = f["evidence"].to_string();
    assert!(
        evidence.contains(&format!("{ENV}/lib/libcudnn.so.8")),
        "{f:#}"
    );
    assert!(
        evidence.contains("/etc/ld.so"),
        "the cache step is shown: {f:#}"
    );
    assert!(!evidence.contains(&format!("{ENV}/lib (rpath)")), "{f:#}");
    let fix = &f["fixes"][0];
    assert_eq!(
        fix["kind"], "path-edit",
        "a typed LD_LIBRARY_PATH edit: {f:#}"
    );
    assert!(
        fix["summary"].to_string().contains("LD_LIBRARY_PATH"),
        "{f:#}"
    );
}

/// pip's TensorFlow (`tensorflow[and-cuda]`) in a venv: the CUDA libraries come from the
/// `nvidia/*/lib` wheels, which ld.so reaches only through the RUNPATH of TensorFlow's own
/// library (here a real gcc-built `libtensorflow_framework.so.2` whose RUNPATH points there).
const VENV: &str = "/home/dev/venvs/tf";
const SITE: &str = "/home/dev/venvs/tf/lib/python3.11/site-packages";
const WHEEL_LIBS: [(&str, &str); 8] = [
    ("cuda_runtime", "libcudart.so.12"),
    ("cublas", "libcublas.so.12"),
    ("cublas", "libcublasLt.so.12"),
    ("cufft", "libcufft.so.11"),
    ("curand", "libcurand.so.10"),
    ("cusolver", "libcusolver.so.11"),
    ("cusparse", "libcusparse.so.12"),
    ("cudnn", "libcudnn.so.8"),
];

fn pip_tf_machine(with_runpath: bool) -> (FakeMachine, String) {
    let build = tempfile::tempdir().unwrap();
    let mut dirs: Vec<String> = WHEEL_LIBS
        .iter()
        .map(|(w, _)| format!("$ORIGIN/../nvidia/{w}/lib"))
        .collect();
    dirs.dedup();
    let mut spec =
        SoSpec::new("libtensorflow_framework.so.2").soname("libtensorflow_framework.so.2");
    if with_runpath {
        let entries: Vec<&str> = dirs.iter().map(String::as_str).collect();
        spec = spec.runpath(&entries);
    }
    let framework = spec.build(build.path()).expect("gcc builds the TF library");
    let python = SoSpec::new("python3.11")
        .executable()
        .source("int main(void) { return 0; }\n")
        .build(build.path())
        .unwrap();
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.copy("/usr/bin/python3.11", &python);
    m.file(
        &format!("{VENV}/pyvenv.cfg"),
        "home = /usr/bin\nversion = 3.11.4\n",
    );
    m.copy(&format!("{VENV}/bin/python"), &python);
    m.copy(
        &format!("{SITE}/tensorflow/libtensorflow_framework.so.2"),
        &framework,
    );
    for (wheel, lib) in WHEEL_LIBS {
        m.file(&format!("{SITE}/nvidia/{wheel}/lib/{lib}"), b"\x7fELF");
    }
    m.file(
        &format!("{SITE}/tensorflow-2.15.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.0\n",
    );
    m.file(
        &format!("{SITE}/tensorflow/python/platform/build_info.py"),
        "build_info = {'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True, 'is_rocm_build': False}\n",
    );
    m.env("PATH", &format!("{VENV}/bin:/usr/bin:/bin"))
        .env("VIRTUAL_ENV", VENV)
        .driver("535.104.05", "12.2");
    let file = m.write_machine_file().unwrap().display().to_string();
    (m, file)
}

#[test]
fn pip_nvidia_wheels_found_through_the_framework_library_runpath() {
    let (_m, file) = pip_tf_machine(true);
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    let envs = doc["inventory"]["python_envs"].as_array().unwrap();
    let tf = envs
        .iter()
        .flat_map(|e| e["frameworks"].as_array().unwrap())
        .find(|f| f["kind"] == "tensor-flow")
        .unwrap_or_else(|| panic!("TensorFlow is found: {envs:#?}"));
    assert_eq!(tf["expects"]["cuda"], "12.2", "{tf:#}");
    for (_, lib) in WHEEL_LIBS {
        let about = findings_naming(&doc, lib);
        assert!(about.is_empty(), "{lib} is reachable: {about:#?}");
    }
    // The GPU test's set for this TensorFlow is the wheels' files.
    let sets = json(&run_cli(&[
        "gpu-test",
        "--sets",
        "--json",
        "--machine",
        &file,
    ]));
    let set = sets["gpu_sets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["framework"] == "tensor-flow")
        .expect("a TensorFlow set");
    let cublas = set["cublas"].as_str().unwrap();
    assert!(
        cublas.ends_with("site-packages/nvidia/cublas/lib/libcublas.so.12"),
        "{set:#}"
    );
}

#[test]
fn pip_nvidia_wheels_not_searched_without_the_runpath() {
    let (_m, file) = pip_tf_machine(false);
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    let about = findings_naming(&doc, "libcublas.so.12");
    assert!(
        about.iter().any(|f| f["code"] == "library-not-searched"),
        "{about:#?}"
    );
}
