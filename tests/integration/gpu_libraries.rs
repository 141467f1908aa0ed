//! `cuda-triage gpu-test` on real library files without a GPU: the real CUDA runtimes from PyPI
//! wheels identify themselves (checked against a gcc-built oracle program calling the same
//! functions), and damaged files, chosen or pulled in as dependencies, are named rather than
//! crashing the child (Python's ctypes, the real loader, dies of SIGBUS on the same files).

use crate::gpu_test::{codes, finding, gpu_test_json, has_nvidia_driver};
use crate::support::{json, stderr};

/// A program built with gcc at test time that loads a cudart by path and prints what
/// `cudaRuntimeGetVersion` and `cudaGetErrorName` return: the oracle for what the library says.
const RUNTIME_ORACLE: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { printf("dlopen failed\n"); return 1; }
    int (*get)(int *) = (int (*)(int *))dlsym(lib, "cudaRuntimeGetVersion");
    const char *(*name)(int) = (const char *(*)(int))dlsym(lib, "cudaGetErrorName");
    int version = 0;
    int status = get(&version);
    printf("%d %d %s\n", status, version, name(status));
    return 0;
}
"#;

/// What the oracle program says about a cudart: (status, version, status name).
fn runtime_oracle(dir: &std::path::Path, library: &std::path::Path) -> (i64, i64, String) {
    let source = dir.join("oracle.c");
    let program = dir.join("oracle");
    std::fs::write(&source, RUNTIME_ORACLE).unwrap();
    let built = std::process::Command::new("gcc")
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .arg("-ldl")
        .status()
        .unwrap();
    assert!(built.success());
    let out = std::process::Command::new(&program)
        .arg(library)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let fields: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(fields.len(), 3, "oracle printed {text:?}");
    (
        fields[0].parse().unwrap(),
        fields[1].parse().unwrap(),
        fields[2].to_string(),
    )
}

/// The libraries are identified even where the driver is missing: each real cudart from a
/// PyPI wheel, asked for through a symlink, reports the file the OS mapped (the link's target)
/// and what the library's own version call says, as the gcc-built oracle sees it (CUDA 12
/// answers without a driver; CUDA 11 answers cudaErrorInsufficientDriver, which is reported).
#[test]
fn real_runtimes_report_their_mapped_file_and_own_version_without_a_driver() {
    use crate::wheels::{WheelPlatform, wheel_member};
    if has_nvidia_driver() {
        return;
    }
    let wheels = [
        ("nvidia-cuda-runtime-cu12", "12.9.79", "libcudart.so.12"),
        ("nvidia-cuda-runtime-cu11", "11.8.89", "libcudart.so.11.0"),
    ];
    for (package, version, member) in wheels {
        let real = wheel_member(package, version, WheelPlatform::Linux, member);
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join(member);
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let (status, raw, status_name) = runtime_oracle(dir.path(), &real);

        let out = gpu_test_json(&["--cudart", link.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
        let doc = json(&out);
        assert!(codes(&doc).contains(&"gpu-test-no-driver".to_string()));
        let libraries = doc["gpu"]["libraries"].as_array().unwrap();
        let cudart = libraries
            .iter()
            .find(|l| l["role"] == "cudart")
            .unwrap_or_else(|| panic!("no cudart in {libraries:?}"));
        assert_eq!(cudart["requested"], link.to_str().unwrap());
        let canonical = real.canonicalize().unwrap();
        assert_eq!(cudart["mapped"], canonical.to_str().unwrap());
        if status == 0 {
            assert_eq!(cudart["version_raw"], raw, "{cudart}");
            // The wheel's major.minor, as the library encodes it (12090 for 12.9.79).
            let major_minor: Vec<&str> = version.split('.').take(2).collect();
            assert_eq!(cudart["version"], major_minor.join("."), "{cudart}");
        } else {
            assert!(cudart["version"].is_null(), "{cudart}");
            let error = cudart["error"].as_str().unwrap_or_default();
            assert!(
                error.contains(&format!("{status_name} ({status})")),
                "{error} vs {status_name} ({status})"
            );
        }
    }
}

/// An explicitly chosen library that cannot be loaded is an error finding even without a driver
/// (a truncated copy of the real cudart); libraries left to their default names are not.
#[test]
fn a_broken_chosen_runtime_is_named_even_without_a_driver() {
    use crate::wheels::{WheelPlatform, wheel_member};
    if has_nvidia_driver() {
        return;
    }
    let real = wheel_member(
        "nvidia-cuda-runtime-cu12",
        "12.9.79",
        WheelPlatform::Linux,
        "libcudart.so.12",
    );
    let dir = tempfile::tempdir().unwrap();
    let truncated = dir.path().join("libcudart.so.12");
    let bytes = std::fs::read(&real).unwrap();
    std::fs::write(&truncated, &bytes[..4096]).unwrap();
    let out = gpu_test_json(&["--cudart", truncated.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&out);
    let f = finding(&doc, "gpu-test-library-not-loaded");
    assert_eq!(f["severity"], "error", "{f}");
    let evidence = f["evidence"].to_string();
    assert!(evidence.contains("libcudart.so.12"), "{f}");
    // Checked before the OS loader sees it: ld.so would map it and die of SIGBUS.
    assert!(evidence.contains("truncated"), "{f}");
    assert!(!codes(&doc).contains(&"gpu-test-crashed".to_string()));
    // cuBLAS and cuDNN were left to their default names, which this machine lacks: no finding.
    assert_eq!(
        codes(&doc)
            .iter()
            .filter(|c| *c == "gpu-test-library-not-loaded")
            .count(),
        1,
        "{:?}",
        codes(&doc)
    );
}

/// A chosen library whose dependency next to it is truncated: the real loader (Python's ctypes,
/// the oracle here) dies of SIGBUS loading it; the test names the damaged dependency instead.
#[test]
fn a_truncated_dependency_is_named_where_the_real_loader_crashes() {
    use crate::fixtures_build::SoSpec;
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let inner = SoSpec::new("libinner.so")
        .soname("libinner.so")
        .source("int inner_table[4096] = {1};\nint inner(void) { return inner_table[7]; }\n")
        .build(dir.path())
        .unwrap();
    let outer = SoSpec::new("libcudart.so.12")
        .soname("libcudart.so.12")
        .link_with(&inner)
        .runpath(&["$ORIGIN"])
        .build(dir.path())
        .unwrap();
    let bytes = std::fs::read(&inner).unwrap();
    std::fs::write(&inner, &bytes[..2048]).unwrap();

    let oracle = std::process::Command::new("python3")
        .args(["-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])"])
        .arg(&outer)
        .output()
        .unwrap();
    assert_eq!(
        oracle.status.signal(),
        Some(7),
        "the real loader should die of SIGBUS: {:?}",
        oracle.status
    );

    let out = gpu_test_json(&["--cudart", outer.to_str().unwrap()]);
    let doc = json(&out);
    assert!(
        !codes(&doc).contains(&"gpu-test-crashed".to_string()),
        "{doc:#}"
    );
    let f = finding(&doc, "gpu-test-library-not-loaded");
    let evidence = f["evidence"].to_string();
    assert!(evidence.contains("libinner.so"), "{evidence}");
    assert!(evidence.contains("truncated"), "{evidence}");
}
