//! CUDA toolkits: where they are (environment variables, registry, default folders, PATH,
//! XLA_FLAGS, conda prefixes), which version they are (version.json / version.txt, folder
//! name, cudart's file name, the string embedded in ptxas), and what they hold (library
//! folders and names, CUPTI, ptxas, nvcc, libdevice).

use super::tools;
use super::version_clues;
use super::walker::{Walker, is_cuda_library};
use crate::engine::context::Platform;
use crate::engine::inventory::{
    Cupti, FoundBy, ToolInfo, Toolkit, ToolkitKind, ToolkitReference, VersionEvidence,
    VersionSource,
};
use std::path::PathBuf;

/// The Windows installer's parent folder of every `vX.Y` toolkit.
pub const WINDOWS_TOOLKIT_PARENT: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA";
/// Registry key whose sub-keys (`v12.1`, ...) carry `InstallDir`.
pub const TOOLKIT_REGISTRY_KEY: &str =
    r"HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA";

/// Toolkits and the references to toolkit folders found on the machine.
pub fn scan(w: &mut Walker, run_tools: bool) -> (Vec<Toolkit>, Vec<ToolkitReference>) {
    let (candidates, references) = candidates(w);
    let mut toolkits: Vec<(PathBuf, Toolkit)> = Vec::new();
    for (root, found_by) in candidates {
        if w.should_stop(&root) {
            break;
        }
        let Some(key) = identity(w, &root) else {
            continue;
        };
        if let Some((_, t)) = toolkits.iter_mut().find(|(k, _)| *k == key) {
            if !t.found_by.contains(&found_by) {
                t.found_by.push(found_by);
            }
            if !w.platform().same_path(&t.root, &root)
                && !t.also_at.iter().any(|a| w.platform().same_path(a, &root))
            {
                // Keep the folder's real name as the root, the other spellings as aliases.
                let real = key.file_name().map(|n| n.to_string_lossy().into_owned());
                if real.as_deref() == Some(w.platform().file_name(&root))
                    && w.platform().file_name(&t.root) != real.as_deref().unwrap_or("")
                {
                    let old = std::mem::replace(&mut t.root, root);
                    t.also_at.push(old);
                } else {
                    t.also_at.push(root);
                }
            }
            continue;
        }
        if let Some(t) = examine(w, &root, ToolkitKind::Standalone, found_by, run_tools) {
            toolkits.push((key, t));
        }
    }
    (toolkits.into_iter().map(|(_, t)| t).collect(), references)
}

/// A host-side identity for a machine folder, so links and case variants collapse to one.
fn identity(w: &Walker, root: &str) -> Option<PathBuf> {
    if !w.is_dir(root) {
        return None;
    }
    let host = w.host(root)?;
    Some(std::fs::canonicalize(&host).unwrap_or(host))
}

