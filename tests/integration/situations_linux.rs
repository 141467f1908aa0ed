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
    assert_eq!(fix["kind"], "env-var", "{f:#}");
    assert!(
        fix["summary"].to_string().contains("LD_LIBRARY_PATH"),
        "{f:#}"
    );
}
