//! The PE/ELF parsers against real artefacts: fixtures built here with gcc and mingw-w64
//! (exact SONAME/NEEDED/RPATH/RUNPATH, imports, delay imports, exports, VERSIONINFO), and real
//! NVIDIA binaries from PyPI wheels. Facts are checked against oracles (`objdump -p`,
//! `readelf -d/-V/--dyn-syms`) or against the wheel's own version, not typed in by hand.

mod oracle;
mod real;

use crate::fixtures_build::{DllSpec, PeArch, SoSpec, tool_available};
use crate::wheels::{WheelPlatform, wheel_member};
use cuda_triage::engine::binfmt::{
    BinaryError, BinaryInfo, Format, ImportKind, parse_bytes, read_binary,
};
use std::collections::BTreeSet;
use std::path::Path;

const CUDART12: (&str, &str) = ("nvidia-cuda-runtime-cu12", "12.9.79");
const CUDART11: (&str, &str) = ("nvidia-cuda-runtime-cu11", "11.8.89");
const CUPTI12: (&str, &str) = ("nvidia-cuda-cupti-cu12", "12.8.90");
const NVJITLINK_WIN: (&str, &str) = ("nvidia-nvjitlink-cu12", "12.9.86");
const NVJITLINK_LINUX: (&str, &str) = ("nvidia-nvjitlink-cu12", "12.6.85");
const NVRTC12: (&str, &str) = ("nvidia-cuda-nvrtc-cu12", "12.4.127");

fn read(path: &Path) -> BinaryInfo {
    read_binary(path).unwrap_or_else(|e| panic!("{e}"))
}

fn import_names(info: &BinaryInfo, kind: ImportKind) -> Vec<&str> {
    let it = info.imports.iter().filter(|i| i.kind == kind);
    it.map(|i| i.name.as_str()).collect()
}

/// Our imports (load-time) equal objdump's, DLL by DLL, named symbols included.
fn assert_imports_match_objdump(path: &Path, info: &BinaryInfo) {
    let ours: Vec<(String, BTreeSet<String>)> = info
        .load_imports()
        .map(|i| {
            let named = i.symbols.iter().filter(|s| !s.starts_with('#')).cloned();
            (i.name.clone(), named.collect())
        })
        .collect();
    assert_eq!(ours, oracle::objdump_imports(path), "{}", path.display());
}

fn assert_exports_match_objdump(path: &Path, info: &BinaryInfo) {
    let ours: BTreeSet<String> = info.exports.iter().filter_map(|e| e.name.clone()).collect();
    assert_eq!(
        ours,
        oracle::objdump_export_names(path),
        "{}",
        path.display()
    );
}

fn assert_elf_matches_readelf(path: &Path, info: &BinaryInfo) {
    let d = oracle::readelf_dynamic(path);
    assert_eq!(info.soname, d.soname, "{}", path.display());
    assert_eq!(import_names(info, ImportKind::Load), d.needed);
    assert_eq!(info.rpath, d.rpath);
    assert_eq!(info.runpath, d.runpath);
    assert_eq!(info.nodeflib, d.nodeflib);
    let needs: Vec<(String, Vec<String>)> = info
        .version_needs
        .iter()
        .map(|n| (n.library.clone(), n.versions.clone()))
        .collect();
    assert_eq!(needs, oracle::readelf_version_needs(path));
    assert_eq!(
        info.version_definitions,
        oracle::readelf_version_definitions(path),
        "{}",
        path.display()
    );
    let syms: BTreeSet<String> = info.dynamic_symbols.iter().cloned().collect();
    assert_eq!(syms, oracle::readelf_defined_dynsyms(path));
}

