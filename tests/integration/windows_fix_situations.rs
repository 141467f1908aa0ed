//! The seed situations' remedies applied for real on a live Windows machine — Wine's — through
//! the .exe (situation d's PATH typo is `windows_fix`): each situation's fake machine is
//! replicated into a fresh prefix, the live `fix list` offers the remedy, `fix apply --yes`
//! makes the change (the user's registry Path through the registry API; a real 64-bit
//! zlibwapi.dll copied beside cuDNN 8), its verification rescans and the finding is gone, and
//! `fix undo` puts back exactly what was there (the value absent again; the copy removed).

use super::fixtures_build::DllSpec;
use super::situations::{anaconda_tf1_cuda10, cuda_11_2, cudnn8, machine_file, tf210};
use super::windows_live::replicate;
use super::wine_support::{Prefix, install_triage};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::{FakeMachine, WINDOWS_TOOLKITS};
use serde_json::Value;
use std::path::Path;

const USER_ENV: &str = r"HKCU\Environment";

fn codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// Replicates `m`/`mf` into a fresh prefix, finds the fix of `code` whose summary contains
/// `needle`, applies it (with `extra` arguments) and checks it verified and that the rescan no
/// longer offers it; returns the prefix, the .exe and the fix id, applied.
fn applied(mf: &str, code: &str, needle: &str, extra: &[&str]) -> (Prefix, String, String) {
    let wine = Prefix::new();
    replicate(&wine, Path::new(mf));
    let exe = install_triage(&wine, r"C:\Program Files\CUDA Triage");
    let (_, listed) = wine.run_json(&exe, &["fix", "list", "--json"]);
    assert!(
        codes(&listed).contains(&code.to_string()),
        "{:#}",
        listed["findings"]
    );
    let fix = listed["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["finding"] == code && f["summary"].as_str().unwrap().contains(needle))
        .unwrap_or_else(|| panic!("no {code} fix naming {needle}: {:#}", listed["fixes"]));
    let id = fix["id"].as_str().unwrap().to_string();
    let mut args = vec!["fix", "apply", id.as_str(), "--yes", "--json"];
    args.extend(extra);
    let (status, done) = wine.run_json(&exe, &args);
    assert_eq!(status, Some(0), "{done:#}");
    assert_eq!(done["apply"]["outcome"], "applied", "{done:#}");
    assert_eq!(done["apply"]["verification"]["verified"], true, "{done:#}");
    let (_, rescanned) = wine.run_json(&exe, &["fix", "list", "--json"]);
    assert!(
        !rescanned["fixes"].to_string().contains(&id),
        "{id} still offered after apply: {:#}",
        rescanned["findings"]
    );
    (wine, exe, id)
}

fn undo(wine: &Prefix, exe: &str, id: &str) {
    let (status, undone) = wine.run_json(exe, &["fix", "undo", "--json"]);
    assert_eq!(status, Some(0), "{undone:#}");
    assert_eq!(undone["undone"]["fix_id"], id, "{undone:#}");
    let (_, history) = wine.run_json(exe, &["fix", "history", "--json"]);
    assert_eq!(history["history"][0]["state"], "undone", "{history:#}");
}

#[test]
fn situation_a_adds_cuda_11_2_bin_to_the_users_path_and_undo_removes_the_value() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cuda_11_2(&mut m);
    tf210(&mut m);
    let py = r"C:\Users\u\AppData\Local\Programs\Python\Python310";
    let mf = machine_file(
        &m,
        &[
            ("PATH", r"C:\windows\system32;C:\windows"),
            ("PYTHONNET_PYDLL", &format!(r"{py}\python310.dll")),
        ],
    );
    let bin = format!(r"{WINDOWS_TOOLKITS}\v11.2\bin");
    let (wine, exe, id) = applied(&mf, "library-not-searched", &bin, &[]);
    // No user Path before: a new REG_EXPAND_SZ value holding the folder.
    assert_eq!(
        wine.reg_value(USER_ENV, "Path"),
        Some(("REG_EXPAND_SZ".to_string(), bin.clone()))
    );
    undo(&wine, &exe, &id);
    assert_eq!(
        wine.reg_value(USER_ENV, "Path"),
        None,
        "the value is gone again"
    );
}

