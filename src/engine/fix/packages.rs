//! What pip and conda pins share: the [`Installer`] of a pin (an interpreter's `-m pip`, or the
//! environment's own conda for its prefix), its package-set snapshot (the journal's before- and
//! after-image), the install command, the preview, the streamed run, and the commands that turn
//! the set back into the recorded one (remove what was added, reinstall the recorded versions
//! without dependencies).

use super::FixError;
use super::plan::{Change, CondaEnv, Operation, Scope};
use crate::engine::context::{ContextSource, SystemContext};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

/// Who installs a pin into one environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installer<'a> {
    /// `<python> -m pip`.
    Pip { python: &'a str },
    /// `<conda> … -p <prefix>`.
    Conda { env: &'a CondaEnv },
}

impl<'a> Installer<'a> {
    /// conda when the pin carries a conda environment, else pip of `python`.
    pub fn of(python: &'a str, conda: Option<&'a CondaEnv>) -> Installer<'a> {
        match conda {
            Some(env) => Installer::Conda { env },
            None => Installer::Pip { python },
        }
    }

    /// The command as a user would type it, without its arguments.
    pub fn label(&self) -> String {
        match self {
            Installer::Pip { python } => format!("{python} -m pip"),
            Installer::Conda { env } => env.exe.clone(),
        }
    }

    /// What the snapshot is of, for messages.
    pub fn target(&self) -> String {
        match self {
            Installer::Pip { python } => format!("the package set of {python}"),
            Installer::Conda { env } => format!("the conda package set of {}", env.prefix),
        }
    }

    /// The exact package set: `pip freeze --all`, or `conda list --json` as `name==version=build` lines.
    pub fn snapshot(&self) -> Result<Vec<u8>, FixError> {
        match self {
            Installer::Pip { python } => super::pip::freeze(python),
            Installer::Conda { env } => super::conda::snapshot(env),
        }
    }

    /// The install command's arguments (after the program).
    pub fn install_args(&self, extra: &[String], requirements: &[String]) -> Vec<String> {
        let mut args = vec!["install".to_string()];
        if let Installer::Conda { env } = self {
            args.extend(["-p".to_string(), env.prefix.clone(), "--yes".into()]);
        }
        args.extend(extra.iter().cloned());
        args.extend(requirements.iter().cloned());
        args
    }

    /// What the install would put in, as `name==version` (pip's `--dry-run --report`, conda's
    /// `--dry-run --json`).
    pub fn dry_run(
        &self,
        extra: &[String],
        requirements: &[String],
    ) -> Result<Vec<String>, FixError> {
        match self {
            Installer::Pip { python } => super::pip::dry_run(python, extra, requirements),
            Installer::Conda { env } => super::conda::dry_run(env, extra, requirements),
        }
    }

    /// Runs the installer with `args`, streaming its output; `cancel` kills it.
    pub fn run(
        &self,
        args: &[String],
        on_line: &mut dyn FnMut(&str),
        cancel: &AtomicBool,
    ) -> Result<(), FixError> {
        let mut cmd = match self {
            Installer::Pip { python } => super::pip::pip_process(python),
            Installer::Conda { env } => super::conda::conda_process(env),
        };
        cmd.args(args);
        super::installer_process::stream(cmd, &self.label(), &args.join(" "), on_line, cancel)
    }

    /// The commands that turn the `now` package set back into `before`.
    pub fn restore_commands(
        &self,
        before: &[u8],
        now: &[u8],
        extra: &[String],
    ) -> Vec<Vec<String>> {
        let (added, changed) = difference(before, now);
        let mut out = Vec::new();
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        match self {
            Installer::Pip { .. } => {
                if !added.is_empty() {
                    out.push([words(&["uninstall", "-y"]), added].concat());
                }
                if !changed.is_empty() {
                    out.push([words(&["install", "--no-deps"]), extra.to_vec(), changed].concat());
                }
            }
            Installer::Conda { env } => {
                let p = env.prefix.as_str();
                if !added.is_empty() {
                    out.push([words(&["remove", "-p", p, "--yes", "--force"]), added].concat());
                }
                if !changed.is_empty() {
                    // The snapshot's `name==version=build` is conda's exact `name=version=build`.
                    let specs = changed.iter().map(|l| l.replacen("==", "=", 1)).collect();
                    out.push(
                        [
                            words(&["install", "-p", p, "--yes", "--no-deps"]),
                            extra.to_vec(),
                            specs,
                        ]
                        .concat(),
                    );
                }
            }
        }
        out
    }
}