/// Every folder that might be a toolkit, with how it was found, and every reference.
fn candidates(w: &mut Walker) -> (Vec<(String, FoundBy)>, Vec<ToolkitReference>) {
    let p = w.platform();
    let mut out = Vec::new();
    let mut refs = Vec::new();
    let env = &w.ctx.env;
    let mut vars: Vec<(String, String)> = Vec::new();
    for name in [
        "CUDA_PATH",
        "CUDA_HOME",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
    ] {
        if let Some(v) = env.get(name) {
            vars.push((name.to_string(), v.to_string()));
        }
    }
    for (k, v) in env.with_prefix("CUDA_PATH_V") {
        vars.push((k.to_string(), v.to_string()));
    }
    if let Some(flags) = env.get("XLA_FLAGS") {
        for part in flags.split_whitespace() {
            if let Some(dir) = part.strip_prefix("--xla_gpu_cuda_data_dir=") {
                vars.push(("XLA_FLAGS".to_string(), dir.trim_matches('"').to_string()));
            }
        }
    }
    for (name, value) in vars {
        let path = p.normalize(value.trim());
        if !p.is_absolute(&path) {
            continue;
        }
        let exists = w.is_dir(&path);
        refs.push(ToolkitReference {
            source: name.clone(),
            path: path.clone(),
            exists,
        });
        out.push((path, FoundBy::EnvVar { name }));
    }
    if p == Platform::Windows {
        for e in w.list(WINDOWS_TOOLKIT_PARENT) {
            if e.is_dir && e.name.to_ascii_lowercase().starts_with('v') {
                out.push((e.path, FoundBy::DefaultLocation));
            }
        }
        for sub in w.ctx.registry.subkeys(TOOLKIT_REGISTRY_KEY) {
            let key = format!("{TOOLKIT_REGISTRY_KEY}\\{sub}");
            if let Some(dir) = w.ctx.registry.value(&key, "InstallDir") {
                let path = p.normalize(dir.trim());
                let exists = w.is_dir(&path);
                refs.push(ToolkitReference {
                    source: format!("registry {key}"),
                    path: path.clone(),
                    exists,
                });
                out.push((
                    path,
                    FoundBy::Registry {
                        key,
                        value: "InstallDir".into(),
                    },
                ));
            }
        }
    } else {
        for parent in ["/usr/local", "/opt"] {
            for e in w.list(parent) {
                if e.is_dir && e.name.starts_with("cuda") {
                    out.push((e.path, FoundBy::DefaultLocation));
                }
            }
        }
    }
    let (nvcc, ptxas) = match p {
        Platform::Windows => ("nvcc.exe", "ptxas.exe"),
        Platform::Linux => ("nvcc", "ptxas"),
    };
    for entry in w.ctx.path_entries() {
        if entry.is_empty() || !p.is_absolute(&entry) {
            continue;
        }
        let dir = p.normalize(&entry);
        let lower = dir.to_ascii_lowercase();
        let looks_cuda = lower.contains("cuda") || lower.contains("gpu computing toolkit");
        let has_tool = w.is_file(&p.join(&dir, nvcc)) || w.is_file(&p.join(&dir, ptxas));
        if looks_cuda {
            refs.push(ToolkitReference {
                source: "PATH".into(),
                path: dir.clone(),
                exists: w.is_dir(&dir),
            });
        }
        if has_tool && let Some(root) = root_of_bin(p, &dir) {
            out.push((root, FoundBy::PathEntry { entry: dir }));
        }
    }
    (out, refs)
}

/// `...\v12.1\bin` → `...\v12.1`; `...\v13.0\bin\x64` → `...\v13.0`; `/usr/bin` → `/usr`.
fn root_of_bin(p: Platform, dir: &str) -> Option<String> {
    let mut d = dir.to_string();
    if p.file_name(&d).eq_ignore_ascii_case("x64") {
        d = p.parent(&d)?;
    }
    if p.file_name(&d).eq_ignore_ascii_case("bin") {
        p.parent(&d)
    } else {
        None
    }
}

