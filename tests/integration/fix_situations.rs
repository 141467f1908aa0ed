//! The seed situations' remedies as plans: on the machine fixtures (win-cuda-tf-torch holds
//! situation e, CUPTI off PATH) and on situations a, b and d built at test time, every fix with typed parameters offers a plan, and its preview is the
//! exact change — the registry value before/after with every other entry kept, the marked block
//! as a diff, or the copy of a real 64-bit zlibwapi.dll (a 32-bit one is refused).

use crate::fixtures_build::{DllSpec, PeArch, tool_available};
use crate::situations::{cuda_11_2, cudnn8, machine_file, tf210};
use crate::support::{fixture, json, run_cli, stderr, stdout};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::{FakeMachine, WINDOWS_TOOLKITS};
use serde_json::Value;

const TYPED: [&str; 3] = ["path-edit", "env-var", "dll-directory"];

/// Every typed fix of the machine has a plan; returns (id, first scope, plan JSON) of each.
fn plans(machine: &str) -> Vec<(String, String, Value)> {
    let list = json(&run_cli(&["fix", "list", "--machine", machine, "--json"]));
    let mut out = Vec::new();
    for fix in list["fixes"].as_array().unwrap() {
        if !TYPED.contains(&fix["kind"].as_str().unwrap()) {
            continue;
        }
        let id = fix["id"].as_str().unwrap().to_string();
        let scope = fix["scopes"][0]
            .as_str()
            .unwrap_or_else(|| panic!("no plan for {fix:#}"))
            .to_string();
        let shown = run_cli(&[
            "fix",
            "show",
            &id,
            "--machine",
            machine,
            "--scope",
            &scope,
            "--json",
        ]);
        assert!(shown.status.success(), "{id}: {}", stderr(&shown));
        out.push((id, scope, json(&shown)["plan"].clone()));
    }
    out
}

/// A registry PATH edit keeps every entry it had and holds the new one exactly once.
fn assert_exact_registry_edit(plan: &Value, entry: &str) {
    let change = &plan["operations"][0]["change"];
    assert_eq!(change["type"], "registry", "{plan:#}");
    let before = change["before"]["data"].as_str().unwrap_or("");
    let after = change["after"]["data"].as_str().unwrap();
    assert_eq!(change["after"]["kind"], "REG_EXPAND_SZ");
    let kept: Vec<&str> = after
        .split(';')
        .filter(|e| !e.eq_ignore_ascii_case(entry))
        .collect();
    let had: Vec<&str> = if before.is_empty() {
        vec![]
    } else {
        before.split(';').collect()
    };
    assert_eq!(kept, had, "{plan:#}");
    assert_eq!(
        after
            .split(';')
            .filter(|e| e.eq_ignore_ascii_case(entry))
            .count(),
        1
    );
    let preview = plan["previews"][0].as_str().unwrap();
    assert!(
        preview.ends_with(&format!("+ after:  REG_EXPAND_SZ {after}\n")),
        "{preview}"
    );
}

#[test]
fn every_seed_machine_remedy_offers_an_exact_plan() {
    let win = fixture("machines/win-cuda-tf-torch/machine.toml")
        .display()
        .to_string();
    let found = plans(&win);
    // Two CUPTI folders to add to PATH; a DLL hook for CuPy (CUDA 12.1). ONNX Runtime 1.16.3
    // needs none: its provider is loaded with LOAD_WITH_ALTERED_SEARCH_PATH, which searches PATH.
    assert_eq!(found.len(), 3, "{found:#?}");
    for (id, _, plan) in &found {
        if let Some(dir) = id.strip_prefix("path-append:") {
            assert_exact_registry_edit(plan, dir);
        } else {
            assert!(
                plan["previews"][1]
                    .as_str()
                    .unwrap()
                    .ends_with("+import cuda_triage_dlls\n"),
                "{plan:#}"
            );
        }
    }
    let jax = fixture("machines/linux-cuda124-jax/machine.toml")
        .display()
        .to_string();
    let found = plans(&jax);
    // XLA_FLAGS' typo, the cuDNN wheel folder the JAX plugin's process does not search, and the
    // toolkit's CUPTI folder its profiler would open (JAX's load-list row: cupti by name).
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found
            .iter()
            .any(|f| f.0 == "ld-library-path-prepend:/usr/local/cuda/extras/CUPTI/lib64"),
        "{found:#?}"
    );
    let ld = found
        .iter()
        .find(|f| f.0.ends_with("nvidia/cudnn/lib"))
        .expect("an LD_LIBRARY_PATH plan");
    assert!(
        ld.2["previews"][0]
            .as_str()
            .unwrap()
            .contains("LD_LIBRARY_PATH"),
        "{:#}",
        ld.2
    );
    let xla = found
        .iter()
        .find(|f| f.0 == "fix-xla-flags")
        .expect("the XLA_FLAGS plan");
    assert_eq!(xla.1, "machine");
    let preview = xla.2["previews"][0].as_str().unwrap();
    assert!(
        preview.starts_with("--- /dev/null\n+++ b/etc/profile.d/cuda-triage.sh\n"),
        "{preview}"
    );
    assert!(
        preview.contains("+export XLA_FLAGS='--xla_gpu_cuda_data_dir=/usr/local/cuda'\n"),
        "{preview}"
    );
}

