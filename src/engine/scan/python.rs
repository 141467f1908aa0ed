//! Reading one Python environment: interpreter and version (pyvenv.cfg, conda-meta, the
//! lib/python3.X folder, pythonXY.dll, the Store package name), site-packages folders and the
//! conda packages that matter. Packages inside site-packages are [`super::frameworks`]' job.

use super::pyfind::{Candidate, homes};
use super::walker::Walker;
use crate::engine::context::Platform;
use crate::engine::inventory::{Package, PythonEnv, PythonKind};

/// Reads the interpreter facts of one environment (packages come from `frameworks`).
pub fn read_env(w: &mut Walker, c: &Candidate) -> PythonEnv {
    let p = w.platform();
    let root = c.root.as_str();
    let mut env = PythonEnv {
        root: root.to_string(),
        kind: c.kind,
        python_version: None,
        version_source: None,
        python_exe: None,
        base_home: None,
        site_packages: Vec::new(),
        frameworks: Vec::new(),
        nvidia_wheels: Vec::new(),
        nvidia_lib_dirs: Vec::new(),
        conda_packages: Vec::new(),
        pip_ptxas: None,
        triton_ptxas: Vec::new(),
        xla_ptxas: Vec::new(),
        cupy_nvcc: None,
        notes: Vec::new(),
        import_probes: Vec::new(),
    };
    let set_version = |env: &mut PythonEnv, v: Option<String>, src: &str| {
        if env.python_version.is_none() && v.is_some() {
            env.python_version = v;
            env.version_source = Some(src.to_string());
        }
    };
    let cfg = p.join(root, "pyvenv.cfg");
    if let Some(text) = w.read_text(&cfg, 64 << 10) {
        for line in text.lines() {
            let Some((k, v)) = line.split_once('=') else {
                continue;
            };
            match k.trim() {
                "home" => env.base_home = Some(v.trim().to_string()),
                "version" | "version_info" => {
                    let v = v.trim().split(".final").next().unwrap_or("").to_string();
                    set_version(&mut env, Some(v).filter(|v| !v.is_empty()), "pyvenv.cfg");
                }
                _ => {}
            }
        }
    }
    if matches!(c.kind, PythonKind::CondaBase | PythonKind::CondaEnv) {
        let packages = conda_packages(w, root);
        let py = packages
            .iter()
            .find(|p| p.name == "python")
            .and_then(|p| p.version.clone());
        set_version(&mut env, py, "conda-meta");
        env.conda_packages = packages;
    }
    if c.kind == PythonKind::Pyenv {
        // ~/.pyenv/versions/3.10.13: pyenv names the folder after the exact version.
        let name = p.file_name(root);
        let exact = name.chars().next().is_some_and(|ch| ch.is_ascii_digit())
            && name.chars().all(|ch| ch.is_ascii_digit() || ch == '.');
        set_version(
            &mut env,
            exact.then(|| name.to_string()),
            "pyenv folder name",
        );
    }
    match p {
        Platform::Windows if c.kind == PythonKind::MicrosoftStore => {
            env.notes.push("Microsoft Store Python: a sandboxed install; TensorFlow and ONNX Runtime often cannot find CUDA DLLs under it. The python.org installer avoids this.".into());
            // PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0 → 3.11
            let name = p.file_name(root);
            let v = name
                .strip_prefix("PythonSoftwareFoundation.Python.")
                .and_then(|r| r.split('_').next())
                .map(String::from);
            set_version(&mut env, v, "folder name");
            if let Some(minor) = env.python_version.clone() {
                let tag = minor.replace('.', "");
                let family = name.split('_').next().unwrap_or(name);
                for home in homes(w) {
                    let packages = p.join(&home, r"AppData\Local\Packages");
                    for e in w.list(&packages) {
                        if e.is_dir && e.name.starts_with(family) {
                            let site = p.join(
                                &e.path,
                                &format!(r"LocalCache\local-packages\Python{tag}\site-packages"),
                            );
                            if w.is_dir(&site) {
                                env.site_packages.push(site);
                            }
                        }
                    }
                }
            }
        }
        Platform::Windows => {
            let site = p.join(root, r"Lib\site-packages");
            if w.is_dir(&site) {
                env.site_packages.push(site);
            }
            for e in w.list(root) {
                let lower = e.name.to_ascii_lowercase();
                if let Some(d) = lower
                    .strip_prefix("python3")
                    .and_then(|r| r.strip_suffix(".dll"))
                    && !d.is_empty()
                    && d.chars().all(|c| c.is_ascii_digit())
                {
                    set_version(&mut env, Some(format!("3.{d}")), "DLL name");
                }
            }
            for exe in [
                p.join(root, "python.exe"),
                p.join(root, r"Scripts\python.exe"),
            ] {
                if env.python_exe.is_none() && w.is_file(&exe) {
                    env.python_exe = Some(exe);
                }
            }
        }
        Platform::Linux if c.kind == PythonKind::System => {
            let minor = p.file_name(root).to_string(); // python3.10
            set_version(
                &mut env,
                minor.strip_prefix("python").map(String::from),
                "folder name",
            );
            let mut sites = vec![
                "/usr/lib/python3/dist-packages".to_string(),
                format!("/usr/local/lib/{minor}/dist-packages"),
                format!("/usr/lib/{minor}/site-packages"),
            ];
            for home in homes(w) {
                sites.push(p.join(&home, &format!(".local/lib/{minor}/site-packages")));
            }
            env.site_packages = sites.into_iter().filter(|s| w.is_dir(s)).collect();
            env.root = "/usr".into();
            env.notes
                .push(format!("system Python {minor} (/usr/lib/{minor})"));
            let exe = format!("/usr/bin/{minor}");
            env.python_exe = w.is_file(&exe).then_some(exe);
        }
        Platform::Linux => {
            for e in w.list(&p.join(root, "lib")) {
                if e.is_dir && e.name.starts_with("python3") {
                    set_version(
                        &mut env,
                        e.name.strip_prefix("python").map(String::from),
                        "lib folder name",
                    );
                    let site = p.join(&e.path, "site-packages");
                    if w.is_dir(&site) {
                        env.site_packages.push(site);
                    }
                }
            }
            for exe in ["bin/python3", "bin/python"] {
                let exe = p.join(root, exe);
                if env.python_exe.is_none() && w.is_file(&exe) {
                    env.python_exe = Some(exe);
                }
            }
        }
    }
    env
}

