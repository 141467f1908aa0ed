//! The graph's [`FileProbe`]: candidate files looked at through `ctx.fs` and parsed with the
//! binary reader, each path at most once (a loader asks for the same directory many times).
//! It also remembers each file's identity (device and inode on Unix hosts, as glibc compares;
//! the canonical host path elsewhere), which is how the loader notices that a second name
//! points at a file already loaded.

use super::Reader;
use crate::engine::binfmt::BinaryInfo;
use crate::engine::context::{FsError, FsView, Platform};
use crate::engine::loader::{FileProbe, Probe};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What makes two paths the same file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileId {
    /// Device and inode.
    Inode(u64, u64),
    /// The host path with every link resolved.
    Canonical(PathBuf),
}

impl FileId {
    /// One `stat` on Unix; a `canonicalize` (a readlink per component) elsewhere.
    pub fn of(host: &Path) -> FileId {
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(host) {
            use std::os::unix::fs::MetadataExt;
            return FileId::Inode(meta.dev(), meta.ino());
        }
        FileId::Canonical(std::fs::canonicalize(host).unwrap_or_else(|_| host.to_path_buf()))
    }
}

/// Looks at machine paths through a filesystem view, with a cache.
pub struct FsProbe<'a> {
    fs: &'a FsView,
    platform: Platform,
    reader: Reader,
    seen: RefCell<HashMap<String, (Probe, Option<FileId>)>>,
}

impl<'a> FsProbe<'a> {
    pub fn new(fs: &'a FsView, reader: Reader) -> FsProbe<'a> {
        FsProbe {
            fs,
            platform: fs.platform(),
            reader,
            seen: RefCell::new(HashMap::default()),
        }
    }

    fn key(&self, path: &str) -> String {
        if self.platform.case_insensitive() {
            path.to_lowercase()
        } else {
            path.to_string()
        }
    }

    /// Records a binary already read (the root), so it is not read again.
    pub fn remember(&self, path: &str, host: &Path, info: Arc<BinaryInfo>) {
        let entry = (Probe::Binary(info), Some(FileId::of(host)));
        self.seen.borrow_mut().insert(self.key(path), entry);
    }

    fn look(&self, path: &str) -> (Probe, Option<FileId>) {
        match self.fs.file(path) {
            Ok(host) => {
                let identity = FileId::of(&host);
                let probe = match self.fs.binaries().binary(&host, self.reader) {
                    Ok(info) => Probe::Binary(info),
                    // Name the machine path, not the host folder standing for it (a machine
                    // file's folder tree), as the root's error does.
                    Err(e) => {
                        Probe::Unreadable(e.to_string().replace(&host.display().to_string(), path))
                    }
                };
                (probe, Some(identity))
            }
            Err(FsError::Io { message, .. }) => (Probe::Unreadable(message), None),
            Err(FsError::SymlinkLoop(p)) => (
                Probe::Unreadable(format!("{p}: too many levels of symbolic links")),
                None,
            ),
            Err(_) => (Probe::Missing, None),
        }
    }

    /// The parsed binary at a path already probed (or probed now).
    pub fn info(&self, path: &str) -> Option<Arc<BinaryInfo>> {
        match self.probe(path) {
            Probe::Binary(info) => Some(info),
            _ => None,
        }
    }

    /// The identity of a file already probed (or probed now).
    pub fn identity(&self, path: &str) -> Option<FileId> {
        self.probe(path);
        self.seen
            .borrow()
            .get(&self.key(path))
            .and_then(|(_, id)| id.clone())
    }
}

impl FileProbe for FsProbe<'_> {
    fn probe(&self, machine_path: &str) -> Probe {
        let key = self.key(machine_path);
        if let Some((probe, _)) = self.seen.borrow().get(&key) {
            return probe.clone();
        }
        let looked = self.look(machine_path);
        let probe = looked.0.clone();
        self.seen.borrow_mut().insert(key, looked);
        probe
    }
}
