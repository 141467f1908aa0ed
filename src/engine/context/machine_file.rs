//! Machine files: a TOML description of a (possibly broken) machine plus a folder tree standing
//! for its disks. They drive `--machine FILE` on every command and every fixture-based test.
//!
//! ```toml
//! platform = "windows"          # "windows" | "linux"
//! root = "fs"                   # linux: the folder standing for "/" (relative to this file)
//! wsl = false                   # linux: running under WSL (also: a WSL kernel in <root>/proc/version)
//! [drives]                      # windows: drive letter -> folder (relative to this file)
//! C = "fs/C"
//! [env]                         # environment of the process being diagnosed
//! PATH = 'C:\Windows\system32'
//! [registry]                    # optional: 'HKCU\Environment' = { Path = '...' }
//! [driver]                      # optional: absent = no NVIDIA driver
//! version = "531.14"
//! cuda = "12.1"
//! [[gpu]]
//! name = "NVIDIA GeForce RTX 3070"
//! compute_capability = "8.6"
//! memory_mib = 8192
//! ```
//! A bad file is answered with file, line, column and key; never a panic.

use super::{
    ContextSource, DriverFacts, EnvVars, FsView, GpuFacts, Platform, RegistryView, SystemContext,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A machine file that could not be used, with where in it the problem is.
#[derive(Debug, thiserror::Error)]
pub enum MachineFileError {
    #[error("{file}: cannot read machine file: {message}")]
    Read { file: String, message: String },
    #[error("{file}:{line}:{column}: {}{message}", key.as_ref().map(|k| format!("key `{k}`: ")).unwrap_or_default())]
    Invalid {
        file: String,
        line: usize,
        column: usize,
        key: Option<String>,
        message: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMachine {
    platform: Spanned<Platform>,
    #[serde(default)]
    root: Option<Spanned<String>>,
    #[serde(default)]
    wsl: bool,
    #[serde(default)]
    drives: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    registry: BTreeMap<String, BTreeMap<String, String>>,
    #[serde(default)]
    driver: Option<DriverFacts>,
    #[serde(default)]
    gpu: Vec<GpuFacts>,
}

/// Reads and checks a machine file; folders are resolved relative to the file.
pub fn load(path: &Path) -> Result<SystemContext, MachineFileError> {
    let file = path.display().to_string();
    let text = std::fs::read(path).map_err(|e| MachineFileError::Read {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let text = String::from_utf8(text).map_err(|e| MachineFileError::Read {
        file: file.clone(),
        message: format!("not UTF-8 text ({e})"),
    })?;
    parse(&text, path)
}

/// Parses machine-file text; `path` locates relative folders and names the file in messages.
pub fn parse(text: &str, path: &Path) -> Result<SystemContext, MachineFileError> {
    let file = path.display().to_string();
    let at = |span: std::ops::Range<usize>, key: Option<&str>, message: String| {
        let (line, column) = line_col(text, span.start);
        MachineFileError::Invalid {
            file: file.clone(),
            line,
            column,
            key: key.map(String::from),
            message,
        }
    };
    let raw: RawMachine = toml::from_str(text).map_err(|e| {
        let start = e.span().map_or(0, |s| s.start);
        let (line, column) = line_col(text, start);
        let key = e
            .message()
            .split('`')
            .nth(1)
            .map(String::from)
            .or_else(|| key_on_line(text, line));
        MachineFileError::Invalid {
            file: file.clone(),
            line,
            column,
            key,
            message: e.message().trim().to_string(),
        }
    })?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let folder = |value: &Spanned<String>, key: &str| -> Result<PathBuf, MachineFileError> {
        let dir = base.join(value.get_ref());
        if dir.is_dir() {
            Ok(dir)
        } else {
            Err(at(
                value.span(),
                Some(key),
                format!(
                    "{key} = \"{}\": folder not found at {}",
                    value.get_ref(),
                    dir.display()
                ),
            ))
        }
    };
    let platform = *raw.platform.get_ref();
    let fs = match platform {
        Platform::Linux => {
            if let Some((letter, value)) = raw.drives.iter().next() {
                return Err(at(
                    value.span(),
                    Some(&format!("drives.{letter}")),
                    "drives are for platform = \"windows\"; use root = \"...\" for linux".into(),
                ));
            }
            let root = raw.root.as_ref().ok_or_else(|| {
                at(
                    raw.platform.span(),
                    Some("root"),
                    "platform = \"linux\" needs root = \"<folder standing for />\"".into(),
                )
            })?;
            FsView::rooted(folder(root, "root")?)
        }
        Platform::Windows => {
            if let Some(root) = &raw.root {
                return Err(at(
                    root.span(),
                    Some("root"),
                    "root is for platform = \"linux\"; use [drives] C = \"...\" for windows".into(),
                ));
            }
            let mut drives = BTreeMap::new();
            for (letter, value) in &raw.drives {
                let key = format!("drives.{letter}");
                let mut chars = letter.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c.is_ascii_alphabetic() => {
                        drives.insert(c.to_ascii_uppercase(), folder(value, &key)?);
                    }
                    _ => {
                        return Err(at(
                            value.span(),
                            Some(&key),
                            format!("drive \"{letter}\" is not a single letter"),
                        ));
                    }
                }
            }
            FsView::drives(drives)
        }
    };
    if raw.wsl && platform == Platform::Windows {
        return Err(at(
            raw.platform.span(),
            Some("wsl"),
            "wsl = true needs platform = \"linux\"".into(),
        ));
    }
    // A WSL kernel name in the tree's /proc says WSL as well as `wsl = true` does.
    let wsl = raw.wsl || (platform == Platform::Linux && super::runs_in::wsl_kernel(&fs));
    Ok(SystemContext {
        platform,
        wsl,
        fs,
        env: EnvVars::new(platform, raw.env),
        registry: RegistryView::new(raw.registry),
        driver: raw.driver,
        gpus: raw.gpu,
        driver_note: None,
        source: ContextSource::MachineFile(file),
        session: crate::engine::context::SessionEnvironment::default(),
    })
}

/// The key assigned on a 1-based line (`memory_mib = "lots"` → `memory_mib`), if any.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let (key, _) = text.lines().nth(line - 1)?.split_once('=')?;
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty()).then(|| key.to_string())
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("machine.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn reads_windows_machine() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("fs/C/Windows/System32")).unwrap();
        let p = write(
            dir.path(),
            "platform = \"windows\"\n[drives]\nc = \"fs/C\"\n[env]\nPath = 'C:\\Windows\\system32'\n[driver]\nversion = \"531.14\"\ncuda = \"12.1\"\n[[gpu]]\nname = \"RTX\"\ncompute_capability = \"8.6\"\n",
        );
        let ctx = load(&p).unwrap();
        assert_eq!(ctx.platform, Platform::Windows);
        assert!(ctx.fs.is_dir(r"C:\WINDOWS\system32"));
        assert_eq!(ctx.path_entries(), vec![r"C:\Windows\system32".to_string()]);
        assert_eq!(ctx.driver.unwrap().cuda.as_deref(), Some("12.1"));
        assert_eq!(ctx.gpus[0].compute_capability.as_deref(), Some("8.6"));
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("fs")).unwrap();
        let p = write(
            dir.path(),
            "platform = \"linux\"\nroot = \"fs\"\n[driver]\nversion = \"550\"\ncudaa = \"12.4\"\n",
        );
        match load(&p) {
            Err(MachineFileError::Invalid {
                line, key, message, ..
            }) => {
                assert_eq!(line, 5, "{message}");
                assert_eq!(key.as_deref(), Some("cudaa"));
            }
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn missing_folder_and_wrong_type_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "platform = \"linux\"\nroot = \"nowhere\"\n");
        let err = load(&p).unwrap_err().to_string();
        assert!(
            err.contains(":2:") && err.contains("folder not found"),
            "{err}"
        );
        let p = write(dir.path(), "platform = \"linux\"\nroot = 7\n");
        let err = load(&p).unwrap_err().to_string();
        assert!(err.contains(":2:"), "{err}");
        let p = write(dir.path(), "platform = \"solaris\"\n");
        assert!(load(&p).unwrap_err().to_string().contains(":1:"));
    }
}