/// The pin as a plan operation: on this computer with the package set recorded and the
/// installer's dry run as the preview; for a machine file, the command alone.
pub fn operation(
    ctx: &SystemContext,
    python: &str,
    conda: Option<CondaEnv>,
    requirements: &[String],
    extra: &[String],
) -> Result<Operation, FixError> {
    let installer = Installer::of(python, conda.as_ref());
    let (before, would_install) = if ctx.source == ContextSource::Live {
        (
            Some(installer.snapshot()?),
            Some(installer.dry_run(extra, requirements)?),
        )
    } else {
        (None, None)
    };
    let what = match &conda {
        Some(env) => format!(
            "Install {} with conda into {}",
            requirements.join(" "),
            env.prefix
        ),
        None => format!("Install {} with {python}", requirements.join(" ")),
    };
    Ok(Operation {
        scope: Scope::Env,
        what,
        change: Change::Packages {
            python: python.to_string(),
            requirements: requirements.to_vec(),
            pip_args: extra.to_vec(),
            conda,
            before,
            would_install,
        },
    })
}

/// `name` (normalized) → (version, the snapshot line), for lines that pin a version.
fn pins(set: &[u8]) -> BTreeMap<String, (String, String)> {
    String::from_utf8_lossy(set)
        .lines()
        .filter_map(|l| {
            let (name, version) = l.split_once("==")?;
            let key = name.trim().to_lowercase().replace(['_', '.'], "-");
            Some((key, (version.trim().to_string(), l.trim().to_string())))
        })
        .collect()
}

/// The names added since `before`, and the `before` lines whose version changed or went away.
pub fn difference(before: &[u8], now: &[u8]) -> (Vec<String>, Vec<String>) {
    let (old, new) = (pins(before), pins(now));
    let added = new
        .keys()
        .filter(|k| !old.contains_key(*k))
        .cloned()
        .collect();
    let changed = old
        .iter()
        .filter(|(k, (version, _))| new.get(*k).map(|(v, _)| v) != Some(version))
        .map(|(_, (_, line))| line.clone())
        .collect();
    (added, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_restore_removes_what_was_added_and_reinstalls_the_recorded_versions() {
        let before = b"pip==24.0\nalpha==1.0\nBeta_Pkg==2.0\n";
        let now = b"pip==24.0\nalpha==2.0\nbeta-pkg==2.0\ngamma==0.1\n";
        let pip = Installer::Pip {
            python: "/env/bin/python",
        };
        assert_eq!(
            pip.restore_commands(before, now, &["--no-index".into()]),
            vec![
                vec!["uninstall".to_string(), "-y".into(), "gamma".into()],
                vec![
                    "install".to_string(),
                    "--no-deps".into(),
                    "--no-index".into(),
                    "alpha==1.0".into()
                ],
            ]
        );
        assert!(pip.restore_commands(before, before, &[]).is_empty());
    }

    #[test]
    fn conda_restore_runs_in_the_prefix_with_exact_build_specs() {
        let env = CondaEnv {
            exe: "/opt/conda/condabin/conda".into(),
            prefix: "/opt/conda/envs/tf".into(),
        };
        let conda = Installer::Conda { env: &env };
        let before = b"cudnn==8.1.0.77=h90431f1_0\npython==3.9.18=h955ad1f_0\n";
        let now =
            b"cudnn==8.9.2.26=cuda11_0\npython==3.9.18=h955ad1f_0\nlibzlib==1.2.13=hd590300_5\n";
        assert_eq!(
            conda.restore_commands(before, now, &["--offline".into()]),
            vec![
                "remove -p /opt/conda/envs/tf --yes --force libzlib"
                    .split(' ')
                    .map(String::from)
                    .collect::<Vec<_>>(),
                "install -p /opt/conda/envs/tf --yes --no-deps --offline cudnn=8.1.0.77=h90431f1_0"
                    .split(' ')
                    .map(String::from)
                    .collect::<Vec<_>>(),
            ]
        );
        assert_eq!(
            conda.install_args(&[], &["cudnn<9".into()]),
            ["install", "-p", "/opt/conda/envs/tf", "--yes", "cudnn<9"]
        );
    }
}
