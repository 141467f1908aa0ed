//! The lines a fix puts into a shell file: POSIX sh for login profiles, conda `activate.d` and
//! venv scripts, plus `cmd` (.bat) and PowerShell (.ps1) for conda on Windows. Activation
//! scripts use conda's backup idiom: the old value is saved in `CUDA_TRIAGE_BACKUP_<NAME>` on
//! activate and put back (or the variable unset) on deactivate. Every PATH addition is guarded so
//! sourcing the file twice adds nothing twice.

use crate::engine::findings::{EnvSet, PathEdit};

/// One environment change a fix makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvChange {
    Set(EnvSet),
    Path(PathEdit),
}

impl EnvChange {
    pub fn variable(&self) -> &str {
        match self {
            EnvChange::Set(s) => &s.name,
            EnvChange::Path(p) => &p.variable,
        }
    }
}

/// Which shell a script is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    Sh,
    Cmd,
    PowerShell,
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn ps_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn backup(name: &str) -> String {
    format!("CUDA_TRIAGE_BACKUP_{name}")
}

/// The commands that make `change` (without any backup).
pub fn apply_lines(change: &EnvChange, shell: Shell) -> Vec<String> {
    match (change, shell) {
        (
            EnvChange::Set(EnvSet {
                name,
                value: Some(v),
            }),
            Shell::Sh,
        ) => vec![format!("export {name}={}", sh_quote(v))],
        (EnvChange::Set(EnvSet { name, value: None }), Shell::Sh) => vec![format!("unset {name}")],
        (
            EnvChange::Set(EnvSet {
                name,
                value: Some(v),
            }),
            Shell::Cmd,
        ) => vec![format!("@set \"{name}={v}\"")],
        (EnvChange::Set(EnvSet { name, value: None }), Shell::Cmd) => {
            vec![format!("@set \"{name}=\"")]
        }
        (
            EnvChange::Set(EnvSet {
                name,
                value: Some(v),
            }),
            Shell::PowerShell,
        ) => vec![format!("$Env:{name} = {}", ps_quote(v))],
        (EnvChange::Set(EnvSet { name, value: None }), Shell::PowerShell) => {
            vec![format!(
                "Remove-Item Env:{name} -ErrorAction SilentlyContinue"
            )]
        }
        (EnvChange::Path(edit), shell) => path_lines(edit, shell),
    }
}

fn path_lines(edit: &PathEdit, shell: Shell) -> Vec<String> {
    let var = &edit.variable;
    let first = edit.first || edit.remove.is_some();
    let mut out = Vec::new();
    match shell {
        Shell::Sh => {
            if let Some(bad) = &edit.remove {
                out.push(format!(
                    "case \":${{{var}}}:\" in *{q}*) {var}=$(printf '%s' \"${{{var}}}\" | awk -v RS=: -v ORS=: -v d={b} '$0 != d' | sed 's/:$//') ;; esac",
                    q = sh_quote(&format!(":{bad}:")),
                    b = sh_quote(bad),
                ));
            }
            if let Some(dir) = &edit.add {
                out.push(if first {
                    format!("case \"${{{var}}}:\" in {}*) ;; *) {var}={}\"${{{var}:+:${{{var}}}}}\" ;; esac", sh_quote(&format!("{dir}:")), sh_quote(dir))
                } else {
                    format!("case \":${{{var}}}:\" in *{}*) ;; *) {var}=\"${{{var}:+${{{var}}}:}}\"{} ;; esac", sh_quote(&format!(":{dir}:")), sh_quote(dir))
                });
            }
            out.push(format!("export {var}"));
        }
        Shell::Cmd => {
            if let Some(bad) = &edit.remove {
                out.push(format!("@set \"{var}=%{var}:{bad};=%\""));
            }
            if let Some(dir) = &edit.add {
                out.push(if first {
                    format!("@set \"{var}={dir};%{var}%\"")
                } else {
                    format!("@set \"{var}=%{var}%;{dir}\"")
                });
            }
        }
        Shell::PowerShell => {
            if let Some(bad) = &edit.remove {
                out.push(format!("$Env:{var} = (($Env:{var} -split ';') | Where-Object {{ $_ -ne {} }}) -join ';'", ps_quote(bad)));
            }
            if let Some(dir) = &edit.add {
                out.push(if first {
                    format!("$Env:{var} = {} + ';' + $Env:{var}", ps_quote(dir))
                } else {
                    format!("$Env:{var} = $Env:{var} + ';' + {}", ps_quote(dir))
                });
            }
        }
    }
    out
}

/// Activation lines: save the old value, then make the change.
pub fn activate_lines(change: &EnvChange, shell: Shell) -> Vec<String> {
    let name = change.variable();
    let b = backup(name);
    let save = match shell {
        Shell::Sh => format!("if [ -n \"${{{name}+x}}\" ]; then export {b}=\"${{{name}}}\"; fi"),
        Shell::Cmd => format!("@if defined {name} set \"{b}=%{name}%\""),
        Shell::PowerShell => format!("if (Test-Path Env:{name}) {{ $Env:{b} = $Env:{name} }}"),
    };
    let mut out = vec![save];
    out.extend(apply_lines(change, shell));
    out
}

/// Deactivation lines: put the saved value back, or unset the variable.
pub fn deactivate_lines(change: &EnvChange, shell: Shell) -> Vec<String> {
    let name = change.variable();
    let b = backup(name);
    vec![match shell {
        Shell::Sh => format!(
            "if [ -n \"${{{b}+x}}\" ]; then export {name}=\"${{{b}}}\"; unset {b}; else unset {name}; fi"
        ),
        Shell::Cmd => {
            format!("@if defined {b} (set \"{name}=%{b}%\" & set \"{b}=\") else (set \"{name}=\")")
        }
        Shell::PowerShell => format!(
            "if (Test-Path Env:{b}) {{ $Env:{name} = $Env:{b}; Remove-Item Env:{b} }} else {{ Remove-Item Env:{name} -ErrorAction SilentlyContinue }}"
        ),
    }]
}
