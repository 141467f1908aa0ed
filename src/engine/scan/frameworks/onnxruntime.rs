//! ONNX Runtime: the CUDA and TensorRT provider libraries in `onnxruntime/capi`, and on Windows
//! `capi/version_info.py` (`use_cuda = True`, `cuda_version = "11.8.89"`, `cudnn_version = "8"`),
//! which tells a cuDNN 8 build (≤ 1.18) from a cuDNN 9 one (1.19+ default wheels, CUDA 12).
//! The Linux wheels ship no such file. From 1.21 their METADATA pins the CUDA runtime and cuDNN
//! wheels of their `cuda`/`cudnn` extras (`nvidia-cuda-runtime-cu12~=12.0`, then
//! `nvidia-cuda-runtime-cu13~=13.0` from 1.27 and the unsuffixed `nvidia-cuda-runtime~=13.0` from
//! 1.28; `nvidia-cudnn-cu13~=9.0`), which name the build's CUDA and cuDNN majors; older Linux
//! wheels take their release's row of `onnxruntime_builds.toml` (the official requirements
//! table) — marked inferred past the newest row.

use super::{Site, cudnn_from_wheels, read_metadata, spec_lower_bound};
use crate::engine::inventory::{Framework, FrameworkKind, Package};
use crate::engine::scan::pyparse::py_assignment;
use crate::engine::scan::walker::Walker;

pub(super) fn read(w: &mut Walker, site: &Site) -> Option<Framework> {
    let ort_dir = site.dir("onnxruntime")?;
    let p = w.platform();
    let d = site
        .dists
        .iter()
        .find(|(n, _, _)| n.starts_with("onnxruntime") || n == "ort-nightly-gpu");
    let mut f = Framework::new(
        FrameworkKind::OnnxRuntime,
        d.map_or("onnxruntime", |d| d.0.as_str()),
        d.map(|d| d.1.clone()),
        &ort_dir,
    );
    let capi = p.join(&ort_dir, "capi");
    let providers: Vec<String> = w
        .list(&capi)
        .into_iter()
        .filter(|e| e.name.contains("providers_cuda") || e.name.contains("providers_tensorrt"))
        .map(|e| e.name)
        .collect();
    f.cuda_build = Some(!providers.is_empty() || d.is_some_and(|d| d.0.contains("gpu")));
    if !providers.is_empty() {
        f.plugins = providers
            .iter()
            .map(|n| Package {
                name: n.clone(),
                version: None,
            })
            .collect();
        f.bundled_dir = Some(capi.clone());
    }
    // METADATA is read first (its pins name the Linux builds' CUDA), listed as evidence last.
    let metadata = d.map(|d| {
        f.expects.wheels = read_metadata(w, &d.2.path, 256 << 10).1;
        d.2.path.clone()
    });
    let vi = p.join(&capi, "version_info.py");
    if let Some(text) = w.read_text(&vi, 16 << 10) {
        if text.lines().any(|l| l.replace(' ', "") == "use_cuda=False") {
            f.cuda_build = Some(false);
        }
        if let Some(c) = py_assignment(&text, "cuda_version").flatten() {
            f.expects.cuda = Some(c);
            f.expects.basis = Some("onnxruntime/capi/version_info.py".into());
        }
        f.expects.cudnn = py_assignment(&text, "cudnn_version").flatten();
        f.evidence.push(vi);
    } else if f.cuda_build == Some(true) && !from_wheel_pins(&mut f) {
        from_table(&mut f);
    }
    f.evidence.extend(metadata);
    Some(f)
}

/// Fills the CUDA and cuDNN majors from the METADATA pins of the `cuda`/`cudnn` extras
/// (`nvidia-cuda-runtime-cu12~=12.0`, `nvidia-cuda-runtime~=13.0`, `nvidia-cudnn-cu13~=9.0`);
/// false where the release pins no CUDA runtime wheel (≤ 1.20).
fn from_wheel_pins(f: &mut Framework) -> bool {
    let Some(runtime) = f
        .expects
        .wheels
        .iter()
        .find(|w| w.name.starts_with("nvidia-cuda-runtime"))
    else {
        return false;
    };
    let from_name = runtime
        .name
        .rsplit_once("-cu")
        .map(|(_, major)| major.to_string())
        .filter(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_digit()));
    let from_spec = runtime.version.as_deref().and_then(spec_major);
    let Some(cuda) = from_name.or(from_spec) else {
        return false;
    };
    let pin = format!(
        "{}{}",
        runtime.name,
        runtime.version.as_deref().unwrap_or_default()
    );
    f.expects.cuda = Some(cuda);
    f.expects.cudnn = cudnn_from_wheels(&f.expects.wheels).map(|v| {
        let major = v.split('.').next().unwrap_or(&v);
        major.to_string()
    });
    f.expects.basis = Some(format!("METADATA ({pin})"));
    true
}

/// The major a version spec starts from (its lower bound): `~=13.0` → `13`, `<13,>=12.0` → `12`.
fn spec_major(spec: &str) -> Option<String> {
    let major = spec_lower_bound(spec)?.split('.').next()?;
    major
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| major.to_string())
}

/// Fills CUDA and cuDNN from the release's row of the requirements table.
fn from_table(f: &mut Framework) {
    let k = crate::engine::knowledge::knowledge();
    let row = f.version.as_deref().and_then(|v| k.onnxruntime.build(v));
    let Some((row, inferred)) = row else {
        f.expects.unread.push(format!(
            "no onnxruntime/capi/version_info.py (only the Windows wheels record their CUDA and cuDNN there), and onnxruntime_builds.toml has no row for {}",
            f.version.as_deref().unwrap_or("this release")
        ));
        return;
    };
    f.expects.cuda = Some(row.cuda.clone());
    f.expects.cudnn = Some(row.cudnn.clone());
    let own_minor = f
        .version
        .as_deref()
        .and_then(crate::engine::knowledge::version::Version::parse)
        .map(|v| v.major_minor());
    let minor = inferred.clone().or(own_minor).unwrap_or_default();
    f.expects.basis = Some(format!("onnxruntime_builds.toml ({minor} row)"));
    if let Some(m) = inferred {
        f.expects.inferred_from = Some(format!("ONNX Runtime {m}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_starts_from_its_lower_bound() {
        assert_eq!(spec_major("~=13.0").as_deref(), Some("13"));
        assert_eq!(spec_major("<13,>=12.0").as_deref(), Some("12"));
        assert_eq!(spec_major("==12.1.105").as_deref(), Some("12"));
        assert_eq!(spec_major("<13").as_deref(), None);
        assert_eq!(spec_major("").as_deref(), None);
    }
}
