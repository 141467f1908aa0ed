//! Findings: what the engine concluded, in plain language, with the evidence behind it and the
//! fixes that would address it. This is the `"findings"` array of the JSON contract.

use serde::{Deserialize, Serialize};

/// How bad a finding is. Any `Error` makes the CLI exit with code 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One fact that supports a finding: a file seen, a directory searched, a variable's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// What kind of fact: `file`, `searched`, `env`, `registry`, `driver`, `log`, `attempt`, ...
    pub kind: String,
    /// The fact in words.
    pub text: String,
    /// The machine path it is about, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Evidence {
    pub fn new(kind: &str, text: impl Into<String>) -> Evidence {
        Evidence {
            kind: kind.to_string(),
            text: text.into(),
            path: None,
        }
    }

    pub fn at(kind: &str, text: impl Into<String>, path: impl Into<String>) -> Evidence {
        Evidence {
            kind: kind.to_string(),
            text: text.into(),
            path: Some(path.into()),
        }
    }
}

/// A reference to a fix that addresses a finding. The JSON keys `id`, `kind` and `summary` are the
/// contract; a typed kind adds its parameters beside them (see [`FixKind`]), and the fix engine
/// (`engine::fix`) turns those parameters into a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixRef {
    pub id: String,
    #[serde(flatten)]
    pub kind: FixKind,
    pub summary: String,
}

/// What a fix does, with what it needs to be planned. Serialized as `"kind": "path-edit"` and so
/// on, with the parameters as additional keys. A kind without parameters (`Install`, `Manual`,
/// [`FixKind::unplanned_pin`], a report's unknown kind) is described but offers no plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FixKind {
    PathEdit {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        edit: Option<PathEdit>,
    },
    EnvVar {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        set: Option<EnvSet>,
    },
    PinVersion {
        /// Requirement specifiers, e.g. `tensorflow<2.11`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        requirements: Vec<String>,
        /// The interpreter of the environment to install into (`<env>/bin/python`, `python.exe`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        python: Option<String>,
        /// Reinstall the pinned versions even when pip thinks they are there (a file deleted from
        /// an installed wheel): `pip install --force-reinstall --no-deps`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        reinstall: bool,
    },
    CopyFile {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        copy: Option<CopyFile>,
    },
    /// A hook in a Python environment that calls `os.add_dll_directory` for these folders at
    /// start-up (Windows Python ≥ 3.8 ignores PATH for extension modules' DLLs).
    DllDirectory {
        dirs: Vec<String>,
        /// The environment's site-packages folder, where the hook goes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        site_packages: Option<String>,
        /// The environment's interpreter, started fresh to verify the hook.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        python: Option<String>,
    },
    Install,
    Manual,
    #[serde(other)]
    Other,
}

/// Adds, moves or removes one entry of a list variable (`PATH`, `LD_LIBRARY_PATH`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathEdit {
    pub variable: String,
    /// The entry to add (or move); with `remove` it takes the removed entry's place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<String>,
    /// Put `add` first (else last).
    #[serde(default)]
    pub first: bool,
    /// The entry to remove (a dead or mistyped one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<String>,
}

/// Sets (or, with no value, unsets) one environment variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvSet {
    pub name: String,
    #[serde(default)]
    pub value: Option<String>,
}

/// Puts a file the loader needs into a folder, from a copy the user has (never downloaded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyFile {
    pub file_name: String,
    pub dest_dir: String,
    /// `x64` or `x86`: the bitness the copied file must have.
    pub machine: String,
    /// Copies already on the machine, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
}

impl FixKind {
    /// The `"kind"` string of the JSON contract.
    pub fn as_str(&self) -> &'static str {
        match self {
            FixKind::PathEdit { .. } => "path-edit",
            FixKind::EnvVar { .. } => "env-var",
            FixKind::PinVersion { .. } => "pin-version",
            FixKind::CopyFile { .. } => "copy-file",
            FixKind::DllDirectory { .. } => "dll-directory",
            FixKind::Install => "install",
            FixKind::Manual => "manual",
            FixKind::Other => "other",
        }
    }

    pub fn path(edit: PathEdit) -> FixKind {
        FixKind::PathEdit { edit: Some(edit) }
    }

    /// Takes `dir` out of `LD_LIBRARY_PATH` (for the process the fix is applied to).
    pub fn ld_library_path_remove(dir: &str) -> FixKind {
        FixKind::path(PathEdit {
            variable: "LD_LIBRARY_PATH".into(),
            add: None,
            first: false,
            remove: Some(dir.to_string()),
        })
    }

    /// A pin the finding describes in words (its summary) without a requirement to plan.
    pub fn unplanned_pin() -> FixKind {
        FixKind::PinVersion {
            requirements: Vec::new(),
            python: None,
            reinstall: false,
        }
    }

    /// A variable to set that the finding describes in words (its summary) without a value.
    pub fn unplanned_env() -> FixKind {
        FixKind::EnvVar { set: None }
    }

    pub fn env(name: &str, value: Option<String>) -> FixKind {
        FixKind::EnvVar {
            set: Some(EnvSet {
                name: name.to_string(),
                value,
            }),
        }
    }
}

impl PathEdit {
    /// Adds `entry` to `variable`, first or last (moving it when it is already there).
    pub fn add(variable: &str, entry: &str, first: bool) -> PathEdit {
        PathEdit {
            variable: variable.to_string(),
            add: Some(entry.to_string()),
            first,
            remove: None,
        }
    }

    /// Replaces `old` with `new` in place.
    pub fn replace(variable: &str, old: &str, new: &str) -> PathEdit {
        PathEdit {
            variable: variable.to_string(),
            add: Some(new.to_string()),
            first: false,
            remove: Some(old.to_string()),
        }
    }
}

impl PartialEq<&str> for FixKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for FixKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One conclusion about the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable kebab-case identifier, e.g. `no-nvidia-driver`.
    pub code: String,
    pub severity: Severity,
    /// One line.
    pub summary: String,
    /// Plain-language explanation.
    pub detail: String,
    /// File names involved.
    #[serde(default)]
    pub libraries: Vec<String>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    #[serde(default)]
    pub fixes: Vec<FixRef>,
}

impl Finding {
    pub fn new(
        code: &str,
        severity: Severity,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Finding {
        Finding {
            code: code.to_string(),
            severity,
            summary: summary.into(),
            detail: detail.into(),
            libraries: Vec::new(),
            evidence: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn with_libraries(
        mut self,
        libraries: impl IntoIterator<Item = impl Into<String>>,
    ) -> Finding {
        self.libraries.extend(libraries.into_iter().map(Into::into));
        self
    }

    pub fn with_evidence(mut self, evidence: Evidence) -> Finding {
        self.evidence.push(evidence);
        self
    }

    pub fn with_fix(mut self, fix: FixRef) -> Finding {
        self.fixes.push(fix);
        self
    }
}

/// Orders findings for display: errors first, then warnings, then info; stable within a severity.
pub fn sort_by_severity(findings: &mut [Finding]) {
    findings.sort_by_key(|f| f.severity);
}

/// Whether any finding is an error (exit code 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}
