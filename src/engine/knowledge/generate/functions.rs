//! The C API functions each NVIDIA library's header declares, across the sampled releases: the
//! first and last release whose header has each. A missing symbol then says which way the
//! releases differ: a function first declared in a later release means the library loaded is
//! older than the caller needs; one no longer declared in the newest releases (`nvrtcGetNVVM`,
//! gone from CUDA 13.0's `nvrtc.h`) means the library loaded is newer than the caller was built
//! for.

use super::status::{label_cmp, release_labels};
use super::{Cache, GenerateError, read};
use crate::engine::knowledge::generated::{LibraryFunction, LibraryFunctions};
use regex::Regex;
use std::collections::BTreeMap;

/// The headers read, the library each declares and the prefix its functions carry.
const HEADERS: &[(&str, &str, &str)] = &[
    ("include/nvrtc.h", "NVRTC", "nvrtc"),
    ("include/nvJitLink.h", "nvJitLink", "nvJitLink"),
    ("include/cublas_api.h", "cuBLAS", "cublas"),
    ("include/cufft.h", "cuFFT", "cufft"),
    ("include/curand.h", "cuRAND", "curand"),
    ("include/cusparse.h", "cuSPARSE", "cusparse"),
    ("include/nccl.h", "NCCL", "nccl"),
];

/// Every function of the headers above in the cached wheels, with the releases that declare it.
pub fn library_functions(cache: &Cache) -> Result<LibraryFunctions, GenerateError> {
    let mut seen: BTreeMap<(&str, String), Vec<String>> = BTreeMap::new();
    let mut read_range: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for l in cache.listings.iter().filter(|l| l.platform == "linux") {
        let labels = release_labels(cache, l);
        if labels.is_empty() {
            continue;
        }
        for (header, library, prefix) in HEADERS {
            let Some(path) = cache.fetched(l, header) else {
                continue;
            };
            let names = declared_functions(&read(&path)?, prefix);
            if names.is_empty() {
                return Err(GenerateError::Missing(format!(
                    "{}: no {prefix}* function declared",
                    path.display()
                )));
            }
            read_range
                .entry(library)
                .or_default()
                .extend(labels.iter().cloned());
            for name in names {
                seen.entry((library, name))
                    .or_default()
                    .extend(labels.iter().cloned());
            }
        }
    }
    let span = |labels: &[String], library: &str, name: String| LibraryFunction {
        name,
        library: library.to_string(),
        first: labels
            .iter()
            .min_by(|a, b| label_cmp(a, b))
            .cloned()
            .unwrap_or_default(),
        last: labels
            .iter()
            .max_by(|a, b| label_cmp(a, b))
            .cloned()
            .unwrap_or_default(),
    };
    Ok(LibraryFunctions {
        read: read_range
            .iter()
            .map(|(library, labels)| span(labels, library, library.to_string()))
            .collect(),
        function: seen
            .iter()
            .map(|((library, name), labels)| span(labels, library, name.clone()))
            .collect(),
    })
}

/// The functions a header declares: `prefix` names followed by `(`, outside comments and
/// preprocessor lines, sorted and once each.
fn declared_functions(header: &str, prefix: &str) -> Vec<String> {
    // The prefix is one of HEADERS' identifiers, so the pattern compiles; were it not, the header
    // would read as declaring nothing, which the caller reports.
    let Ok(call) = Regex::new(&format!(r"\b({prefix}[A-Z_0-9][A-Za-z0-9_]*)\s*\(")) else {
        return Vec::new();
    };
    let code: String = super::c_enums::without_comments(header)
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names: Vec<String> = call
        .captures_iter(&code)
        .map(|c| c[1].to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}
