//! TensorFlow: `python/platform/build_info.py` in every form the releases ship — module-level
//! `cuda_version_number = '10.0'` (1.14–2.1, in `tensorflow_core/` for 1.15–2.1; 1.13 names no
//! version at all), a `{'cuda_version': '10.1'}` dict (2.2–2.3) and an `OrderedDict([...])` of
//! tuples (2.4+), with Windows values such as `'64_112'` — then the release's row of
//! `tensorflow_builds.toml` where the file is silent or gives only a major (2.0 Linux says `'10'`).
//! A release newer than every row gets the newest row, marked inferred. On Windows (≤ 2.10) it
//! also records the CUPTI names TensorFlow asks for: `"cupti" + TF_CUDA_VERSION`, then `cupti`
//! (TensorFlow's stream_executor/platform/default/dso_loader.cc `GetCuptiDsoHandle`); on Linux
//! `libcupti.so.11.2` (CUDA 11: major.minor) or `libcupti.so.12` (CUDA 12+: the major), then
//! `libcupti.so` (TF_CUPTI_VERSION, third_party/gpus/cuda_configure.bzl). Up to 1.13 TensorFlow
//! asked for the versioned name only: its loader was `tensorflow/stream_executor/dso_loader.cc`,
//! whose `GetLibcuptiDsoHandle` has no unversioned fallback (1.13 logs name that file,
//! tensorflow#25807); the fallback is in `platform/default/dso_loader.cc`, new in 1.14, and seen in
//! logs of 2.1–2.3 (`cupti64_101.dll`, then `cupti.dll`) and 2.5 (`libcupti.so.11.2`, then
//! `libcupti.so`, tensorflow#43030 thread).

use super::{Site, read_metadata};
use crate::engine::context::Platform;
use crate::engine::inventory::{Framework, FrameworkKind};
use crate::engine::knowledge;
use crate::engine::knowledge::version::major_part as major;
use crate::engine::scan::pyparse::{apply_build_info, build_info_value};
use crate::engine::scan::walker::Walker;

const DISTS: &[&str] = &[
    "tensorflow",
    "tensorflow-gpu",
    "tensorflow-cpu",
    "tensorflow-intel",
    "tf-nightly",
    "tensorflow-macos",
];

/// Where build_info.py sits, relative to site-packages (1.15–2.1 keep it in `tensorflow_core`).
const BUILD_INFO: &[&str] = &[
    "tensorflow/python/platform/build_info.py",
    "tensorflow_core/python/platform/build_info.py",
];

pub(super) fn read(w: &mut Walker, site: &Site) -> Option<Framework> {
    let tf_dir = site.dir("tensorflow")?;
    let p = w.platform();
    let dist = DISTS.iter().find_map(|n| site.dist(n));
    let mut f = Framework::new(
        FrameworkKind::TensorFlow,
        dist.map_or("tensorflow", |d| d.0.as_str()),
        dist.map(|d| d.1.clone()),
        &tf_dir,
    );
    let site_dir = p.parent(&tf_dir).unwrap_or_default();
    let mut raw_cuda = None;
    let found = BUILD_INFO.iter().find_map(|rel| {
        let path = p.normalize(&p.join(&site_dir, rel));
        w.read_text(&path, 256 << 10).map(|t| (path, t))
    });
    match found {
        Some((path, text)) => {
            apply_build_info(&mut f, &text);
            raw_cuda = build_info_value(&text, "cuda_version")
                .or_else(|| build_info_value(&text, "cuda_version_number"))
                .map(|v| v.trim_matches(['\'', '"']).to_string());
            if f.expects.cuda.is_some() {
                f.expects.basis = Some("build_info.py".into());
            }
            f.evidence.push(path);
        }
        None => f.expects.unread.push(format!(
            "no {} (TensorFlow records its CUDA build there)",
            p.normalize(BUILD_INFO[0])
        )),
    }
    if let Some(d) = dist {
        f.expects.wheels = read_metadata(w, &d.2.path, 512 << 10).1;
        f.evidence.push(d.2.path.clone());
    }
    complete_from_table(&mut f, p);
    if f.cuda_build != Some(false) {
        f.expects.cupti = match p {
            Platform::Windows => cupti_names(f.expects.cuda.as_deref(), raw_cuda.as_deref()),
            Platform::Linux => linux_cupti_names(f.expects.cuda.as_deref()),
        };
        if !asks_unversioned_cupti(f.version.as_deref()) {
            f.expects.cupti.truncate(1);
        }
    }
    Some(f)
}

