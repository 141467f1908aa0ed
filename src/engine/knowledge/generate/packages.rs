//! The releases of every package a fix may name, from PyPI's index as of the fetch's snapshot:
//! for each version, the platforms its wheels are for and the Python tags of each (a version
//! with only an sdist, or only wheels for other platforms, has nothing to install there).

use super::{Cache, GenerateError, json, sort_versions};
use crate::engine::knowledge::generated::{PackageReleases, PackageRow};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Deserialize)]
struct Files {
    name: String,
    files: Vec<String>,
}

/// (version, platform, python tag) of a wheel's file name; None for an sdist or another platform.
pub fn wheel_tags(file: &str) -> Option<(String, &'static str, String)> {
    let stem = file.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    if parts.len() < 5 {
        return None;
    }
    let version = parts[1].to_string();
    let python = parts[parts.len() - 3];
    let platform_tag = parts[parts.len() - 1];
    let platform = if platform_tag == "any" {
        "any"
    } else if platform_tag.contains("linux") && platform_tag.contains("x86_64") {
        "linux"
    } else if platform_tag == "win_amd64" {
        "windows"
    } else {
        return None;
    };
    Some((version, platform, python.to_string()))
}

pub fn package_releases(cache: &Cache) -> Result<PackageReleases, GenerateError> {
    let mut out = PackageReleases::default();
    for (name, exists) in &cache.manifest.packages {
        if !exists {
            continue;
        }
        let f: Files = json(&cache.root.join("packages").join(format!("{name}.json")))?;
        let mut by_version: BTreeMap<String, BTreeMap<&'static str, BTreeSet<String>>> =
            BTreeMap::new();
        for file in &f.files {
            if let Some((version, platform, python)) = wheel_tags(file) {
                for py in python.split('.') {
                    by_version
                        .entry(version.clone())
                        .or_default()
                        .entry(platform)
                        .or_default()
                        .insert(py.to_string());
                }
            }
        }
        let mut versions: Vec<String> = by_version.keys().cloned().collect();
        sort_versions(&mut versions);
        let releases = versions
            .iter()
            .map(|v| {
                let platforms: Vec<String> = by_version[v]
                    .iter()
                    .map(|(p, tags)| {
                        format!("{p}={}", tags.iter().cloned().collect::<Vec<_>>().join(","))
                    })
                    .collect();
                format!("{v} {}", platforms.join(" "))
            })
            .collect();
        out.package.push(PackageRow {
            name: f.name,
            releases,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::wheel_tags;

    #[test]
    fn wheel_file_names() {
        assert_eq!(
            wheel_tags("torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl"),
            Some(("2.5.1".into(), "linux", "cp311".into()))
        );
        assert_eq!(
            wheel_tags("nvidia_cublas_cu12-12.4.5.8-py3-none-win_amd64.whl").map(|t| t.1),
            Some("windows")
        );
        assert_eq!(
            wheel_tags("torch-2.5.1-cp311-none-macosx_11_0_arm64.whl"),
            None
        );
        assert_eq!(wheel_tags("nvidia-cublas-cu12-0.0.1.dev5.tar.gz"), None);
    }
}
