//! Real NVIDIA binaries from PyPI wheels: machine, imports, exports and symbols against binutils;
//! the library version against the wheel's own version; and truncated or byte-flipped copies,
//! which must give `Err` or `Ok` but never a panic.

use super::*;

fn win(pkg: (&str, &str), member: &str) -> std::path::PathBuf {
    wheel_member(pkg.0, pkg.1, WheelPlatform::Windows, member)
}

fn linux(pkg: (&str, &str), member: &str) -> std::path::PathBuf {
    wheel_member(pkg.0, pkg.1, WheelPlatform::Linux, member)
}

#[test]
fn real_cudart64_12_dll() {
    let path = win(CUDART12, "cudart64_12.dll");
    let info = read(&path);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        ("x86_64", 64)
    );
    // The wheel version is the toolkit component version, which NVIDIA puts in ProductName.
    assert_eq!(info.version.version.as_deref(), Some(CUDART12.1));
    assert_eq!(info.version.source.map(|s| s.as_str()), Some("ProductName"));
    assert_eq!(info.version.fields["CompanyName"], "NVIDIA Corporation");
    assert!(info.exports_symbol("cudaMalloc"));
    // cudart finds the driver at run time: nvcuda.dll is a string, not an import.
    assert!(
        info.embedded_library_names
            .iter()
            .any(|n| n.eq_ignore_ascii_case("nvcuda.dll"))
    );
    assert!(
        import_names(&info, ImportKind::Load)
            .iter()
            .all(|n| !n.eq_ignore_ascii_case("nvcuda.dll"))
    );
    assert_imports_match_objdump(&path, &info);
    assert_exports_match_objdump(&path, &info);
}

#[test]
fn real_cudart_110_dlls_32_and_64_bit() {
    let p32 = win(CUDART11, "cudart32_110.dll");
    let info = read(&p32);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        ("i386", 32)
    );
    assert_eq!(info.version.version.as_deref(), Some(CUDART11.1));
    assert_imports_match_objdump(&p32, &info);
    assert_exports_match_objdump(&p32, &info);
    let p64 = win(CUDART11, "cudart64_110.dll");
    let info = read(&p64);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        ("x86_64", 64)
    );
    assert_eq!(info.version.version.as_deref(), Some(CUDART11.1));
}

#[test]
fn real_nvjitlink_and_nvrtc_dlls_use_product_name_not_abi_name() {
    let path = win(NVJITLINK_WIN, "nvJitLink_120_0.dll");
    let info = read(&path);
    // OriginalFilename is the ABI name (…_120_0) and FileVersion 6.14.11.9000: neither is it.
    assert_eq!(info.version.version.as_deref(), Some(NVJITLINK_WIN.1));
    assert_eq!(info.version.source.map(|s| s.as_str()), Some("ProductName"));
    assert!(import_names(&info, ImportKind::Load).contains(&"KERNEL32.dll"));
    assert_imports_match_objdump(&path, &info);
    let path = win(NVRTC12, "nvrtc64_120_0.dll");
    let info = read(&path);
    assert_eq!(info.version.version.as_deref(), Some(NVRTC12.1));
    assert_imports_match_objdump(&path, &info);
    assert_exports_match_objdump(&path, &info);
}

#[test]
fn real_cupti_dll_year_version() {
    // The nvidia-cuda-cupti-cu12 12.8.90 wheel ships cupti64_2025.1.1.dll; the year version is in
    // FileVersion only, and must agree with the one in the file name.
    let path = win(CUPTI12, "cupti64_2025.1.1.dll");
    let info = read(&path);
    let from_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("cupti64_"))
        .and_then(|n| n.strip_suffix(".dll"))
        .map(str::to_owned);
    assert_eq!(info.version.version, from_name);
    assert_eq!(info.version.source.map(|s| s.as_str()), Some("FileVersion"));
    assert_imports_match_objdump(&path, &info);
}

