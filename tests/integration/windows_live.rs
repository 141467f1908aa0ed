//! The .exe on a live Windows machine — Wine's — rather than on a machine file: the live scan reads
//! the real registry (HKCU/HKLM Environment, the NVIDIA install keys), the real drive and the
//! process environment Windows builds from them. Each seed machine is replicated into a fresh
//! prefix (its drive C merged into drive_c, its variables set where an installer sets them, its
//! registry values added with `reg`), and the live scan must say exactly what the machine-file
//! emulation says of the same drive and environment. `tree` in the prefix must agree with Wine's
//! own loader, and a PATH fix must round-trip through the registry.

use super::situations::{machine_file, tf210};
use super::support::{json, run_cli};
use super::wine_support::{LOAD_PROBE_C, Prefix, build_c, build_dll, install_triage, tree_node};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::{FakeMachine, WINDOWS_TOOLKITS};
use serde_json::Value;
use std::path::{Path, PathBuf};

const SESSION_ENV: &str = r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment";

/// Copies `from` into `to`, merging folders whose names differ only in case (drive_c has
/// `windows`, machines write `Windows`), as a Windows drive would hold them.
fn merge_into(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let existing = std::fs::read_dir(to)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|n| n.eq_ignore_ascii_case(&name))
            .unwrap_or(name);
        let target = to.join(existing);
        if entry.file_type().unwrap().is_dir() {
            merge_into(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The environment a process started in the prefix gets (what `cmd /c set` prints).
fn wine_environment(wine: &Prefix) -> toml::Table {
    let out = wine.command("cmd").args(["/c", "set"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .replace('\r', "")
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, v)| (k.to_string(), toml::Value::String(v.to_string())))
        .collect()
}

/// Replicates the machine file `machine` into `wine` and returns the machine file that
/// describes the replica (drive C = drive_c, the prefix's real process environment, the same
/// registry values, no driver facts: the prefix has no NVIDIA driver).
pub(crate) fn replicate(wine: &Prefix, machine: &Path) -> PathBuf {
    let mut doc: toml::Table = toml::from_str(&std::fs::read_to_string(machine).unwrap()).unwrap();
    assert_eq!(doc["platform"].as_str(), Some("windows"));
    let drive = doc["drives"]["C"].as_str().unwrap();
    merge_into(&machine.parent().unwrap().join(drive), &wine.drive_c());
    if let Some(env) = doc.get("env").and_then(|e| e.as_table()) {
        for (name, value) in env {
            let value = value.as_str().unwrap();
            let kind = if name.eq_ignore_ascii_case("PATH") || value.contains('%') {
                "REG_EXPAND_SZ"
            } else {
                "REG_SZ"
            };
            wine.reg(&[
                "add",
                SESSION_ENV,
                "/v",
                name,
                "/t",
                kind,
                "/d",
                value,
                "/f",
            ]);
        }
    }
    if let Some(registry) = doc.get("registry").and_then(|r| r.as_table()) {
        for (key, values) in registry {
            for (name, value) in values.as_table().unwrap() {
                let value = value.as_str().unwrap();
                wine.reg(&["add", key, "/v", name, "/d", value, "/f"]);
            }
        }
    }
    let mut drives = toml::Table::new();
    drives.insert(
        "C".into(),
        toml::Value::String(wine.drive_c().display().to_string()),
    );
    doc.insert("drives".into(), toml::Value::Table(drives));
    doc.insert("env".into(), toml::Value::Table(wine_environment(wine)));
    doc.remove("driver");
    doc.remove("gpu");
    let replica = wine.folder().join("replica.toml");
    std::fs::write(&replica, toml::to_string(&doc).unwrap()).unwrap();
    replica
}

/// Paths compare as Windows compares them.
fn lowercase(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(s.to_lowercase()),
        Value::Array(a) => Value::Array(a.iter().map(lowercase).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), lowercase(v))).collect())
        }
        other => other.clone(),
    }
}

/// What a scan concluded, without the driver (the prefix has none; the replica says so too).
fn conclusions(doc: &Value) -> (Vec<Value>, Value) {
    let mut findings: Vec<Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            lowercase(&serde_json::json!({
                "code": f["code"], "severity": f["severity"], "summary": f["summary"],
                "libraries": f["libraries"], "fixes": f["fixes"],
            }))
        })
        .collect();
    findings.sort_by_key(|f| f.to_string());
    let mut inventory = doc["inventory"].clone();
    inventory.as_object_mut().unwrap().remove("driver");
    (findings, lowercase(&inventory))
}

fn live_scan(wine: &Prefix, exe: &str) -> Value {
    let out = wine.command(exe).args(["scan", "--json"]).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "live scan: {out:?}"
    );
    serde_json::from_slice(&out.stdout).expect("the live scan prints JSON")
}