/// Fills what build_info.py leaves out from the release's documented row, or infers it from the
/// newest row for a release the table does not reach yet.
fn complete_from_table(f: &mut Framework, p: Platform) {
    if f.cuda_build == Some(false) {
        return;
    }
    let Some(version) = f.version.clone() else {
        if f.expects.cuda.is_none() {
            f.expects
                .unread
                .push("no build_info.py CUDA version and no package version to look up".into());
        }
        return;
    };
    let k = knowledge::knowledge();
    let gpu_here = p == Platform::Linux || k.tensorflow.native_windows_gpu(&version) != Some(false);
    if !gpu_here {
        return;
    }
    let row = k.tensorflow.build(&version, p);
    let inferred = match row {
        Some(_) => None,
        None => k.tensorflow.nearest_newer_than_table(&version, p),
    };
    let Some(row) = row.or(inferred) else {
        if f.expects.cuda.is_none() {
            f.expects.unread.push(format!(
                "build_info.py names no CUDA version and tensorflow_builds.toml has no {} row for {version}",
                p.as_str()
            ));
        }
        return;
    };
    let label = format!("tensorflow_builds.toml ({} row)", row.version);
    let file_major = f.expects.cuda.as_deref().map(major);
    let mut filled = true;
    match f.expects.cuda.as_deref() {
        None => {
            f.expects.cuda = Some(row.cuda.clone());
            f.expects.basis = Some(label.clone());
        }
        // TF 2.0 on Linux writes only the major ('10'): the row gives the minor.
        Some(c) if !c.contains('.') && file_major == Some(major(&row.cuda)) => {
            f.expects.cuda = Some(row.cuda.clone());
            f.expects.basis = Some(format!("build_info.py + {label}"));
        }
        _ => filled = false,
    }
    if f.expects.cudnn.is_none() {
        f.expects.cudnn = Some(row.cudnn.clone());
        filled = true;
    }
    if inferred.is_some() && filled {
        f.expects.inferred_from = Some(format!("TensorFlow {}", row.version));
    }
}

/// Whether this release falls back to the unversioned CUPTI name: not up to 1.13 (the old
/// `stream_executor/dso_loader.cc`), yes from 1.14 (`platform/default/dso_loader.cc`). An
/// unknown release is taken to be a recent one.
fn asks_unversioned_cupti(version: Option<&str>) -> bool {
    version
        .and_then(|v| knowledge::version::compare(v, "1.14"))
        .is_none_or(|o| o != std::cmp::Ordering::Less)
}

/// `cupti64_112.dll`, then `cupti.dll`: TensorFlow's Windows TF_CUDA_VERSION is `64_` plus the
/// CUDA major and minor (build_info's `'64_112'`; 1.x–2.3 wrote `'10.1'`, the same build value).
fn cupti_names(cuda: Option<&str>, raw: Option<&str>) -> Vec<String> {
    let digits = match raw.and_then(|r| r.strip_prefix("64_")) {
        Some(d) => d.to_string(),
        None => {
            let Some(c) = cuda else { return Vec::new() };
            let mut parts = c.split('.');
            match (parts.next(), parts.next()) {
                (Some(a), Some(b)) => format!("{a}{b}"),
                _ => return Vec::new(),
            }
        }
    };
    vec![format!("cupti64_{digits}.dll"), "cupti.dll".into()]
}

