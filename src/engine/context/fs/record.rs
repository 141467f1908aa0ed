//! The recording side of [`FsView`]: while a report is captured every answer is noted in an
//! [`FsRecording`]; a reopened report's view answers from one ([`Replay`]).

use super::{DirEntryInfo, FsError, FsView, Mapping, Platform, too_big};
use crate::engine::binfmt::cache::FileCache;
use crate::engine::binfmt::replay::BinaryRecord;
use crate::engine::context::recorded::{FsRecording, RecordedPath, Replay};
use std::sync::Arc;

impl FsView {
    /// The files a saved report recorded, answered again.
    pub fn recorded(platform: Platform, recording: FsRecording) -> FsView {
        let replay = Replay::new(recording, platform.case_insensitive());
        let binaries = BinaryRecord::replaying(replay.binaries());
        let mut view = Self::with(platform, Mapping::Recorded(Arc::new(replay)));
        view.binaries = Arc::new(FileCache::with_record(binaries));
        view
    }

    /// Starts recording every answer, and every binary read through this view (for a report);
    /// clones made from now on share the record. Nothing outside this view is recorded.
    pub fn start_recording(&mut self) {
        self.recorder = Some(Arc::default());
        self.binaries = Arc::new(FileCache::with_record(self.binaries.record().recording()));
    }

    /// What was recorded so far, if recording, with the binaries read joined to their files.
    pub fn recording(&self) -> Option<FsRecording> {
        let mut rec = self.recorder.as_ref()?.lock().ok()?.clone();
        let binaries = self.binaries.record().recorded(rec.hosts.keys());
        rec.attach_binaries(binaries);
        Some(rec)
    }

    pub(super) fn record(&self, f: impl FnOnce(&mut FsRecording)) {
        if let Some(rec) = &self.recorder
            && let Ok(mut rec) = rec.lock()
        {
            f(&mut rec);
        }
    }

    /// The recorded answer for a path of a reopened report.
    pub(super) fn replayed(&self, replay: &Replay, path: &str) -> Option<RecordedPath> {
        let normalized = self.platform.normalize(path);
        let parent = self.platform.parent(&normalized);
        let name = self.platform.file_name(&normalized);
        replay.lookup(&normalized, parent.as_deref(), name)
    }

    pub(super) fn replay(&self) -> Option<&Replay> {
        match &self.mapping {
            Mapping::Recorded(r) => Some(r),
            _ => None,
        }
    }

    pub(super) fn replayed_listing(
        &self,
        r: &Replay,
        path: &str,
    ) -> Result<Vec<DirEntryInfo>, FsError> {
        let normalized = self.platform.normalize(path);
        match self.replayed(r, &normalized) {
            Some(RecordedPath::Dir {
                entries: Some(entries),
            }) => Ok(entries
                .into_iter()
                .map(|e| {
                    let machine_path = self.platform.join(&normalized, &e.name);
                    DirEntryInfo {
                        host: r.host(&machine_path),
                        path: machine_path,
                        name: e.name,
                        is_dir: e.dir,
                        is_file: e.file,
                        is_symlink: e.link,
                        lossy: false,
                    }
                })
                .collect()),
            Some(RecordedPath::Dir { entries: None }) => Err(FsError::Io {
                path: path.to_string(),
                message: "the report did not record this folder's contents".into(),
            }),
            _ => Err(FsError::NotFound(path.to_string())),
        }
    }

    pub(super) fn replayed_content(&self, path: &str, limit: u64) -> Result<Vec<u8>, FsError> {
        let r = self
            .replay()
            .ok_or_else(|| FsError::NotFound(path.to_string()))?;
        let bytes = match self.replayed(r, path) {
            Some(RecordedPath::File { text: Some(t), .. }) => t.into_bytes(),
            Some(RecordedPath::File { hex: Some(h), .. }) => {
                crate::engine::context::recorded::from_hex(&h).ok_or_else(|| FsError::Io {
                    path: path.to_string(),
                    message: "the report's copy of this file is damaged".into(),
                })?
            }
            Some(RecordedPath::File { .. }) => {
                return Err(FsError::Io {
                    path: path.to_string(),
                    message: "the report did not record this file's contents".into(),
                });
            }
            _ => return Err(FsError::NotFound(path.to_string())),
        };
        if bytes.len() as u64 > limit {
            return Err(too_big(path, bytes.len() as u64, limit));
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests;
