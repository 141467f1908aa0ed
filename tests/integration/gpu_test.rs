//! `cuda-triage gpu-test` through the real binary on a machine without a GPU: the no-driver
//! finding, and the child-process isolation proven with fake driver libraries built by gcc at
//! test time (one aborts while loading, one hangs in cuInit, one reports no device, one lacks
//! the driver's symbols). No assertion depends on timing.

use crate::support::{build_shared_library, json, run_cli, stderr};
use serde_json::Value;

/// A machine with a real NVIDIA driver would not take the no-driver path.
fn has_nvidia_driver() -> bool {
    std::path::Path::new("/proc/driver/nvidia").exists()
}

fn codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| f["code"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn finding<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["findings"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["code"] == code))
        .unwrap_or_else(|| panic!("no {code} finding in {doc:#}"))
}

#[test]
fn without_a_driver_the_test_names_what_is_missing_and_exits_1() {
    if has_nvidia_driver() {
        return;
    }
    let out = run_cli(&["gpu-test", "--json", "--quick"]);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["schema"], "cuda-triage/1");
    let f = finding(&doc, "gpu-test-no-driver");
    assert_eq!(f["severity"], "error");
    let libs: Vec<&str> = f["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(libs, ["libcuda.so.1", "libnvidia-ml.so.1"]);
    let evidence = f["evidence"].to_string();
    assert!(evidence.contains("libcuda.so.1"), "{evidence}");
    assert_eq!(doc["gpu"]["verdict"], "failed");
    assert_eq!(doc["gpu"]["child"]["kind"], "finished");
    assert!(doc["gpu"]["workloads"].as_array().unwrap().is_empty());
}

