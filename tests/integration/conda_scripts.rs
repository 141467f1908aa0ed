//! A conda environment's `etc/conda/activate.d` + `deactivate.d` pair, as the fix engine writes
//! it (planned for `--scope env` with CONDA_PREFIX set), run by the real shells: the sh pair
//! sourced by `sh` (dash) and `bash`, the .bat pair `call`ed by Wine's `cmd` in a fresh prefix.
//! Activation sets the variable and edits PATH (the typo out, the toolkit first); deactivation
//! gives back the exact old value — including a PATH with spaces and parentheses — or unsets
//! the variable when it was unset. The .ps1 pair is checked line by line only: PowerShell is not
//! installable on the test machines (no Debian package; its npm and .NET installers download it
//! from GitHub, which is not reachable there). A Windows venv's `Scripts\activate.bat` gets the
//! fix appended after its own lines and cmd runs both.

use super::wine_support::Prefix;
use cuda_triage::engine::context::{
    ContextSource, EnvVars, FsView, Platform, RegistryView, SystemContext,
};
use cuda_triage::engine::findings::{Finding, FixKind, FixRef, PathEdit, Severity};
use cuda_triage::engine::fix::Scope;
use cuda_triage::engine::fix::plan::Change;
use cuda_triage::engine::fix::planner::{self, PlanOptions};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn context(platform: Platform, fs: FsView, prefix: &str) -> SystemContext {
    SystemContext {
        platform,
        wsl: false,
        fs,
        env: EnvVars::new(platform, [("CONDA_PREFIX".to_string(), prefix.to_string())]),
        registry: RegistryView::default(),
        driver: None,
        gpus: Vec::new(),
        driver_note: None,
        source: ContextSource::MachineFile("test".into()),
        session: cuda_triage::engine::context::SessionEnvironment::default(),
    }
}

/// Two fixes: set CUDA_PATH; PATH without the typo and with the toolkit's bin first.
fn finding(toolkit: &str, typo: &str, bin: &str) -> Finding {
    Finding::new(
        "env-typo",
        Severity::Error,
        "CUDA_PATH and PATH are wrong",
        "d",
    )
    .with_fix(FixRef {
        id: "set-cuda-path".into(),
        kind: FixKind::env("CUDA_PATH", Some(toolkit.into())),
        summary: "set CUDA_PATH".into(),
    })
    .with_fix(FixRef {
        id: "fix-path".into(),
        kind: FixKind::path(PathEdit {
            variable: "PATH".into(),
            add: Some(bin.into()),
            first: true,
            remove: Some(typo.into()),
        }),
        summary: "fix PATH".into(),
    })
}

/// Plans each fix for the env scope and writes what it writes, one after the other (the second
/// plan reads the files the first wrote, as applying them in turn would); every file, by path.
fn apply_in_turn(
    ctx: &SystemContext,
    finding: &Finding,
    host: impl Fn(&str) -> std::path::PathBuf,
) -> BTreeMap<String, Vec<u8>> {
    let opts = PlanOptions {
        scope: Some(Scope::Env),
        ..Default::default()
    };
    let mut files = BTreeMap::new();
    for fix in &finding.fixes {
        let plan = planner::plan(ctx, finding, fix, &opts).unwrap();
        for op in plan.operations {
            let Change::File { path, after, .. } = op.change else {
                panic!("not a file: {:?}", op.change)
            };
            let (h, after) = (host(&path), after.unwrap());
            std::fs::create_dir_all(h.parent().unwrap()).unwrap();
            std::fs::write(h, &after).unwrap();
            files.insert(path, after);
        }
    }
    files
}

