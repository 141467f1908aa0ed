//! Applying a plan and taking it back. Apply checks every target still holds what the preview
//! showed and can be written, records the journal, then makes the changes one atomic write at a
//! time; a failure rolls back what was done. Undo restores the before-images only where the
//! target still holds what the fix wrote. `recover` (run at every start) rolls back a journal
//! that a killed run left in the `applying` state.

use super::FixError;
use super::host::Host;
use super::journal::{self, Journal, JournalState, Target};
use super::packages::Installer;
use super::plan::{Change, FixPlan};
use std::path::Path;

/// What applying did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Everything already was as the fix wants it.
    NoChange,
    /// A dry run: the host's log says what would have been written.
    DryRun(Vec<String>),
    /// Changed; the journal id undoes it.
    Done { journal: String },
}

/// Test hook (`testing` builds only, never the release binary): with
/// `CUDA_TRIAGE_TEST_PAUSE_AFTER_WRITE=SECONDS` apply pauses that long (as if stuck) after its
/// first write, so a test can kill the process half-way.
#[cfg(any(test, feature = "testing"))]
fn pause_after_first_write() {
    if let Some(secs) = std::env::var("CUDA_TRIAGE_TEST_PAUSE_AFTER_WRITE")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_secs(secs));
    }
}

#[cfg(not(any(test, feature = "testing")))]
fn pause_after_first_write() {}

fn preflight(plan: &FixPlan, host: &dyn Host) -> Result<(), FixError> {
    for op in plan.operations.iter().filter(|o| o.modifies()) {
        match &op.change {
            Change::File { path, before, .. } => {
                let p = Path::new(path);
                if host.read_file(p)? != *before {
                    return Err(FixError::Changed(path.clone()));
                }
                host.check_writable(p)?;
            }
            Change::Registry {
                key,
                name,
                before,
                after,
            } => {
                if host.read_registry(key, name)? != *before {
                    return Err(FixError::Changed(format!("{key}\\{name}")));
                }
                if let Some(v) = after {
                    super::registry::check_length(v)?;
                }
            }
            Change::Packages {
                python,
                conda,
                before,
                ..
            } => {
                let installer = Installer::of(python, conda.as_ref());
                let now = host.package_set(&installer)?;
                if before.as_ref().is_some_and(|b| *b != now) {
                    return Err(FixError::Changed(installer.target()));
                }
            }
        }
    }
    Ok(())
}

/// Writes one target's before (`undo`) or after image.
fn put(host: &mut dyn Host, j: &Journal, t: &Target, after: bool) -> Result<(), FixError> {
    match t {
        Target::File {
            path,
            before,
            after: a,
        } => {
            let bytes = j.blob(if after { a } else { before })?;
            host.write_file(Path::new(path), bytes.as_deref())
        }
        Target::Registry {
            key,
            name,
            before,
            after: a,
        } => host.write_registry(key, name, if after { a.as_ref() } else { before.as_ref() }),
        Target::Packages {
            python,
            requirements,
            before,
            pip_args,
            conda,
            ..
        } => {
            let installer = Installer::of(python, conda.as_ref());
            if after {
                let args = installer.install_args(pip_args, requirements);
                return host.run_installer(&installer, &args);
            }
            let Some(before) = j.blob(before)? else {
                return Err(FixError::Refused(format!(
                    "no recorded {}",
                    installer.target()
                )));
            };
            let now = host.package_set(&installer)?;
            for args in installer.restore_commands(&before, &now, pip_args) {
                host.run_installer(&installer, &args)?;
            }
            Ok(())
        }
    }
}

/// Whether the target holds its before (`false`) or after (`true`) image now.
fn holds(host: &dyn Host, j: &Journal, t: &Target, after: bool) -> Result<bool, FixError> {
    Ok(match t {
        Target::File {
            path,
            before,
            after: a,
        } => host.read_file(Path::new(path))? == j.blob(if after { a } else { before })?,
        Target::Registry {
            key,
            name,
            before,
            after: a,
        } => host.read_registry(key, name)? == *(if after { a } else { before }),
        Target::Packages {
            python,
            conda,
            before,
            after: a,
            ..
        } => match j.blob(if after { a } else { before })? {
            Some(set) => host.package_set(&Installer::of(python, conda.as_ref()))? == set,
            // Killed before the after-image was recorded: only the before-image counts.
            None => after,
        },
    })
}

