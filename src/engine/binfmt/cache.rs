//! Binaries read once per context: what a file's headers say (per reader) and its symbol table,
//! kept by host path for as long as the [`FsView`](crate::engine::context::FsView) that owns the
//! cache lives — one scan, one tree. Every framework's closure, every tree check and every rule
//! asking about the same file share one parse: torch's `_C` and `libtorch_global_deps.so` walk
//! the same cuBLAS, cuDNN and libtorch_cuda, and now read them once.
//!
//! Each file is mapped once as well: every reader and the symbol table share that one mapping,
//! so a tree's symbol checks touch no page its walk already faulted in, and nothing is mapped
//! and unmapped twice (on a 585 MB cuDNN library the second mapping was a tenth of the tree).
//!
//! A file is taken from the cache only while its identity and stamp (device, inode, size,
//! modification and change times) are those it was read with, so a file a fix replaced is read
//! again. A path that cannot be looked at (a reopened report's synthetic path) is never cached:
//! its reader answers for itself.

use super::replay::BinaryRecord;
use super::{BinaryError, BinaryInfo, Detail, MappedFile, SymbolTable};
use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// How a cached read reads a file.
#[derive(Debug, Clone, Copy)]
pub enum Reader {
    /// The binary parser, to this detail, on the file's one shared mapping.
    Binary(Detail),
    /// A reader of its own (a test's, which fabricates binaries).
    Custom(fn(&Path) -> Result<BinaryInfo, BinaryError>),
}

impl Reader {
    /// Headers and tables (`read_binary_headers`): what a tree without run-time edges needs.
    pub const HEADERS: Reader = Reader::Binary(Detail::HEADERS);
    /// Headers, tables and embedded library names (`read_binary_names`).
    pub const NAMES: Reader = Reader::Binary(Detail::NAMES);

    /// Reads `host` without a cache.
    pub fn read(self, host: &Path) -> Result<BinaryInfo, BinaryError> {
        match self {
            Reader::Binary(detail) => super::read_binary_with(host, detail),
            Reader::Custom(read) => read(host),
        }
    }

    /// What tells two readers' results apart in an entry.
    fn key(self) -> (Option<Detail>, usize) {
        match self {
            Reader::Binary(detail) => (Some(detail), 0),
            Reader::Custom(read) => (None, read as usize),
        }
    }
}

/// What makes a cached read still valid.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    identity: (u64, u64, i64, i64),
}

impl Stamp {
    fn of(host: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(host).ok()?;
        Some(Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            identity: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
            },
        })
    }
}

type ReaderKey = (Option<Detail>, usize);

#[derive(Default)]
struct Entry {
    stamp: Option<Stamp>,
    /// Reader → what it gave.
    reads: Vec<(ReaderKey, Result<Arc<BinaryInfo>, BinaryError>)>,
    /// The file's one mapping, once a reader or the symbol table asked for it.
    map: Option<MappedFile>,
    /// The symbol table, once asked for (`None` inside: not an ELF file with versions).
    symbols: Option<Option<Arc<SymbolTable>>>,
    /// Finder (by address) → what it found in the mapping (a tool's version banner).
    found: Vec<(usize, Option<String>)>,
}

/// Parsed binaries and symbol tables by host path (shared by a view's clones), with what the
/// view records of its reads for a report, or answers from a reopened one.
#[derive(Default)]
pub struct FileCache {
    files: Mutex<HashMap<PathBuf, Entry>>,
    record: BinaryRecord,
}

impl std::fmt::Debug for FileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files = self.files.lock().map_or(0, |m| m.len());
        f.debug_struct("FileCache").field("files", &files).finish()
    }
}

impl FileCache {
    /// A cache whose binary reads are recorded in, or answered from, `record`.
    pub fn with_record(record: BinaryRecord) -> FileCache {
        FileCache {
            files: Mutex::default(),
            record,
        }
    }

    /// What this cache records of, or answers from, a report.
    pub fn record(&self) -> &BinaryRecord {
        &self.record
    }