#[test]
fn the_sh_pair_sets_then_restores_the_exact_old_values_in_sh_and_bash() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("envs/tf").display().to_string();
    std::fs::create_dir_all(&prefix).unwrap();
    let ctx = context(Platform::Linux, FsView::live(Platform::Linux), &prefix);
    let f = finding(
        "/usr/local/cuda-12.4",
        "/usr/local/cuda-12.4/bni",
        "/usr/local/cuda-12.4/bin",
    );
    let files = apply_in_turn(&ctx, &f, |p| Path::new(p).to_path_buf());
    assert_eq!(files.len(), 2, "{:?}", files.keys());
    let script = format!(
        r#". '{p}/etc/conda/activate.d/cuda-triage.sh'
echo "on CUDA_PATH=${{CUDA_PATH-unset}} PATH=$PATH"
. '{p}/etc/conda/deactivate.d/cuda-triage.sh'
echo "off CUDA_PATH=${{CUDA_PATH-unset}} PATH=$PATH"
echo "left=${{CUDA_TRIAGE_BACKUP_CUDA_PATH-}}${{CUDA_TRIAGE_BACKUP_PATH-}}""#,
        p = prefix
    );
    let old_path = "/opt/My Tools (x86)/bin:/usr/local/cuda-12.4/bni:/usr/bin:/bin";
    for shell in ["sh", "bash"] {
        for old in [Some("/old/cuda"), None] {
            let mut cmd = Command::new(shell);
            cmd.arg("-c").arg(&script).env_clear().env("PATH", old_path);
            if let Some(v) = old {
                cmd.env("CUDA_PATH", v);
            }
            let out = cmd
                .output()
                .unwrap_or_else(|e| panic!("{shell}: {e} (Debian package dash / bash)"));
            assert!(
                out.status.success(),
                "{shell}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let new_path = "/usr/local/cuda-12.4/bin:/opt/My Tools (x86)/bin:/usr/bin:/bin";
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!(
                    "on CUDA_PATH=/usr/local/cuda-12.4 PATH={new_path}\noff CUDA_PATH={} PATH={old_path}\nleft=\n",
                    old.unwrap_or("unset")
                ),
                "{shell} with CUDA_PATH {old:?}"
            );
        }
    }
}

