//! `error_catalog.toml`: message patterns from real logs → root cause and fix, and the error
//! codes / status names with their plain-language meaning. Patterns are checked when the table
//! loads and compiled once, case-insensitive, on first use — a scan never matches error text, and
//! compiling them was most of what loading the tables cost; each must match its own verbatim
//! example (a unit test checks).

use super::KnowledgeError;
use crate::engine::findings::Severity;
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageRow {
    pub id: String,
    pub tool: String,
    pub severity: Severity,
    pub pattern: String,
    pub example: String,
    pub summary: String,
    pub root_cause: String,
    pub fix: String,
    /// The rows this one replaces on its line; `missing-symbol` replaces the generic reading of
    /// an undefined symbol there.
    #[serde(default)]
    pub overrides: Vec<String>,
    /// A general reading of a family of messages (any program's "built without CUDA"): dropped
    /// wherever a row that is not a fallback reads the same line.
    #[serde(default)]
    pub fallback: bool,
    #[serde(default = "super::yes")]
    pub verified: bool,
    #[serde(default)]
    pub note: Option<String>,
    /// For a message other programs print in the same words (thrust's "parallel_for failed"
    /// from CTranslate2 and PaddlePaddle): the row reads a text only where the whole text
    /// matches this case-insensitive regular expression (the program or its apps named).
    #[serde(default)]
    pub text_names: Option<String>,
    /// The other way round: the row does not read a text that matches this (another line of
    /// the same message that says the cause is something else: xFormers' "wasn't build with CUDA
    /// support" under each operator it lists).
    #[serde(default)]
    pub text_lacks: Option<String>,
    pub source: String,
    /// Causes the rest of the text points at (macOS paths for "Torch not compiled with CUDA
    /// enabled"): the first whose `when` matches is named first, as for codes.
    #[serde(default, rename = "case")]
    pub cases: Vec<CodeCase>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeRow {
    /// `win32`, `cuda` or `cudnn`.
    pub kind: String,
    #[serde(default)]
    pub number: Option<i64>,
    #[serde(default)]
    pub names: Vec<String>,
    /// For `kind = "status"`: the row stands for every status name of any NVIDIA library that
    /// ends with one of these (`_ARCH_MISMATCH`, `_NOT_INITIALIZED`), where no row names it.
    #[serde(default)]
    pub suffixes: Vec<String>,
    /// For a status family: a table the finding adds from other knowledge,
    /// `oldest-capabilities` (each CUDA release's oldest compute capability) or
    /// `first-cuda-per-generation` (the first CUDA of each recent GPU generation).
    #[serde(default)]
    pub appendix: Option<String>,
    pub meaning: String,
    /// What to do about it, where a cause is known (shown as a manual fix).
    #[serde(default)]
    pub fix: Option<String>,
    #[serde(default = "super::yes")]
    pub verified: bool,
    /// The code reports no failure (a Windows process stopped by Ctrl+C): its finding is a note.
    #[serde(default)]
    pub benign: bool,
    pub source: String,
    /// Which of the row's causes the rest of the text points at: the first case whose `when`
    /// (a case-insensitive regular expression over the whole text) matches is named first.
    #[serde(default, rename = "case")]
    pub cases: Vec<CodeCase>,
}

/// A cause of a code that a few context words select ("NVLS" → Fabric Manager for 999).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeCase {
    pub when: String,
    pub cause: String,
    /// `when`, compiled (case-insensitively) the first time a text is checked.
    #[serde(skip)]
    compiled: OnceLock<Regex>,
}

impl CodeCase {
    /// Where `text` has this case's context words.
    fn find<'t>(&self, text: &'t str) -> Option<regex::Match<'t>> {
        self.compiled
            .get_or_init(|| case_insensitive(&self.when))
            .find(text)
    }
}

