//! cuDNN copies: standalone installs (`C:\Program Files\NVIDIA\CUDNN\v*`, TensorFlow's guide's
//! `C:\tools\cuda`, the distribution's
//! `/usr/lib/x86_64-linux-gnu/libcudnn*` with `/usr/include/cudnn_version*.h`), copies inside a
//! toolkit, and (from the Python stage) pip/conda/bundled copies. Version from the header's
//! CUDNN_MAJOR/MINOR/PATCHLEVEL or the library name; every `zlibwapi.dll` with its bitness,
//! read from the PE header with a bounded 4 KiB read. Layout: cuDNN 8.0.0 release notes, cuDNN 9
//! API overview; zlibwapi.dll: conda-forge/cudnn-feedstock's cuDNN 8.3.2 recipe.

use super::version_clues;
use super::walker::Walker;
use crate::engine::context::Platform;
use crate::engine::inventory::{
    CudnnInstall, CudnnSource, Toolkit, VersionEvidence, VersionSource, ZlibWapi,
};

/// Parent of the Windows cuDNN installer's `v8.9`, `v9.1` folders.
pub const WINDOWS_CUDNN_PARENT: &str = r"C:\Program Files\NVIDIA\CUDNN";

/// Where TensorFlow's Windows GPU guide (up to 2.10, the last native Windows GPU release) has
/// cuDNN's zip unpacked: "SET PATH=C:\tools\cuda\bin;%PATH%"
/// (https://github.com/tensorflow/docs/blob/bfde3c234766fb69317de10b5bfbbc1e762cfaf2/site/en/install/gpu.md,
/// "Windows setup").
pub const WINDOWS_TF_GUIDE_CUDNN: &str = r"C:\tools\cuda";

/// Standalone copies and copies inside the given toolkits.
pub fn scan(w: &mut Walker, toolkits: &[Toolkit]) -> Vec<CudnnInstall> {
    let p = w.platform();
    let mut out = Vec::new();
    let mut roots: Vec<String> = Vec::new();
    for var in ["CUDNN_PATH", "CUDNN_HOME", "CUDNN_ROOT"] {
        if let Some(v) = w.ctx.env.get(var) {
            roots.push(p.normalize(v.trim()));
        }
    }
    match p {
        Platform::Windows => {
            roots.push(WINDOWS_TF_GUIDE_CUDNN.into());
            for e in w.list(WINDOWS_CUDNN_PARENT) {
                if e.is_dir {
                    roots.push(e.path);
                }
            }
            roots.retain(|r| w.is_dir(r));
            roots.dedup_by(|a, b| p.same_path(a, b));
            for root in roots {
                let mut dirs = vec![p.join(&root, "bin")];
                for e in w.list(&p.join(&root, "bin")) {
                    if e.is_dir {
                        dirs.push(e.path.clone());
                        dirs.extend(
                            w.list(&e.path)
                                .into_iter()
                                .filter(|s| s.is_dir)
                                .map(|s| s.path),
                        );
                    }
                }
                let mut headers = vec![
                    p.join(&root, r"include\cudnn_version.h"),
                    p.join(&root, r"include\cudnn.h"),
                ];
                for e in w.list(&p.join(&root, "include")) {
                    if e.is_dir {
                        headers.push(p.join(&e.path, "cudnn_version.h"));
                    }
                }
                if let Some(c) = install(w, &root, CudnnSource::Standalone, &dirs, &headers) {
                    out.push(c);
                }
            }
        }
        Platform::Linux => {
            let dirs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"].map(String::from);
            let mut headers: Vec<String> = ["/usr/include/cudnn_version.h", "/usr/include/cudnn.h"]
                .map(String::from)
                .to_vec();
            for e in w.list("/usr/include/x86_64-linux-gnu") {
                if e.name.starts_with("cudnn_version") {
                    headers.push(e.path);
                }
            }
            if let Some(c) = install(w, "/usr", CudnnSource::Standalone, &dirs, &headers) {
                out.push(c);
            }
            roots.retain(|r| w.is_dir(r));
            for root in roots {
                let dirs = [p.join(&root, "lib"), p.join(&root, "lib64")];
                let headers = [
                    p.join(&root, "include/cudnn_version.h"),
                    p.join(&root, "include/cudnn.h"),
                ];
                if let Some(c) = install(w, &root, CudnnSource::Standalone, &dirs, &headers) {
                    out.push(c);
                }
            }
        }
    }
    for t in toolkits {
        let headers = [
            p.join(&t.root, "include/cudnn_version.h"),
            p.join(&t.root, "include/cudnn.h"),
        ]
        .map(|h| p.normalize(&h));
        let source = CudnnSource::InsideToolkit {
            toolkit: t.root.clone(),
        };
        if let Some(c) = install(w, &t.root, source, &t.library_dirs, &headers) {
            out.push(c);
        }
    }
    out
}

