//! The graph's [`FileProbe`]: candidate files looked at through `ctx.fs` and parsed with the
//! binary reader, each path at most once (a loader asks for the same directory many times).
//! It also remembers each file's identity (its host path with links resolved), which is how
//! glibc notices that a second name points at a file already loaded.

use super::Reader;
use crate::engine::binfmt::BinaryInfo;
use crate::engine::context::{FsError, FsView, Platform};
use crate::engine::loader::{FileProbe, Probe};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Looks at machine paths through a filesystem view, with a cache.
pub struct FsProbe<'a> {
    fs: &'a FsView,
    platform: Platform,
    reader: Reader,
    seen: RefCell<HashMap<String, (Probe, Option<PathBuf>)>>,
}

impl<'a> FsProbe<'a> {
    pub fn new(fs: &'a FsView, reader: Reader) -> FsProbe<'a> {
        FsProbe {
            fs,
            platform: fs.platform(),
            reader,
            seen: RefCell::new(HashMap::new()),
        }
    }

    fn key(&self, path: &str) -> String {
        if self.platform.case_insensitive() {
            path.to_lowercase()
        } else {
            path.to_string()
        }
    }

    fn look(&self, path: &str) -> (Probe, Option<PathBuf>) {
        match self.fs.file(path) {
            Ok(host) => {
                let identity = std::fs::canonicalize(&host).unwrap_or_else(|_| host.clone());
                let probe = match (self.reader)(&host) {
                    Ok(info) => Probe::Binary(Arc::new(info)),
                    Err(e) => Probe::Unreadable(e.to_string()),
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

    /// The identity (resolved host path) of a file already probed.
    pub fn identity(&self, path: &str) -> Option<PathBuf> {
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
