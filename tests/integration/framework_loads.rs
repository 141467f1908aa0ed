//! What each framework really loads, and at which version, checked on real installs (issue 25):
//! the real onnxruntime-gpu 1.20.2 (`tests/.cache/venvs/onnxruntime-1.20.2`, made by hard links
//! from the CuPy venv of `closure_installs`, so its CUDA 12 / cuDNN 9 libraries are the same
//! `nvidia-*` wheels torch 2.5.1 pulled in — one more download of ~300 MB) and broken hard-linked
//! copies of the torch 2.5.1 venv. The oracles are the real ld.so loading ONNX Runtime's CUDA
//! provider, the real `import torch`, and torch's own cuDNN version check.

pub(crate) use crate::closure_installs::loud_about_libraries;
use crate::closure_installs::{Copy, cached_venv, cupy_venv, env_for, naming};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const ORT: &str = "onnxruntime-gpu==1.20.2";
/// JAX with its CUDA 12 plugin as pip resolves it (jax 0.4.35 pins jaxlib 0.4.34 for the
/// extra, with plugin 0.4.35); nvcc pinned because pip otherwise takes 12.9, whose namespace
/// package breaks `import jax` 0.4.35 (`cuda_nvcc.__file__` is None).
const JAX: &[&str] = &["jax[cuda12]==0.4.35", "nvidia-cuda-nvcc-cu12==12.6.85"];

/// The cached venv with the real ONNX Runtime 1.20.2 beside torch 2.5.1 and CuPy 13.3.0.
pub(crate) fn ort_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| cached_venv("onnxruntime-1.20.2", Some(cupy_venv()), &[ORT]))
}

/// The cached venv with the real JAX 0.4.35 and its CUDA 12 plugin beside torch and CuPy (the
/// plugin takes the same `nvidia-*` wheels; only nvcc is added).
pub(crate) fn jax_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| cached_venv("jax-0.4.35", Some(cupy_venv()), JAX))
}

/// Runs `code` in the copy's python with the venv activated; stdout, or the failure.
pub(crate) fn python(
    c: &Copy,
    code: &str,
    ld_library_path: Option<&Path>,
) -> Result<String, String> {
    let mut cmd = Command::new(c.root.join("bin/python"));
    cmd.args(["-c", code]);
    env_for(&mut cmd, &c.root, ld_library_path);
    let out = cmd.output().expect("the venv's python starts");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

/// Whether a finding shows the load-list row (or import table) it comes from, naming `what`.
pub(crate) fn cites_load_list(f: &Value, what: &str) -> bool {
    f["evidence"].as_array().is_some_and(|ev| {
        ev.iter().any(|e| {
            e["kind"] == "load-list" && e["text"].as_str().is_some_and(|t| t.contains(what))
        })
    })
}

pub(crate) fn with_code<'a>(doc: &'a Value, code: &str) -> Vec<&'a Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// The real ld.so resolving the ONNX Runtime CUDA provider's whole closure in the copy's
/// environment (`ld.so --list`: every DT_NEEDED, each object's RPATH/RUNPATH, LD_LIBRARY_PATH,
/// ld.so.cache — what ONNX Runtime's dlopen of the provider by full path gets; running the
/// provider's initialisers outside ONNX Runtime's bridge crashes, so the list is the oracle).
pub(crate) fn ld_so_list_provider(
    c: &Copy,
    ld_library_path: Option<&Path>,
) -> Result<String, String> {
    let provider = c
        .site()
        .join("onnxruntime/capi/libonnxruntime_providers_cuda.so");
    let mut cmd = Command::new("/lib64/ld-linux-x86-64.so.2");
    cmd.arg("--list").arg(&provider);
    env_for(&mut cmd, &c.root, ld_library_path);
    let out = cmd.output().expect("ld.so runs (Debian package libc6)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() && !text.contains("not found") {
        Ok(text)
    } else {
        Err(text)
    }
}

