//! A fleet of saved reports for the benchmarks: real reports of this computer and of the seed
//! machines, written by the built CLI (`report`, redacted as always), then varied per machine —
//! its label, driver branch, GPU model, toolkit version, a finding fixed here and there — the
//! way a cluster's nodes drift apart. Each copy keeps its base's full size (the recorded file
//! view included), so reading them costs what reading real reports costs.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const SEEDS: [&str; 4] = [
    "linux-basic",
    "linux-cuda124-jax",
    "win-basic",
    "win-cuda-tf-torch",
];

/// The base reports: this computer's and each seed machine's.
fn base_reports(dir: &Path) -> Vec<Value> {
    let cli = env!("CARGO_BIN_EXE_cuda-triage");
    let machines = std::iter::once(None).chain(SEEDS.iter().map(|seed| {
        Some(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/machines")
                .join(seed)
                .join("machine.toml"),
        )
    }));
    machines
        .enumerate()
        .map(|(i, machine)| {
            let out = dir.join(format!("base-{i}.json"));
            let mut report = Command::new(cli);
            report.arg("report").arg("-o").arg(&out);
            if let Some(m) = &machine {
                report.arg("--machine").arg(m);
            }
            let status = report.output().expect("the CLI runs").status;
            assert!(out.is_file(), "report {machine:?}: {status}");
            let value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
            std::fs::remove_file(&out).ok();
            value
        })
        .collect()
}

/// Machine `i`'s report: its base varied as nodes of a cluster drift apart.
fn varied(base: &Value, i: usize) -> Value {
    let mut doc = base.clone();
    doc["label"] = json!(format!("node{i:04}"));
    let driver = match i % 50 {
        7 => json!({"version": "535.104.05", "cuda": "12.2"}),
        19 => Value::Null,
        _ => json!({"version": "550.54.15", "cuda": "12.4"}),
    };
    doc["machine"]["driver"] = driver;
    let gpu = if i % 97 == 3 {
        json!({"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "memory_mib": 81559})
    } else {
        json!({"name": "NVIDIA A100-SXM4-80GB", "compute_capability": "8.0", "memory_mib": 81920})
    };
    doc["machine"]["gpus"] = json!([gpu.clone(), gpu]);
    if i % 31 == 5
        && let Some(toolkit) = doc["inventory"]["toolkits"].get_mut(0)
    {
        toolkit["version"] = json!("12.1.1");
    }
    if i.is_multiple_of(13)
        && let Some(findings) = doc["findings"].as_array_mut()
    {
        findings.pop();
    }
    doc
}

/// Writes `n` varied reports into `dir` (`node0000.json`, ...); returns their total size.
pub fn write_fleet(dir: &Path, n: usize) -> u64 {
    let bases = base_reports(dir);
    let mut bytes = 0;
    for i in 0..n {
        let text = serde_json::to_string_pretty(&varied(&bases[i % bases.len()], i)).unwrap();
        bytes += text.len() as u64;
        std::fs::write(dir.join(format!("node{i:04}.json")), text).unwrap();
    }
    bytes
}
