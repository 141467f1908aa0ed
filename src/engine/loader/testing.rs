//! Test helpers for the loaders: hand-made `BinaryInfo` values and a probe backed by a map,
//! so search orders can be checked without building binaries.

use super::{FileProbe, Probe};
use crate::engine::binfmt::{BinaryInfo, Format, Import, ImportKind, Machine, VersionInfo};
use std::collections::HashMap;
use std::sync::Arc;

pub fn machine(arch: &str, bits: u8) -> Machine {
    Machine {
        arch: arch.to_string(),
        bits,
    }
}

pub fn binary(format: Format, arch: &str, bits: u8, imports: &[&str]) -> BinaryInfo {
    BinaryInfo {
        format,
        machine: machine(arch, bits),
        imports: imports
            .iter()
            .map(|n| Import {
                name: n.to_string(),
                kind: ImportKind::Load,
                symbols: Vec::new(),
            })
            .collect(),
        exports: Vec::new(),
        dynamic_symbols: Vec::new(),
        soname: None,
        rpath: Vec::new(),
        runpath: Vec::new(),
        nodeflib: false,
        version_needs: Vec::new(),
        embedded_library_names: Vec::new(),
        version: VersionInfo::default(),
    }
}

pub fn elf64(imports: &[&str]) -> BinaryInfo {
    binary(Format::Elf, "x86_64", 64, imports)
}

pub fn pe64(imports: &[&str]) -> BinaryInfo {
    binary(Format::Pe, "x86_64", 64, imports)
}

/// Files by machine path; Windows look-ups ignore case when `ignore_case` is set.
#[derive(Default)]
pub struct FakeProbe {
    pub files: HashMap<String, Probe>,
    pub ignore_case: bool,
}

impl FakeProbe {
    pub fn windows() -> FakeProbe {
        FakeProbe {
            files: HashMap::new(),
            ignore_case: true,
        }
    }

    pub fn add(&mut self, path: &str, info: BinaryInfo) -> &mut Self {
        let key = self.key(path);
        self.files.insert(key, Probe::Binary(Arc::new(info)));
        self
    }

    pub fn add_junk(&mut self, path: &str) -> &mut Self {
        let key = self.key(path);
        self.files
            .insert(key, Probe::Unreadable("not a PE or ELF binary".into()));
        self
    }

    fn key(&self, path: &str) -> String {
        if self.ignore_case {
            path.to_lowercase()
        } else {
            path.to_string()
        }
    }
}

impl FileProbe for FakeProbe {
    fn probe(&self, machine_path: &str) -> Probe {
        self.files
            .get(&self.key(machine_path))
            .cloned()
            .unwrap_or(Probe::Missing)
    }
}
