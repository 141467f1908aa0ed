//! Oracles: what binutils says about a binary (`x86_64-w64-mingw32-objdump -p`, `readelf -d`,
//! `readelf -V`, `readelf --dyn-syms`), parsed just enough to compare with our parser.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn output(tool: &str, args: &[&str], path: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{tool} (oracle) cannot run: {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?} {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Load-time imports as objdump lists them: DLL name and its by-name symbols.
pub fn objdump_imports(path: &Path) -> Vec<(String, BTreeSet<String>)> {
    let text = output("x86_64-w64-mingw32-objdump", &["-p"], path);
    let mut out: Vec<(String, BTreeSet<String>)> = Vec::new();
    let mut in_imports = false;
    for line in text.lines() {
        if line.starts_with("The Import Tables") {
            in_imports = true;
        } else if line.starts_with("The ") {
            in_imports = false;
        } else if !in_imports {
            continue;
        } else if let Some(name) = line.trim().strip_prefix("DLL Name: ") {
            out.push((name.to_owned(), BTreeSet::new()));
        } else if line.starts_with('\t') && !line.contains("Member-Name") {
            // "\t8186\t    1  fake_fn": vma, hint, name (ordinal imports have no name).
            let fields: Vec<&str> = line.split_whitespace().collect();
            if let (Some(last), Some((_, syms))) = (fields.get(2), out.last_mut()) {
                syms.insert((*last).to_owned());
            }
        }
    }
    out
}

/// Names in the export name-pointer table.
pub fn objdump_export_names(path: &Path) -> BTreeSet<String> {
    let text = output("x86_64-w64-mingw32-objdump", &["-p"], path);
    let mut names = BTreeSet::new();
    let mut in_names = false;
    for line in text.lines() {
        if line.starts_with("[Ordinal/Name Pointer] Table") {
            in_names = true;
        } else if in_names {
            match line.trim().split_once("] ") {
                Some((_, name)) if line.trim_start().starts_with('[') => {
                    names.insert(name.trim().to_owned());
                }
                _ => in_names = false,
            }
        }
    }
    names
}

#[derive(Debug, Default)]
pub struct Dynamic {
    pub soname: Option<String>,
    pub needed: Vec<String>,
    pub rpath: Vec<String>,
    pub runpath: Vec<String>,
    pub nodeflib: bool,
}

fn bracketed(line: &str) -> Option<String> {
    let start = line.find('[')?;
    let end = line.rfind(']')?;
    Some(line[start + 1..end].to_owned())
}

pub fn readelf_dynamic(path: &Path) -> Dynamic {
    let text = output("readelf", &["-dW"], path);
    let mut d = Dynamic::default();
    for line in text.lines() {
        let value = bracketed(line);
        if line.contains("(NEEDED)") {
            d.needed.extend(value);
        } else if line.contains("(SONAME)") {
            d.soname = value;
        } else if line.contains("(RPATH)") {
            d.rpath
                .extend(value.iter().flat_map(|v| v.split(':').map(str::to_owned)));
        } else if line.contains("(RUNPATH)") {
            d.runpath
                .extend(value.iter().flat_map(|v| v.split(':').map(str::to_owned)));
        } else if line.contains("(FLAGS_1)") && line.contains("NODEFLIB") {
            d.nodeflib = true;
        }
    }
    d
}

/// `.gnu.version_r`: (file, version names) in order.
pub fn readelf_version_needs(path: &Path) -> Vec<(String, Vec<String>)> {
    let text = output("readelf", &["-VW"], path);
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_needs = false;
    for line in text.lines() {
        if line.starts_with("Version needs section") {
            in_needs = true;
        } else if line.starts_with("Version ") {
            in_needs = false;
        } else if in_needs {
            if let Some(at) = line.find("File: ") {
                let file = line[at + 6..].split_whitespace().next().unwrap_or("");
                out.push((file.to_owned(), Vec::new()));
            } else if let Some(at) = line.find("Name: ") {
                let name = line[at + 6..].split_whitespace().next().unwrap_or("");
                if let Some((_, versions)) = out.last_mut() {
                    versions.push(name.to_owned());
                }
            }
        }
    }
    out
}

/// Version names defined in `.gnu.version_d`, without the BASE entry (the file's own name).
pub fn readelf_version_definitions(path: &Path) -> Vec<String> {
    let text = output("readelf", &["-VW"], path);
    let mut out = Vec::new();
    let mut in_defs = false;
    for line in text.lines() {
        if line.starts_with("Version definition section") {
            in_defs = true;
        } else if line.starts_with("Version ") {
            in_defs = false;
        } else if in_defs
            && !line.contains("Flags: BASE")
            && let Some(at) = line.find("Name: ")
        {
            out.push(line[at + 6..].trim().to_owned());
        }
    }
    out
}

/// Defined global/weak/unique dynamic symbols, without `@VERSION` suffixes.
pub fn readelf_defined_dynsyms(path: &Path) -> BTreeSet<String> {
    let text = output("readelf", &["--dyn-syms", "-W"], path);
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Num: Value Size Type Bind Vis Ndx Name
        if f.len() < 8 || !f[0].ends_with(':') || f[6] == "UND" {
            continue;
        }
        if !matches!(f[4], "GLOBAL" | "WEAK" | "UNIQUE") || matches!(f[3], "SECTION" | "FILE") {
            continue;
        }
        let name = f[7].split('@').next().unwrap_or("");
        if !name.is_empty() {
            names.insert(name.to_owned());
        }
    }
    names
}
