//! `cuda-triage gpu-test` through the real binary on a machine without a GPU: the no-driver
//! finding, and the child-process isolation proven with fake driver libraries built by gcc at
//! test time (one aborts while loading, one hangs in cuInit, one reports no device, one lacks
//! the driver's symbols). No assertion depends on timing.

use crate::support::{build_shared_library, json, run_cli, stderr};
use serde_json::Value;

/// A machine with a real NVIDIA driver would not take the no-driver path.
/// `cuda-triage gpu-test --json --quick` with more arguments.
pub(crate) fn gpu_test_json(args: &[&str]) -> std::process::Output {
    let mut all = vec!["gpu-test", "--json", "--quick"];
    all.extend_from_slice(args);
    run_cli(&all)
}

pub(crate) fn has_nvidia_driver() -> bool {
    std::path::Path::new("/proc/driver/nvidia").exists()
}

pub(crate) fn codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| f["code"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn finding<'a>(doc: &'a Value, code: &str) -> &'a Value {
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
    let out = gpu_test_json(&[]);
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
    let out = gpu_test_json(&["--driver", lib.to_str().unwrap()]);
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
    let out = gpu_test_json(&["--timeout-secs", "2", "--driver", lib.to_str().unwrap()]);
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
    let table = include_str!("../../src/engine/gpu/ffi/cuda_driver_api.rs");
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
    let out = gpu_test_json(&["--device", "1", "--driver", lib.to_str().unwrap()]);
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
    let out = gpu_test_json(&["--driver", lib.to_str().unwrap()]);
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
    let out = gpu_test_json(&["--driver", lib.to_str().unwrap()]);
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
