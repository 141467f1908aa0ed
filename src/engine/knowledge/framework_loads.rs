//! `framework_loads.toml`: the libraries a framework's own code opens at run time (TensorFlow's
//! DsoLoader, torch's LazyNVRTC), beyond the import tables of its entry libraries, with the call
//! and flags, when the load happens, what fails without it and the public source file at a tag.
//! A row is the evidence a finding about a missing library cites.

use super::version::any_contains;
use crate::engine::context::Platform;
use serde::Deserialize;

/// When a run-time load happens, which decides how loud its miss is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadWhen {
    /// The framework refuses the GPU without it: a miss is an error.
    Device,
    /// Only some work needs it and fails later: a miss is a warning.
    Feature,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRow {
    pub framework: String,
    pub platform: String,
    pub releases: Vec<String>,
    #[serde(default)]
    pub components: Vec<String>,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub cuda: Vec<String>,
    pub by: String,
    /// The library whose code calls dlopen (a glob relative to the package folder): ld.so
    /// searches from *its* RPATH/RUNPATH. Absent: the framework's library with the longest one.
    #[serde(default)]
    pub caller: Option<String>,
    pub call: String,
    pub when: LoadWhen,
    pub fails: String,
    pub source: String,
}

/// A version the framework checks at run time and refuses when it does not fit its build.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinRow {
    pub framework: String,
    pub library: String,
    /// `same-major-minor-at-least`.
    pub rule: String,
    pub refusal: String,
    pub source: String,
}

impl PinRow {
    /// Whether a loaded `runtime` version passes the check against the build's `built`
    /// (`None` when either lacks a minor).
    pub fn accepts(&self, runtime: &str, built: &str) -> Option<bool> {
        let parts = |v: &str| -> Option<(u64, u64)> {
            let mut it = v.split('.').map(|p| p.parse::<u64>().ok());
            Some((it.next()??, it.next()??))
        };
        let (rt, b) = (parts(runtime)?, parts(built)?);
        match self.rule.as_str() {
            "same-major-minor-at-least" => Some(rt.0 == b.0 && rt.1 >= b.1),
            _ => None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameworkLoads {
    #[serde(default, rename = "load")]
    pub rows: Vec<LoadRow>,
    #[serde(default, rename = "pin")]
    pub pins: Vec<PinRow>,
}

impl FrameworkLoads {
    /// The rows for a framework (its module name: `torch`, `tensorflow`) release on a platform.
    /// `cuda` is the build's CUDA (`12.4`, `11.8`); rows with `names` hold only for theirs.
    pub fn rows_for(
        &self,
        framework: &str,
        platform: Platform,
        version: &str,
        cuda: Option<&str>,
    ) -> Vec<&LoadRow> {
        self.rows
            .iter()
            .filter(|r| r.framework == framework && r.platform == platform.as_str())
            .filter(|r| any_contains(&r.releases, version))
            .filter(|r| {
                r.cuda.is_empty()
                    || cuda.is_some_and(|c| any_contains(&r.cuda, c.trim_end_matches(".x")))
            })
            .collect()
    }
}

impl LoadRow {
    /// One line a finding shows: which code, which call, and the source.
    pub fn evidence_text(&self) -> String {
        format!("{} — {}; source: {}", self.by, self.call, self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> FrameworkLoads {
        toml::from_str(include_str!(
            "../../../assets/knowledge/framework_loads.toml"
        ))
        .expect("framework_loads.toml parses")
    }

    #[test]
    fn every_row_cites_a_public_source_and_names_something() {
        for r in table().rows {
            assert!(r.source.contains("https://"), "{r:?}");
            assert!(!r.components.is_empty() || !r.names.is_empty(), "{r:?}");
            assert!(r.names.is_empty() || !r.cuda.is_empty(), "{r:?}");
        }
    }

    #[test]
    fn torch_refuses_an_older_cudnn_minor_only() {
        let t = table();
        let pin = t
            .pins
            .iter()
            .find(|p| p.framework == "torch")
            .expect("torch pin");
        assert_eq!(pin.accepts("9.0.0", "9.1.0.70"), Some(false));
        assert_eq!(pin.accepts("9.1.0", "9.1.0.70"), Some(true));
        assert_eq!(pin.accepts("9.3.0.75", "9.1.0.70"), Some(true));
        assert_eq!(pin.accepts("8.9.7", "9.1.0.70"), Some(false));
        assert_eq!(pin.accepts("9", "9.1"), None);
    }

    #[test]
    fn torch_nvrtc_follows_the_build_cuda() {
        let t = table();
        let names = |cuda| -> Vec<String> {
            t.rows_for("torch", Platform::Linux, "2.5.1", Some(cuda))
                .iter()
                .flat_map(|r| r.names.clone())
                .collect()
        };
        assert_eq!(names("12.4"), ["libnvrtc.so.12"]);
        assert_eq!(names("11.8"), ["libnvrtc.so.11.2"]);
        assert!(names("10.2").is_empty());
        assert!(
            t.rows_for("onnxruntime", Platform::Linux, "1.20.2", Some("12.2"))
                .is_empty()
        );
    }

    #[test]
    fn tensorflow_rows_split_curand_by_release() {
        let t = table();
        let device = |v| -> Vec<String> {
            t.rows_for("tensorflow", Platform::Linux, v, Some("11.2"))
                .iter()
                .filter(|r| r.when == LoadWhen::Device)
                .flat_map(|r| r.components.clone())
                .collect()
        };
        assert!(device("2.4.1").iter().any(|c| c == "cuRAND"));
        assert!(!device("2.15.0").iter().any(|c| c == "cuRAND"));
        assert!(device("2.15.0").iter().any(|c| c == "cuDNN"));
    }
}