#[test]
fn the_bat_pair_sets_then_restores_the_exact_old_values_in_wines_cmd() {
    let wine = Prefix::new();
    let prefix = r"C:\conda\envs\tf";
    let drives = BTreeMap::from([('C', wine.drive_c())]);
    std::fs::create_dir_all(wine.c(prefix)).unwrap();
    let ctx = context(Platform::Windows, FsView::drives(drives), prefix);
    let toolkit = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4";
    let f = finding(
        toolkit,
        &format!(r"{toolkit}\bni"),
        &format!(r"{toolkit}\bin"),
    );
    let files = apply_in_turn(&ctx, &f, |p| wine.c(p));
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            r"C:\conda\envs\tf\etc\conda\activate.d\cuda-triage.bat",
            r"C:\conda\envs\tf\etc\conda\activate.d\cuda-triage.ps1",
            r"C:\conda\envs\tf\etc\conda\activate.d\cuda-triage.sh",
            r"C:\conda\envs\tf\etc\conda\deactivate.d\cuda-triage.bat",
            r"C:\conda\envs\tf\etc\conda\deactivate.d\cuda-triage.ps1",
            r"C:\conda\envs\tf\etc\conda\deactivate.d\cuda-triage.sh",
        ]
    );
    let old_path = format!(r"C:\Tools (x86)\bin;{toolkit}\bni;C:\windows\system32;C:\windows");
    let new_path = format!(r"{toolkit}\bin;C:\Tools (x86)\bin;C:\windows\system32;C:\windows");
    for old in [Some(r"C:\old cuda"), None] {
        let set_old = match old {
            Some(v) => format!("set \"CUDA_PATH={v}\""),
            None => "set \"CUDA_PATH=\"".into(),
        };
        let driver = format!(
            "@echo off\r\nset \"PATH={old_path}\"\r\n{set_old}\r\ncall {p}\\etc\\conda\\activate.d\\cuda-triage.bat\r\necho on=[%CUDA_PATH%] [%PATH%]\r\ncall {p}\\etc\\conda\\deactivate.d\\cuda-triage.bat\r\nif defined CUDA_PATH (echo off=[%CUDA_PATH%]) else (echo off=unset)\r\necho path=[%PATH%]\r\nif defined CUDA_TRIAGE_BACKUP_CUDA_PATH echo left CUDA_PATH backup\r\nif defined CUDA_TRIAGE_BACKUP_PATH echo left PATH backup\r\n",
            p = prefix
        );
        std::fs::write(wine.c(r"C:\driver.bat"), driver).unwrap();
        let out = wine
            .command("cmd")
            .args(["/c", r"C:\driver.bat"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
        assert_eq!(
            text,
            format!(
                "on=[{toolkit}] [{new_path}]\noff={}\npath=[{old_path}]\n",
                old.map_or("unset".to_string(), |v| format!("[{v}]"))
            ),
            "CUDA_PATH before: {old:?}; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // PowerShell (not runnable here): the backup/restore idiom, line by line.
    let ps1 = |d: &str| {
        String::from_utf8(files[&format!(r"{prefix}\etc\conda\{d}\cuda-triage.ps1")].clone())
            .unwrap()
    };
    let (on, off) = (ps1("activate.d"), ps1("deactivate.d"));
    for line in [
        "if (Test-Path Env:CUDA_PATH) { $Env:CUDA_TRIAGE_BACKUP_CUDA_PATH = $Env:CUDA_PATH }"
            .to_string(),
        format!("$Env:CUDA_PATH = '{toolkit}'"),
        "if (Test-Path Env:PATH) { $Env:CUDA_TRIAGE_BACKUP_PATH = $Env:PATH }".to_string(),
        format!(
            "$Env:PATH = (($Env:PATH -split ';') | Where-Object {{ $_ -ne '{toolkit}\\bni' }}) -join ';'"
        ),
        format!("$Env:PATH = '{toolkit}\\bin' + ';' + $Env:PATH"),
    ] {
        assert!(
            on.lines().any(|l| l == line),
            "activate.d .ps1 lacks {line}:\n{on}"
        );
    }
    for line in [
        "if (Test-Path Env:CUDA_TRIAGE_BACKUP_CUDA_PATH) { $Env:CUDA_PATH = $Env:CUDA_TRIAGE_BACKUP_CUDA_PATH; Remove-Item Env:CUDA_TRIAGE_BACKUP_CUDA_PATH } else { Remove-Item Env:CUDA_PATH -ErrorAction SilentlyContinue }",
        "if (Test-Path Env:CUDA_TRIAGE_BACKUP_PATH) { $Env:PATH = $Env:CUDA_TRIAGE_BACKUP_PATH; Remove-Item Env:CUDA_TRIAGE_BACKUP_PATH } else { Remove-Item Env:PATH -ErrorAction SilentlyContinue }",
    ] {
        assert!(
            off.lines().any(|l| l == line),
            "deactivate.d .ps1 lacks {line}:\n{off}"
        );
    }
}

#[test]
fn a_windows_venvs_activate_bat_carries_the_fix_in_wines_cmd() {
    let wine = Prefix::new();
    let venv = r"C:\Users\u\proj\.venv";
    let drives = BTreeMap::from([('C', wine.drive_c())]);
    // An activate.bat of the shape venv writes: echo off, VIRTUAL_ENV, its Scripts first on PATH
    // (CRLF; no final newline, as an editor may leave it).
    let original = format!(
        "@echo off\r\nset \"VIRTUAL_ENV={venv}\"\r\nif not defined _OLD_VIRTUAL_PATH set \"_OLD_VIRTUAL_PATH=%PATH%\"\r\nset \"PATH=%VIRTUAL_ENV%\\Scripts;%PATH%\"\r\n:END"
    );
    std::fs::create_dir_all(wine.c(&format!(r"{venv}\Scripts"))).unwrap();
    std::fs::write(wine.c(&format!(r"{venv}\Scripts\activate.bat")), &original).unwrap();
    let mut ctx = context(Platform::Windows, FsView::drives(drives), "");
    ctx.env = EnvVars::new(
        Platform::Windows,
        [("VIRTUAL_ENV".to_string(), venv.to_string())],
    );
    let toolkit = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4";
    let f = finding(
        toolkit,
        &format!(r"{toolkit}\bni"),
        &format!(r"{toolkit}\bin"),
    );
    let files = apply_in_turn(&ctx, &f, |p| wine.c(p));
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            r"C:\Users\u\proj\.venv\Scripts\activate",
            r"C:\Users\u\proj\.venv\Scripts\activate.bat",
        ]
    );
    let bat = &files[&format!(r"{venv}\Scripts\activate.bat")];
    assert!(
        bat.starts_with(format!("{original}\r\n@rem >>> cuda-triage >>>\r\n").as_bytes()),
        "{}",
        String::from_utf8_lossy(bat)
    );
    let driver = format!(
        "@echo off\r\nset \"PATH=C:\\Tools (x86)\\bin;{toolkit}\\bni;C:\\windows\\system32;C:\\windows\"\r\ncall {venv}\\Scripts\\activate.bat\r\necho [%CUDA_PATH%] [%PATH%]\r\n"
    );
    std::fs::write(wine.c(r"C:\driver.bat"), driver).unwrap();
    let out = wine
        .command("cmd")
        .args(["/c", r"C:\driver.bat"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).replace('\r', ""),
        format!(
            "[{toolkit}] [{toolkit}\\bin;{venv}\\Scripts;C:\\Tools (x86)\\bin;C:\\windows\\system32;C:\\windows]\n"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
