//! CuPy: the binary wheels are named for their CUDA (`cupy-cuda102`, `cupy-cuda110`,
//! `cupy-cuda11x`, `cupy-cuda12x`) and record it, with the libraries `cupy/_environment.py`
//! preloads, in `cupy/.data/_wheel.json`: `{"cuda": "12.x", "cudnn": {"version": "8.8.1",
//! "filenames": [...]}, "nccl": ..., "cutensor": ...}` (8.x–10.x wrote one `"filename"`). Those
//! preloads are optional: `_environment.py` loads them only when they were installed with
//! `python -m cupyx.tools.install_library`, so they go to `expects.optional`, not `cudnn`.
//! A plain `cupy` dist is a source build whose CUDA is whatever it was compiled against.
//! Releases before `_wheel.json` (cupy-cuda101 7.x) carry cuDNN and NCCL inside the wheel
//! (`cupy/.data/lib/libcudnn.so.7`, `cupy\cuda\cudnn64_7.dll`), for the same optional modules.
//! On Windows `cupy/_environment.py` (`_setup_win32_dll_directory`, called by `import cupy`) adds
//! `<CUDA path>\bin` with `os.add_dll_directory` — the CUDA path being `CUDA_PATH`, else the folder
//! above the first `nvcc` on PATH — and, from 8.x, the wheel's `cupy\.data\lib`; 7.x raises
//! `RuntimeError('CUDA path could not be detected.')` at import when it finds neither.

use super::Site;
use crate::engine::context::Platform;
use crate::engine::inventory::{Framework, FrameworkKind, Package};
use crate::engine::scan::version_clues;
use crate::engine::scan::walker::Walker;

pub(super) fn read(w: &mut Walker, site: &Site) -> Option<Framework> {
    let (name, ver, e) = site
        .dists
        .iter()
        .find(|(n, _, _)| n == "cupy" || n.starts_with("cupy-cuda"))?;
    let p = w.platform();
    let dir = site.dir("cupy");
    let loc = dir.clone().unwrap_or_else(|| e.path.clone());
    let mut f = Framework::new(FrameworkKind::CuPy, name, Some(ver.clone()), &loc);
    f.evidence.push(e.path.clone());
    if let Some(tag) = name.strip_prefix("cupy-cuda") {
        f.cuda_build = Some(true);
        f.expects.cuda = match tag.strip_suffix('x') {
            Some(major) => Some(format!("{major}.x")),
            None => version_clues::family_from_digits(tag),
        };
        f.expects.basis = Some(format!("{name} (package name)"));
    }
    let json_path = dir
        .as_ref()
        .map(|d| p.normalize(&p.join(d, ".data/_wheel.json")));
    match json_path.and_then(|j| w.read_text(&j, 64 << 10).map(|t| (j, t))) {
        Some((path, text)) => {
            apply_wheel_json(&mut f, &text);
            f.evidence.push(path);
        }
        None if f.expects.cuda.is_none() => f.expects.unread.push(
            "a cupy source build: no cupy/.data/_wheel.json, and the package name names no CUDA"
                .into(),
        ),
        None => {}
    }
    if let Some(d) = &dir {
        bundled(w, &mut f, d);
        if p == Platform::Windows {
            dll_directories(w, &mut f, d);
        }
    }
    Some(f)
}

/// cuDNN/NCCL shipped inside the wheel (7.x: `cupy/.data/lib` on Linux, `cupy\cuda` on Windows),
/// loaded by CuPy's optional cuDNN/NCCL modules only: recorded, with the major from the file
/// name, in `expects.optional` beside the `_wheel.json` preloads of later releases.
fn bundled(w: &mut Walker, f: &mut Framework, cupy_dir: &str) {
    let p = w.platform();
    for sub in [".data/lib", "cuda"] {
        let dir = p.normalize(&p.join(cupy_dir, sub));
        for e in w.list(&dir) {
            let Some((lib, major)) = bundled_major(&e.name) else {
                continue;
            };
            if !e.is_dir && !f.expects.optional.iter().any(|o| o.name == lib) {
                f.expects.optional.push(Package {
                    name: lib.to_string(),
                    version: Some(major),
                });
                f.evidence.push(e.path);
            }
        }
    }
}

/// `libcudnn.so.7` / `cudnn64_7.dll` → (`cudnn`, `7`); `libnccl.so.2` → (`nccl`, `2`).
fn bundled_major(name: &str) -> Option<(&'static str, String)> {
    let (lib, v) = [
        ("cudnn", name.strip_prefix("libcudnn.so.")),
        (
            "cudnn",
            name.strip_prefix("cudnn64_")
                .and_then(|r| r.strip_suffix(".dll")),
        ),
        ("nccl", name.strip_prefix("libnccl.so.")),
    ]
    .into_iter()
    .find_map(|(lib, v)| v.map(|v| (lib, v)))?;
    let major = v.split('.').next()?;
    (!major.is_empty() && major.chars().all(|c| c.is_ascii_digit()))
        .then(|| (lib, major.to_string()))
}

/// What `_setup_win32_dll_directory` in the installed `cupy/_environment.py` adds.
fn dll_directories(w: &mut Walker, f: &mut Framework, cupy_dir: &str) {
    let p = w.platform();
    let env_py = p.join(cupy_dir, "_environment.py");
    let Some(text) = w.read_text(&env_py, 128 << 10) else {
        return;
    };
    if !text.contains("def _setup_win32_dll_directory") || !text.contains("add_dll_directory") {
        return;
    }
    f.evidence.push(env_py);
    match super::cupy_nvcc::cuda_path(w) {
        Some((cuda, _)) => f.dll_directories.push(p.join(&cuda, "bin")),
        // 7.x raises where 8.x and later only warn.
        None if text.contains("raise RuntimeError('CUDA path could not be detected.')") => {
            f.import_error = Some("RuntimeError: CUDA path could not be detected.".into());
        }
        None => {}
    }
    let wheel_lib = p.normalize(&p.join(cupy_dir, ".data/lib"));
    if text.contains("'.data', 'lib'") && w.is_dir(&wheel_lib) {
        f.dll_directories.push(wheel_lib);
    }
}

fn apply_wheel_json(f: &mut Framework, text: &str) {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        f.expects
            .unread
            .push("cupy/.data/_wheel.json is not valid JSON".into());
        return;
    };
    if let Some(cuda) = json.get("cuda").and_then(|c| c.as_str()) {
        f.expects.cuda = Some(cuda.to_string());
        f.expects.basis = Some("cupy/.data/_wheel.json".into());
        f.cuda_build = Some(true);
    }
    for lib in ["cudnn", "nccl", "cutensor"] {
        if let Some(v) = json
            .get(lib)
            .and_then(|l| l.get("version"))
            .and_then(|v| v.as_str())
        {
            f.expects.optional.push(Package {
                name: lib.to_string(),
                version: Some(v.to_string()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::bundled_major;

    #[test]
    fn bundled_libraries_give_their_major() {
        assert_eq!(bundled_major("libcudnn.so.7"), Some(("cudnn", "7".into())));
        assert_eq!(bundled_major("cudnn64_7.dll"), Some(("cudnn", "7".into())));
        assert_eq!(bundled_major("libnccl.so.2"), Some(("nccl", "2".into())));
        assert_eq!(bundled_major("cudnn.cp38-win_amd64.pyd"), None);
        assert_eq!(bundled_major("libcudnn.so"), None);
    }
}