/// TensorFlow 2.10.1 (its real wheel files) with only CUDA 12.1 installed: the seed situation
/// behind `Could not load dynamic library 'cublas64_11.dll'`.
fn tf210_with_cuda12() -> (FakeMachine, String) {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.windows_toolkit(
        "12.1",
        &["cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll"],
    );
    tf210(&mut m);
    let py = r"C:\Users\u\AppData\Local\Programs\Python\Python310";
    let path = format!(r"{WINDOWS_TOOLKITS}\v12.1\bin;C:\Windows\System32;{py}");
    let mf = machine_file(
        &m,
        &[
            ("PATH", &path),
            ("CUDA_PATH", &format!(r"{WINDOWS_TOOLKITS}\v12.1")),
        ],
    );
    (m, mf)
}

#[test]
fn the_live_scan_in_wine_says_what_the_machine_file_emulation_says() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/machines");
    let (_tf, tf_machine) = tf210_with_cuda12();
    let machines = [
        fixtures.join("win-cuda-tf-torch/machine.toml"),
        fixtures.join("win-basic/machine.toml"),
        PathBuf::from(tf_machine),
    ];
    for machine in &machines {
        let wine = Prefix::new();
        let exe = install_triage(&wine, r"C:\Program Files\CUDA Triage");
        let replica = replicate(&wine, machine);
        let live = live_scan(&wine, &exe);
        assert_eq!(live["machine"]["platform"], "windows");
        assert_eq!(live["machine"]["source"]["kind"], "live");
        let predicted = json(&run_cli(&[
            "scan",
            "--machine",
            replica.to_str().unwrap(),
            "--json",
        ]));
        let (live_findings, live_inventory) = conclusions(&live);
        let (want_findings, want_inventory) = conclusions(&predicted);
        assert_eq!(
            live_findings,
            want_findings,
            "{}: findings differ",
            machine.display()
        );
        assert_eq!(
            live_inventory,
            want_inventory,
            "{}: inventory differs",
            machine.display()
        );
        // The live scan did read what the replica placed: toolkits from the drive, found
        // through the variables Windows built from the registry.
        assert!(
            !live["inventory"]["toolkits"].as_array().unwrap().is_empty(),
            "{}: no toolkit found live",
            machine.display()
        );
    }
}

#[test]
fn tree_in_wine_agrees_with_wines_loader() {
    let wine = Prefix::new();
    let exe = install_triage(&wine, r"C:\Program Files\CUDA Triage");
    build_c(&wine.c(r"C:\app\probe.exe"), LOAD_PROBE_C, &["-municode"]);
    // lv.dll imports ldep.dll, which sits in a folder of the user's Path (registry); lmiss.dll
    // imports lgone.dll, which is nowhere.
    let build = wine.folder().join("build");
    build_dll(&build, "ldep.dll", &[], false);
    build_dll(&build, "lv.dll", &["ldep.dll"], false);
    build_dll(&build, "lgone.dll", &[], false);
    build_dll(&build, "lmiss.dll", &["lgone.dll"], false);
    for (name, folder) in [
        ("lv.dll", r"C:\app"),
        ("ldep.dll", r"C:\userlibs"),
        ("lmiss.dll", r"C:\app"),
    ] {
        std::fs::create_dir_all(wine.c(folder)).unwrap();
        std::fs::copy(build.join(name), wine.c(folder).join(name)).unwrap();
    }
    wine.reg(&[
        "add",
        r"HKCU\Environment",
        "/v",
        "Path",
        "/t",
        "REG_EXPAND_SZ",
        "/d",
        r"%SystemDrive%\userlibs",
        "/f",
    ]);

    let probe = wine
        .command(r"C:\app\probe.exe")
        .args(["0", r"C:\app\lv.dll", "--dep", "ldep.dll"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&probe.stdout).replace('\r', "");
    let real_dep = said
        .lines()
        .find_map(|l| l.strip_prefix("dep "))
        .unwrap_or_else(|| panic!("the probe said: {said}"))
        .to_lowercase();
    assert_eq!(real_dep, r"c:\userlibs\ldep.dll");

    let (code, tree) = wine.live_tree(&exe, r"C:\app\lv.dll", r"C:\app");
    assert_eq!(code, Some(0), "{tree:#}");
    let node = tree_node(&tree, "ldep.dll");
    assert_eq!(node["path"].as_str().unwrap().to_lowercase(), real_dep);
    assert_eq!(node["how"], "path");

    // A dependency that is nowhere: Wine's loader fails with 126; the tree names it, exit 1.
    let probe = wine
        .command(r"C:\app\probe.exe")
        .args(["0", r"C:\app\lmiss.dll"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&probe.stdout).contains("error 126"),
        "{probe:?}"
    );
    let (code, tree) = wine.live_tree(&exe, r"C:\app\lmiss.dll", r"C:\app");
    assert_eq!(code, Some(1), "{tree:#}");
    let gone = tree_node(&tree, "lgone.dll");
    assert!(gone["path"].is_null(), "{gone:#}");
}
