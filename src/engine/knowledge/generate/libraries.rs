//! Every library file name the wheels ship (Linux `.so*`, Windows `.dll`), with the component
//! it belongs to, the family its version names, the CUDA releases whose `cuda-toolkit`
//! meta-package pins a wheel shipping it, and the wheel versions that ship it.

use super::{Cache, major_minor, short_name, sort_versions};
use crate::engine::knowledge::generated::{LibraryFile, LibraryFiles};
use crate::engine::knowledge::libraries::component_of_file as component;
use std::collections::BTreeMap;

/// The family a wheel's library names belong to, by distribution.
fn family(cache: &Cache, dist: &str, version: &str) -> String {
    let major = version.split('.').next().unwrap_or("");
    match short_name(dist) {
        "cudnn" => format!("cuDNN {major}"),
        "nccl" => format!("NCCL {major}"),
        "cusparselt" => format!("cuSPARSELt {}", major_minor(version)),
        "cudss" => format!("cuDSS {}", major_minor(version)),
        s if s.starts_with("cutensor") => format!("cuTENSOR {major}"),
        s if s.starts_with("tensorrt") => format!("TensorRT {major}"),
        _ => match cache.toolkits_pinning(dist, version).first() {
            Some(minor) => format!("CUDA {}", minor.split('.').next().unwrap_or("")),
            None => format!("{} {major}", short_name(dist)),
        },
    }
}

#[derive(Default)]
struct Seen {
    component: String,
    families: Vec<String>,
    toolkits: Vec<String>,
    wheels: BTreeMap<String, Vec<String>>,
    folders: Vec<String>,
}

/// The libraries a fetched binary of a listing imports (TensorRT's Python bindings name the
/// TensorRT libraries that NVIDIA ships outside PyPI).
fn imported(cache: &Cache, l: &super::Listing) -> Vec<String> {
    let suffix = if l.platform == "windows" {
        ".pyd"
    } else {
        ".so"
    };
    let Some(path) = l
        .fetched
        .iter()
        .find(|f| f.ends_with(suffix))
        .map(|f| cache.root.join(f))
    else {
        return Vec::new();
    };
    let Ok(bytes) = std::fs::read(&path) else {
        return Vec::new();
    };
    match goblin::Object::parse(&bytes) {
        Ok(goblin::Object::Elf(elf)) => elf.libraries.iter().map(|s| s.to_string()).collect(),
        Ok(goblin::Object::PE(pe)) => pe.libraries.iter().map(|s| s.to_string()).collect(),
        _ => Vec::new(),
    }
}

pub fn library_files(cache: &Cache) -> LibraryFiles {
    let mut seen: BTreeMap<(String, String), Seen> = BTreeMap::new();
    for l in &cache.listings {
        if l.wheel.is_none() {
            continue;
        }
        let toolkits = cache.toolkits_pinning(&l.dist, &l.version);
        let mut names = l.files.clone();
        names.extend(
            l.sonames
                .iter()
                .map(|(member, soname)| match member.rsplit_once('/') {
                    Some((folder, _)) => format!("{folder}/{soname}"),
                    None => soname.clone(),
                }),
        );
        if l.dist.ends_with("-bindings") {
            names.extend(
                imported(cache, l)
                    .into_iter()
                    .filter(|n| component(n).is_some_and(|c| c.starts_with("TensorRT"))),
            );
        }
        for path in &names {
            let name = path.rsplit('/').next().unwrap_or(path);
            if name.contains(".cpython-") || !(name.contains(".so") || name.ends_with(".dll")) {
                continue;
            }
            let Some(component) = component(name) else {
                continue;
            };
            // A wheel that bundles another product's library (TensorRT 8's wheel carries NCCL
            // and nvJPEG) says nothing about that library's family.
            let family = family(cache, &l.dist, &l.version);
            if family.starts_with("TensorRT") != component.starts_with("TensorRT") {
                continue;
            }
            let entry = seen
                .entry((name.to_string(), l.platform.clone()))
                .or_default();
            entry.component = component.to_string();
            entry.families.push(family);
            entry.toolkits.extend(toolkits.iter().cloned());
            // Names read from a binding's imports carry no folder.
            if let Some((folder, _)) = path.rsplit_once('/') {
                entry.folders.push(folder.to_string());
            }
            entry
                .wheels
                .entry(l.dist.clone())
                .or_default()
                .push(l.version.clone());
        }
    }
    let mut out = LibraryFiles::default();
    for ((name, platform), mut s) in seen {
        sort_versions(&mut s.toolkits);
        s.toolkits.dedup();
        s.folders.sort();
        s.folders.dedup();
        let wheels = s
            .wheels
            .into_iter()
            .map(|(dist, mut versions)| {
                sort_versions(&mut versions);
                versions.dedup();
                match (versions.first(), versions.last()) {
                    (Some(a), Some(b)) if a != b => format!("{dist} {a}-{b}"),
                    (Some(a), _) => format!("{dist} {a}"),
                    _ => dist,
                }
            })
            .collect();
        out.file.push(LibraryFile {
            name,
            platform,
            component: s.component,
            family: one_family(s.families),
            toolkits: s.toolkits,
            wheels,
            folders: s.folders,
        });
    }
    out
}

/// The family of a name shipped by several wheels: one, or for a name that several CUDA majors
/// ship (`libnvvm.so.4`, CUDA 11 to 13) the span of majors ("CUDA 11-13").
fn one_family(families: Vec<String>) -> String {
    let majors: Vec<u32> = families
        .iter()
        .filter_map(|f| f.strip_prefix("CUDA ")?.parse().ok())
        .collect();
    match (majors.iter().min(), majors.iter().max()) {
        (Some(lo), Some(hi)) if majors.len() == families.len() && lo != hi => {
            format!("CUDA {lo}-{hi}")
        }
        _ => families.last().cloned().unwrap_or_default(),
    }
}
