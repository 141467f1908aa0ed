//! Binaries as a saved report recorded them. While a report is being captured, every binary read
//! through its file view is remembered (its host path, and what the parser returned); a reopened
//! report's file view answers reads of the synthetic host paths it hands out from those results
//! instead of a file. That is how this build's rules run again on a report from another machine,
//! where the files are not. The record belongs to one view's [`FileCache`](super::cache::FileCache)
//! (a [`BinaryRecord`]): nothing of it is global.

use super::{BinaryError, BinaryInfo, Detail};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What reading one binary gave, as a report keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordedBinary {
    Info(Box<BinaryInfo>),
    /// The parser's error: `open`, `not-binary` or `malformed`, with its message.
    Error {
        kind: String,
        message: String,
    },
}

impl RecordedBinary {
    fn of(result: &Result<BinaryInfo, BinaryError>) -> RecordedBinary {
        match result {
            Ok(info) => RecordedBinary::Info(Box::new(info.clone())),
            Err(e) => RecordedBinary::Error {
                kind: match e {
                    BinaryError::Open { .. } => "open",
                    BinaryError::NotBinary { .. } => "not-binary",
                    BinaryError::Malformed { .. } => "malformed",
                }
                .into(),
                message: e.to_string(),
            },
        }
    }

    fn to_result(&self, path: &Path) -> Result<BinaryInfo, BinaryError> {
        let shown = path.display().to_string();
        match self {
            RecordedBinary::Info(info) => Ok((**info).clone()),
            RecordedBinary::Error { kind, message } => Err(match kind.as_str() {
                "not-binary" => BinaryError::NotBinary { path: shown },
                "malformed" => BinaryError::Malformed {
                    path: shown,
                    format: "recorded",
                    message: message.clone(),
                },
                _ => BinaryError::Open {
                    path: shown,
                    message: message.clone(),
                },
            }),
        }
    }

    /// Whether this record holds at least what `detail` asks for.
    fn detail_rank(detail: Detail) -> u8 {
        u8::from(detail.embedded_names) + 2 * u8::from(detail.symbols)
    }
}

/// Host path → (how much detail was read, what the read gave).
type Recorded = HashMap<PathBuf, (u8, RecordedBinary)>;

/// Host paths of replayed files start with this (no real file lives there).
pub const REPLAY_PREFIX: &str = "/\u{1}cuda-triage-recorded";

/// What one file view's binary reads are recorded into, or answered from: owned by the view's
/// [`FileCache`](super::cache::FileCache), so two captures, or a capture and a reopened report,
/// in one process never see each other's binaries.
#[derive(Debug, Default)]
pub struct BinaryRecord {
    /// While a report is captured: every binary read through the view.
    recording: Option<Mutex<Recorded>>,
    /// A reopened report's recorded results, by the synthetic host paths its view hands out.
    replay: Option<Arc<HashMap<PathBuf, RecordedBinary>>>,
}

impl BinaryRecord {
    /// Answers reads of these synthetic host paths from what a report recorded.
    pub fn replaying(entries: HashMap<PathBuf, RecordedBinary>) -> BinaryRecord {
        BinaryRecord {
            recording: None,
            replay: Some(Arc::new(entries)),
        }
    }

    /// The same replay (if any), recording every read from now on.
    pub fn recording(&self) -> BinaryRecord {
        BinaryRecord {
            recording: Some(Mutex::default()),
            replay: self.replay.clone(),
        }
    }

    /// The same settings with nothing recorded yet (a view's cold copy).
    pub fn fresh(&self) -> BinaryRecord {
        BinaryRecord {
            recording: self.recording.as_ref().map(|_| Mutex::default()),
            replay: self.replay.clone(),
        }
    }

    /// What was read of the given host paths while recording.
    pub fn recorded<'a>(
        &self,
        hosts: impl IntoIterator<Item = &'a PathBuf>,
    ) -> HashMap<PathBuf, RecordedBinary> {
        let Some(map) = self.recording.as_ref() else {
            return HashMap::new();
        };
        let map = map.lock().unwrap_or_else(|p| p.into_inner());
        hosts
            .into_iter()
            .filter_map(|h| map.get(h).map(|(_, b)| (h.clone(), b.clone())))
            .collect()
    }

    /// Notes one read while recording (the most detailed read of a file wins).
    pub(super) fn note(
        &self,
        path: &Path,
        detail: Detail,
        result: &Result<BinaryInfo, BinaryError>,
    ) {
        let Some(map) = self.recording.as_ref() else {
            return;
        };
        let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
        let rank = RecordedBinary::detail_rank(detail);
        match map.get(path) {
            Some((have, _)) if *have >= rank => {}
            _ => {
                map.insert(path.to_path_buf(), (rank, RecordedBinary::of(result)));
            }
        }
    }

    /// The recorded result for a synthetic host path of a reopened report, if it is one.
    pub(super) fn lookup(&self, path: &Path) -> Option<Result<BinaryInfo, BinaryError>> {
        let replay = self.replay.as_ref()?;
        if !path
            .as_os_str()
            .as_encoded_bytes()
            .starts_with(REPLAY_PREFIX.as_bytes())
        {
            return None;
        }
        Some(match replay.get(path) {
            Some(r) => r.to_result(path),
            None => Err(BinaryError::Open {
                path: path.display().to_string(),
                message: "the report did not record this file's contents".into(),
            }),
        })
    }
}
