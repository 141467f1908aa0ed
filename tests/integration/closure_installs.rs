//! Would it load, on real installs: torch 2.5.1 from PyPI (the CUDA 12.4 build) with
//! the `nvidia-*` wheels it pins, installed once with pip into `tests/.cache/venvs/torch-2.5.1`
//! (about 4 GB; cached, never committed). Each breakage is made in a hard-linked copy of that
//! venv (`cp -al`; a broken file is replaced, never written through the link), the real
//! `import torch` in the copy is the oracle, and `cuda-triage scan --json`, run the way a user
//! with the venv activated runs it, must name what the import failed on — and report no error
//! about the venv when the import works. The second framework is the real CuPy 13.3.0
//! (`tests/.cache/venvs/cupy-13.3.0`, made from the torch venv by hard links, so its CUDA 12
//! libraries are the same `nvidia-*` wheels), whose oracle is the import of its cuBLAS module.

use crate::support::json;
use crate::wheels::{WheelPlatform, wheel_member};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

const TORCH: &str = "torch==2.5.1";
#[cfg(unix)]
const TORCH_CU121: &str = "torch==2.4.1";
const CUPY: &str = "cupy-cuda12x==13.3.0";

pub(crate) fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/.cache/venvs")
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The cached venv with the real torch 2.5.1 and its pinned wheels (installed on first use).
pub(crate) fn torch_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| cached_venv("torch-2.5.1", None, &[TORCH]))
}

/// The second CUDA build: the real torch 2.4.1 from PyPI, the build for CUDA 12.1, made from the
/// 2.5.1 venv by hard links; pip swaps torch, Triton and the `-cu12` wheels pinned at 12.1
/// versions, and keeps nvidia-cudnn-cu12 9.1.0.70 (the same pin, the largest wheel) and nvJitLink
/// (about 3.8 GB more on disk, ~2.4 GB downloaded).
#[cfg(unix)]
pub(crate) fn torch_cu121_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| cached_venv("torch-2.4.1", Some(torch_venv()), &[TORCH_CU121]))
}

/// The torch venv plus the real CuPy 13.3.0 (its CUDA 12 libraries come from the same
/// `nvidia-*` wheels torch pulled in).
pub(crate) fn cupy_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| cached_venv("cupy-13.3.0", Some(torch_venv()), &[CUPY]))
}

