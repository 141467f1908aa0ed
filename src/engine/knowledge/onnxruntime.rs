//! `onnxruntime_builds.toml`: the CUDA and cuDNN each onnxruntime-gpu release from PyPI was built
//! against, for the wheels that do not record it (Linux ships no `capi/version_info.py`).

use super::version::Version;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnnxruntimeBuild {
    /// Release minors this row covers (`1.19`).
    pub minors: Vec<String>,
    pub cuda: String,
    pub cudnn: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnnxruntimeTables {
    #[serde(default, rename = "build")]
    pub builds: Vec<OnnxruntimeBuild>,
}

impl OnnxruntimeTables {
    /// The row of a release (`1.20.0` → the `1.20` row), and whether it was inferred: a release
    /// newer than every row takes the newest row. `None` for an older release or bad text.
    pub fn build(&self, version: &str) -> Option<(&OnnxruntimeBuild, Option<String>)> {
        let v = Version::parse(version)?;
        let minor = v.major_minor();
        if let Some(row) = self.builds.iter().find(|b| b.minors.contains(&minor)) {
            return Some((row, None));
        }
        let newest = self
            .builds
            .iter()
            .flat_map(|b| b.minors.iter().map(move |m| (b, m)))
            .filter_map(|(b, m)| Version::parse(m).map(|mv| (b, m, mv)))
            .max_by(|a, b| a.2.cmp_padded(&b.2))?;
        (v.cmp_padded(&newest.2) == std::cmp::Ordering::Greater)
            .then(|| (newest.0, Some(newest.1.clone())))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_release_maps_to_its_minor_and_a_newer_one_is_inferred() {
        let t = &crate::engine::knowledge::knowledge().onnxruntime;
        let (row, inferred) = t.build("1.20.0").unwrap();
        assert_eq!((row.cuda.as_str(), row.cudnn.as_str()), ("12", "9"));
        assert!(inferred.is_none());
        let (row, _) = t.build("1.16.3").unwrap();
        assert_eq!((row.cuda.as_str(), row.cudnn.as_str()), ("11.8", "8"));
        let (row, inferred) = t.build("1.22.0").unwrap();
        assert_eq!((row.cuda.as_str(), row.cudnn.as_str()), ("12", "9"));
        assert!(inferred.is_none());
        let (row, inferred) = t.build("1.40.0").unwrap();
        assert_eq!(row.cuda, "13");
        assert_eq!(inferred.as_deref(), Some("1.31"));
        assert!(t.build("1.2.0").is_none());
        assert!(t.builds.iter().all(|b| !b.source.is_empty()));
    }
}