/// Examines one toolkit folder; `None` when it holds nothing toolkit-like.
pub fn examine(
    w: &mut Walker,
    root: &str,
    kind: ToolkitKind,
    found_by: FoundBy,
    run_tools: bool,
) -> Option<Toolkit> {
    let p = w.platform();
    let j = |a: &str, b: &str| p.join(a, b);
    let mut evidence = Vec::new();
    let vjson = j(root, "version.json");
    if let Some(v) = w
        .read_text(&vjson, 1 << 20)
        .and_then(|t| version_clues::from_version_json(&t))
    {
        evidence.push(VersionEvidence {
            source: VersionSource::VersionJson,
            path: vjson,
            version: v,
        });
    }
    let vtxt = j(root, "version.txt");
    if let Some(v) = w
        .read_text(&vtxt, 64 << 10)
        .and_then(|t| version_clues::from_version_txt(&t))
    {
        evidence.push(VersionEvidence {
            source: VersionSource::VersionTxt,
            path: vtxt,
            version: v,
        });
    }
    if kind == ToolkitKind::Standalone
        && let Some(v) = version_clues::from_toolkit_folder(p.file_name(root))
    {
        evidence.push(VersionEvidence {
            source: VersionSource::FolderName,
            path: root.to_string(),
            version: v,
        });
    }
    let (bin_candidates, lib_candidates): (Vec<String>, Vec<String>) = match (p, kind) {
        (Platform::Windows, ToolkitKind::Standalone) => {
            let b = vec![j(root, "bin"), j(root, r"bin\x64")];
            (b.clone(), b)
        }
        (Platform::Windows, ToolkitKind::Conda) => {
            let b = vec![j(root, r"Library\bin"), j(root, r"Library\bin\x64")];
            (b.clone(), b)
        }
        (Platform::Linux, ToolkitKind::Standalone) if root == "/usr" => (
            vec!["/usr/bin".into()],
            vec!["/usr/lib/x86_64-linux-gnu".into()],
        ),
        (Platform::Linux, _) => (
            vec![j(root, "bin")],
            vec![
                j(root, "lib64"),
                j(root, "targets/x86_64-linux/lib"),
                j(root, "lib"),
            ],
        ),
    };
    let bin_dirs: Vec<String> = bin_candidates.into_iter().filter(|d| w.is_dir(d)).collect();
    let mut library_dirs = Vec::new();
    let mut libraries: Vec<String> = Vec::new();
    let mut seen_hosts = Vec::new();
    for dir in lib_candidates {
        if !w.is_dir(&dir) {
            continue;
        }
        let host = w.host(&dir).map(|h| std::fs::canonicalize(&h).unwrap_or(h));
        if host.is_some() && seen_hosts.contains(&host) {
            continue;
        }
        seen_hosts.push(host);
        let names: Vec<String> = w
            .list(&dir)
            .into_iter()
            .filter(|e| !e.is_dir && is_cuda_library(&e.name))
            .map(|e| e.name)
            .collect();
        if !names.is_empty() {
            library_dirs.push(dir);
            libraries.extend(names);
        }
    }
    libraries.sort();
    libraries.dedup();
    let exe = |name: &str| {
        if p == Platform::Windows {
            format!("{name}.exe")
        } else {
            name.to_string()
        }
    };
    let find_tool = |w: &mut Walker, name: &str| -> Option<ToolInfo> {
        let path = bin_dirs
            .iter()
            .map(|d| j(d, &exe(name)))
            .find(|f| w.is_file(f))?;
        Some(tools::tool_info(w, &path, run_tools))
    };
    let ptxas = find_tool(w, "ptxas");
    let nvcc = find_tool(w, "nvcc");
    if let Some(v) = ptxas
        .as_ref()
        .or(nvcc.as_ref())
        .and_then(|t| t.version.clone().map(|v| (t.path.clone(), v)))
    {
        evidence.push(VersionEvidence {
            source: VersionSource::ToolBinary,
            path: v.0,
            version: v.1,
        });
    }
    if let Some(name) = libraries
        .iter()
        .find(|n| version_clues::from_cudart_name(n).is_some())
    {
        let dir = library_dirs.first().cloned().unwrap_or_default();
        if let Some(v) = version_clues::from_cudart_name(name) {
            evidence.push(VersionEvidence {
                source: VersionSource::LibraryName,
                path: j(&dir, name),
                version: v,
            });
        }
    }
    let nvvm = if kind == ToolkitKind::Conda && p == Platform::Windows {
        j(root, r"Library\nvvm")
    } else {
        j(root, "nvvm")
    };
    let libdevice = [
        j(&nvvm, "libdevice/libdevice.10.bc"),
        j(root, r"DLLs\libdevice.10.bc"),
    ]
    .into_iter()
    .map(|f| p.normalize(&f))
    .find(|f| w.is_file(f));
    let cupti = find_cupti(w, root);
    if bin_dirs.is_empty() && library_dirs.is_empty() && evidence.is_empty() && cupti.is_none() {
        return None;
    }
    Some(Toolkit {
        root: root.to_string(),
        kind,
        version: evidence.first().map(|e| e.version.clone()),
        version_evidence: evidence,
        found_by: vec![found_by],
        also_at: Vec::new(),
        bin_dirs,
        library_dirs,
        libraries,
        cupti,
        ptxas,
        nvcc,
        libdevice,
    })
}

/// `extras/CUPTI/lib64`, or the pre-10.1 Windows `extras\CUPTI\libx64`.
fn find_cupti(w: &mut Walker, root: &str) -> Option<Cupti> {
    let p = w.platform();
    for (sub, legacy) in [("extras/CUPTI/lib64", false), ("extras/CUPTI/libx64", true)] {
        let dir = p.normalize(&p.join(root, sub));
        if !w.is_dir(&dir) {
            continue;
        }
        let libraries = w
            .list(&dir)
            .into_iter()
            .filter(|e| !e.is_dir && e.name.to_ascii_lowercase().contains("cupti"))
            .map(|e| e.name)
            .collect();
        return Some(Cupti {
            dir,
            legacy_libx64: legacy,
            libraries,
        });
    }
    None
}
