//! Tree findings on fake machines whose "binaries" are JSON `BinaryInfo` files read by a test
//! reader, so every rule runs through the real graph walk without a compiler.

use super::*;
use crate::engine::binfmt::{BinaryError, BinaryInfo, Export, Format, VersionNeed};
use crate::engine::context::machine_file;
use crate::engine::graph::{GraphOptions, Reader, build_with};
use crate::engine::loader::testing::binary;
use std::path::Path;

fn json_reader(p: &Path) -> Result<BinaryInfo, BinaryError> {
    let bytes = std::fs::read(p).map_err(|e| BinaryError::Open {
        path: p.display().to_string(),
        message: e.to_string(),
    })?;
    serde_json::from_slice(&bytes).map_err(|_| BinaryError::NotBinary {
        path: p.display().to_string(),
    })
}

fn put(root: &Path, rel: &str, info: &BinaryInfo) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec(info).unwrap()).unwrap();
}

fn windows_machine(dir: &Path, path_var: &str) -> SystemContext {
    let toml = dir.join("machine.toml");
    std::fs::write(
        &toml,
        format!("platform = \"windows\"\n[drives]\nC = \"C\"\n[env]\nPATH = '{path_var}'\n"),
    )
    .unwrap();
    machine_file::load(&toml).unwrap()
}

#[test]
fn deep_miss_wrong_machine_and_copies_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("C");
    put(
        &c,
        "App/app.exe",
        &binary(Format::Pe, "x86_64", 64, &["cudnn64_8.dll"]),
    );
    put(
        &c,
        "App/cudnn64_8.dll",
        &binary(Format::Pe, "x86_64", 64, &["cublasLt64_11.dll"]),
    );
    // Only a 32-bit zlibwapi on PATH; cublasLt sits in a toolkit folder not on PATH.
    put(
        &c,
        "Tools/zlibwapi.dll",
        &binary(Format::Pe, "i386", 32, &[]),
    );
    put(
        &c,
        "Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.8/bin/cublasLt64_11.dll",
        &binary(Format::Pe, "x86_64", 64, &[]),
    );
    std::fs::create_dir_all(c.join("Windows/System32")).unwrap();
    put(
        &c,
        "Windows/System32/nvcuda.dll",
        &binary(Format::Pe, "x86_64", 64, &[]),
    );
    let ctx = windows_machine(dir.path(), r"C:\Tools");
    let graph = build_with(
        &ctx,
        r"C:\App\app.exe",
        &GraphOptions::default(),
        Reader::Custom(json_reader),
    )
    .unwrap();
    let findings = check(&ctx, &graph);
    let missing = findings
        .iter()
        .find(|f| f.code == "library-not-found")
        .expect("cublasLt missing");
    assert_eq!(missing.libraries, vec!["cublasLt64_11.dll"]);
    assert!(
        missing.summary.contains("app.exe cannot load"),
        "{}",
        missing.summary
    );
    assert!(
        missing
            .detail
            .contains("app.exe → cudnn64_8.dll → cublasLt64_11.dll")
    );
    assert!(missing.evidence.iter().any(|e| {
        e.kind == "file"
            && e.path
                .as_deref()
                .is_some_and(|p| p.contains(r"CUDA\v11.8\bin"))
    }));
    let wrong = findings
        .iter()
        .find(|f| f.code == "library-wrong-machine")
        .expect("zlibwapi 32-bit");
    // cuDNN 8 opens zlibwapi.dll at run time (no import table names it): the 193 comes at the
    // first convolution, so it is a warning (runtime_loads.toml, rules/cudnn_zlib.rs).
    assert_eq!(wrong.severity, Severity::Warning);
    assert!(wrong.detail.contains("193"));
    assert!(
        findings
            .iter()
            .all(|f| !f.libraries.contains(&"nvcuda.dll".to_string()))
    );
}