/// " Here: ..." for the first of a row's cases whose context words `text` has.
pub fn context_cause(cases: &[CodeCase], text: &str) -> Option<String> {
    cases.iter().find_map(|c| {
        c.find(text)
            .map(|m| format!("Here (the text says \"{}\"): {} ", m.as_str(), c.cause))
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    message: Vec<MessageRow>,
    #[serde(default)]
    code: Vec<CodeRow>,
}

#[derive(Debug, Default)]
pub struct Catalog {
    pub messages: Vec<MessageRow>,
    /// One compiled pattern per message, same order.
    pub patterns: Patterns,
    pub codes: Vec<CodeRow>,
    /// Each message's `text_names` and `text_lacks`, compiled the first time a text is checked.
    contexts: OnceLock<Vec<(Option<Regex>, Option<Regex>)>>,
}

impl Catalog {
    pub fn load() -> Result<Catalog, KnowledgeError> {
        let file: File = super::parse("error_catalog.toml")?;
        // Checked by the unit test that compiles each pattern against its example, not at
        // every start: parsing them all here cost a scan that never reads a log 12 % of its time.
        let sources = file
            .message
            .iter()
            .map(|m| format!("(?i){}", m.pattern))
            .collect();
        Ok(Catalog {
            messages: file.message,
            patterns: Patterns {
                sources,
                compiled: OnceLock::new(),
            },
            codes: file.code,
            contexts: OnceLock::new(),
        })
    }

    /// Whether message row `i` may read `text`: the text names its program where the row says
    /// which (`text_names`), and has none of the words that name another cause (`text_lacks`).
    /// A context pattern that does not compile keeps the row off (the unit test that checks
    /// every pattern checks these too).
    pub fn reads_in_context(&self, i: usize, text: &str) -> bool {
        let contexts = self.contexts.get_or_init(|| {
            let compile = |p: &Option<String>| p.as_deref().map(case_insensitive);
            self.messages
                .iter()
                .map(|m| (compile(&m.text_names), compile(&m.text_lacks)))
                .collect()
        });
        let Some((names, lacks)) = contexts.get(i) else {
            return true;
        };
        names.as_ref().is_none_or(|re| re.is_match(text))
            && lacks.as_ref().is_none_or(|re| !re.is_match(text))
    }

    /// The code row for a number of a kind (`win32` 126, `cuda` 35).
    pub fn code(&self, kind: &str, number: i64) -> Option<&CodeRow> {
        self.codes
            .iter()
            .find(|c| c.kind == kind && c.number == Some(number))
    }

    /// The code row one of whose names is `name` (case-insensitive).
    pub fn code_named(&self, name: &str) -> Option<&CodeRow> {
        self.codes
            .iter()
            .find(|c| c.names.iter().any(|n| n.eq_ignore_ascii_case(name)))
    }

    /// The row of the status that a grouped one refines: cuDNN 9 numbers its statuses in
    /// groups, and `CUDNN_STATUS_EXECUTION_FAILED_CUDART` (5003) is a kind of
    /// `CUDNN_STATUS_EXECUTION_FAILED` (5000). The longest name that, followed by `_`, begins
    /// `name`, and its row.
    pub fn code_parent(&self, name: &str) -> Option<(&str, &CodeRow)> {
        self.codes
            .iter()
            .filter_map(|c| {
                let parent = c.names.iter().find(|n| {
                    name.get(..n.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(n))
                        && name.len() > n.len() + 1
                        && name.as_bytes()[n.len()] == b'_'
                })?;
                Some((parent.as_str(), c))
            })
            .max_by_key(|(parent, _)| parent.len())
    }

    /// The `status` row whose suffix ends `name` (`CUBLAS_STATUS_ARCH_MISMATCH`), for a code of
    /// `kind`. The families describe the math and AI libraries' statuses; the driver's, CUPTI's,
    /// NVML's, the compilers', cuFile's, NVENC's, OpenCL's and Windows' NTSTATUS enumerators mean
    /// other things under the same suffixes (`CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED`,
    /// OpenCL's `CL_INVALID_VALUE`).
    pub fn code_family(&self, kind: &str, name: &str) -> Option<&CodeRow> {
        if matches!(
            kind,
            "cuda"
                | "cupti"
                | "nvml"
                | "nvrtc"
                | "nvjitlink"
                | "cufile"
                | "nvenc"
                | "opencl"
                | "ntstatus"
        ) {
            return None;
        }
        let upper = name.to_ascii_uppercase();
        self.codes
            .iter()
            .find(|c| c.kind == "status" && c.suffixes.iter().any(|s| upper.ends_with(s.as_str())))
    }

    pub fn message(&self, id: &str) -> Option<&MessageRow> {
        self.messages.iter().find(|m| m.id == id)
    }

    /// A catalog of only some of this one's message rows (a test reads a line with one row
    /// alone, without the program's own row that would otherwise answer first).
    #[cfg(test)]
    pub fn only(&self, ids: &[&str]) -> Catalog {
        let messages: Vec<MessageRow> = self
            .messages
            .iter()
            .filter(|m| ids.contains(&m.id.as_str()))
            .cloned()
            .collect();
        Catalog {
            patterns: Patterns {
                sources: messages
                    .iter()
                    .map(|m| format!("(?i){}", m.pattern))
                    .collect(),
                compiled: OnceLock::new(),
            },
            messages,
            codes: Vec::new(),
            contexts: OnceLock::new(),
        }
    }
}

/// The messages' patterns (checked by the tables' unit tests), compiled together the first time one is used.
#[derive(Debug, Default)]
pub struct Patterns {
    sources: Vec<String>,
    compiled: OnceLock<Vec<Regex>>,
}

impl std::ops::Deref for Patterns {
    type Target = [Regex];

    fn deref(&self) -> &[Regex] {
        self.compiled.get_or_init(|| {
            self.sources
                .iter()
                // A checked pattern only fails to compile past the size limits: it matches nothing.
                .map(|s| Regex::new(s).unwrap_or_else(|_| never()))
                .collect()
        })
    }
}

impl<'a> IntoIterator for &'a Patterns {
    type Item = &'a Regex;
    type IntoIter = std::slice::Iter<'a, Regex>;

    fn into_iter(self) -> Self::IntoIter {
        std::ops::Deref::deref(self).iter()
    }
}

/// A context pattern of the catalog (a case's `when`, a row's `text_names`), matched without
/// regard to case; one that does not compile matches nothing (the knowledge unit tests check
/// that each compiles).
fn case_insensitive(pattern: &str) -> Regex {
    Regex::new(&format!("(?i){pattern}")).unwrap_or_else(|_| never())
}

/// A pattern that matches nothing.
fn never() -> Regex {
    crate::engine::static_regex::compile(r"[^\s\S]")
}