#[test]
fn the_text_output_says_why_too() {
    if has_nvidia_driver() {
        return;
    }
    let out = run_cli(&["gpu-test", "--quick"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Verdict:   failed"), "{text}");
    assert!(text.contains("[gpu-test-no-driver]"), "{text}");
}

#[test]
fn a_driver_that_aborts_while_loading_is_a_crash_finding() {
    let dir = tempfile::tempdir().unwrap();
    let lib = build_shared_library(
        dir.path(),
        "libabort.so",
        r#"#include <stdio.h>
           #include <stdlib.h>
           __attribute__((constructor)) static void boom(void) {
               fprintf(stderr, "fake driver: aborting in its constructor\n");
               abort();
           }"#,
    );
    let out = run_cli(&[
        "gpu-test",
        "--json",
        "--quick",
        "--driver",
        lib.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let doc = json(&out);
    let f = finding(&doc, "gpu-test-crashed");
    let summary = f["summary"].as_str().unwrap();
    assert!(summary.contains("SIGABRT"), "{f:#}");
    // The parent names the stage the child had reached (its last progress line).
    assert!(
        summary.contains("during \"Loading the CUDA driver\""),
        "{summary}"
    );
    assert!(
        f["evidence"]
            .to_string()
            .contains("aborting in its constructor")
    );
    assert_eq!(doc["gpu"]["child"]["kind"], "crashed");
    assert_eq!(doc["gpu"]["verdict"], "failed");
}

#[test]
fn a_driver_whose_cuinit_hangs_is_stopped_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let lib = build_shared_library(
        dir.path(),
        "libhang.so",
        r#"#include <unistd.h>
           int cuDriverGetVersion(int *v) { *v = 12040; return 0; }
           int cuInit(unsigned int flags) { for (;;) pause(); return 0; }"#,
    );
    let out = run_cli(&[
        "gpu-test",
        "--json",
        "--quick",
        "--timeout-secs",
        "2",
        "--driver",
        lib.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let doc = json(&out);
    let f = finding(&doc, "gpu-test-timeout");
    assert!(f["summary"].as_str().unwrap().contains("cuInit"), "{f:#}");
    assert_eq!(doc["gpu"]["child"]["kind"], "timed-out");
    assert_eq!(doc["gpu"]["child"]["after_s"], 2);
}

/// A fake driver with one device that exports the whole driver API the test resolves: every
/// entry point succeeds and does nothing, cuDeviceGetCount says 1.
fn one_device_driver(dir: &std::path::Path) -> std::path::PathBuf {
    // The names are read from the source of the table the child resolves, so the fake keeps
    // up with it.
    let table = include_str!("../../src/gpu/ffi/driver.rs");
    let mut source = String::from(
        "int cuDriverGetVersion(int *v) { *v = 12040; return 0; }\n\
         int cuInit(unsigned f) { return 0; }\n\
         int cuDeviceGetCount(int *n) { *n = 1; return 0; }\n",
    );
    for line in table.lines() {
        let Some((name, _)) = line.trim().split_once(": fn(") else {
            continue;
        };
        if name.starts_with("cu")
            && !["cuInit", "cuDriverGetVersion", "cuDeviceGetCount"].contains(&name)
        {
            source.push_str(&format!("int {name}() {{ return 0; }}\n"));
        }
    }
    build_shared_library(dir, "libcuda.so.1", &source)
}

#[test]
fn a_device_number_past_the_last_gpu_is_an_invalid_device() {
    let dir = tempfile::tempdir().unwrap();
    let lib = one_device_driver(dir.path());
    let out = run_cli(&[
        "gpu-test",
        "--json",
        "--quick",
        "--device",
        "1",
        "--driver",
        lib.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let doc = json(&out);
    let f = finding(&doc, "gpu-test-cuda-error");
    assert_eq!(
        f["summary"], "cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101)",
        "{f:#}"
    );
}

#[test]
fn a_driver_without_a_gpu_reports_the_decoded_cuda_error() {
    let dir = tempfile::tempdir().unwrap();
    let lib = build_shared_library(
        dir.path(),
        "libcuda.so.1",
        r#"int cuDriverGetVersion(int *v) { *v = 12040; return 0; }
           int cuInit(unsigned int flags) { return 100; /* CUDA_ERROR_NO_DEVICE */ }"#,
    );
    let out = run_cli(&[
        "gpu-test",
        "--json",
        "--quick",
        "--driver",
        lib.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let doc = json(&out);
    let f = finding(&doc, "gpu-test-cuda-error");
    assert_eq!(f["summary"], "cuInit failed: CUDA_ERROR_NO_DEVICE (100)");
    assert!(!codes(&doc).contains(&"gpu-test-crashed".to_string()));
    // The library report: what was asked for, what the OS mapped, the version it reports.
    let driver = &doc["gpu"]["libraries"][0];
    assert_eq!(driver["role"], "driver");
    assert_eq!(driver["requested"], lib.to_str().unwrap());
    let mapped = driver["mapped"]
        .as_str()
        .expect("mapped path from /proc/self/maps");
    assert!(mapped.ends_with("/libcuda.so.1"), "{mapped}");
    assert_eq!(driver["version"], "12.4");
    assert_eq!(driver["version_raw"], 12040);
}

#[test]
fn a_library_without_the_driver_api_is_a_missing_symbol_finding() {
    let dir = tempfile::tempdir().unwrap();
    let lib = build_shared_library(
        dir.path(),
        "libnotcuda.so",
        "int unrelated(void) { return 1; }",
    );
    let out = run_cli(&[
        "gpu-test",
        "--json",
        "--quick",
        "--driver",
        lib.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let doc = json(&out);
    let f = finding(&doc, "gpu-test-missing-symbol");
    assert!(f["evidence"].to_string().contains("cuInit"), "{f:#}");
}

#[test]
fn a_missing_folder_or_a_machine_file_is_a_usage_error() {
    let out = run_cli(&["gpu-test", "--json", "--dir", "/no/such/folder"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        json(&out)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a folder")
    );
    let out = run_cli(&["gpu-test", "--machine", "x.toml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_child_alone_prints_one_json_result() {
    // What the parent reads: a ChildResult on stdout, protocol lines on stderr.
    let dir = tempfile::tempdir().unwrap();
    let lib = build_shared_library(
        dir.path(),
        "libnodev.so",
        "int cuDriverGetVersion(int *v) { *v = 11080; return 0; }\nint cuInit(unsigned f) { return 100; }",
    );
    let out = run_cli(&["gpu-test", "--child", "--driver", lib.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let result = json(&out);
    assert_eq!(result["libraries"][0]["version"], "11.8");
    assert!(stderr(&out).contains("@cuda-triage {\"event\":\"progress\""));
}

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

        let out = run_cli(&[
            "gpu-test",
            "--json",
            "--quick",
            "--cudart",
            link.to_str().unwrap(),
        ]);
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
    let out = run_cli(&[
        "gpu-test",
        "--json",
        "--quick",
        "--cudart",
        truncated.to_str().unwrap(),
    ]);
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

    let out = run_cli(&[
        "gpu-test",
        "--json",
        "--quick",
        "--cudart",
        outer.to_str().unwrap(),
    ]);
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
