//! A PATH fix on a live Windows machine — Wine's registry — end to end through the .exe: the
//! user's `Path` (REG_EXPAND_SZ, `%VARS%`, over 3,000 characters) holds a mistyped toolkit
//! folder; `fix apply` replaces that one entry through the registry API, `reg query` reads back
//! exactly the expected value and type, a process started afterwards sees it, the verification
//! rebuilt the new session's PATH from the registry, and `fix undo` restores value and type.

use super::wine_support::{Prefix, install_triage};
use cuda_triage::engine::context::fake::WINDOWS_TOOLKITS;

const USER_ENV: &str = r"HKCU\Environment";

#[test]
fn a_user_path_fix_round_trips_through_the_registry() {
    let wine = Prefix::new();
    let exe = install_triage(&wine, r"C:\Program Files\CUDA Triage");
    let toolkit = format!(r"{WINDOWS_TOOLKITS}\v12.1");
    for file in [
        r"version.txt",
        r"bin\cudart64_12.dll",
        r"bin\cublas64_12.dll",
        r"bin\ptxas.exe",
    ] {
        let host = wine.c(&format!(r"{toolkit}\{file}"));
        std::fs::create_dir_all(host.parent().unwrap()).unwrap();
        std::fs::write(host, "CUDA Version 12.1.0").unwrap();
    }
    // A long user Path: a %VAR% entry, the typo, and 60 folders that exist. (The typo comes
    // early: Wine 8.0 cuts the PATH it builds from the registry at about 1,100 characters, so
    // an entry at the end would never reach a process; the registry value itself is whole.)
    let typo = format!(r"{toolkit}\bn");
    let mut entries = vec![r"%USERPROFILE%\bin".to_string(), typo.clone()];
    std::fs::create_dir_all(wine.c(r"C:\users\root\bin")).unwrap();
    for i in 0..60 {
        let dir = format!(r"C:\Tools\a-rather-long-folder-name-for-tool-number-{i:02}\bin");
        std::fs::create_dir_all(wine.c(&dir)).unwrap();
        entries.push(dir);
    }
    let before = entries.join(";");
    assert!(before.len() > 3000, "{}", before.len());
    wine.reg(&[
        "add",
        USER_ENV,
        "/v",
        "Path",
        "/t",
        "REG_EXPAND_SZ",
        "/d",
        &before,
        "/f",
    ]);

    // The scan offers to replace the typo with the toolkit's bin folder.
    let (_, listed) = wine.run_json(&exe, &["fix", "list", "--json"]);
    let fix = listed["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "path-edit" && f["summary"].as_str().unwrap().contains(&typo))
        .unwrap_or_else(|| panic!("no fix for the typo: {:#}", listed["fixes"]));
    let id = fix["id"].as_str().unwrap().to_string();

    // The preview is the registry value before and after, with its type.
    let (code, shown) = wine.run_json(&exe, &["fix", "show", &id, "--json"]);
    assert_eq!(code, Some(0), "{shown:#}");
    let want = before.replace(&typo, &format!(r"{toolkit}\bin"));
    let change = &shown["plan"]["operations"][0]["change"];
    assert_eq!(change["key"], USER_ENV, "{change:#}");
    assert_eq!(change["after"]["data"], want.as_str(), "{change:#}");
    assert_eq!(change["after"]["kind"], "REG_EXPAND_SZ");

    let (code, applied) = wine.run_json(&exe, &["fix", "apply", &id, "--yes", "--json"]);
    assert_eq!(code, Some(0), "{applied:#}");
    let verification = &applied["apply"]["verification"];
    assert_eq!(verification["verified"], true, "{verification:#}");
    assert!(
        verification["checked"]
            .to_string()
            .contains("machine's Path, then the user's"),
        "{verification:#}"
    );
    assert_eq!(
        wine.reg_value(USER_ENV, "Path"),
        Some(("REG_EXPAND_SZ".to_string(), want.clone()))
    );

    // A process started now gets the corrected folder, %USERPROFILE% expanded by Windows.
    let out = wine
        .command("cmd")
        .args(["/c", "echo %PATH%"])
        .output()
        .unwrap();
    let path = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        path.contains(&format!(r"{toolkit}\bin;").to_lowercase())
            || path
                .trim_end()
                .ends_with(&format!(r"{toolkit}\bin").to_lowercase()),
        "{path}"
    );
    assert!(path.contains(r"c:\users\root\bin"), "{path}");
    let (_, rescanned) = wine.run_json(&exe, &["fix", "list", "--json"]);
    assert!(
        !rescanned["fixes"].to_string().contains(&id),
        "still offered after apply: {:#}",
        rescanned["fixes"]
    );

    // Undo restores value and type exactly.
    let (code, undone) = wine.run_json(&exe, &["fix", "undo", "--json"]);
    assert_eq!(code, Some(0), "{undone:#}");
    assert_eq!(
        wine.reg_value(USER_ENV, "Path"),
        Some(("REG_EXPAND_SZ".to_string(), before))
    );
    let (_, history) = wine.run_json(&exe, &["fix", "history", "--json"]);
    assert!(history.to_string().contains(&id), "{history:#}");
}
