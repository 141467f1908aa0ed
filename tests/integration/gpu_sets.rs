//! The library sets the GPU test takes from a scan (`gpu-test --sets`), on the fixture machines:
//! each framework's files are where its own process resolves them, each toolkit's are in its
//! library folders. Expectations come from the same run's inventory, not typed in.

use crate::support::{fixture, json, run_cli};
use serde_json::Value;

fn machine(name: &str) -> String {
    fixture(&format!("machines/{name}/machine.toml"))
        .display()
        .to_string()
}

/// `gpu-test --sets --json` and `scan --json` of one machine.
fn sets_and_inventory(name: &str) -> (Vec<Value>, Value) {
    let m = machine(name);
    let out = run_cli(&["gpu-test", "--sets", "--json", "--machine", &m]);
    assert_eq!(out.status.code(), Some(0));
    let sets = json(&out)["gpu_sets"].as_array().unwrap().clone();
    let scan = json(&run_cli(&["scan", "--json", "--machine", &m]));
    (sets, scan["inventory"].clone())
}

/// A machine path as it appears inside the fixture's host path (`C:\a\b` → `C/a/b`).
fn host_tail(machine_path: &str) -> String {
    machine_path.replace(":\\", "/").replace('\\', "/")
}

fn files(set: &Value) -> Vec<&str> {
    ["cudart", "cublas", "cudnn"]
        .iter()
        .filter_map(|role| set[*role].as_str())
        .collect()
}

#[test]
fn windows_frameworks_and_toolkits_offer_what_they_load() {
    let (sets, inventory) = sets_and_inventory("win-cuda-tf-torch");
    let frameworks: Vec<(&Value, &Value)> = inventory["python_envs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| {
            e["frameworks"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |f| (e, f))
        })
        .collect();

    // PyTorch ships its CUDA libraries: its set is entirely its own torch\lib.
    let (torch_env, torch) = frameworks
        .iter()
        .find(|(_, f)| f["kind"] == "py-torch")
        .expect("the fixture has PyTorch");
    let torch_set = sets
        .iter()
        .find(|s| s["framework"] == "py-torch")
        .expect("a PyTorch set");
    assert!(
        torch_set["label"]
            .as_str()
            .unwrap()
            .contains(torch_env["root"].as_str().unwrap())
    );
    let bundled = host_tail(torch["bundled_dir"].as_str().unwrap());
    assert_eq!(files(torch_set).len(), 3, "{torch_set}");
    for file in files(torch_set) {
        assert!(file.contains(&bundled), "{file} is not in {bundled}");
        assert!(std::path::Path::new(file).is_file(), "{file}");
    }
    assert!(
        torch_set["driver"]
            .as_str()
            .unwrap()
            .ends_with("System32/nvcuda.dll")
    );

    // Every toolkit with runtime libraries is offered, its files from its own folders.
    for t in inventory["toolkits"].as_array().unwrap() {
        let root = t["root"].as_str().unwrap();
        let set = sets
            .iter()
            .find(|s| s["framework"].is_null() && s["label"].as_str().unwrap().contains(root))
            .unwrap_or_else(|| panic!("no set for toolkit {root}"));
        let dirs: Vec<String> = t["library_dirs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| host_tail(d.as_str().unwrap()))
            .collect();
        assert!(!files(set).is_empty());
        for file in files(set) {
            assert!(
                dirs.iter().any(|d| file.contains(d.as_str())),
                "{file} vs {dirs:?}"
            );
        }
        assert!(
            set["driver"].is_null(),
            "a toolkit has no driver of its own"
        );
    }
    // Frameworks come first, so the wizard's default is a framework's set.
    assert!(!sets[0]["framework"].is_null());
}

#[test]
fn a_linux_framework_set_follows_ld_so_and_a_bare_machine_offers_nothing() {
    let (sets, inventory) = sets_and_inventory("linux-cuda124-jax");
    let jax = sets
        .iter()
        .find(|s| s["framework"] == "jax")
        .expect("a JAX set");
    // JAX here loads the system toolkit's libraries, which ld.so finds through its cache; the
    // toolkit's folder is a link (/usr/local/cuda), so both sides are compared resolved.
    let fs_root = fixture("machines/linux-cuda124-jax/fs");
    let toolkit_dirs: Vec<std::path::PathBuf> = inventory["toolkits"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["library_dirs"].as_array().unwrap())
        .filter_map(|d| d.as_str())
        .filter_map(|d| fs_root.join(d.trim_start_matches('/')).canonicalize().ok())
        .collect();
    assert_eq!(files(jax).len(), 2, "{jax}");
    for file in files(jax) {
        let file = std::path::Path::new(file).canonicalize().unwrap();
        assert!(
            toolkit_dirs.iter().any(|d| file.starts_with(d)),
            "{file:?} vs {toolkit_dirs:?}"
        );
    }
    assert!(jax["driver"].as_str().unwrap().contains("libcuda.so"));

    let (bare, _) = sets_and_inventory("linux-basic");
    assert!(bare.is_empty(), "{bare:?}");
}

#[test]
fn the_sets_are_listed_as_text_and_a_run_needs_this_computer() {
    let m = machine("win-cuda-tf-torch");
    let out = run_cli(&["gpu-test", "--sets", "--machine", &m]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("1. "), "{text}");
    assert!(text.contains("cudnn"), "{text}");
    let run = run_cli(&["gpu-test", "--framework", "torch", "--machine", &m]);
    assert_eq!(run.status.code(), Some(2));
}