#[test]
fn elf_fixture_rpath_needed_soname_nodeflib() {
    let dir = tempfile::tempdir().unwrap();
    let so = SoSpec::new("libfix.so.1.2.3")
        .soname("libfix.so.1")
        .needed("libbar.so.2")
        .needed("libcudart.so.12")
        .rpath(&["$ORIGIN/../lib", "", "/opt/cuda/lib64"])
        .nodeflib()
        .source("#include <stdio.h>\nconst char *fix_lib = \"libcublasLt.so.12\";\nint fix_fn(void) { return puts(fix_lib); }\n")
        .build(dir.path())
        .unwrap();
    let info = read(&so);
    assert_eq!(info.format, Format::Elf);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        ("x86_64", 64)
    );
    assert_eq!(info.soname.as_deref(), Some("libfix.so.1"));
    assert_eq!(
        &import_names(&info, ImportKind::Load)[..2],
        ["libbar.so.2", "libcudart.so.12"]
    );
    assert_eq!(info.rpath, ["$ORIGIN/../lib", "", "/opt/cuda/lib64"]);
    assert!(info.runpath.is_empty());
    assert!(info.nodeflib);
    assert!(info.exports_symbol("fix_fn"));
    assert_eq!(info.embedded_library_names, ["libcublasLt.so.12"]);
    assert!(
        info.version_needs
            .iter()
            .any(|n| n.library == "libc.so.6"
                && n.versions.iter().any(|v| v.starts_with("GLIBC_2.")))
    );
    // A version from the file name beats the SONAME's `1`.
    assert_eq!(info.version.version.as_deref(), Some("1.2.3"));
    assert_elf_matches_readelf(&so, &info);
}

#[test]
fn elf_fixture_runpath_and_executable() {
    let dir = tempfile::tempdir().unwrap();
    let so = SoSpec::new("libr.so")
        .needed("libz.so.1")
        .runpath(&["$ORIGIN", "/a:b"])
        .build(dir.path())
        .unwrap();
    let info = read(&so);
    assert!(info.rpath.is_empty() && info.soname.is_none() && !info.nodeflib);
    assert_eq!(info.runpath, ["$ORIGIN", "/a", "b"]);
    assert_elf_matches_readelf(&so, &info);
    let exe = SoSpec::new("app")
        .executable()
        .needed("libr.so")
        .source("int main(void) { return 0; }\n")
        .build(dir.path())
        .unwrap();
    let info = read(&exe);
    assert_eq!(import_names(&info, ImportKind::Load)[0], "libr.so");
    assert_elf_matches_readelf(&exe, &info);
}

#[test]
fn elf_fixture_32bit() {
    let dir = tempfile::tempdir().unwrap();
    let built = SoSpec::new("libm32.so")
        .m32()
        .soname("libm32.so")
        .needed("libdep32.so.3")
        .build(dir.path());
    let so = match built {
        Ok(p) => p,
        Err(e) => {
            panic!("`gcc -m32` cannot link here (install gcc-multilib): {e}");
        }
    };
    let info = read(&so);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        ("i386", 32)
    );
    assert_eq!(import_names(&info, ImportKind::Load), ["libdep32.so.3"]);
    assert_elf_matches_readelf(&so, &info);
}

/// The system C library: hundreds of symbols and dozens of version definitions (GLIBC_2.2.5 ...),
/// all of which must match readelf; a headers-only read keeps the definitions, drops the symbols.
#[test]
fn system_libc_matches_readelf() {
    let libc = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib64/libc.so.6",
        "/lib64/libc.so.6",
    ]
    .into_iter()
    .map(Path::new)
    .find(|p| p.exists())
    .expect("a libc.so.6 on this x86_64 host");
    let info = read(libc);
    assert!(info.version_definitions.iter().any(|v| v == "GLIBC_2.2.5"));
    assert_elf_matches_readelf(libc, &info);
    let headers = cuda_triage::engine::binfmt::read_binary_headers(libc).unwrap();
    assert_eq!(headers.version_definitions, info.version_definitions);
    assert!(headers.dynamic_symbols.is_empty());
}

fn full_dll(arch: PeArch, dir: &Path) -> std::path::PathBuf {
    DllSpec::new("fixture64_9.dll")
        .arch(arch)
        .import("fakelib.dll", &["fake_fn", "fake_other"])
        .import("zlibwapi.dll", &["inflate"])
        .delay_import("lazylib.dll", &["lazy_fn", "lazy_two"])
        .export("use_it", Some(5))
        .export("plain", None)
        .export_by_ordinal("byord", 9)
        .export_forwarder("Fwd", "KERNEL32.GetTickCount")
        .version_field("CompanyName", "Fixture Corp")
        .version_field("FileVersion", "6,14,11,12090")
        .version_field("ProductName", "Fixture CUDA 12.9.79 Runtime")
        .version_field("OriginalFilename", "FIXTURE64_129_79.DLL")
        .fixed_file_version([6, 14, 11, 12090])
        .extra_source(
            "__declspec(dllexport) const char *names[] = { \"cudnn_ops_infer64_8.dll\", \"not a dll\" };\n\
             __declspec(dllexport) const unsigned short *wide = u\"cublasLt64_12.dll\";\n",
        )
        .build(dir)
        .unwrap()
}

