//! A context as a shell where one Python environment is activated: `VIRTUAL_ENV` for a venv
//! (a folder with `pyvenv.cfg`), `CONDA_PREFIX` for a conda environment (`conda-meta`), and its
//! `bin` / `Scripts` folder (plus conda's `Library\bin` on Windows) first on PATH — what
//! `activate` does, so the scan looks at that environment as the user's process would.

use super::{EnvVars, Platform, SystemContext};

/// A folder that cannot be activated as a Python environment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{root} is not a Python environment: no pyvenv.cfg, no conda-meta and no Python interpreter in it"
)]
pub struct NotPythonEnv {
    pub root: String,
}

/// Activates the environment at `root` (a machine path) in `ctx`. Errors when the folder is
/// neither a venv nor a conda environment, nor holds a Python interpreter.
pub fn activate_python_env(ctx: &mut SystemContext, root: &str) -> Result<(), NotPythonEnv> {
    let p = ctx.platform;
    let has = |rel: &str| ctx.fs.exists(&p.join(root, rel));
    let (var, bins): (&str, &[&str]) = match p {
        Platform::Windows if has("conda-meta") => {
            ("CONDA_PREFIX", &["", "Library\\bin", "Scripts"])
        }
        Platform::Windows if has("pyvenv.cfg") => ("VIRTUAL_ENV", &["Scripts"]),
        Platform::Windows if has("python.exe") => ("", &["", "Scripts"]),
        Platform::Linux if has("conda-meta") => ("CONDA_PREFIX", &["bin"]),
        Platform::Linux if has("pyvenv.cfg") => ("VIRTUAL_ENV", &["bin"]),
        Platform::Linux if has("bin/python3") || has("bin/python") => ("", &["bin"]),
        _ => {
            return Err(NotPythonEnv {
                root: root.to_string(),
            });
        }
    };
    let mut vars: Vec<(String, String)> = ctx
        .env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let path_name = vars
        .iter()
        .find(|(k, _)| p.same_name(k, "PATH"))
        .map_or("PATH".to_string(), |(k, _)| k.clone());
    let old_path = ctx.env.get("PATH").unwrap_or_default().to_string();
    let mut entries: Vec<String> = bins
        .iter()
        .map(|b| {
            if b.is_empty() {
                root.to_string()
            } else {
                p.join(root, b)
            }
        })
        .collect();
    if !old_path.is_empty() {
        entries.push(old_path);
    }
    let separator = if p == Platform::Windows { ";" } else { ":" };
    vars.retain(|(k, _)| !p.same_name(k, "PATH") && (var.is_empty() || !p.same_name(k, var)));
    vars.push((path_name, entries.join(separator)));
    if !var.is_empty() {
        vars.push((var.to_string(), root.to_string()));
    }
    ctx.env = EnvVars::new(p, vars);
    Ok(())
}
