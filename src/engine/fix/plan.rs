//! A fix plan as data: the operations a fix performs, each with its scope, what it changes and
//! a preview that is the operation itself — a unified diff for a file, the registry value before
//! and after with its type, or the exact command line (pip's or conda's, with what its dry run
//! would install). Applying runs exactly these operations.

use serde::{Deserialize, Serialize};

/// Who an operation affects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The user's own settings (login profile, `HKCU\Environment`).
    User,
    /// Every user: needs administrator rights and must be chosen explicitly.
    Machine,
    /// One conda environment or venv: seen only where it is activated.
    Env,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Machine => "machine",
            Scope::Env => "env",
        }
    }
}

/// A registry string value with its type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegValue {
    pub kind: RegValueKind,
    pub data: String,
}

/// The registry value types a fix reads and writes: the two string types (any other value is
/// refused and left alone). Spelled as Windows spells them, in reports and journals alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegValueKind {
    /// `REG_SZ`: text used as it is.
    #[serde(rename = "REG_SZ")]
    Sz,
    /// `REG_EXPAND_SZ`: text whose `%VARIABLES%` are expanded when it is read (PATH's type).
    #[serde(rename = "REG_EXPAND_SZ")]
    ExpandSz,
}

impl RegValueKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RegValueKind::Sz => "REG_SZ",
            RegValueKind::ExpandSz => "REG_EXPAND_SZ",
        }
    }

    /// The type a new value of this text gets: expandable when it names a `%VARIABLE%`.
    pub fn for_text(data: &str) -> RegValueKind {
        if data.contains('%') {
            RegValueKind::ExpandSz
        } else {
            RegValueKind::Sz
        }
    }
}

impl std::fmt::Display for RegValueKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A conda environment a pin installs into with its own conda.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CondaEnv {
    /// The environment's conda executable.
    pub exe: String,
    /// `-p PREFIX`.
    pub prefix: String,
}

/// What one operation changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Change {
    /// Writes a whole file (`before: None` = it does not exist yet; `after: None` = remove it).
    File {
        path: String,
        #[serde(skip)]
        before: Option<Vec<u8>>,
        #[serde(skip)]
        after: Option<Vec<u8>>,
        /// Where the new content comes from when it is a copy of another file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        copied_from: Option<String>,
    },
    /// Installs requirement pins into one Python environment with its own interpreter
    /// (`python -m pip`) or, for a conda environment whose packages conda installed, its own
    /// conda (`conda install -p PREFIX`).
    Packages {
        python: String,
        requirements: Vec<String>,
        /// Index options given to every install command (pip: `--no-index --find-links DIR`;
        /// conda: `--offline`, `-c CHANNEL --override-channels`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pip_args: Vec<String>,
        /// Set: conda installs, not pip.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conda: Option<CondaEnv>,
        /// The package set before (the undo target: `pip freeze --all`, or `conda list`);
        /// `None` when it could not be read here.
        #[serde(skip)]
        before: Option<Vec<u8>>,
        /// What the installer's dry run says it would install (`None`: not run).
        would_install: Option<Vec<String>>,
    },
    /// Sets (or deletes, with `after: None`) one registry value.
    Registry {
        key: String,
        name: String,
        before: Option<RegValue>,
        after: Option<RegValue>,
    },
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    pub scope: Scope,
    /// What it does, in words.
    pub what: String,
    pub change: Change,
}

impl Operation {
    /// Whether applying it changes anything.
    pub fn modifies(&self) -> bool {
        match &self.change {
            Change::File { before, after, .. } => before != after,
            Change::Registry { before, after, .. } => before != after,
            Change::Packages { would_install, .. } => {
                would_install.as_ref().is_none_or(|w| !w.is_empty())
            }
        }
    }