    /// What `reader` says about the file at `host`, read at most once while it is unchanged.
    /// A reopened report's recorded binaries answer for themselves; while a report is captured,
    /// every parser read is recorded.
    pub fn binary(&self, host: &Path, reader: Reader) -> Result<Arc<BinaryInfo>, BinaryError> {
        if let Reader::Binary(_) = reader
            && let Some(recorded) = self.record.lookup(host)
        {
            return recorded.map(Arc::new);
        }
        let Some(stamp) = Stamp::of(host) else {
            let read = reader.read(host);
            if let Reader::Binary(detail) = reader {
                self.record.note(host, detail, &read);
            }
            return read.map(Arc::new);
        };
        let key = reader.key();
        if let Some(hit) = self.with_entry(host, &stamp, |e| {
            e.reads
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, r)| r.clone())
        }) {
            return hit;
        }
        // Read outside the lock: another thread may read the same file meanwhile; both agree.
        let read = match reader {
            Reader::Binary(detail) => {
                let read = super::read_binary_mapped(host, detail, || self.map(host, &stamp));
                self.record.note(host, detail, &read);
                read
            }
            Reader::Custom(read) => read(host),
        }
        .map(Arc::new);
        self.with_entry(host, &stamp, |e| e.reads.push((key, read.clone())));
        read
    }

    /// The file's symbol table (`None`: unreadable, not ELF, or without versioned symbols).
    pub fn symbols(&self, host: &Path) -> Option<Arc<SymbolTable>> {
        let Some(stamp) = Stamp::of(host) else {
            return SymbolTable::open(host).ok().flatten().map(Arc::new);
        };
        if let Some(hit) = self.with_entry(host, &stamp, |e| e.symbols.clone()) {
            return hit;
        }
        let table = self
            .map(host, &stamp)
            .and_then(|map| SymbolTable::of_map(map, host))
            .ok()
            .flatten()
            .map(Arc::new);
        self.with_entry(host, &stamp, |e| e.symbols = Some(table.clone()));
        table
    }

    /// What `find` makes of the file's bytes, computed once while the file is unchanged: the
    /// version banner of a ptxas that the toolkit scan, PATH's and every environment's XLA
    /// search all ask about. A file shorter than 4 bytes gives `None`.
    pub fn find_in(
        &self,
        host: &Path,
        find: fn(&[u8]) -> Option<String>,
    ) -> Result<Option<String>, BinaryError> {
        let search = |map: Result<MappedFile, BinaryError>| match map {
            Ok(map) => Ok(find(&map)),
            Err(BinaryError::NotBinary { .. }) => Ok(None),
            Err(e) => Err(e),
        };
        let Some(stamp) = Stamp::of(host) else {
            return search(super::map_file(host));
        };
        let key = find as usize;
        if let Some(hit) = self.with_entry(host, &stamp, |e| {
            e.found
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, r)| r.clone())
        }) {
            return Ok(hit);
        }
        let found = search(self.map(host, &stamp))?;
        self.with_entry(host, &stamp, |e| e.found.push((key, found.clone())));
        Ok(found)
    }

    /// The file's one mapping, made on first need.
    fn map(&self, host: &Path, stamp: &Stamp) -> Result<MappedFile, BinaryError> {
        if let Some(map) = self.with_entry(host, stamp, |e| e.map.clone()) {
            return Ok(map);
        }
        let map = super::map_file(host)?;
        self.with_entry(host, stamp, |e| e.map = Some(map.clone()));
        Ok(map)
    }

    /// Runs `f` on the entry of `host`, emptied first when the file changed since it was filled.
    fn with_entry<T>(&self, host: &Path, stamp: &Stamp, f: impl FnOnce(&mut Entry) -> T) -> T {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let entry = files.entry(host.to_path_buf()).or_default();
        if entry.stamp.as_ref() != Some(stamp) {
            *entry = Entry {
                stamp: Some(stamp.clone()),
                ..Entry::default()
            };
        }
        f(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static READS: AtomicUsize = AtomicUsize::new(0);

    fn counting(host: &Path) -> Result<BinaryInfo, BinaryError> {
        READS.fetch_add(1, Ordering::SeqCst);
        let text = std::fs::read_to_string(host).map_err(|e| BinaryError::Open {
            path: host.display().to_string(),
            message: e.to_string(),
        })?;
        let mut info = BinaryInfo::empty(
            super::super::Format::Elf,
            super::super::Machine::new("x86_64", 64),
        );
        info.soname = Some(text);
        Ok(info)
    }

    #[test]
    fn a_file_is_read_once_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("libx.so");
        std::fs::write(&path, "one").unwrap();
        let cache = FileCache::default();
        let before = READS.load(Ordering::SeqCst);
        let first = cache.binary(&path, Reader::Custom(counting)).unwrap();
        let again = cache.binary(&path, Reader::Custom(counting)).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(READS.load(Ordering::SeqCst) - before, 1);
        // A replaced file (another size) is read again.
        std::fs::write(&path, "three").unwrap();
        let changed = cache.binary(&path, Reader::Custom(counting)).unwrap();
        assert_eq!(changed.soname.as_deref(), Some("three"));
        assert_eq!(READS.load(Ordering::SeqCst) - before, 2);
        // A missing file is the reader's error, not a cached answer.
        assert!(
            cache
                .binary(&dir.path().join("nothing.so"), Reader::Custom(counting))
                .is_err()
        );
    }
}
