//! CuPy: the binary wheels are named for their CUDA (`cupy-cuda102`, `cupy-cuda110`,
//! `cupy-cuda11x`, `cupy-cuda12x`) and record it, with the libraries `cupy/_environment.py`
//! preloads, in `cupy/.data/_wheel.json`: `{"cuda": "12.x", "cudnn": {"version": "8.8.1",
//! "filenames": [...]}, "nccl": ..., "cutensor": ...}` (8.x–10.x wrote one `"filename"`). Those
//! preloads are optional: `_environment.py` loads them only when they were installed with
//! `python -m cupyx.tools.install_library`, so they go to `expects.optional`, not `cudnn`.
//! A plain `cupy` dist is a source build whose CUDA is whatever it was compiled against.

use super::Site;
use crate::engine::scan::inventory::{Framework, FrameworkKind, Package};
use crate::engine::scan::version;
use crate::engine::scan::walk::Walker;

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
            None => version::family_from_digits(tag),
        };
        f.expects.basis = Some(format!("{name} (package name)"));
    }
    let json_path = dir.map(|d| p.normalize(&p.join(&d, ".data/_wheel.json")));
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
    Some(f)
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