fn touches_registry(j: &Journal) -> bool {
    j.targets
        .iter()
        .any(|t| matches!(t, Target::Registry { .. }))
}

/// Applies `plan` through `host`, journaling into `data_dir` first (not for a dry run).
pub fn apply(plan: &FixPlan, host: &mut dyn Host, data_dir: &Path) -> Result<Applied, FixError> {
    if !plan.modifies() {
        return Ok(Applied::NoChange);
    }
    preflight(plan, host)?;
    if host.dry_run() {
        for op in plan.operations.iter().filter(|o| o.modifies()) {
            match &op.change {
                Change::File { path, after, .. } => {
                    host.write_file(Path::new(path), after.as_deref())?
                }
                Change::Registry {
                    key, name, after, ..
                } => host.write_registry(key, name, after.as_ref())?,
                Change::Packages {
                    python,
                    requirements,
                    pip_args,
                    conda,
                    ..
                } => {
                    let installer = Installer::of(python, conda.as_ref());
                    host.run_installer(&installer, &installer.install_args(pip_args, requirements))?
                }
            }
        }
        return Ok(Applied::DryRun(host.log().to_vec()));
    }
    let mut j = Journal::begin(data_dir, plan)?;
    for (done, t) in j.targets.clone().iter().enumerate() {
        let result = put(host, &j, t, true);
        if done == 0 {
            pause_after_first_write();
        }
        if let Err(e) = result {
            host.clear_cancel();
            // A failed pip run may have changed part of the set: roll the failed target back too.
            for back in j.targets[..=done].iter().rev() {
                let _ = put(host, &j, back, false);
            }
            j.set_state(JournalState::RolledBack)?;
            return Err(e);
        }
        if let Target::Packages { python, conda, .. } = t {
            let set = host.package_set(&Installer::of(python, conda.as_ref()))?;
            j.record_after(done, &set)?;
        }
    }
    if touches_registry(&j) {
        host.announce_environment_change();
    }
    j.set_state(JournalState::Applied)?;
    Ok(Applied::Done { journal: j.id })
}

/// Undoes journal `id`, or the newest applied one.
pub fn undo(host: &mut dyn Host, data_dir: &Path, id: Option<&str>) -> Result<Journal, FixError> {
    let all = journal::list(data_dir);
    let found = match id {
        Some(id) => all.into_iter().find(|j| j.id == id),
        None => all
            .into_iter()
            .rev()
            .find(|j| j.state == JournalState::Applied),
    };
    let Some(mut j) = found else {
        return Err(FixError::Refused(match id {
            Some(id) => format!("no journal {id} in {}", data_dir.display()),
            None => "no applied fix to undo".into(),
        }));
    };
    if j.state != JournalState::Applied {
        return Err(FixError::Refused(format!(
            "journal {} is {:?}, not applied",
            j.id, j.state
        )));
    }
    for t in &j.targets {
        if !holds(host, &j, t, true)? {
            let what = match t {
                Target::File { path, .. } => path.clone(),
                Target::Registry { key, name, .. } => format!("{key}\\{name}"),
                Target::Packages { python, conda, .. } => {
                    Installer::of(python, conda.as_ref()).target()
                }
            };
            return Err(FixError::Changed(what));
        }
    }
    for t in j.targets.iter().rev() {
        put(host, &j, t, false)?;
    }
    if touches_registry(&j) {
        host.announce_environment_change();
    }
    j.set_state(JournalState::Undone)?;
    Ok(j)
}

/// Rolls back every journal an interrupted run left `applying`; returns the ids rolled back.
pub fn recover(host: &mut dyn Host, data_dir: &Path) -> Result<Vec<String>, FixError> {
    let mut done = Vec::new();
    for mut j in journal::list(data_dir)
        .into_iter()
        .filter(|j| j.state == JournalState::Applying && !j.writer_running())
    {
        for t in j.targets.iter().rev() {
            if !holds(host, &j, t, false)? {
                put(host, &j, t, false)?;
            }
        }
        j.set_state(JournalState::RolledBack)?;
        done.push(j.id);
    }
    Ok(done)
}
