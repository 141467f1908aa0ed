//! INTERIM binary reader (goblin) used until branch `binfmt` lands `binfmt::read_binary`;
//! it fills only what the loaders need. Removed at the merge.

use crate::engine::binfmt::{
    BinaryError, BinaryInfo, Export, Format, Import, ImportKind, Machine, VersionInfo,
};
use std::path::Path;

pub fn read(path: &Path) -> Result<BinaryInfo, BinaryError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| BinaryError::Open {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    // SAFETY: read-only map for the duration of this call.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| BinaryError::Open {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let bad = |m: String| BinaryError::Malformed {
        path: shown.clone(),
        format: "binary",
        message: m,
    };
    let mut info = BinaryInfo {
        format: Format::Elf,
        machine: Machine {
            arch: "unknown".into(),
            bits: 64,
        },
        imports: vec![],
        exports: vec![],
        dynamic_symbols: vec![],
        soname: None,
        rpath: vec![],
        runpath: vec![],
        nodeflib: false,
        version_needs: vec![],
        embedded_library_names: vec![],
        version: VersionInfo::default(),
    };
    if map.starts_with(b"\x7fELF") {
        let elf = goblin::elf::Elf::parse(&map).map_err(|e| bad(e.to_string()))?;
        info.machine = Machine {
            arch: match elf.header.e_machine {
                3 => "i386".into(),
                62 => "x86_64".into(),
                183 => "aarch64".into(),
                40 => "arm".into(),
                m => format!("unknown(0x{m:04x})"),
            },
            bits: if elf.is_64 { 64 } else { 32 },
        };
        info.imports = elf
            .libraries
            .iter()
            .map(|l| Import {
                name: l.to_string(),
                kind: ImportKind::Load,
                symbols: vec![],
            })
            .collect();
        info.soname = elf.soname.map(String::from);
        info.rpath = elf
            .rpaths
            .iter()
            .flat_map(|r| r.split(':'))
            .map(String::from)
            .collect();
        info.runpath = elf
            .runpaths
            .iter()
            .flat_map(|r| r.split(':'))
            .map(String::from)
            .collect();
        if let Some(d) = &elf.dynamic {
            info.nodeflib = d.info.flags_1 & 0x800 != 0;
        }
        info.dynamic_symbols = elf
            .dynsyms
            .iter()
            .filter(|s| s.st_shndx != 0)
            .filter_map(|s| elf.dynstrtab.get_at(s.st_name).map(String::from))
            .collect();
        Ok(info)
    } else if map.starts_with(b"MZ") {
        let pe = goblin::pe::PE::parse(&map).map_err(|e| bad(e.to_string()))?;
        info.format = Format::Pe;
        info.machine = match pe.header.coff_header.machine {
            0x14c => Machine {
                arch: "i386".into(),
                bits: 32,
            },
            0x8664 => Machine {
                arch: "x86_64".into(),
                bits: 64,
            },
            0xaa64 => Machine {
                arch: "aarch64".into(),
                bits: 64,
            },
            m => Machine {
                arch: format!("unknown(0x{m:04x})"),
                bits: 32,
            },
        };
        for lib in &pe.libraries {
            let symbols = pe
                .imports
                .iter()
                .filter(|i| i.dll.eq_ignore_ascii_case(lib))
                .map(|i| i.name.to_string())
                .collect();
            info.imports.push(Import {
                name: lib.to_string(),
                kind: ImportKind::Load,
                symbols,
            });
        }
        info.exports = pe
            .exports
            .iter()
            .enumerate()
            .map(|(i, e)| Export {
                name: e.name.map(String::from),
                ordinal: i as u32 + 1,
                forwarder: None,
            })
            .collect();
        Ok(info)
    } else {
        Err(BinaryError::NotBinary { path: shown })
    }
}
