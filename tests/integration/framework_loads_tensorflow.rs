//! The real TensorFlow 2.18.0 `[and-cuda]` on Linux (issue 25): installed once with pip into
//! `tests/.cache/venvs/tensorflow-2.18.0` (~4.6 GB: the 615 MB wheel and the twelve `nvidia-*`
//! wheels it pins — CUDA 12.5, cuDNN 9.3), each case in a hard-linked copy. The oracle is
//! TensorFlow itself: over a stand-in driver (`tests/fixtures/fake_driver/cuda_driver.c`, built by
//! gcc here, reporting one compute capability 8.6 GPU) `tf.config.list_physical_devices('GPU')`
//! goes on to its DsoLoader, which dlopens its GPU libraries or logs "Cannot dlopen some GPU
//! libraries" and registers no GPU; /proc/self/maps says which files it mapped. For ptxas the
//! oracle is XLA's own search (`stream_executor::FindCudaExecutable` and `GetAsmCompilerVersion`
//! in TensorFlow's libtensorflow_cc.so.2, called in the copy's process with its PATH).

use crate::closure_installs::{Copy, cached_venv, env_for, naming};
use crate::framework_loads::{
    cites_load_list, cudnn_9_0_folder, loud_about_libraries, ptxas_11_8, with_code,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The cached venv with the real TensorFlow 2.18.0 and the `nvidia-*` wheels its `and-cuda`
/// extra pins.
pub(crate) fn tf_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| cached_venv("tensorflow-2.18.0", None, &["tensorflow[and-cuda]==2.18.0"]))
}

/// The stand-in `libcuda.so.1`, built once per test process in a folder of its own under
/// cargo's target/tmp (17 KB; not the shared cache).
fn fake_driver_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("fake-driver-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        crate::support::build_shared_library(
            &dir,
            "libcuda.so.1",
            include_str!("../fixtures/fake_driver/cuda_driver.c"),
        );
        dir
    })
}

/// `extra` folders, then the stand-in driver's, as one LD_LIBRARY_PATH value.
pub(crate) fn ld_path(extra: &[&Path]) -> PathBuf {
    let mut dirs: Vec<String> = extra.iter().map(|d| d.display().to_string()).collect();
    dirs.push(fake_driver_dir().display().to_string());
    PathBuf::from(dirs.join(":"))
}

/// What TensorFlow does when asked for its GPUs: the devices, the GPU libraries it mapped, and
/// the version the cuDNN it loaded reports (ctypes reaches the copy already in the process).
pub(crate) const TF_GPUS: &str = r#"
import ctypes, os, tensorflow as tf
print("GPUS", tf.config.list_physical_devices("GPU"))
if os.environ.get("PROFILE"):
    tf.profiler.experimental.start(os.path.join(os.environ["HOME"], "profile"))
    tf.profiler.experimental.stop()
for l in sorted({l.split()[-1] for l in open("/proc/self/maps") if ".so" in l}):
    print("MAPPED", l)
try:
    print("CUDNN", ctypes.CDLL("libcudnn.so.9").cudnnGetVersion())
except OSError as e:
    print("NO CUDNN", e)
"#;

/// Runs `code` in the copy's python, the venv activated, with LD_LIBRARY_PATH and PATH first.
pub(crate) fn run_python(c: &Copy, code: &str, ld: &Path, path_first: Option<&Path>) -> String {
    run_python_with(c, code, ld, path_first, &[])
}

fn run_python_with(
    c: &Copy,
    code: &str,
    ld: &Path,
    path_first: Option<&Path>,
    vars: &[(&str, &str)],
) -> String {
    let mut cmd = Command::new(c.root.join("bin/python"));
    cmd.args(["-c", code]);
    env_for(&mut cmd, &c.root, Some(ld));
    cmd.envs(vars.iter().copied());
    if let Some(first) = path_first {
        cmd.env(
            "PATH",
            format!("{}:{}/bin:/usr/bin:/bin", first.display(), c.root.display()),
        );
    }
    let out = cmd.output().expect("the venv's python starts");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "python failed: {text}");
    text
}

/// The scan, run as a user with the venv activated and the same variables runs it.
pub(crate) fn scan(c: &Copy, ld: &Path, path_first: Option<&Path>) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
    cmd.args(["scan", "--json"]);
    env_for(&mut cmd, &c.root, Some(ld));
    if let Some(first) = path_first {
        cmd.env(
            "PATH",
            format!("{}:{}/bin:/usr/bin:/bin", first.display(), c.root.display()),
        );
    }
    let doc = crate::support::json(&cmd.output().expect("the built binary runs"));
    crate::framework_loads_audit::assert_rows_cited(&doc);
    doc
}