/// Conda packages of an environment that matter here, from `conda-meta/*.json` file names
/// (`cudatoolkit-11.8.0-h6a678d5_0.json` → cudatoolkit 11.8.0).
pub fn conda_packages(w: &mut Walker, prefix: &str) -> Vec<Package> {
    let p = w.platform();
    let mut out = Vec::new();
    for e in w.list(&p.join(prefix, "conda-meta")) {
        let Some((name, ver)) = e.name.strip_suffix(".json").and_then(conda_dist) else {
            continue;
        };
        if interesting_conda(name) {
            out.push(Package {
                name: name.to_string(),
                version: Some(ver.to_string()),
            });
        }
    }
    out
}

/// The name and version of a conda distribution, `name-version-build` (the stem of a
/// `conda-meta/*.json` record, or what `conda install --dry-run` links): names may hold `-`,
/// version and build may not.
pub fn conda_dist(dist: &str) -> Option<(&str, &str)> {
    let mut parts = dist.rsplitn(3, '-');
    let (_build, version, name) = (parts.next()?, parts.next()?, parts.next()?);
    Some((name, version))
}

fn interesting_conda(name: &str) -> bool {
    name == "python"
        || name.starts_with("cuda")
        || name.contains("cudnn")
        || name.starts_with("libcu")
        || name.starts_with("libnv")
        || name.starts_with("nccl")
        || [
            "pytorch",
            "pytorch-cuda",
            "tensorflow",
            "tensorflow-gpu",
            "tensorflow-base",
            "jax",
            "jaxlib",
            "cupy",
            "onnxruntime",
            "libzlib-wapi",
        ]
        .contains(&name)
}