/// `libcupti.so.11.2`, then `libcupti.so`: on Linux TensorFlow's TF_CUPTI_VERSION is the CUDA
/// major.minor up to CUDA 11 and the major alone from CUDA 12 (TF's `cuda_configure.bzl`
/// `_get_cuda_config`: `cupti_version = cuda_version` for 11, `= cudart_version` for 12+), and
/// `"lib" + name + ".so." + version` is the name it asks for.
fn linux_cupti_names(cuda: Option<&str>) -> Vec<String> {
    let Some(c) = cuda else { return Vec::new() };
    let mut parts = c.split('.');
    let (Some(major), minor) = (parts.next(), parts.next()) else {
        return Vec::new();
    };
    let version = match (major.parse::<u32>(), minor) {
        (Ok(m), _) if m >= 12 => major.to_string(),
        (Ok(_), Some(minor)) => format!("{major}.{minor}"),
        _ => return Vec::new(),
    };
    vec![format!("libcupti.so.{version}"), "libcupti.so".into()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tf(version: &str) -> Framework {
        let mut f = Framework::new(
            FrameworkKind::TensorFlow,
            "tensorflow",
            Some(version.into()),
            "/x",
        );
        f.cuda_build = Some(true);
        f
    }

    #[test]
    fn a_patch_release_takes_its_minor_row() {
        let mut f = tf("2.13.1");
        complete_from_table(&mut f, Platform::Linux);
        assert_eq!(f.expects.cuda.as_deref(), Some("11.8"));
        assert_eq!(f.expects.inferred_from, None);
        assert!(f.expects.basis.as_deref().unwrap().contains("2.13.0 row"));
    }

    #[test]
    fn a_release_newer_than_the_table_is_inferred_from_the_newest_row() {
        // No such release exists yet: that is the point.
        let mut f = tf("2.99.0");
        complete_from_table(&mut f, Platform::Linux);
        let newest = knowledge::knowledge()
            .tensorflow
            .builds
            .iter()
            .find(|b| b.platform == "linux")
            .unwrap();
        assert_eq!(f.expects.cuda.as_deref(), Some(newest.cuda.as_str()));
        assert_eq!(
            f.expects.inferred_from,
            Some(format!("TensorFlow {}", newest.version))
        );
        assert!(f.expects.cuda_label().contains("inferred from TensorFlow"));
    }

    #[test]
    fn what_the_file_says_is_never_overridden_or_marked_inferred() {
        let mut f = tf("2.99.0");
        f.expects.cuda = Some("12.9".into());
        f.expects.cudnn = Some("9".into());
        f.expects.basis = Some("build_info.py".into());
        complete_from_table(&mut f, Platform::Linux);
        assert_eq!(f.expects.cuda.as_deref(), Some("12.9"));
        assert_eq!(f.expects.inferred_from, None);
    }

    #[test]
    fn windows_from_2_11_has_no_gpu_row_to_infer_from() {
        let mut f = tf("2.12.0");
        complete_from_table(&mut f, Platform::Windows);
        assert_eq!(f.expects.cuda, None);
        assert_eq!(f.expects.inferred_from, None);
    }

    #[test]
    fn cupti_names_follow_tf_cuda_version() {
        assert_eq!(
            cupti_names(Some("11.2"), Some("64_112")),
            ["cupti64_112.dll", "cupti.dll"]
        );
        assert_eq!(
            cupti_names(Some("10.0"), Some("10.0")),
            ["cupti64_100.dll", "cupti.dll"]
        );
        assert!(cupti_names(Some("12"), None).is_empty());
    }

    #[test]
    fn the_unversioned_cupti_fallback_starts_with_1_14() {
        assert!(!asks_unversioned_cupti(Some("1.13.1")));
        assert!(!asks_unversioned_cupti(Some("1.12.0")));
        assert!(asks_unversioned_cupti(Some("1.14.0")));
        assert!(asks_unversioned_cupti(Some("2.10.1")));
        assert!(asks_unversioned_cupti(None));
    }

    #[test]
    fn linux_cupti_names_follow_tf_cupti_version() {
        assert_eq!(
            linux_cupti_names(Some("11.2")),
            ["libcupti.so.11.2", "libcupti.so"]
        );
        assert_eq!(
            linux_cupti_names(Some("12.3")),
            ["libcupti.so.12", "libcupti.so"]
        );
        assert!(linux_cupti_names(Some("11")).is_empty());
        assert!(linux_cupti_names(None).is_empty());
    }
}