/// A venv in the cache: made from `base` (hard links) or fresh, then `pip install packages`.
pub(crate) fn cached_venv(name: &str, base: Option<&Path>, packages: &[&str]) -> PathBuf {
    let venv = cache().join(name);
    if venv.join(".complete").is_file() {
        return venv;
    }
    let tmp = cache().join(format!("{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(cache()).unwrap();
    match base {
        Some(base) => run(
            Command::new("cp").arg("-al").arg(base).arg(&tmp),
            "cp -al of the base venv",
        ),
        None => run(
            Command::new("python3").args(["-m", "venv"]).arg(&tmp),
            "python3 -m venv (install python3-venv)",
        ),
    }
    let _ = std::fs::remove_file(tmp.join(".complete"));
    run(
        Command::new(tmp.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-input",
                "--disable-pip-version-check",
                "--no-cache-dir",
            ])
            .args(packages),
        &format!("pip install {} (needs PyPI)", packages.join(" ")),
    );
    let _ = std::fs::remove_dir_all(&venv);
    std::fs::rename(&tmp, &venv).unwrap();
    std::fs::write(venv.join(".complete"), "").unwrap();
    venv
}

/// `lib/python3.X/site-packages` of a venv (whatever python3 made it).
pub(crate) fn site_of(venv: &Path) -> PathBuf {
    std::fs::read_dir(venv.join("lib"))
        .expect("the venv has lib/")
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .expect("the venv has lib/python3.X/site-packages")
}

/// Every `site-packages/nvidia/*/lib` folder of a venv, joined for LD_LIBRARY_PATH.
pub(crate) fn nvidia_lib_path_of(venv: &Path) -> String {
    let mut dirs: Vec<String> = std::fs::read_dir(site_of(venv).join("nvidia"))
        .expect("the venv has nvidia wheels")
        .flatten()
        .map(|e| e.path().join("lib"))
        .filter(|p| p.is_dir())
        .map(|p| p.display().to_string())
        .collect();
    dirs.sort();
    dirs.join(":")
}

/// A hard-linked copy of the venv, removed when dropped.
pub(crate) struct Copy {
    pub(crate) root: PathBuf,
}

impl Copy {
    pub(crate) fn new(name: &str) -> Copy {
        Copy::of(torch_venv(), name)
    }

    pub(crate) fn of(venv: &Path, name: &str) -> Copy {
        // Copies are made one at a time: cp -al of ~10,000 files is quick, but the imports that
        // follow are heavy, and parallel ones only compete for the two cores CI has.
        static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
        let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        // The venv's name is part of the copy's: a case runs on several venvs at once.
        let root = cache().join(format!(
            "work-{}-{}-{name}",
            std::process::id(),
            venv.file_name().unwrap_or_default().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&root);
        run(
            Command::new("cp").arg("-al").arg(venv).arg(&root),
            "cp -al of the torch venv",
        );
        Copy { root }
    }

    /// `lib/python3.X/site-packages` of the copy (whatever python3 made the venv).
    pub(crate) fn site(&self) -> PathBuf {
        site_of(&self.root)
    }

    /// Every `site-packages/nvidia/*/lib` folder of the copy, joined for LD_LIBRARY_PATH.
    pub(crate) fn nvidia_lib_path(&self) -> String {
        nvidia_lib_path_of(&self.root)
    }

    /// Replaces a file of the copy (never writing through the hard link).
    pub(crate) fn replace(&self, rel: &str, bytes: Option<&[u8]>) {
        let path = self.site().join(rel);
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(bytes) = bytes {
            std::fs::write(&path, bytes).unwrap();
        }
    }

    /// What `pip install` of another wheel in place of `uninstall` leaves: `uninstall` removed by
    /// pip, then the files of `from`'s install of the other wheel (its `dist_info` folder and the
    /// package folder `package`, e.g. `nvidia/cudnn`) hard-linked in — the files pip would
    /// unpack, not downloaded again.
    #[cfg(unix)]
    pub(crate) fn swap_wheel(&self, uninstall: &str, from: &Path, package: &str, dist_info: &str) {
        run(
            Command::new(self.root.join("bin/python"))
                .args(["-m", "pip", "uninstall", "--yes", "--quiet", uninstall])
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", &self.root),
            &format!("pip uninstall {uninstall}"),
        );
        let (from_site, site) = (site_of(from), self.site());
        for rel in [package, dist_info] {
            // Into the folder, which pip may have left (empty, or with a __pycache__).
            let to = site.join(rel);
            std::fs::create_dir_all(&to).unwrap();
            run(
                Command::new("cp")
                    .arg("-al")
                    .arg(from_site.join(rel).join("."))
                    .arg(&to),
                &format!("cp -al of {rel}"),
            );
        }
    }

    /// The real oracle: `import torch` in the copy's own interpreter.
    pub(crate) fn import_torch(&self, ld_library_path: Option<&Path>) -> Result<(), String> {
        self.import("torch", ld_library_path)
    }

    fn import(&self, module: &str, ld_library_path: Option<&Path>) -> Result<(), String> {
        let mut cmd = Command::new(self.root.join("bin/python"));
        cmd.args(["-c", &format!("import {module}")]);
        env_for(&mut cmd, &self.root, ld_library_path);
        let out = cmd.output().expect("the venv's python starts");
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{:?}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// `cuda-triage scan --json` on this computer with the copy activated.
    pub(crate) fn scan(&self, ld_library_path: Option<&Path>) -> Value {
        self.scan_with(&[], ld_library_path)
    }

    pub(crate) fn scan_with(&self, extra: &[&str], ld_library_path: Option<&Path>) -> Value {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
        cmd.args(["scan", "--json"]).args(extra);
        env_for(&mut cmd, &self.root, ld_library_path);
        let doc = json(&cmd.output().expect("the built binary runs"));
        crate::framework_loads_audit::assert_rows_cited(&doc);
        doc
    }

    /// The error findings whose evidence is in this venv.
    pub(crate) fn errors_here<'a>(&self, doc: &'a Value) -> Vec<&'a Value> {
        let root = self.root.display().to_string();
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .filter(|f| {
                f["evidence"].as_array().is_some_and(|ev| {
                    ev.iter()
                        .any(|e| e["path"].as_str().is_some_and(|p| p.starts_with(&root)))
                })
            })
            .collect()
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The environment of a shell where the venv is activated (and nothing else is).
pub(crate) fn env_for(cmd: &mut Command, venv: &Path, ld_library_path: Option<&Path>) {
    cmd.env_clear()
        .env("PATH", format!("{}/bin:/usr/bin:/bin", venv.display()))
        .env("VIRTUAL_ENV", venv)
        .env("HOME", venv)
        .env("NO_COLOR", "1");
    if let Some(p) = ld_library_path {
        cmd.env("LD_LIBRARY_PATH", p);
    }
}

/// Errors and warnings that name a library other than the driver's (which this machine lacks).
pub(crate) fn loud_about_libraries(doc: &Value) -> Vec<&Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error" || f["severity"] == "warning")
        .filter(|f| {
            f["libraries"].as_array().is_some_and(|libs| {
                libs.iter().any(|l| {
                    let l = l.as_str().unwrap_or("");
                    !l.starts_with("libcuda.so") && !l.starts_with("libnvidia-ml")
                })
            })
        })
        .collect()
}

/// `scan --probe`'s import probe of torch.
pub(crate) fn torch_probe(doc: &Value) -> &Value {
    doc["inventory"]["python_envs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["import_probes"].as_array().unwrap())
        .find(|p| p["module"] == "torch")
        .unwrap_or_else(|| panic!("a torch import probe: {doc:#}"))
}

/// A folder of the copy holding CUDA 12.1's nvJitLink (the real 12.1.105 wheel's library).
pub(crate) fn nvjitlink_12_1_folder(c: &Copy) -> PathBuf {
    let old = c.root.join("old-nvjitlink");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::copy(
        wheel_member(
            "nvidia-nvjitlink-cu12",
            "12.1.105",
            WheelPlatform::Linux,
            "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        ),
        old.join("libnvJitLink.so.12"),
    )
    .unwrap();
    old
}

/// The findings among `findings` that name `lib` among their libraries.
pub(crate) fn naming<'a>(findings: &[&'a Value], lib: &str) -> Vec<&'a Value> {
    findings
        .iter()
        .copied()
        .filter(|f| f["libraries"].as_array().unwrap().iter().any(|l| l == lib))
        .collect()
}

#[test]
fn a_healthy_torch_install_imports_and_the_scan_reports_no_error_about_it() {
    healthy_torch_is_quiet(torch_venv(), "2.5.1", "12.4");
}

/// A healthy venv of torch `version` (the build for CUDA `cuda`): `import torch` works, the scan
/// reports no error about it, and `scan --probe`'s real import maps the cuDNN the emulation
/// resolved — no disagreement.
pub(crate) fn healthy_torch_is_quiet(venv: &Path, version: &str, cuda: &str) {
    let c = Copy::of(venv, "healthy");
    c.import_torch(None).expect("the real torch imports");
    let doc = c.scan(None);
    let torch = doc["inventory"]["python_envs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["frameworks"].as_array().unwrap())
        .find(|f| f["package"] == "torch")
        .unwrap_or_else(|| panic!("torch is found: {doc:#}"));
    assert!(
        torch["version"].as_str().unwrap().starts_with(version),
        "{torch:#}"
    );
    assert_eq!(torch["expects"]["cuda"], cuda, "{torch:#}");
    assert_eq!(torch["expects"]["cudnn"], "9.1.0.70", "{torch:#}");
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");
    assert_eq!(
        loud_about_libraries(&doc),
        Vec::<&Value>::new(),
        "no error and no warning about any library: {doc:#}"
    );
    // What really happened agrees with the prediction: the real import mapped the files the
    // emulation resolved.
    let probed = c.scan_with(&["--probe"], None);
    let probe = torch_probe(&probed);
    assert_eq!(probe["outcome"], "ok", "{probe:#}");
    let mapped = probe["mapped"].as_array().unwrap();
    assert!(
        mapped.iter().any(|m| m
            .as_str()
            .unwrap()
            .ends_with("nvidia/cudnn/lib/libcudnn.so.9")),
        "{probe:#}"
    );
    for code in ["loader-disagrees", "import-failed-unpredicted"] {
        assert!(
            !probed["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == code),
            "{code}: {probed:#}"
        );
    }
}

#[test]
fn a_cudnn_library_missing_from_its_wheel_is_named_with_the_pinned_reinstall() {
    cudnn_gone_is_named(torch_venv());
}

/// libcudnn.so.9 gone from the cuDNN wheel of a torch venv (both builds pin
/// nvidia-cudnn-cu12==9.1.0.70): `import torch` fails on it, and the scan names it once, with
/// the folders tried and the pinned reinstall.
pub(crate) fn cudnn_gone_is_named(venv: &Path) {
    let c = Copy::of(venv, "no-cudnn");
    c.replace("nvidia/cudnn/lib/libcudnn.so.9", None);
    let err = c.import_torch(None).expect_err("import torch fails");
    assert!(
        err.contains("libcudnn.so.9: cannot open shared object file"),
        "{err}"
    );
    let doc = c.scan(None);
    let errors = c.errors_here(&doc);
    let about = naming(&errors, "libcudnn.so.9");
    assert_eq!(about.len(), 1, "one error names libcudnn.so.9: {doc:#}");
    let f = about[0];
    let text = f.to_string();
    assert!(text.contains("nvidia-cudnn-cu12==9.1.0.70"), "{f:#}");
    assert!(
        f["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "attempt"
                && e["path"]
                    .as_str()
                    .is_some_and(|p| p.ends_with("nvidia/cudnn/lib"))),
        "says where the loader looked: {f:#}"
    );
    let fix = &f["fixes"][0];
    assert_eq!(fix["kind"], "pin-version", "{f:#}");
    assert_eq!(fix["reinstall"], true, "{f:#}");
}

#[test]
fn an_older_nvjitlink_first_on_ld_library_path_is_named_as_torch_fails() {
    let c = Copy::new("old-nvjitlink");
    let old = nvjitlink_12_1_folder(&c);
    let err = c.import_torch(Some(&old)).expect_err("import torch fails");
    assert!(
        err.contains("undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12"),
        "{err}"
    );
    let doc = c.scan(Some(&old));
    let errors = c.errors_here(&doc);
    let about: Vec<&Value> = naming(&errors, "libnvJitLink.so.12")
        .into_iter()
        .filter(|f| f["code"] == "missing-symbol")
        .collect();
    assert!(!about.is_empty(), "{doc:#}");
    let text = about[0].to_string();
    assert!(text.contains("__nvJitLinkComplete_12_4"), "{text}");
    assert!(text.contains("LD_LIBRARY_PATH"), "{text}");
}

#[test]
fn a_truncated_cublaslt_is_named_as_damaged_with_the_reinstall() {
    let c = Copy::new("truncated");
    let rel = "nvidia/cublas/lib/libcublasLt.so.12";
    let head = {
        use std::io::Read;
        let mut bytes = vec![0; 1 << 20];
        let mut file = std::fs::File::open(c.site().join(rel)).unwrap();
        file.read_exact(&mut bytes).unwrap();
        bytes
    };
    c.replace(rel, Some(&head));
    c.import_torch(None)
        .expect_err("import torch fails (or dies) on the truncated copy");
    let doc = c.scan(None);
    let errors = c.errors_here(&doc);
    let about = naming(&errors, "libcublasLt.so.12");
    assert!(!about.is_empty(), "{doc:#}");
    let text = about[0].to_string();
    assert!(text.contains("truncated"), "{text}");
    assert!(text.contains("nvidia-cublas-cu12==12.4.5.8"), "{text}");
}

#[test]
fn a_cudnn_sub_library_opened_at_run_time_is_a_warning_not_an_error() {
    let c = Copy::new("no-cudnn-cnn");
    c.replace("nvidia/cudnn/lib/libcudnn_cnn.so.9", None);
    c.import_torch(None)
        .expect("torch imports: cuDNN opens its sub-libraries only when used");
    let doc = c.scan(None);
    assert!(
        naming(&c.errors_here(&doc), "libcudnn_cnn.so.9").is_empty(),
        "{doc:#}"
    );
    let warned = doc["findings"].as_array().unwrap().iter().any(|f| {
        f["severity"] == "warning"
            && f["libraries"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l == "libcudnn_cnn.so.9")
    });
    assert!(warned, "{doc:#}");
}

/// A copy of libcudart.so.12 outside every searched folder, in a folder of the venv copy.
pub(crate) fn cudart_copy_elsewhere(c: &Copy) -> PathBuf {
    let other = c.root.join("preloaded");
    std::fs::create_dir_all(&other).unwrap();
    let cudart = other.join("libcudart.so.12");
    std::fs::copy(
        c.site().join("nvidia/cuda_runtime/lib/libcudart.so.12"),
        &cudart,
    )
    .unwrap();
    cudart
}

/// Python code that preloads a library at start-up (a `sitecustomize.py` calling
/// `ctypes.CDLL(path, RTLD_GLOBAL)`) is outside what the emulation models: the real import takes
/// that copy for every later need of its soname, and `--probe` shows the disagreement.
#[test]
fn a_copy_preloaded_by_python_code_the_emulation_does_not_model_shows_as_a_disagreement() {
    let c = Copy::new("preload");
    let cudart = cudart_copy_elsewhere(&c);
    std::fs::write(
        c.site().join("sitecustomize.py"),
        format!(
            "import ctypes, os\nctypes.CDLL({:?}, mode=os.RTLD_GLOBAL)\n",
            cudart.display().to_string()
        ),
    )
    .unwrap();
    let doc = c.scan_with(&["--probe"], None);
    let f = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "loader-disagrees")
        .unwrap_or_else(|| panic!("the preloaded copy is seen: {doc:#}"));
    let text = f.to_string();
    assert!(text.contains("libcudart.so.12"), "{text}");
    // The process reports the file as /proc/self/maps names it: the real path (tests/.cache may
    // be a link to a shared cache).
    let real = cudart.canonicalize().unwrap();
    assert!(text.contains(&real.display().to_string()), "{text}");
}

/// CuPy's core library modules need the CUDA libraries of the `nvidia-*` wheels, which CuPy 13
/// does not search by itself: without LD_LIBRARY_PATH the real import of its cuBLAS module fails.
#[test]
fn cupy_without_its_wheel_folders_on_the_search_path_is_named() {
    let c = Copy::of(cupy_venv(), "cupy-unsearched");
    c.import("cupy", None).expect("import cupy itself works");
    let err = c
        .import("cupy_backends.cuda.libs.cublas", None)
        .expect_err("CuPy's cuBLAS module fails to load");
    assert!(
        err.contains("libcublas.so.12: cannot open shared object file"),
        "{err}"
    );
    let doc = c.scan(None);
    let errors = c.errors_here(&doc);
    let about = naming(&errors, "libcublas.so.12");
    assert!(!about.is_empty(), "{doc:#}");
    assert!(
        about[0].to_string().contains("nvidia/cublas/lib"),
        "{:#}",
        about[0]
    );
}

#[test]
fn cupy_with_its_wheel_folders_on_ld_library_path_loads_and_is_quiet() {
    let c = Copy::of(cupy_venv(), "cupy-searched");
    let path = PathBuf::from(c.nvidia_lib_path());
    for module in [
        "cupy_backends.cuda.libs.cublas",
        "cupy_backends.cuda.libs.curand",
        "cupy_backends.cuda.libs.cusolver",
        "cupy_backends.cuda.libs.cusparse",
        "cupy_backends.cuda.libs.nvrtc",
    ] {
        c.import(module, Some(&path))
            .unwrap_or_else(|e| panic!("{module} loads: {e}"));
    }
    let doc = c.scan(Some(&path));
    let cupy_errors: Vec<&Value> = c
        .errors_here(&doc)
        .into_iter()
        .filter(|f| f.to_string().contains("CuPy"))
        .collect();
    assert_eq!(cupy_errors, Vec::<&Value>::new(), "{doc:#}");
}