#[test]
fn missing_exports_versions_and_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("C");
    let mut app = binary(
        Format::Pe,
        "x86_64",
        64,
        &["cudart64_110.dll", "helper.dll"],
    );
    app.imports[0].symbols = vec!["cudaMalloc".into(), "cudaNew".into(), "#7".into()];
    put(&c, "App/app.exe", &app);
    let mut cudart = binary(Format::Pe, "x86_64", 64, &[]);
    cudart.exports = vec![
        Export {
            name: Some("cudaMalloc".into()),
            ordinal: 1,
            forwarder: None,
        },
        Export {
            name: None,
            ordinal: 7,
            forwarder: None,
        },
    ];
    put(&c, "App/cudart64_110.dll", &cudart);
    put(
        &c,
        "App/helper.dll",
        &binary(Format::Pe, "x86_64", 64, &[r"C:\Other\cudart64_12.dll"]),
    );
    put(
        &c,
        "Other/cudart64_12.dll",
        &binary(Format::Pe, "x86_64", 64, &[]),
    );
    let ctx = windows_machine(dir.path(), "");
    let opts = GraphOptions {
        runtime: false,
        ..GraphOptions::default()
    };
    let graph = build_with(&ctx, r"C:\App\app.exe", &opts, Reader::Custom(json_reader)).unwrap();
    let findings = check(&ctx, &graph);
    let exp = findings
        .iter()
        .find(|f| f.code == "missing-export")
        .expect("127");
    assert_eq!(exp.evidence[0].text, "cudaNew");
    let dup = findings
        .iter()
        .find(|f| f.code == "duplicate-library")
        .expect("two cudarts");
    assert_eq!(dup.evidence.len(), 2);

    let mut parent = binary(Format::Elf, "x86_64", 64, &["libc.so.6"]);
    parent.version_needs = vec![VersionNeed {
        library: "libc.so.6".into(),
        versions: vec!["GLIBC_2.2.5".into(), "GLIBC_2.99".into()],
    }];
    let mut libc = binary(Format::Elf, "x86_64", 64, &[]);
    libc.version_definitions = vec!["GLIBC_2.2.5".into(), "GLIBC_2.34".into()];
    assert_eq!(
        exports::missing_versions(&parent, &libc, "libc.so.6"),
        vec!["GLIBC_2.99"]
    );
    libc.version_definitions = Vec::new();
    assert!(exports::missing_versions(&parent, &libc, "libc.so.6").is_empty());
}

/// A system DLL lacking what a program imports is an old Windows (python312.dll's `CopyFile2`
/// from a KERNEL32 without it: Windows 7's, or Wine 8.0's, as the import oracle sees), while an
/// NVIDIA DLL someone copied into System32 is still mixed versions.
#[test]
fn a_windows_component_lacking_exports_is_an_old_windows_not_mixed_versions() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("C");
    let mut python = binary(
        Format::Pe,
        "x86_64",
        64,
        &["KERNEL32.dll", "cudart64_110.dll"],
    );
    python.imports[0].symbols = vec!["CreateFileW".into(), "CopyFile2".into()];
    python.imports[1].symbols = vec!["cudaMalloc".into(), "cudaNew".into()];
    put(&c, "Python312/python312.dll", &python);
    let export = |name: &str| Export {
        name: Some(name.into()),
        ordinal: 1,
        forwarder: None,
    };
    let mut kernel32 = binary(Format::Pe, "x86_64", 64, &[]);
    kernel32.exports = vec![export("CreateFileW")];
    put(&c, "Windows/System32/KERNEL32.dll", &kernel32);
    let mut cudart = binary(Format::Pe, "x86_64", 64, &[]);
    cudart.exports = vec![export("cudaMalloc")];
    put(&c, "Windows/System32/cudart64_110.dll", &cudart);
    let ctx = windows_machine(dir.path(), "");
    let opts = GraphOptions {
        runtime: false,
        ..GraphOptions::default()
    };
    let graph = build_with(
        &ctx,
        r"C:\Python312\python312.dll",
        &opts,
        Reader::Custom(json_reader),
    )
    .unwrap();
    let findings = check(&ctx, &graph);
    let about = |lib: &str| {
        findings
            .iter()
            .find(|f| f.code == "missing-export" && f.summary.starts_with(lib))
            .unwrap_or_else(|| panic!("a missing-export finding about {lib}: {findings:#?}"))
    };
    let kernel = about("KERNEL32.dll");
    assert_eq!(kernel.evidence[0].text, "CopyFile2");
    assert!(
        kernel.detail.contains("part of Windows"),
        "{}",
        kernel.detail
    );
    assert!(kernel.detail.contains("newer Windows"), "{}", kernel.detail);
    let copied = about("cudart64_110.dll");
    assert!(
        copied.detail.contains("built against a different version"),
        "{}",
        copied.detail
    );
}

#[test]
fn stems() {
    assert_eq!(
        cuda_stem(Platform::Linux, "libcudart.so.12").as_deref(),
        Some("cudart")
    );
    assert_eq!(
        cuda_stem(Platform::Windows, "cublasLt64_12.dll").as_deref(),
        Some("cublaslt")
    );
    assert_eq!(
        cuda_stem(Platform::Windows, "cudart32_110.dll").as_deref(),
        Some("cudart")
    );
    assert_eq!(
        cuda_stem(Platform::Windows, "nvrtc64_120_0.dll").as_deref(),
        Some("nvrtc")
    );
    assert_eq!(cuda_stem(Platform::Windows, "kernel32.dll"), None);
}