/// Case (a) of issue 25, and the Linux healthy matrix on real files: one venv holding the real
/// onnxruntime-gpu 1.20.2, torch 2.5.1 and CuPy 13.3.0 over the same `nvidia-*` wheels, with
/// LD_LIBRARY_PATH over their lib folders. Each loads for real (the provider under ld.so,
/// `import torch`, CuPy's library modules), and the scan says nothing — no error and no warning
/// about any of their libraries. The provider needs no cuSOLVER and no cuSPARSE (its import
/// table says so, and the real ld.so never maps them); the old generic list called both missing.
#[test]
fn onnxruntime_1_20_2_healthy_install_loads_its_provider_and_the_scan_is_silent() {
    let c = Copy::of(ort_venv(), "ort-healthy");
    let path = c.nvidia_lib_path();
    let ld = Path::new(&path);
    let loaded = ld_so_list_provider(&c, Some(ld)).expect("the real ld.so loads the provider");
    assert!(loaded.contains("libcudnn.so.9 =>"), "{loaded}");
    for never in ["libcusolver", "libcusparse"] {
        assert!(!loaded.contains(never), "{never} is loaded: {loaded}");
    }
    let imports = "import torch\n\
import cupy_backends.cuda.libs.cublas, cupy_backends.cuda.libs.curand\n\
import cupy_backends.cuda.libs.cusolver, cupy_backends.cuda.libs.cusparse\n\
import cupy_backends.cuda.libs.nvrtc\n\
print('imported')";
    let out = python(&c, imports, Some(ld)).expect("torch and CuPy's libraries load");
    assert!(out.contains("imported"), "{out}");
    let doc = c.scan(Some(ld));
    let frameworks: Vec<&Value> = doc["inventory"]["python_envs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["frameworks"].as_array().unwrap())
        .collect();
    let version_of = |package: &str| {
        frameworks
            .iter()
            .find(|f| f["package"] == package)
            .unwrap_or_else(|| panic!("{package} is found: {doc:#}"))["version"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(version_of("onnxruntime-gpu"), "1.20.2");
    assert!(version_of("torch").starts_with("2.5.1"));
    assert_eq!(version_of("cupy-cuda12x"), "13.3.0");
    assert_eq!(loud_about_libraries(&doc), Vec::<&Value>::new(), "{doc:#}");
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");
}

/// The same provider with cuDNN gone from its wheel: the real ld.so refuses it, and the scan
/// reports libcudnn.so.9 as an error for this environment (read from the import tables; the
/// closure rule reports one finding per library and environment, so torch's, found first in
/// this shared venv, carries it).
#[test]
fn onnxruntime_without_cudnn_fails_to_load_its_provider_and_is_named() {
    let c = Copy::of(ort_venv(), "ort-no-cudnn");
    c.replace("nvidia/cudnn/lib/libcudnn.so.9", None);
    let path = c.nvidia_lib_path();
    let ld = Path::new(&path);
    let err = ld_so_list_provider(&c, Some(ld)).expect_err("the provider cannot load");
    assert!(err.contains("libcudnn.so.9"), "{err}");
    let doc = c.scan(Some(ld));
    let named = naming(&c.errors_here(&doc), "libcudnn.so.9");
    assert!(!named.is_empty(), "{doc:#}");
    // Every such error shows the row of the load list it comes from.
    for f in named {
        assert!(cites_load_list(f, "import table"), "{f:#}");
    }
}

/// Case (b): NVRTC gone from its wheel. `import torch` works (nothing opens NVRTC at import);
/// torch's LazyNVRTC opens it at the first kernel compiled at run time, so the scan warns —
/// citing the load-list row — and reports no error; the healthy copy gets no such warning.
#[test]
fn torch_without_nvrtc_imports_and_the_scan_warns_what_fails_later() {
    torch_without_nvrtc_is_a_warning(crate::closure_installs::torch_venv());
}

/// libnvrtc.so.12 gone from the NVRTC wheel of a torch venv (any CUDA 12 build: torch's
/// getLibVersion() is the major): `import torch` works, and the scan warns once, citing
/// LazyNVRTC's row, the wheel folder searched and the reinstall.
pub(crate) fn torch_without_nvrtc_is_a_warning(venv: &Path) {
    let c = Copy::of(venv, "no-nvrtc");
    c.replace("nvidia/cuda_nvrtc/lib/libnvrtc.so.12", None);
    c.import_torch(None)
        .expect("import torch works without NVRTC");
    let doc = c.scan(None);
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");
    let warned: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["libraries"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l == "libnvrtc.so.12")
        })
        .collect();
    assert_eq!(warned.len(), 1, "{doc:#}");
    let w = warned[0];
    assert_eq!(w["severity"], "warning", "{w:#}");
    assert!(
        w["detail"].as_str().unwrap().contains("fails later"),
        "{w:#}"
    );
    let evidence = w["evidence"].as_array().unwrap();
    assert!(cites_load_list(w, "LazyNVRTC.cpp"), "{w:#}");
    let searched_wheel = evidence.iter().any(|e| {
        e["kind"] == "searched"
            && e["text"]
                .as_str()
                .unwrap()
                .contains("nvidia/cuda_nvrtc/lib")
    });
    assert!(searched_wheel, "torch's RPATH folder was searched: {w:#}");
    assert!(
        w["fixes"].as_array().unwrap().iter().any(|f| f["summary"]
            .as_str()
            .unwrap()
            .contains("nvidia-cuda-nvrtc-cu12")),
        "{w:#}"
    );
}

/// A cuDNN 9.0 tarball-style folder (`libcudnn*.so.9.0.0` and their `.so.9` links) holding the
/// real 9.0.0.312 shim, plus its graph library when `with_graph`; `who` names the folder (tests
/// run in parallel).
pub(crate) fn cudnn_9_0_folder(with_graph: bool, who: &str) -> PathBuf {
    let wheel = crate::release_files::Wheel {
        dist: "nvidia-cudnn-cu12".into(),
        version: "9.0.0.312".into(),
        members: vec![r"^nvidia/cudnn/lib/libcudnn(_graph)?\.so\.9$".into()],
        list: Vec::new(),
    };
    let files = crate::release_files::wheel_files(&wheel, "linux").join("nvidia/cudnn/lib");
    let dir = crate::closure_installs::cache().join(format!(
        "work-{}-{who}-cudnn-9.0{}",
        std::process::id(),
        if with_graph { "" } else { "-shim-only" }
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let names: &[&str] = if with_graph {
        &["libcudnn", "libcudnn_graph"]
    } else {
        &["libcudnn"]
    };
    for name in names {
        let real = format!("{name}.so.9.0.0");
        std::fs::copy(files.join(format!("{name}.so.9")), dir.join(&real)).unwrap();
        std::os::unix::fs::symlink(&real, dir.join(format!("{name}.so.9"))).unwrap();
    }
    dir
}

pub(crate) const CUDNN_VERSION: &str =
    "import torch, torch.backends.cudnn as c\nprint(c.version())";

/// Case (c): an older cuDNN first on LD_LIBRARY_PATH. torch's RPATH still finds the wheel's 9.1
/// shim, but the shim opens libcudnn_graph.so.9 by bare name and ld.so searches LD_LIBRARY_PATH
/// before the shim's RUNPATH: the 9.0 graph library answers, and torch refuses it. With only
/// the 9.0 shim in that folder, the 9.1 one wins and torch is content: no error either.
#[test]
fn an_older_cudnn_first_on_ld_library_path_is_refused_as_torch_refuses_it() {
    an_older_cudnn_first_is_refused_as_torch_refuses_it(crate::closure_installs::torch_venv());
}

/// The case above for a torch venv of either build (both pin nvidia-cudnn-cu12==9.1.0.70).
pub(crate) fn an_older_cudnn_first_is_refused_as_torch_refuses_it(venv: &Path) {
    let c = Copy::of(venv, "cudnn-9.0-first");
    let who = venv.file_name().unwrap().to_string_lossy().to_string();
    let old = cudnn_9_0_folder(true, &who);
    let err = python(&c, CUDNN_VERSION, Some(&old)).expect_err("torch refuses cuDNN 9.0");
    assert!(err.contains("cuDNN version incompatibility"), "{err}");
    assert!(err.contains("(9, 0, 0)"), "{err}");
    let doc = c.scan(Some(&old));
    let refused = with_code(&doc, "library-version-refused");
    assert_eq!(refused.len(), 1, "{doc:#}");
    let r = refused[0];
    assert_eq!(r["severity"], "error", "{r:#}");
    let old_text = old.display().to_string();
    let summary = r["summary"].as_str().unwrap();
    assert!(
        summary.contains(&old_text) && summary.contains("9.0.0"),
        "{r:#}"
    );
    let detail = r["detail"].as_str().unwrap();
    assert!(detail.contains("nvidia-cudnn-cu12==9.1.0.70"), "{r:#}");
    assert!(detail.contains("LD_LIBRARY_PATH"), "{r:#}");
    assert!(
        r["fixes"].as_array().unwrap().iter().any(|f| f["id"]
            .as_str()
            .unwrap()
            .starts_with("ld-library-path-remove:")),
        "{r:#}"
    );
    let _ = std::fs::remove_dir_all(&old);

    let shim_only = cudnn_9_0_folder(false, &who);
    let ok = python(&c, CUDNN_VERSION, Some(&shim_only)).expect("torch accepts the 9.1 it gets");
    assert!(ok.contains("90100"), "{ok}");
    let doc = c.scan(Some(&shim_only));
    assert_eq!(
        with_code(&doc, "library-version-refused"),
        Vec::<&Value>::new(),
        "{doc:#}"
    );
    let _ = std::fs::remove_dir_all(&shim_only);
}

/// The real ptxas of CUDA 11.8 (`nvidia-cuda-nvcc-cu11` 11.8.89, one ~10 MB member of the
/// wheel), executable, in a folder of its own (`who` names it: tests run in parallel).
pub(crate) fn ptxas_11_8(who: &str) -> PathBuf {
    let wheel = crate::release_files::Wheel {
        dist: "nvidia-cuda-nvcc-cu11".into(),
        version: "11.8.89".into(),
        members: vec![r"^nvidia/cuda_nvcc/bin/ptxas$".into()],
        list: Vec::new(),
    };
    let fetched =
        crate::release_files::wheel_files(&wheel, "linux").join("nvidia/cuda_nvcc/bin/ptxas");
    let dir = crate::closure_installs::cache()
        .join(format!("work-{}-{who}-ptxas-11.8", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ptxas = dir.join("ptxas");
    std::fs::copy(&fetched, &ptxas).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).unwrap();
    ptxas
}

/// Which ptxas Triton runs, by Triton's own code in the copy's python.
const TRITON_PTXAS: &str =
    "from triton.backends.nvidia.compiler import _path_to_binary\nprint(_path_to_binary('ptxas'))";

/// Issue 25 item 5 for Triton: TRITON_PTXAS_PATH naming CUDA 11.8's ptxas makes torch.compile
/// (Triton 3.1.0) run it — Triton's own `_path_to_binary` says so — and the scan names the file,
/// its version and the variable; without the variable Triton runs its bundled 12.4
/// ptxas (CUDA 12.4 build: fine) and the scan is silent about ptxas.
#[test]
fn triton_ptxas_path_to_an_older_ptxas_is_named_with_its_version() {
    let c = Copy::new("triton-ptxas");
    let ptxas = ptxas_11_8("triton");
    let bundled = python(&c, TRITON_PTXAS, None).expect("Triton finds its ptxas");
    assert!(
        bundled.contains("backends/nvidia/bin/ptxas") && bundled.contains("'12.4'"),
        "{bundled}"
    );
    assert_eq!(
        with_code(&c.scan(None), "ptxas-too-old"),
        Vec::<&Value>::new()
    );

    let run = |code: &str| {
        let mut cmd = Command::new(c.root.join("bin/python"));
        cmd.args(["-c", code]);
        env_for(&mut cmd, &c.root, None);
        cmd.env("TRITON_PTXAS_PATH", &ptxas);
        cmd.output().expect("the venv's python starts")
    };
    let chosen = String::from_utf8_lossy(&run(TRITON_PTXAS).stdout).to_string();
    assert!(
        chosen.contains(&ptxas.display().to_string()) && chosen.contains("'11.8'"),
        "{chosen}"
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
    cmd.args(["scan", "--json"]);
    env_for(&mut cmd, &c.root, None);
    cmd.env("TRITON_PTXAS_PATH", &ptxas);
    let doc = crate::support::json(&cmd.output().expect("the built binary runs"));
    crate::framework_loads_audit::assert_rows_cited(&doc);
    let old = with_code(&doc, "ptxas-too-old");
    assert_eq!(old.len(), 1, "{doc:#}");
    let f = old[0];
    // This machine has no GPU to judge the older ptxas by: a note that names it (with a GPU
    // it does not know it is a warning: rules::tests::triton).
    assert_eq!(f["severity"], "info", "{f:#}");
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.contains("ptxas 11.8") && summary.contains("TRITON_PTXAS_PATH"),
        "{f:#}"
    );
    assert_eq!(
        f["evidence"][0]["path"],
        ptxas.display().to_string(),
        "{f:#}"
    );
    assert!(
        f["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["id"] == "env-unset:TRITON_PTXAS_PATH"),
        "{f:#}"
    );
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");
    let _ = std::fs::remove_dir_all(ptxas.parent().unwrap());
}

/// JAX's CUDA plugin imports no CUDA library: XLA inside it opens them by name at run time, so
/// its load list is the `framework_loads.toml` row read from the plugin's strings. Healthy: the
/// real `import jax` works and the scan is silent about every library. cuDNN gone from its wheel:
/// `import jax` still works (nothing opens cuDNN at import), and JAX gets a warning citing its
/// row — while torch, whose import really fails (the oracle), keeps its error.
#[test]
fn jax_cuda12_plugin_loads_by_name_and_a_missing_cudnn_is_a_warning_for_it() {
    let c = Copy::of(jax_venv(), "jax-healthy");
    let path = c.nvidia_lib_path();
    let ld = Path::new(&path);
    let out = python(&c, "import jax\nprint(jax.__version__)", Some(ld)).expect("import jax");
    assert!(out.contains("0.4.35"), "{out}");
    let doc = c.scan(Some(ld));
    assert_eq!(loud_about_libraries(&doc), Vec::<&Value>::new(), "{doc:#}");
    // jaxlib 0.4.34 beside plugin 0.4.35 is what jax 0.4.35's own metadata pins.
    assert_eq!(
        with_code(&doc, "jax-plugin-mismatch"),
        Vec::<&Value>::new(),
        "{doc:#}"
    );
    drop(c);

    let c = Copy::of(jax_venv(), "jax-no-cudnn");
    c.replace("nvidia/cudnn/lib/libcudnn.so.9", None);
    python(&c, "import jax", Some(ld)).expect("import jax works without cuDNN");
    let torch = python(&c, "import torch", Some(ld)).expect_err("import torch fails");
    assert!(torch.contains("libcudnn.so.9"), "{torch}");
    let path = c.nvidia_lib_path();
    let doc = c.scan(Some(Path::new(&path)));
    let about_cudnn = |sev: &str, who: &str| {
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == sev && f["summary"].as_str().unwrap().contains(who))
            .filter(|f| {
                f["libraries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|l| l == "libcudnn.so.9")
            })
            .count()
    };
    assert_eq!(about_cudnn("warning", "JAX 0.4.35"), 1, "{doc:#}");
    assert_eq!(about_cudnn("error", "PyTorch"), 1, "{doc:#}");
    let jax = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["summary"].as_str().unwrap().contains("JAX 0.4.35"))
        .unwrap();
    assert!(cites_load_list(jax, "xla_cuda_plugin.so"), "{jax:#}");
}

/// JAX hands XLA `CUDA_ROOT` as its data folder when the variable is set, before the pip
/// nvidia-cuda-nvcc wheel (jax-v0.4.35 jax/_src/lib/__init__.py `_cuda_path`; compiler.py sets
/// `xla_gpu_cuda_data_dir`): JAX's own `lib.cuda_path` says so, XLA looks in its bin/ first, and
/// the scan names CUDA 11.8's ptxas there — older than the plugin's CUDA 12 — with the variable.
#[test]
fn jax_with_cuda_root_at_an_older_toolkit_runs_its_ptxas_and_is_named() {
    let c = Copy::of(jax_venv(), "jax-cuda-root");
    let ptxas = ptxas_11_8("jax");
    let root = ptxas.parent().unwrap().join("cuda-11.8");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::rename(&ptxas, root.join("bin/ptxas")).unwrap();
    let path = c.nvidia_lib_path();
    let with_root = |cmd: &mut Command| {
        env_for(cmd, &c.root, Some(Path::new(&path)));
        cmd.env("CUDA_ROOT", &root);
    };
    let mut py = Command::new(c.root.join("bin/python"));
    py.args([
        "-c",
        "from jax._src import lib\nprint('CUDA_PATH', lib.cuda_path)",
    ]);
    with_root(&mut py);
    let out = py.output().expect("the venv's python starts");
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        said.contains(&format!("CUDA_PATH {}", root.display())),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut scan = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
    scan.args(["scan", "--json"]);
    with_root(&mut scan);
    let doc = crate::support::json(&scan.output().expect("the built binary runs"));
    crate::framework_loads_audit::assert_rows_cited(&doc);
    let old = with_code(&doc, "ptxas-too-old");
    assert_eq!(old.len(), 1, "{doc:#}");
    let f = old[0];
    assert!(
        f["summary"]
            .as_str()
            .unwrap()
            .contains("runs ptxas 11.8.89"),
        "{f:#}"
    );
    assert_eq!(
        f["evidence"][0]["path"],
        root.join("bin/ptxas").display().to_string(),
        "{f:#}"
    );
    assert!(f["detail"].as_str().unwrap().contains("CUDA_ROOT"), "{f:#}");
    let _ = std::fs::remove_dir_all(ptxas.parent().unwrap());
}