/// Gives the machine file a user PATH in the registry, with a %VAR% entry.
fn with_user_path(machine: &str) {
    let mut toml = std::fs::read_to_string(machine).unwrap();
    toml.push_str(
        r"[registry]
'HKCU\Environment' = { Path = '%USERPROFILE%\AppData\Local\Microsoft\WindowsApps;C:\Tools' }
",
    );
    std::fs::write(machine, toml).unwrap();
}

#[test]
fn situations_a_and_d_path_fixes_preview_the_exact_registry_change() {
    // a: TensorFlow 2.10 needs CUDA 11.2's bin, which the host process's PATH lacks.
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cuda_11_2(&mut m);
    tf210(&mut m);
    let mf = machine_file(
        &m,
        &[("PATH", r"C:\Windows\System32;C:\Program Files\dotnet")],
    );
    with_user_path(&mf);
    let found = plans(&mf);
    let bin = format!(r"{WINDOWS_TOOLKITS}\v11.2\bin");
    let (_, _, plan) = found
        .iter()
        .find(|(id, _, _)| id.ends_with(&bin))
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert_exact_registry_edit(plan, &bin);
    let after = plan["operations"][0]["change"]["after"]["data"]
        .as_str()
        .unwrap();
    assert_eq!(
        after,
        format!(r"{bin};%USERPROFILE%\AppData\Local\Microsoft\WindowsApps;C:\Tools"),
        "first, the rest kept unexpanded"
    );
    // d: a typo in PATH (v11.2\bn): replaced by the folder that exists.
    let typo = machine_file(
        &m,
        &[(
            "PATH",
            &format!(r"{WINDOWS_TOOLKITS}\v11.2\bn;C:\Windows\System32"),
        )],
    );
    with_user_path(&typo);
    let found = plans(&typo);
    let (_, _, plan) = found
        .iter()
        .find(|(id, _, _)| id == "fix-path-entry-1")
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert_exact_registry_edit(plan, &bin);
}

#[test]
fn situation_b_copies_a_real_64_bit_zlibwapi_and_refuses_a_32_bit_one() {
    for tool in ["x86_64-w64-mingw32-gcc", "i686-w64-mingw32-gcc"] {
        assert!(
            tool_available(tool),
            "{tool} is needed (Debian gcc-mingw-w64-x86-64 / gcc-mingw-w64-i686)"
        );
    }
    let work = tempfile::tempdir().unwrap();
    let x64 = DllSpec::new("zlibwapi.dll")
        .export("inflate", None)
        .build(&work.path().join("x64"))
        .unwrap();
    let x86 = DllSpec::new("zlibwapi.dll")
        .arch(PeArch::I686)
        .export("inflate", None)
        .build(&work.path().join("x86"))
        .unwrap();
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let dir = cudnn8(&mut m);
    m.copy(r"C:\Downloads\zlib123dllx64\dll_x64\zlibwapi.dll", &x64);
    m.copy(r"C:\Downloads\zlib123dll\static32\zlibwapi.dll", &x86);
    let mf = machine_file(&m, &[("PATH", &format!(r"{dir};C:\Windows\System32"))]);
    let id = format!("copy-zlibwapi-x64:{dir}");
    let size = std::fs::metadata(&x64).unwrap().len();
    let ok = run_cli(&[
        "fix",
        "show",
        &id,
        "--machine",
        &mf,
        "--from",
        r"C:\Downloads\zlib123dllx64\dll_x64\zlibwapi.dll",
    ]);
    assert!(
        stdout(&ok).contains(&format!(r"copy C:\Downloads\zlib123dllx64\dll_x64\zlibwapi.dll -> {dir}\zlibwapi.dll ({size} bytes)")),
        "{}{}", stdout(&ok), stderr(&ok)
    );
    let bad = run_cli(&[
        "fix",
        "show",
        &id,
        "--machine",
        &mf,
        "--from",
        r"C:\Downloads\zlib123dll\static32\zlibwapi.dll",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("built for i386 (32-bit); this fix needs a x64 file"),
        "{}",
        stderr(&bad)
    );
}