#[test]
fn real_libcudart_so_12() {
    let path = linux(CUDART12, "lib/libcudart.so.12");
    let info = read(&path);
    assert_eq!(info.format, Format::Elf);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        ("x86_64", 64)
    );
    assert_eq!(info.soname.as_deref(), Some("libcudart.so.12"));
    assert!(info.exports_symbol("cudaMalloc"));
    assert!(
        info.embedded_library_names
            .iter()
            .any(|n| n == "libcuda.so.1")
    );
    assert_eq!(info.version.version.as_deref(), Some("12"));
    assert_elf_matches_readelf(&path, &info);
    let old = linux(CUDART11, "lib/libcudart.so.11.0");
    let info = read(&old);
    assert_eq!(info.soname.as_deref(), Some("libcudart.so.11.0"));
    assert_elf_matches_readelf(&old, &info);
}

#[test]
fn real_libcudart_aarch64() {
    let path = wheel_member(
        CUDART12.0,
        CUDART12.1,
        WheelPlatform::LinuxAarch64,
        "lib/libcudart.so.12",
    );
    let info = read(&path);
    assert_eq!(
        (info.machine.arch.as_str(), info.machine.bits),
        ("aarch64", 64)
    );
    assert_eq!(info.soname.as_deref(), Some("libcudart.so.12"));
}

#[test]
fn real_nvcc_built_elf_libraries_carry_their_version() {
    for (pkg, member) in [
        (NVJITLINK_LINUX, "lib/libnvJitLink.so.12"),
        (NVRTC12, "lib/libnvrtc.so.12"),
    ] {
        let path = linux(pkg, member);
        let info = read(&path);
        assert_eq!(info.version.version.as_deref(), Some(pkg.1), "{member}");
        assert_eq!(info.version.source.map(|s| s.as_str()), Some("nvcc banner"));
        assert_elf_matches_readelf(&path, &info);
    }
    // Not a compiler library: the banner is the toolkit release it was built with (12.8.x).
    let path = linux(CUPTI12, "lib/libcupti.so.12");
    let info = read(&path);
    assert_eq!(info.soname.as_deref(), Some("libcupti.so.12"));
    assert_eq!(info.version.source.map(|s| s.as_str()), Some("nvcc banner"));
    let major_minor = CUPTI12
        .1
        .rsplit_once('.')
        .map(|(mm, _)| format!("{mm}."))
        .unwrap();
    assert!(
        info.version
            .version
            .as_deref()
            .is_some_and(|v| v.starts_with(&major_minor))
    );
    assert!(
        info.embedded_library_names
            .iter()
            .any(|n| n == "libcuda.so.1")
    );
    assert_elf_matches_readelf(&path, &info);
}

/// Deterministic offsets: dense in the headers, spread over the rest.
fn offsets(len: usize, count: usize, seed: u64) -> Vec<usize> {
    let mut out: Vec<usize> = (0..len.min(512)).step_by(7).collect();
    let mut x = seed;
    while out.len() < count && len > 0 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push((x >> 33) as usize % len);
    }
    out
}

fn never_panics(bytes: &[u8], what: &str) {
    let name = format!("{what} (damaged)");
    let result = std::panic::catch_unwind(|| parse_bytes(bytes, &name).map(|_| ()));
    assert!(result.is_ok(), "parser panicked on {what}");
}

fn damage(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    let what = path.display().to_string();
    for cut in offsets(bytes.len(), 120, 1) {
        never_panics(&bytes[..cut], &format!("{what} cut at {cut}"));
    }
    let mut copy = bytes.clone();
    for (i, at) in offsets(bytes.len(), 160, 2).into_iter().enumerate() {
        copy[at] ^= 0xff;
        never_panics(&copy, &format!("{what} with {i} flips"));
        if i % 8 == 7 {
            copy.copy_from_slice(&bytes); // start over: damage accumulates 8 flips at a time
        }
    }
}

#[test]
fn damaged_copies_of_real_binaries_never_panic() {
    damage(&win(CUDART12, "cudart64_12.dll"));
    damage(&win(CUDART11, "cudart32_110.dll"));
    damage(&linux(CUDART12, "lib/libcudart.so.12"));
    let dir = tempfile::tempdir().unwrap();
    damage(&full_dll(PeArch::X86_64, dir.path()));
    let so = SoSpec::new("libd.so")
        .soname("libd.so")
        .needed("libx.so.1")
        .runpath(&["$ORIGIN"]);
    damage(&so.build(dir.path()).unwrap());
}
