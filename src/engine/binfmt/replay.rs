//! Binaries as a saved report recorded them. While a report is being captured, every binary read
//! is remembered (its host path, and what the parser returned); a reopened report registers those
//! results under the synthetic host paths its recorded file view hands out, and
//! [`read_binary_with`](super::read_binary_with) answers from them instead of a file. That is how
//! this build's rules run again on a report from another machine, where the files are not.

use super::{BinaryError, BinaryInfo, Detail};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

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

/// Reads being recorded (host path → detail rank and result), shared by every capture running
/// in this process, with the number of captures running; cleared when the last one stops.
static RECORDING: Mutex<(usize, Option<Recorded>)> = Mutex::new((0, None));

/// Host path → (how much detail was read, what the read gave).
type Recorded = HashMap<PathBuf, (u8, RecordedBinary)>;

/// Recorded results served to a reopened report, by synthetic host path.
static REPLAY: RwLock<Option<HashMap<PathBuf, RecordedBinary>>> = RwLock::new(None);

/// Host paths of replayed files start with this (no real file lives there).
pub const REPLAY_PREFIX: &str = "/\u{1}cuda-triage-recorded";

/// Starts remembering every binary this process reads (for a report being captured).
pub fn start_recording() {
    if let Ok(mut r) = RECORDING.lock() {
        r.0 += 1;
        r.1.get_or_insert_with(HashMap::new);
    }
}

/// Ends one capture: returns what was read of the given host paths (concurrent captures keep
/// theirs), and forgets everything once no capture is running.
pub fn finish_recording<'a>(
    hosts: impl IntoIterator<Item = &'a PathBuf>,
) -> HashMap<PathBuf, RecordedBinary> {
    let Ok(mut r) = RECORDING.lock() else {
        return HashMap::new();
    };
    let found = match &r.1 {
        Some(map) => hosts
            .into_iter()
            .filter_map(|h| map.get(h).map(|(_, b)| (h.clone(), b.clone())))
            .collect(),
        None => HashMap::new(),
    };
    r.0 = r.0.saturating_sub(1);
    if r.0 == 0 {
        r.1 = None;
    }
    found
}

/// Notes one read while recording (the most detailed read of a file wins).
pub(super) fn note(path: &Path, detail: Detail, result: &Result<BinaryInfo, BinaryError>) {
    let Ok(mut guard) = RECORDING.lock() else {
        return;
    };
    let Some(map) = guard.1.as_mut() else { return };
    let rank = RecordedBinary::detail_rank(detail);
    match map.get(path) {
        Some((have, _)) if *have >= rank => {}
        _ => {
            map.insert(path.to_path_buf(), (rank, RecordedBinary::of(result)));
        }
    }
}

/// Makes recorded results answer reads of these synthetic host paths.
pub fn register(entries: impl IntoIterator<Item = (PathBuf, RecordedBinary)>) {
    if let Ok(mut guard) = REPLAY.write() {
        guard.get_or_insert_with(HashMap::new).extend(entries);
    }
}

/// The recorded result for a synthetic host path, if it is one.
pub(super) fn lookup(path: &Path) -> Option<Result<BinaryInfo, BinaryError>> {
    if !path
        .as_os_str()
        .as_encoded_bytes()
        .starts_with(REPLAY_PREFIX.as_bytes())
    {
        return None;
    }
    let guard = REPLAY.read().ok()?;
    let found = guard.as_ref().and_then(|m| m.get(path));
    Some(match found {
        Some(r) => r.to_result(path),
        None => Err(BinaryError::Open {
            path: path.display().to_string(),
            message: "the report did not record this file's contents".into(),
        }),
    })
}
