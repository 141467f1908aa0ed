//! The undo journal: before anything is written, the exact before-image of every file (its
//! bytes, or that it did not exist), registry value and package set is stored and fsynced in the user's data
//! folder, with the after-image beside it. A journal still marked `applying` at the next start
//! was interrupted and is rolled back; `fix undo` restores the before-images. The folder is
//! `$CUDA_TRIAGE_DATA_DIR`, else `$XDG_DATA_HOME/cuda-triage`, `~/.local/share/cuda-triage`
//! or `%LOCALAPPDATA%\cuda-triage`. It is private user state: never put it in a report.

use super::FixError;
use super::plan::{Change, CondaEnv, FixPlan, RegValue};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where journals live.
pub fn data_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var("CUDA_TRIAGE_DATA_DIR") {
        return Some(d);
    }
    if cfg!(windows) {
        return var("LOCALAPPDATA").map(|d| d.join("cuda-triage"));
    }
    var("XDG_DATA_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".local").join("share")))
        .map(|d| d.join("cuda-triage"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JournalState {
    /// Written before the first change; still here at start = interrupted.
    Applying,
    Applied,
    RolledBack,
    Undone,
}

/// One thing a fix changed, with what was there before and what it wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Target {
    /// `before`/`after` name blob files in the journal folder (`None`: no file).
    File {
        path: String,
        before: Option<String>,
        after: Option<String>,
    },
    Registry {
        key: String,
        name: String,
        before: Option<RegValue>,
        after: Option<RegValue>,
    },
    /// A Python environment's package set: `pip freeze --all` (or, with `conda`, `conda list`)
    /// blobs before and after.
    Packages {
        python: String,
        requirements: Vec<String>,
        #[serde(default)]
        pip_args: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conda: Option<CondaEnv>,
        before: Option<String>,
        after: Option<String>,
    },
}

/// One applied (or interrupted) fix.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Journal {
    pub id: String,
    pub fix_id: String,
    pub finding: String,
    pub summary: String,
    /// Seconds since 1970.
    pub created: u64,
    pub state: JournalState,
    /// The process applying it: a journal `applying` in a process that still runs is not interrupted.
    #[serde(default)]
    pub pid: u32,
    pub targets: Vec<Target>,
    #[serde(skip)]
    pub dir: PathBuf,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FixError + '_ {
    move |e| FixError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), FixError> {
    super::atomic::write(path, bytes)
}

impl Journal {
    /// Records the plan's before- and after-images, fsynced, in state `applying`.
    pub fn begin(root: &Path, plan: &FixPlan) -> Result<Journal, FixError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let id = format!("{}-{:06}", now.as_secs(), now.subsec_micros());
        let dir = root.join("journal").join(&id);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let mut targets = Vec::new();
        for (i, op) in plan.operations.iter().enumerate() {
            let blob = |tag: &str, bytes: &Option<Vec<u8>>| -> Result<Option<String>, FixError> {
                let Some(bytes) = bytes else { return Ok(None) };
                let name = format!("{i}.{tag}");
                write_synced(&dir.join(&name), bytes)?;
                Ok(Some(name))
            };
            targets.push(match &op.change {
                Change::File {
                    path,
                    before,
                    after,
                    ..
                } => Target::File {
                    path: path.clone(),
                    before: blob("before", before)?,
                    after: blob("after", after)?,
                },
                Change::Registry {
                    key,
                    name,
                    before,
                    after,
                } => Target::Registry {
                    key: key.clone(),
                    name: name.clone(),
                    before: before.clone(),
                    after: after.clone(),
                },
                Change::Packages {
                    python,
                    requirements,
                    before,
                    pip_args,
                    conda,
                    ..
                } => Target::Packages {
                    python: python.clone(),
                    requirements: requirements.clone(),
                    pip_args: pip_args.clone(),
                    conda: conda.clone(),
                    before: blob("before", before)?,
                    after: None,
                },
            });
        }
        let journal = Journal {
            id,
            fix_id: plan.fix_id.clone(),
            finding: plan.finding.clone(),
            summary: plan.summary.clone(),
            created: now.as_secs(),
            state: JournalState::Applying,
            pid: std::process::id(),
            targets,
            dir,
        };
        journal.save()?;
        Ok(journal)
    }

    /// Rewrites `journal.json` atomically.
    pub fn save(&self) -> Result<(), FixError> {
        let text = serde_json::to_vec_pretty(self).unwrap_or_default();
        write_synced(&self.dir.join("journal.json"), &text)
    }

    pub fn set_state(&mut self, state: JournalState) -> Result<(), FixError> {
        self.state = state;
        self.save()
    }

    /// Stores the after-image of target `i` (a package set known only once installed).
    pub fn record_after(&mut self, i: usize, bytes: &[u8]) -> Result<(), FixError> {
        let name = format!("{i}.after");
        write_synced(&self.dir.join(&name), bytes)?;
        if let Some(Target::Packages { after, .. }) = self.targets.get_mut(i) {
            *after = Some(name);
        }
        self.save()
    }

    /// The bytes of a stored image.
    pub fn blob(&self, name: &Option<String>) -> Result<Option<Vec<u8>>, FixError> {
        match name {
            None => Ok(None),
            Some(n) => {
                let p = self.dir.join(n);
                std::fs::read(&p).map(Some).map_err(io(&p))
            }
        }
    }

    pub fn load(dir: &Path) -> Result<Journal, FixError> {
        let path = dir.join("journal.json");
        let text = std::fs::read(&path).map_err(io(&path))?;
        let mut j: Journal = serde_json::from_slice(&text).map_err(|e| {
            FixError::Refused(format!("{}: unreadable journal: {e}", path.display()))
        })?;
        j.dir = dir.to_path_buf();
        Ok(j)
    }
}

impl Journal {
    /// Whether the process that wrote it is still running (then it is not interrupted). Only
    /// Linux can tell; elsewhere a journal left `applying` is taken as interrupted.
    pub fn writer_running(&self) -> bool {
        self.pid != 0
            && self.pid != std::process::id()
            && cfg!(target_os = "linux")
            && Path::new(&format!("/proc/{}", self.pid)).exists()
    }
}

/// Every journal under `root`, oldest first (unreadable ones are skipped).
pub fn list(root: &Path) -> Vec<Journal> {
    let Ok(entries) = std::fs::read_dir(root.join("journal")) else {
        return Vec::new();
    };
    let mut all: Vec<Journal> = entries
        .flatten()
        .filter_map(|e| Journal::load(&e.path()).ok())
        .collect();
    all.sort_by(|a, b| a.id.cmp(&b.id));
    all
}