/// The files TensorFlow mapped (the `MAPPED` lines).
pub(crate) fn mapped(out: &str) -> Vec<&str> {
    out.lines()
        .filter_map(|l| l.strip_prefix("MAPPED "))
        .collect()
}

/// The GPU libraries TensorFlow 2.18's DsoLoader opens (TryDlopenCUDALibraries), by wheel.
const OPENED: [(&str, &str); 7] = [
    ("cuda_runtime", "libcudart.so.12"),
    ("cublas", "libcublas.so.12"),
    ("cublas", "libcublasLt.so.12"),
    ("cufft", "libcufft.so.11"),
    ("cusolver", "libcusolver.so.11"),
    ("cusparse", "libcusparse.so.12"),
    ("cudnn", "libcudnn.so.9"),
];

/// TensorFlow's own log of each dlopen its DsoLoader makes ("Successfully opened dynamic
/// library X" / "Could not load dynamic library 'X'; dlerror: ..."), with the profiler started.
const PROFILE_LOGGED: [(&str, &str); 2] = [("PROFILE", "1"), ("TF_CPP_VMODULE", "dso_loader=1")];

/// Healthy: TensorFlow registers the GPU, having mapped each of its libraries from its wheel
/// (and no cuRAND: 2.18 has no loader for it), and the scan says nothing about those. One true
/// warning stays: the profiler's CUPTI, in the nvidia-cuda-cupti-cu12 wheel the extra installs,
/// is not in the RUNPATH TensorFlow's dlopen searches — TensorFlow's own DsoLoader logs that it
/// could not load libcupti.so.12 (then libcupti.so) and maps no CUPTI. With that wheel's folder
/// on LD_LIBRARY_PATH it logs "Successfully opened" and the scan is silent.
#[test]
fn tensorflow_2_18_registers_its_gpu_from_its_wheels_and_the_scan_warns_only_of_cupti() {
    let c = Copy::of(tf_venv(), "tf-healthy");
    let ld = ld_path(&[]);
    let out = run_python_with(&c, TF_GPUS, &ld, None, &PROFILE_LOGGED);
    for name in ["libcupti.so.12", "libcupti.so"] {
        assert!(
            out.contains(&format!(
                "Could not load dynamic library '{name}'; dlerror: {name}: cannot open shared object file"
            )),
            "TensorFlow's profiler tried {name} and failed: {out}"
        );
    }
    assert!(out.contains("/physical_device:GPU:0"), "{out}");
    let maps = mapped(&out);
    for (wheel, name) in OPENED {
        // The copy is a hard-linked tree: /proc shows the path TensorFlow opened, in the copy.
        assert!(
            maps.iter()
                .any(|m| m.ends_with(&format!("nvidia/{wheel}/lib/{name}"))),
            "{wheel}/{name} is mapped: {out}"
        );
    }
    assert!(!maps.iter().any(|m| m.contains("libcurand")), "{out}");
    assert!(!maps.iter().any(|m| m.contains("libcupti")), "{out}");
    let doc = scan(&c, &ld, None);
    let tf = doc["inventory"]["python_envs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["frameworks"].as_array().unwrap())
        .find(|f| f["package"] == "tensorflow")
        .unwrap_or_else(|| panic!("tensorflow is found: {doc:#}"));
    assert_eq!(tf["version"], "2.18.0", "{tf:#}");
    let loud = loud_about_libraries(&doc);
    assert_eq!(loud.len(), 1, "{doc:#}");
    assert_eq!(loud[0]["severity"], "warning", "{:#}", loud[0]);
    assert_eq!(loud[0]["libraries"][0], "libcupti.so.12", "{:#}", loud[0]);
    assert!(
        cites_load_list(loud[0], "GetCuptiDsoHandle"),
        "{:#}",
        loud[0]
    );
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");
    assert_eq!(with_code(&doc, "ptxas-too-old"), Vec::<&Value>::new());

    let cupti = c.site().join("nvidia/cuda_cupti/lib");
    let ld = ld_path(&[&cupti]);
    let out = run_python_with(&c, TF_GPUS, &ld, None, &PROFILE_LOGGED);
    assert!(
        out.contains("Successfully opened dynamic library libcupti.so.12"),
        "{out}"
    );
    assert!(
        mapped(&out)
            .iter()
            .any(|m| m.ends_with("nvidia/cuda_cupti/lib/libcupti.so.12")),
        "{out}"
    );
    let doc = scan(&c, &ld, None);
    assert_eq!(loud_about_libraries(&doc), Vec::<&Value>::new(), "{doc:#}");
    // TensorFlow's own log of a healthy start (its loader's lines included, no profiler: CUPTI
    // cannot reach the stand-in driver), pasted into `why`: none of its lines is read as a
    // failure. The one warning allowed is TF-TRT's, about TensorRT, which this install really
    // lacks (it is no part of the `and-cuda` extra).
    let out = run_logging_loads(&c, &ld);
    assert!(out.contains("/physical_device:GPU:0"), "{out}");
    let read = why_on_log(&out);
    let loud: Vec<&Value> = read
        .iter()
        .filter(|f| f["severity"] == "error" || f["severity"] == "warning")
        .collect();
    assert!(
        loud.iter().all(|f| f["severity"] == "warning"
            && f.to_string().to_ascii_lowercase().contains("tensorrt")),
        "a healthy TensorFlow log is read as failing: {loud:#?}\n{out}"
    );
}

/// `why --json` on a real log, keeping the findings read from its lines (not those about the
/// machine running the test).
fn why_on_log(log: &str) -> Vec<Value> {
    let doc = crate::support::json(&crate::support::run_cli_stdin(&["why", "--json", "-"], log));
    crate::support::findings_with_evidence(&doc, "log")
        .into_iter()
        .cloned()
        .collect()
}

/// TensorFlow's GPU query with its loader's own lines ("Successfully opened dynamic library",
/// "Could not load dynamic library ..."), which it logs at dso_loader=1.
fn run_logging_loads(c: &Copy, ld: &Path) -> String {
    run_python_with(c, TF_GPUS, ld, None, &[("TF_CPP_VMODULE", "dso_loader=1")])
}

/// A library gone from its wheel (cuFFT): TensorFlow cannot dlopen it and registers no GPU; the
/// scan reports it as an error that cites the loader's row.
#[test]
fn tensorflow_without_cufft_registers_no_gpu_and_the_scan_names_it() {
    let c = Copy::of(tf_venv(), "tf-no-cufft");
    c.replace("nvidia/cufft/lib/libcufft.so.11", None);
    let ld = ld_path(&[]);
    let out = run_logging_loads(&c, &ld);
    assert!(out.contains("GPUS []"), "{out}");
    assert!(out.contains("Cannot dlopen some GPU libraries"), "{out}");
    // TensorFlow's own log says which library it could not open; `why` names it as an error.
    let read = why_on_log(&out);
    assert!(
        read.iter()
            .any(|f| f["severity"] == "error" && f.to_string().contains("libcufft.so.11")),
        "{read:#?}\n{out}"
    );
    let doc = scan(&c, &ld, None);
    let named = naming(&c.errors_here(&doc), "libcufft.so.11");
    assert_eq!(named.len(), 1, "{doc:#}");
    assert!(
        cites_load_list(named[0], "dlopen_checker.cc"),
        "{:#}",
        named[0]
    );
    assert!(
        named[0]
            .to_string()
            .contains("nvidia-cufft-cu12==11.2.3.61"),
        "{:#}",
        named[0]
    );
}

/// cuDNN 9.0 first on LD_LIBRARY_PATH: TensorFlow's dlopen of libcudnn.so.9 searches it before
/// the RUNPATH of its own library, maps the 9.0 copy, and that copy reports 9.0.0 — which
/// TensorFlow, built with cuDNN 9.3, refuses at its first cuDNN use ("Loaded runtime CuDNN
/// library: 9.0.0 but source was compiled with: 9.3.0"; CudnnSupport::Init needs a real GPU to
/// get that far). The scan: an error naming the file, its version, the pin and the variable.
#[test]
fn an_older_cudnn_first_on_ld_library_path_is_what_tensorflow_loads_and_is_refused() {
    let c = Copy::of(tf_venv(), "tf-cudnn-9.0-first");
    let old = cudnn_9_0_folder(true, "tf");
    let ld = ld_path(&[&old]);
    let out = run_python(&c, TF_GPUS, &ld, None);
    // /proc shows the real path (tests/.cache may be a link).
    let real_old = old.canonicalize().unwrap().display().to_string();
    assert!(
        mapped(&out)
            .iter()
            .any(|m| m.starts_with(&real_old) && m.contains("libcudnn.so.9")),
        "{out}"
    );
    let old_text = old.display().to_string();
    assert!(out.contains("CUDNN 90000"), "{out}");
    let doc = scan(&c, &ld, None);
    let refused = with_code(&doc, "library-version-refused");
    assert_eq!(refused.len(), 1, "{doc:#}");
    let r = refused[0];
    assert_eq!(r["severity"], "error", "{r:#}");
    let summary = r["summary"].as_str().unwrap();
    assert!(
        summary.contains(&old_text) && summary.contains("9.0.0") && summary.contains("TensorFlow"),
        "{r:#}"
    );
    let detail = r["detail"].as_str().unwrap();
    assert!(detail.contains("nvidia-cudnn-cu12==9.3.0.75"), "{r:#}");
    assert!(detail.contains("LD_LIBRARY_PATH"), "{r:#}");
    let _ = std::fs::remove_dir_all(&old);
}

/// XLA's own choice of ptxas, from TensorFlow's library in the copy's process: the path
/// FindCudaExecutable("ptxas", "./cuda_sdk_lib") returns (the data folder TensorFlow's XLA
/// defaults to) and the version GetAsmCompilerVersion reports (the search XLA compiles with:
/// it skips a ptxas older than 11.8). Both return an absl::StatusOr through a hidden pointer:
/// the status word (0 when OK), then the value.
const XLA_PTXAS: &str = r#"
import ctypes, os, tensorflow as tf
lib = ctypes.CDLL(os.path.join(os.path.dirname(tf.__file__), "libtensorflow_cc.so.2"))
def sv(s):
    b = s.encode()
    return [ctypes.c_size_t(len(b)), ctypes.c_char_p(b)]
find = lib._ZN15stream_executor18FindCudaExecutableB5cxx11ESt17basic_string_viewIcSt11char_traitsIcEES3_
find.restype = None
r = ctypes.create_string_buffer(64)
find(r, *sv("ptxas"), *sv("./cuda_sdk_lib"))
assert ctypes.c_uint64.from_buffer(r, 0).value == 0, "FindCudaExecutable failed"
n = ctypes.c_size_t.from_buffer(r, 16).value
print("XLA_PTXAS", ctypes.string_at(ctypes.c_void_p.from_buffer(r, 8).value, n).decode())
ver = lib._ZN15stream_executor21GetAsmCompilerVersionESt17basic_string_viewIcSt11char_traitsIcEE
ver.restype = None
r = ctypes.create_string_buffer(64)
ver(r, *sv("./cuda_sdk_lib"))
assert ctypes.c_uint64.from_buffer(r, 0).value == 0, "GetAsmCompilerVersion failed"
print("XLA_PTXAS_VERSION", ".".join(str(ctypes.c_uint32.from_buffer(r, 8 + 4 * i).value) for i in range(3)))
"#;

/// Seed situation 4: CUDA 11.8's ptxas first on PATH. XLA searches PATH before the ptxas of the
/// pip nvidia-cuda-nvcc wheel, so TensorFlow 2.18's XLA runs 11.8.89 (its own search says so),
/// and the scan names that file, its version and PATH; without it XLA takes the wheel's 12.5.82
/// and the scan says nothing about ptxas.
#[test]
fn an_older_ptxas_first_on_path_is_the_one_tensorflow_xla_runs_and_is_named() {
    let c = Copy::of(tf_venv(), "tf-ptxas");
    let ld = ld_path(&[]);
    let wheel = run_python(&c, XLA_PTXAS, &ld, None);
    assert!(
        wheel.contains("nvidia/cuda_nvcc/bin/ptxas") && wheel.contains("XLA_PTXAS_VERSION 12.5.82"),
        "{wheel}"
    );
    let ptxas = ptxas_11_8("tf");
    let dir = ptxas.parent().unwrap();
    let chosen = run_python(&c, XLA_PTXAS, &ld, Some(dir));
    assert!(
        chosen.contains(&format!("XLA_PTXAS {}", ptxas.display()))
            && chosen.contains("XLA_PTXAS_VERSION 11.8.89"),
        "{chosen}"
    );
    let doc = scan(&c, &ld, Some(dir));
    let old = with_code(&doc, "ptxas-too-old");
    assert_eq!(old.len(), 1, "{doc:#}");
    let f = old[0];
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.contains("TensorFlow 2.18.0") && summary.contains("ptxas 11.8.89"),
        "{f:#}"
    );
    assert_eq!(
        f["evidence"][0]["path"],
        ptxas.display().to_string(),
        "{f:#}"
    );
    assert!(f["detail"].as_str().unwrap().contains("PATH"), "{f:#}");
    assert!(
        f["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["id"] == format!("path-remove:{}", dir.display())),
        "{f:#}"
    );
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");
    let _ = std::fs::remove_dir_all(dir);
}