fn check_full_dll(path: &Path, arch: &str, bits: u8) {
    let info = read(path);
    assert_eq!(info.format, Format::Pe);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        (arch, bits)
    );
    assert_eq!(
        &import_names(&info, ImportKind::Load)[..2],
        ["fakelib.dll", "zlibwapi.dll"]
    );
    assert_eq!(info.imports[0].symbols, ["fake_fn", "fake_other"]);
    let delayed: Vec<_> = info.delay_imports().collect();
    assert_eq!(delayed.len(), 1, "{:?}", info.imports);
    assert_eq!(delayed[0].name, "lazylib.dll");
    assert_eq!(delayed[0].symbols, ["lazy_fn", "lazy_two"]);
    let by_name = |n: &str| info.exports.iter().find(|e| e.name.as_deref() == Some(n));
    assert_eq!(by_name("use_it").map(|e| e.ordinal), Some(5));
    assert!(by_name("plain").is_some_and(|e| e.forwarder.is_none()));
    assert_eq!(
        by_name("Fwd").and_then(|e| e.forwarder.as_deref()),
        Some("KERNEL32.GetTickCount")
    );
    assert!(
        info.exports
            .iter()
            .any(|e| e.ordinal == 9 && e.name.is_none())
    );
    assert_eq!(info.version.version.as_deref(), Some("12.9.79"));
    assert_eq!(info.version.source.map(|s| s.as_str()), Some("ProductName"));
    assert_eq!(info.version.fields["CompanyName"], "Fixture Corp");
    assert_eq!(info.version.fields["FixedFileVersion"], "6.14.11.12090");
    assert_eq!(
        info.embedded_library_names,
        ["cudnn_ops_infer64_8.dll", "cublasLt64_12.dll"]
    );
    assert_imports_match_objdump(path, &info);
    assert_exports_match_objdump(path, &info);
}

#[test]
fn pe_fixture_x86_64_imports_delay_exports_version() {
    let dir = tempfile::tempdir().unwrap();
    let dll = full_dll(PeArch::X86_64, dir.path());
    check_full_dll(&dll, "x86_64", 64);
}

/// GNU ld may align a PE32+ import name table to 4 bytes only (Wine 8.0's own `zlib1.dll`, built
/// with mingw's ld 2.38, has its tables at ...03c and ...0a4): the Windows loader (and Wine's)
/// loads it, so the parser must read it — it once called it damaged ("import table: address
/// misaligned"), and the scan of every Wine prefix whose closure reaches it said a System32 DLL
/// could not be loaded (the TensorFlow import oracle, `oracle_import_windows/tensorflow.rs`).
#[cfg(unix)]
#[test]
fn pe_with_a_4_byte_aligned_import_name_table_matches_objdump() {
    let path = Path::new("/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/zlib1.dll");
    assert!(
        path.is_file(),
        "{} is needed: install wine64 (Debian package wine64)",
        path.display()
    );
    let info = read(path);
    assert_eq!(
        import_names(&info, ImportKind::Load),
        ["KERNEL32.dll", "msvcrt.dll"]
    );
    assert_imports_match_objdump(path, &info);
}

#[test]
fn pe_fixture_i686() {
    assert!(
        tool_available("i686-w64-mingw32-gcc"),
        "i686-w64-mingw32-gcc is needed: install gcc-mingw-w64-i686"
    );
    let dir = tempfile::tempdir().unwrap();
    let dll = full_dll(PeArch::I686, dir.path());
    check_full_dll(&dll, "i386", 32);
}

#[test]
fn errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.dll");
    assert!(
        matches!(read_binary(&missing), Err(BinaryError::Open { path, .. }) if path.contains("nope.dll"))
    );
    let text = dir.path().join("readme.txt");
    std::fs::write(&text, "hello world").unwrap();
    let err = read_binary(&text).unwrap_err();
    assert!(err.to_string().contains("readme.txt"), "{err}");
    assert!(matches!(
        read_binary(dir.path()),
        Err(BinaryError::Open { .. })
    ));
    let err = parse_bytes(b"MZ\0\0garbage", "x/bad.dll").unwrap_err();
    assert!(
        matches!(&err, BinaryError::Malformed { path, .. } if path == "x/bad.dll"),
        "{err}"
    );
}