/// Builds an install from library folders and candidate headers; `None` without any library.
pub fn install(
    w: &mut Walker,
    root: &str,
    source: CudnnSource,
    dirs: &[String],
    headers: &[String],
) -> Option<CudnnInstall> {
    let p = w.platform();
    let mut library_dirs = Vec::new();
    let mut libraries = Vec::new();
    let mut zlib = None;
    for dir in dirs {
        let dir = p.normalize(dir);
        if library_dirs.contains(&dir) {
            continue;
        }
        let entries = w.list(&dir);
        let names: Vec<String> = entries
            .iter()
            .filter(|e| !e.is_dir && is_cudnn_library(&e.name))
            .map(|e| e.name.clone())
            .collect();
        if names.is_empty() {
            continue;
        }
        if zlib.is_none()
            && let Some(z) = entries
                .iter()
                .find(|e| e.name.eq_ignore_ascii_case("zlibwapi.dll"))
        {
            zlib = Some(zlibwapi(w, &z.path));
        }
        library_dirs.push(dir);
        libraries.extend(names);
    }
    if libraries.is_empty() {
        return None;
    }
    let mut evidence = Vec::new();
    for h in headers {
        let h = p.normalize(h);
        if let Some(v) = w
            .read_text(&h, 1 << 20)
            .and_then(|t| version_clues::from_cudnn_header(&t))
        {
            evidence.push(VersionEvidence {
                source: VersionSource::Header(p.file_name(&h).to_string()),
                path: h,
                version: v,
            });
            break;
        }
    }
    // The most precise library name wins (libcudnn.so.8.9.7 over cudnn64_8.dll).
    let by_name = libraries
        .iter()
        .filter_map(|n| version_clues::from_cudnn_name(n).map(|v| (n, v)))
        .max_by_key(|(_, v)| v.len());
    if let Some((name, v)) = by_name {
        let dir = library_dirs.first().cloned().unwrap_or_default();
        evidence.push(VersionEvidence {
            source: VersionSource::LibraryName,
            path: p.join(&dir, name),
            version: v,
        });
    }
    Some(CudnnInstall {
        root: root.to_string(),
        source,
        version: evidence.first().map(|e| e.version.clone()),
        version_evidence: evidence,
        library_dirs,
        libraries,
        zlibwapi: zlib,
    })
}

/// `cudnn64_8.dll`, `cudnn_cnn_infer64_8.dll`, `libcudnn.so.9`, `libcudnn_ops.so.9.1.0`.
pub fn is_cudnn_library(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    (lower.starts_with("cudnn") && lower.ends_with(".dll"))
        || (lower.starts_with("libcudnn") && lower.contains(".so"))
}

/// Every `zlibwapi.dll` in the folders a Windows process may search, plus those next to cuDNN.
pub fn find_zlibwapi(
    w: &mut Walker,
    toolkits: &[Toolkit],
    cudnn: &[CudnnInstall],
) -> Vec<ZlibWapi> {
    let p = w.platform();
    if p != Platform::Windows {
        return Vec::new();
    }
    let mut dirs: Vec<String> = vec![r"C:\Windows\System32".into(), r"C:\Windows\SysWOW64".into()];
    dirs.extend(
        w.ctx
            .path_entries()
            .into_iter()
            .filter(|e| p.is_absolute(e)),
    );
    dirs.extend(toolkits.iter().flat_map(|t| t.library_dirs.iter().cloned()));
    dirs.extend(cudnn.iter().flat_map(|c| c.library_dirs.iter().cloned()));
    let mut out: Vec<ZlibWapi> = Vec::new();
    for dir in dirs {
        let file = p.normalize(&p.join(&dir, "zlibwapi.dll"));
        if out.iter().any(|z| p.same_path(&z.path, &file)) || !w.is_file(&file) {
            continue;
        }
        out.push(zlibwapi(w, &file));
    }
    out
}

fn zlibwapi(w: &mut Walker, path: &str) -> ZlibWapi {
    let machine = w.read_bytes(path, 4096, true).and_then(|b| pe_machine(&b));
    ZlibWapi {
        path: path.to_string(),
        machine: machine.map(|(m, _)| m.to_string()),
        bits: machine.map(|(_, b)| b),
    }
}

/// The machine field of a PE header (`IMAGE_FILE_HEADER.Machine`) in the first bytes of a file:
/// `x64`/64, `x86`/32, `arm64`/64. `None` when the bytes are not a PE image.
pub fn pe_machine(head: &[u8]) -> Option<(&'static str, u8)> {
    if head.get(..2)? != b"MZ" {
        return None;
    }
    let lfanew = u32::from_le_bytes(head.get(0x3c..0x40)?.try_into().ok()?) as usize;
    if head.get(lfanew..lfanew.checked_add(4)?)? != b"PE\0\0" {
        return None;
    }
    let at = lfanew.checked_add(4)?;
    let machine = u16::from_le_bytes(head.get(at..at + 2)?.try_into().ok()?);
    match machine {
        0x8664 => Some(("x64", 64)),
        0x014c => Some(("x86", 32)),
        0xaa64 => Some(("arm64", 64)),
        _ => None,
    }
}

/// A minimal PE header with the given machine field (for fixtures and tests).
#[cfg(test)]
pub fn fake_pe(machine: u16) -> Vec<u8> {
    let mut b = vec![0u8; 512];
    b[0] = b'M';
    b[1] = b'Z';
    b[0x3c..0x40].copy_from_slice(&0x80u32.to_le_bytes());
    b[0x80..0x84].copy_from_slice(b"PE\0\0");
    b[0x84..0x86].copy_from_slice(&machine.to_le_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_machine_reads_bitness_and_survives_garbage() {
        assert_eq!(pe_machine(&fake_pe(0x8664)), Some(("x64", 64)));
        assert_eq!(pe_machine(&fake_pe(0x14c)), Some(("x86", 32)));
        assert_eq!(pe_machine(b"MZ"), None);
        assert_eq!(pe_machine(b""), None);
        let mut bad = fake_pe(0x8664);
        bad[0x3c..0x40].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(pe_machine(&bad), None);
        assert_eq!(pe_machine(&[b'M', b'Z', 0, 0]), None);
    }

    #[test]
    fn cudnn_names() {
        assert!(is_cudnn_library("cudnn_cnn_infer64_8.dll"));
        assert!(is_cudnn_library("libcudnn.so.9"));
        assert!(!is_cudnn_library("cudnn.h"));
    }
}