#[test]
fn situation_b_copies_a_real_64_bit_zlibwapi_beside_cudnn_8_and_undo_removes_it() {
    let work = tempfile::tempdir().unwrap();
    let x64 = DllSpec::new("zlibwapi.dll")
        .export("inflate", None)
        .build(&work.path().join("x64"))
        .unwrap();
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let dir = cudnn8(&mut m);
    let from = r"C:\Downloads\zlib123dllx64\dll_x64\zlibwapi.dll";
    m.copy(from, &x64);
    let mf = machine_file(
        &m,
        &[("PATH", &format!(r"{dir};C:\windows\system32;C:\windows"))],
    );
    let (wine, exe, id) = applied(
        &mf,
        "cudnn8-zlibwapi-missing",
        "zlibwapi",
        &["--from", from],
    );
    let copied = wine.c(&format!(r"{dir}\zlibwapi.dll"));
    assert_eq!(
        std::fs::read(&copied).unwrap(),
        std::fs::read(&x64).unwrap()
    );
    undo(&wine, &exe, &id);
    assert!(!copied.exists(), "the copy is removed again");
    assert!(wine.c(from).is_file(), "the source stays");
}

#[test]
fn situation_e_puts_cupti_libx64_on_the_users_path_keeping_its_entries_and_undo_restores_it() {
    let cuda = WINDOWS_TOOLKITS;
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let env = anaconda_tf1_cuda10(&mut m);
    let mf = machine_file(
        &m,
        &[
            (
                "PATH",
                &format!(r"{cuda}\v10.0\bin;C:\windows\system32;C:\windows;{env}"),
            ),
            ("CUDA_PATH", &format!(r"{cuda}\v10.0")),
        ],
    );
    let wine_user_path = r"%USERPROFILE%\bin;C:\Tools";
    // The user's own Path, set before the fix, stays as it is around the new entry.
    let m_path = std::path::PathBuf::from(&mf);
    let mut toml = std::fs::read_to_string(&m_path).unwrap();
    toml.push_str(&format!(
        "[registry]\n'{USER_ENV}' = {{ Path = '{wine_user_path}' }}\n"
    ));
    std::fs::write(&m_path, toml).unwrap();
    let cupti = format!(r"{cuda}\v10.0\extras\CUPTI\libx64");
    let (wine, exe, id) = applied(&mf, "cupti-not-searched", &cupti, &[]);
    let (kind, data) = wine.reg_value(USER_ENV, "Path").unwrap();
    assert!(
        data.contains(wine_user_path) && data.to_lowercase().contains(&cupti.to_lowercase()),
        "{kind} {data}"
    );
    undo(&wine, &exe, &id);
    // `replicate` adds values as REG_SZ (reg add's default): undo keeps that type.
    assert_eq!(
        wine.reg_value(USER_ENV, "Path"),
        Some(("REG_SZ".to_string(), wine_user_path.to_string()))
    );
}

#[test]
fn situation_d_puts_the_newer_toolkit_first_in_the_machine_path_and_undo_restores_it() {
    let cuda = WINDOWS_TOOLKITS;
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cuda_11_2(&mut m);
    m.windows_toolkit("10.0", &["cudart64_100.dll"]);
    tf210(&mut m);
    cudnn8(&mut m);
    m.file(r"C:\Windows\System32\zlibwapi.dll", b"MZ");
    let py = r"C:\Users\u\AppData\Local\Programs\Python\Python310";
    let path = format!(r"{cuda}\v10.0\bin;{cuda}\v11.2\bin;C:\windows\system32;C:\windows;{py}");
    let mf = machine_file(&m, &[("PATH", &path)]);
    let newer = format!(r"{cuda}\v11.2\bin");
    // The older toolkit comes first in the machine Path, which Windows puts before the user's:
    // only the machine Path can change the order (Wine's registry lets this test write HKLM).
    let (wine, exe, id) = applied(&mf, "ptxas-too-old", &newer, &["--scope", "machine"]);
    let key = r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment";
    let (kind, data) = wine.reg_value(key, "Path").unwrap();
    assert_eq!(kind, "REG_EXPAND_SZ");
    assert!(
        data.to_lowercase()
            .starts_with(&format!("{newer};").to_lowercase()),
        "{data}"
    );
    undo(&wine, &exe, &id);
    assert_eq!(
        wine.reg_value(key, "Path"),
        Some(("REG_EXPAND_SZ".to_string(), path))
    );
    // The user scope (the default) says why it cannot put the folder before a machine entry.
    let (_, shown) = wine.run_json(&exe, &["fix", "show", &id, "--json"]);
    assert!(
        shown["plan"]["notes"].to_string().contains(
            "an entry put first in the user's Path still comes after every machine entry"
        ),
        "{:#}",
        shown["plan"]
    );
}
