//! The JSON of real GPU runs, saved from the device checks (`tests/gpu_compare/device_check.sh`):
//! PyTorch 2.11's CUDA 13 libraries on an NVIDIA H100 and an H200, and three faults injected on
//! the H100 (the test's child killed mid-run, cuDNN 9.14's libcudnn_graph among 9.19's files, a
//! cuBLAS that aborts when used). Reopened here, each keeps its verdict and its finding, and the
//! text shows the run as `gpu-test` showed it, fraction of the device's peak included.

use crate::support::{fixture, run_cli, stdout};
use serde_json::Value;

fn open_json(name: &str) -> Value {
    let path = fixture(&format!("gpu/{name}"));
    let out = run_cli(&["open", path.to_str().unwrap(), "--json"]);
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn gpu_codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .filter(|c| c.starts_with("gpu-test-"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_healthy_run_reopens_with_every_workload_and_its_share_of_the_peak() {
    for (name, device) in [
        ("h100-torch-2.11.0-cu130.json", "NVIDIA H100 80GB HBM3"),
        ("h200-torch-2.11.0-cu130.json", "NVIDIA H200"),
    ] {
        let doc = open_json(name);
        assert_eq!(doc["gpu"]["verdict"], "passed", "{name}");
        assert_eq!(doc["gpu"]["device"]["name"], device, "{name}");
        assert!(gpu_codes(&doc).is_empty(), "{name}: {:?}", gpu_codes(&doc));
        let workloads = doc["gpu"]["workloads"].as_array().unwrap();
        assert_eq!(workloads.len(), 23, "{name}");
        let path = fixture(&format!("gpu/{name}"));
        let text = stdout(&run_cli(&["open", path.to_str().unwrap()]));
        assert!(text.contains("GPU test") && text.contains(device), "{text}");
        for w in workloads {
            let line = text
                .lines()
                .find(|l| l.starts_with(w["name"].as_str().unwrap()))
                .unwrap_or_else(|| panic!("{name}: no line for {}\n{text}", w["name"]));
            assert!(line.trim_end().ends_with("yes"), "{line}");
        }
    }
    // The H100 is in the sourced peaks table under the name its driver reports.
    let h100 = open_json("h100-torch-2.11.0-cu130.json");
    assert_eq!(h100["gpu"]["device"]["peak_model"], "H100 SXM5 80GB");
    let bf16 = h100["gpu"]["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "GEMM bf16 8192^3")
        .unwrap();
    let share = bf16["fraction_of_peak"].as_f64().unwrap();
    assert!(share > 0.5 && share < 1.0, "{share}");
}

#[test]
fn injected_faults_reopen_as_their_findings() {
    for (name, code, words) in [
        (
            "h100-fault-killed-child.json",
            "gpu-test-crashed",
            "SIGKILL",
        ),
        (
            "h100-fault-aborting-cublas.json",
            "gpu-test-crashed",
            "SIGABRT",
        ),
        (
            "h100-fault-mixed-cudnn-graph.json",
            "gpu-test-workload-failed",
            "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
        ),
    ] {
        let doc = open_json(name);
        assert_ne!(doc["gpu"]["verdict"], "passed", "{name}");
        assert!(
            gpu_codes(&doc).iter().any(|c| c == code),
            "{name}: {:?}",
            gpu_codes(&doc)
        );
        let summaries: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["summary"].as_str())
            .collect();
        assert!(
            summaries.iter().any(|s| s.contains(words)),
            "{name}: {summaries:?}"
        );
    }
}