    /// The exact preview: a unified diff, the registry value before/after, or the copy.
    pub fn preview(&self) -> String {
        match &self.change {
            Change::File {
                path,
                before,
                after,
                copied_from: Some(src),
            } => match after {
                Some(bytes) => format!(
                    "copy {src} -> {path} ({} bytes){}",
                    bytes.len(),
                    if before.is_some() {
                        ", replacing the file there"
                    } else {
                        ""
                    }
                ),
                None => format!("remove {path}"),
            },
            Change::File {
                path,
                before,
                after,
                copied_from: None,
            } => file_diff(path, before.as_deref(), after.as_deref()),
            Change::Packages {
                python,
                requirements,
                would_install,
                pip_args,
                conda,
                ..
            } => {
                let installer = super::packages::Installer::of(python, conda.as_ref());
                let tool = if conda.is_some() { "conda" } else { "pip" };
                let quoted: Vec<String> = installer
                    .install_args(pip_args, &[])
                    .into_iter()
                    .chain(requirements.iter().map(|r| format!("'{r}'")))
                    .collect();
                let mut out = format!("{} {}\n", installer.label(), quoted.join(" "));
                out.push_str(&match would_install {
                    Some(w) if w.is_empty() => format!("{tool} --dry-run: nothing to install\n"),
                    Some(w) => format!("{tool} --dry-run would install: {}\n", w.join(", ")),
                    None => format!("(no {tool} --dry-run here: not this computer)\n"),
                });
                out
            }
            Change::Registry {
                key,
                name,
                before,
                after,
            } => {
                let show = |v: &Option<RegValue>| match v {
                    Some(v) => format!("{} {}", v.kind, v.data),
                    None => "(not set)".to_string(),
                };
                format!(
                    "{key}\\{name}\n- before: {}\n+ after:  {}\n",
                    show(before),
                    show(after)
                )
            }
        }
    }
}

/// A unified diff of a file. Bytes that are not UTF-8 show as U+FFFD here but are written as they are.
pub fn file_diff(path: &str, before: Option<&[u8]>, after: Option<&[u8]>) -> String {
    let old = String::from_utf8_lossy(before.unwrap_or_default());
    let new = String::from_utf8_lossy(after.unwrap_or_default());
    if old == new && before.is_some() == after.is_some() {
        return format!("{path}: no change\n");
    }
    let old_name = if before.is_some() {
        format!("a{}{path}", if path.starts_with('/') { "" } else { "/" })
    } else {
        "/dev/null".to_string()
    };
    let new_name = if after.is_some() {
        format!("b{}{path}", if path.starts_with('/') { "" } else { "/" })
    } else {
        "/dev/null".to_string()
    };
    similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .missing_newline_hint(true)
        .to_string()
}

/// Everything one fix would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixPlan {
    pub fix_id: String,
    pub finding: String,
    pub summary: String,
    pub scope: Scope,
    /// Machine scope: administrator (root) rights are needed.
    pub needs_admin: bool,
    pub operations: Vec<Operation>,
    /// Who will and will not see the change (running programs, IDE kernels, ...).
    pub notes: Vec<String>,
}

impl FixPlan {
    pub fn modifies(&self) -> bool {
        self.operations.iter().any(Operation::modifies)
    }

    /// The whole preview, as `fix show` prints it.
    pub fn preview(&self) -> String {
        let mut out = format!(
            "{} — {}\nscope: {}",
            self.fix_id,
            self.summary,
            self.scope.as_str()
        );
        if self.needs_admin {
            out.push_str(" (needs administrator rights)");
        }
        out.push('\n');
        for op in &self.operations {
            let status = if op.modifies() {
                "modified"
            } else {
                "no change"
            };
            out.push_str(&format!("\n## {} [{}]\n{}", op.what, status, op.preview()));
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
        for n in &self.notes {
            out.push_str(&format!("\nnote: {n}"));
        }
        out.push('\n');
        out
    }
}

/// The JSON form of a plan (the report's `"plan"` key): the plan plus each operation's preview
/// text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanView {
    #[serde(flatten)]
    pub plan: FixPlan,
    pub modifies: bool,
    pub previews: Vec<String>,
}

impl From<&FixPlan> for PlanView {
    fn from(plan: &FixPlan) -> PlanView {
        PlanView {
            plan: plan.clone(),
            modifies: plan.modifies(),
            previews: plan.operations.iter().map(Operation::preview).collect(),
        }
    }
}
