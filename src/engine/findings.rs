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

/// A reference to a fix that addresses a finding (the plan itself lives in the fix engine).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixRef {
    pub id: String,
    /// `path-edit`, `env-var`, `pin-version`, `copy-file`, `install`, `manual`, ...
    pub kind: String,
    pub summary: String,
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
