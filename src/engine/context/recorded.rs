//! A recorded file view: what the engine asked of a machine's files while a report was captured —
//! which paths exist and as what, directory listings, small files' contents, link targets, and
//! (through the view's [`BinaryRecord`](crate::engine::binfmt::replay::BinaryRecord)) what each binary's headers said —
//! kept in the report (`snapshot.files`) and answered again when the report is reopened, so this
//! build's rules run on the machine as it was, anywhere. A path the capture never asked about is
//! "not there" on replay.

use crate::engine::binfmt::replay::{self, RecordedBinary};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One directory entry as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dir: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub file: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub link: bool,
}

/// What one machine path was when the report was captured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RecordedPath {
    Missing,
    Dir {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entries: Option<Vec<RecordedEntry>>,
    },
    File {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Small binary contents (`ld.so.cache`), hex.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hex: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        binary: Option<RecordedBinary>,
    },
    /// Exists, but is neither a regular file nor a folder.
    Other,
}

/// The recorded view of one machine (the report's `snapshot.files`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsRecording {
    pub paths: BTreeMap<String, RecordedPath>,
    /// Link targets (`read_link`), by machine path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub links: BTreeMap<String, String>,
    /// Host path → machine path of every file handed out while recording (joins binaries).
    #[serde(skip)]
    pub hosts: HashMap<PathBuf, String>,
}

impl RecordedPath {
    /// What a host path is (following links), or `Missing`.
    pub fn on_host(host: Option<&Path>) -> RecordedPath {
        match host.map(std::fs::metadata) {
            Some(Ok(m)) if m.is_dir() => RecordedPath::Dir { entries: None },
            Some(Ok(m)) if m.is_file() => RecordedPath::empty_file(),
            Some(Ok(_)) => RecordedPath::Other,
            _ => RecordedPath::Missing,
        }
    }

    fn empty_file() -> RecordedPath {
        RecordedPath::File {
            text: None,
            hex: None,
            binary: None,
        }
    }
}

impl FsRecording {
    /// Notes what a path is, unless something more detailed was noted already.
    pub fn note(&mut self, path: &str, kind: RecordedPath) {
        self.paths.entry(path.to_string()).or_insert(kind);
    }

    pub fn note_file(&mut self, path: &str, host: &Path) {
        self.hosts.insert(host.to_path_buf(), path.to_string());
        self.note(path, RecordedPath::on_host(Some(host)));
    }

    pub fn note_listing(
        &mut self,
        path: &str,
        entries: Vec<RecordedEntry>,
        hosts: Vec<(PathBuf, String)>,
    ) {
        self.paths.insert(
            path.to_string(),
            RecordedPath::Dir {
                entries: Some(entries),
            },
        );
        self.hosts.extend(hosts);
    }

    pub fn note_text(&mut self, path: &str, text: &str) {
        self.set_content(path, Some(text.to_string()), None);
    }

    pub fn note_bytes(&mut self, path: &str, bytes: &[u8]) {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.set_content(path, None, Some(hex));
    }

    fn set_content(&mut self, path: &str, new_text: Option<String>, new_hex: Option<String>) {
        let entry = self
            .paths
            .entry(path.to_string())
            .or_insert(RecordedPath::File {
                text: None,
                hex: None,
                binary: None,
            });
        if let RecordedPath::File { text, hex, .. } = entry {
            if new_text.is_some() {
                *text = new_text;
            }
            if new_hex.is_some() {
                *hex = new_hex;
            }
        }
    }

    /// Joins the binaries read while recording (by host path) to the files handed out.
    /// Error messages name the machine path, not where the file lay on the capturing host.
    pub fn attach_binaries(&mut self, binaries: HashMap<PathBuf, RecordedBinary>) {
        for (host, mut recorded) in binaries {
            let Some(path) = self.hosts.get(&host).cloned() else {
                continue;
            };
            if let RecordedBinary::Error { message, .. } = &mut recorded {
                *message = message.replace(&host.display().to_string(), &path);
            }
            let entry = self
                .paths
                .entry(path)
                .or_insert_with(RecordedPath::empty_file);
            if let RecordedPath::File { binary, .. } = entry {
                *binary = Some(recorded);
            }
        }
    }
}

/// A recording being answered (a reopened report).
#[derive(Debug)]
pub struct Replay {
    recording: FsRecording,
    /// Lower-case machine path → recorded key (Windows look-ups ignore case).
    folded: HashMap<String, String>,
    case_insensitive: bool,
    /// Synthetic host folder of this replay (`REPLAY_PREFIX/<n>`).
    base: String,
}

/// Numbers each replay's synthetic host folder (an id counter: which binaries a path stands for
/// is the replaying view's own record, not this number).
static NEXT_REPLAY: AtomicU64 = AtomicU64::new(1);

impl Replay {
    pub fn new(recording: FsRecording, case_insensitive: bool) -> Replay {
        let base = format!(
            "{}/{}",
            replay::REPLAY_PREFIX,
            NEXT_REPLAY.fetch_add(1, Ordering::Relaxed)
        );
        let folded = recording
            .paths
            .keys()
            .map(|k| (k.to_ascii_lowercase(), k.clone()))
            .collect();
        Replay {
            recording,
            folded,
            case_insensitive,
            base,
        }
    }

    /// The recorded binaries by the synthetic host paths this replay hands out (what its view's
    /// file cache answers reads with).
    pub fn binaries(&self) -> HashMap<PathBuf, RecordedBinary> {
        self.recording
            .paths
            .iter()
            .filter_map(|(path, p)| match p {
                RecordedPath::File {
                    binary: Some(b), ..
                } => Some((self.host(path), b.clone())),
                _ => None,
            })
            .collect()
    }

    /// The synthetic host path standing for a machine path.
    pub fn host(&self, path: &str) -> PathBuf {
        PathBuf::from(format!("{}/{}", self.base, path.trim_start_matches('/')))
    }

    fn key<'a>(&'a self, path: &'a str) -> Option<&'a str> {
        if self.recording.paths.contains_key(path) {
            return Some(path);
        }
        if self.case_insensitive {
            return self
                .folded
                .get(&path.to_ascii_lowercase())
                .map(String::as_str);
        }
        None
    }

    /// What a path is: recorded directly, or as an entry of its recorded parent folder.
    pub fn lookup(&self, path: &str, parent: Option<&str>, name: &str) -> Option<RecordedPath> {
        if let Some(k) = self.key(path) {
            return self.recording.paths.get(k).cloned();
        }
        let parent = self.key(parent?)?;
        let Some(RecordedPath::Dir {
            entries: Some(entries),
        }) = self.recording.paths.get(parent)
        else {
            return None;
        };
        let e = entries.iter().find(|e| {
            e.name == name || (self.case_insensitive && e.name.eq_ignore_ascii_case(name))
        })?;
        Some(if e.dir {
            RecordedPath::Dir { entries: None }
        } else if e.file {
            RecordedPath::empty_file()
        } else {
            RecordedPath::Other
        })
    }

    pub fn link(&self, path: &str) -> Option<String> {
        self.recording.links.get(path).cloned().or_else(|| {
            self.case_insensitive
                .then(|| {
                    self.recording
                        .links
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(path))
                        .map(|(_, v)| v.clone())
                })
                .flatten()
        })
    }
}

/// Hex text back to bytes (`None` when damaged).
pub fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}
