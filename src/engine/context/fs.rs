//! The filesystem view of a [`SystemContext`](super::SystemContext): machine paths in the
//! diagnosed platform's syntax (`C:\Program Files\...`, `/usr/lib/...`) mapped onto host folders.
//!
//! A live machine maps paths one to one. A machine file maps `/` to a folder (Linux) or drive
//! letters to folders (Windows). Windows look-ups are case-insensitive whatever the host, and
//! symbolic links inside a mapped Linux root are followed *inside* that root (an absolute link
//! target `/usr/lib/x` stays in the fake machine), with a hop limit so loops end in an error.

use super::platform::Platform;
use super::recorded::{FsRecording, RecordedEntry, RecordedPath, Replay};
use crate::engine::binfmt::cache::FileCache;

mod record;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Most symbolic links followed while resolving one path (as Linux's MAXSYMLINKS).
const MAX_SYMLINK_HOPS: usize = 40;

/// Why a path could not be read.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum FsError {
    #[error("{0}: not found")]
    NotFound(String),
    #[error("{0}: too many levels of symbolic links")]
    SymlinkLoop(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{0}: outside every mapped drive or root")]
    Unmapped(String),
}

/// One entry of a directory listing.
#[derive(Debug, Clone)]
pub struct DirEntryInfo {
    /// The name as text (lossy where the on-disk name is not UTF-8; see `lossy`).
    pub name: String,
    /// The machine path of the entry.
    pub path: String,
    /// Where the entry lives on the host, usable to open it even when the name is not UTF-8.
    pub host: PathBuf,
    pub is_dir: bool,
    pub is_file: bool,
    pub is_symlink: bool,
    /// The on-disk name was not valid UTF-8 and `name` is an approximation.
    pub lossy: bool,
}

#[derive(Debug, Clone)]
enum Mapping {
    /// Machine paths are host paths (the live machine).
    Host,
    /// Linux: this host folder stands for `/`.
    Root(PathBuf),
    /// Windows: drive letter (upper case) to host folder.
    Drives(BTreeMap<char, PathBuf>),
    /// No files at all (a context rebuilt from a saved report without recorded files).
    Empty,
    /// The files a saved report recorded (see [`super::recorded`]).
    Recorded(Arc<Replay>),
}

/// Read-only access to the diagnosed machine's files.
#[derive(Debug, Clone)]
pub struct FsView {
    platform: Platform,
    mapping: Mapping,
    /// Directory listings already read, for case-insensitive component look-ups.
    listings: Arc<Mutex<HashMap<PathBuf, Arc<Vec<OsString>>>>>,
    /// Folders below a mapped root already seen to be real folders (not links), so a path's
    /// leading components are not looked at again for every file in them.
    real_dirs: Arc<Mutex<std::collections::HashSet<String>>>,
    /// While a report is captured: every answer this view gives (shared by its clones).
    recorder: Option<Arc<Mutex<FsRecording>>>,
    /// Binaries and symbol tables already read through this view (shared by its clones).
    binaries: Arc<FileCache>,
}

impl FsView {
    pub fn live(platform: Platform) -> FsView {
        Self::with(platform, Mapping::Host)
    }

    pub fn rooted(root: PathBuf) -> FsView {
        Self::with(Platform::Linux, Mapping::Root(root))
    }

    pub fn drives(drives: BTreeMap<char, PathBuf>) -> FsView {
        let drives = drives
            .into_iter()
            .map(|(k, v)| (k.to_ascii_uppercase(), v))
            .collect();
        Self::with(Platform::Windows, Mapping::Drives(drives))
    }

    pub fn empty(platform: Platform) -> FsView {
        Self::with(platform, Mapping::Empty)
    }

    fn with(platform: Platform, mapping: Mapping) -> FsView {
        FsView {
            platform,
            mapping,
            listings: Arc::default(),
            real_dirs: Arc::default(),
            recorder: None,
            binaries: Arc::default(),
        }
    }

    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// The binaries read through this view, each parsed once while unchanged.
    pub fn binaries(&self) -> &FileCache {
        &self.binaries
    }

    /// The same view with nothing read yet (each run of a benchmark starts cold).
    pub fn without_binaries(&self) -> FsView {
        FsView {
            binaries: Arc::new(FileCache::with_record(self.binaries.record().fresh())),
            ..self.clone()
        }
    }

    /// Whether this view has any files (false for a context rebuilt from a report).
    pub fn has_files(&self) -> bool {
        !matches!(self.mapping, Mapping::Empty)
    }

    /// Maps an absolute machine path to the host path of an existing file or folder,
    /// matching names case-insensitively on Windows and following links inside a mapped root.
    pub fn host_path(&self, path: &str) -> Result<PathBuf, FsError> {
        let normalized = self.platform.normalize(path);
        if !self.platform.is_absolute(&normalized) {
            return Err(FsError::NotFound(path.to_string()));
        }
        match &self.mapping {
            Mapping::Empty => Err(FsError::Unmapped(path.to_string())),
            Mapping::Recorded(r) => match self.replayed(r, &normalized) {
                Some(RecordedPath::Missing) | None => Err(FsError::NotFound(path.to_string())),
                Some(_) => Ok(r.host(&normalized)),
            },
            Mapping::Host if !self.platform.case_insensitive() || cfg!(windows) => {
                let host = PathBuf::from(&normalized);
                match std::fs::symlink_metadata(&host) {
                    Ok(_) => Ok(host),
                    Err(e) => Err(io_error(path, &e)),
                }
            }
            Mapping::Host => self.walk_case_insensitive(Path::new("/"), &normalized[3..], path),
            Mapping::Root(root) => self.walk_rooted(root, &normalized, path),
            Mapping::Drives(drives) => {
                let letter = normalized
                    .chars()
                    .next()
                    .unwrap_or('?')
                    .to_ascii_uppercase();
                let base = drives
                    .get(&letter)
                    .ok_or_else(|| FsError::Unmapped(path.to_string()))?;
                self.walk_case_insensitive(base, &normalized[3..], path)
            }
        }
    }

    /// Case-insensitive walk below a host folder (Windows machine on a case-sensitive host).
    fn walk_case_insensitive(
        &self,
        base: &Path,
        rest: &str,
        shown: &str,
    ) -> Result<PathBuf, FsError> {
        let parts: Vec<&str> = rest.split('\\').filter(|p| !p.is_empty()).collect();
        let under = |names: &[&str]| names.iter().fold(base.to_path_buf(), |p, n| p.join(n));
        // Fast paths: the path exactly as written (one lstat); else its folder exactly as
        // written, leaving only the last name to match (one stat and a cached listing).
        let exact = under(&parts);
        if std::fs::symlink_metadata(&exact).is_ok() {
            return Ok(exact);
        }
        if let Some((last, folder)) = parts.split_last() {
            let parent = under(folder);
            if parent.is_dir() {
                return self.child_any_case(&parent, last, shown);
            }
        }
        let mut current = base.to_path_buf();
        for part in parts {
            let exact = current.join(part);
            if std::fs::symlink_metadata(&exact).is_ok() {
                current = exact;
                continue;
            }
            current = self.child_any_case(&current, part, shown)?;
        }
        Ok(current)
    }

    /// The entry of host folder `dir` whose name equals `name` ignoring case.
    fn child_any_case(&self, dir: &Path, name: &str, shown: &str) -> Result<PathBuf, FsError> {
        let names = self.listing(dir).map_err(|e| io_error(shown, &e))?;
        let lower = name.to_lowercase();
        names
            .iter()
            .find(|n| n.to_str().is_some_and(|s| s.to_lowercase() == lower))
            .map(|n| dir.join(n))
            .ok_or_else(|| FsError::NotFound(shown.to_string()))
    }

    /// Walk below a folder that stands for `/`, resolving symbolic links inside it.
    fn walk_rooted(&self, root: &Path, path: &str, shown: &str) -> Result<PathBuf, FsError> {
        let mut pending: Vec<String> = path
            .split('/')
            .filter(|p| !p.is_empty())
            .rev()
            .map(String::from)
            .collect();
        let mut stack: Vec<String> = Vec::new();
        let mut hops = 0;
        while let Some(part) = pending.pop() {
            match part.as_str() {
                "." => continue,
                ".." => {
                    stack.pop();
                    continue;
                }
                _ => {}
            }
            let key = format!("{}/{part}", stack.join("/"));
            let known_dir = || self.real_dirs.lock().is_ok_and(|d| d.contains(&key));
            // The last component is always looked at: it is what the caller asks about.
            if !pending.is_empty() && known_dir() {
                stack.push(part);
                continue;
            }
            let host = root.join(stack.join("/")).join(&part);
            let meta = std::fs::symlink_metadata(&host).map_err(|e| io_error(shown, &e))?;
            if meta.is_dir()
                && let Ok(mut d) = self.real_dirs.lock()
            {
                d.insert(key);
            }
            if meta.file_type().is_symlink() {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(FsError::SymlinkLoop(shown.to_string()));
                }
                let target = std::fs::read_link(&host).map_err(|e| io_error(shown, &e))?;
                let target = target.to_string_lossy().into_owned();
                if target.starts_with('/') {
                    stack.clear();
                }
                for piece in target.split('/').filter(|p| !p.is_empty()).rev() {
                    pending.push(piece.to_string());
                }
            } else {
                stack.push(part);
            }
        }
        Ok(root.join(stack.join("/")))
    }

    fn listing(&self, dir: &Path) -> std::io::Result<Arc<Vec<OsString>>> {
        if let Some(hit) = self.listings.lock().ok().and_then(|m| m.get(dir).cloned()) {
            return Ok(hit);
        }
        let names: Vec<OsString> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        let names = Arc::new(names);
        if let Ok(mut m) = self.listings.lock() {
            m.insert(dir.to_path_buf(), names.clone());
        }
        Ok(names)
    }

    /// On the live machine (case rules matching the host's), the host path is the machine path:
    /// a question about the file can go straight to one `stat`, without `host_path`'s `lstat`.
    fn same_on_host(&self, path: &str) -> Option<PathBuf> {
        let direct = matches!(self.mapping, Mapping::Host)
            && (!self.platform.case_insensitive() || cfg!(windows));
        let normalized = self.platform.normalize(path);
        (direct && self.platform.is_absolute(&normalized)).then(|| PathBuf::from(normalized))
    }

    /// The host path to ask the file system about: the machine path itself where that is the
    /// same (the stat that follows says whether it exists), else [`host_path`](Self::host_path).
    fn host_to_ask(&self, path: &str) -> Result<PathBuf, FsError> {
        match self.same_on_host(path) {
            Some(h) => Ok(h),
            None => self.host_path(path),
        }
    }

    /// What kind a path is (recorded when capturing, answered from the record when replaying).
    fn kind(&self, path: &str) -> Option<RecordedPath> {
        if let Some(r) = self.replay() {
            return self.replayed(r, path);
        }
        let host = self.host_to_ask(path).ok();
        let kind = RecordedPath::on_host(host.as_deref());
        self.record(|rec| rec.note(&self.platform.normalize(path), kind.clone()));
        Some(kind)
    }

    pub fn exists(&self, path: &str) -> bool {
        !matches!(self.kind(path), None | Some(RecordedPath::Missing))
    }

    pub fn is_file(&self, path: &str) -> bool {
        matches!(self.kind(path), Some(RecordedPath::File { .. }))
    }

    pub fn is_dir(&self, path: &str) -> bool {
        matches!(self.kind(path), Some(RecordedPath::Dir { .. }))
    }

    /// The host path of a regular file (following links), or why there is none.
    pub fn file(&self, path: &str) -> Result<PathBuf, FsError> {
        if let Some(r) = self.replay() {
            return match self.replayed(r, path) {
                Some(RecordedPath::File { .. }) => Ok(r.host(&self.platform.normalize(path))),
                _ => Err(FsError::NotFound(path.to_string())),
            };
        }
        let result = self.file_on_host(path);
        match &result {
            Ok(host) => self.record(|rec| rec.note_file(&self.platform.normalize(path), host)),
            Err(_) => self.record(|rec| {
                // Not a regular file: a folder, something else, or nothing.
                let kind = RecordedPath::on_host(self.host_to_ask(path).ok().as_deref());
                rec.note(&self.platform.normalize(path), kind)
            }),
        }
        result
    }

    fn file_on_host(&self, path: &str) -> Result<PathBuf, FsError> {
        let host = self.host_to_ask(path)?;
        if self.mapping_is_rooted() {
            // walk_rooted already followed every link inside the root.
            return if host.is_file() {
                Ok(host)
            } else {
                Err(FsError::NotFound(path.to_string()))
            };
        }
        match std::fs::metadata(&host) {
            Ok(m) if m.is_file() => Ok(host),
            Ok(_) => Err(FsError::NotFound(path.to_string())),
            Err(e) => Err(io_error(path, &e)),
        }
    }

    fn mapping_is_rooted(&self) -> bool {
        matches!(self.mapping, Mapping::Root(_))
    }

    /// Lists a directory, sorted by name. Unreadable entries are skipped.
    pub fn read_dir(&self, path: &str) -> Result<Vec<DirEntryInfo>, FsError> {
        if let Some(r) = self.replay() {
            return self.replayed_listing(r, path);
        }
        let entries = self.read_dir_on_host(path)?;
        self.record(|rec| {
            let listed = entries
                .iter()
                .map(|e| RecordedEntry {
                    name: e.name.clone(),
                    dir: e.is_dir,
                    file: e.is_file,
                    link: e.is_symlink,
                })
                .collect();
            let hosts = entries
                .iter()
                .map(|e| (e.host.clone(), e.path.clone()))
                .collect();
            rec.note_listing(&self.platform.normalize(path), listed, hosts);
        });
        Ok(entries)
    }

    fn read_dir_on_host(&self, path: &str) -> Result<Vec<DirEntryInfo>, FsError> {
        let host = self.host_path(path)?;
        let reader = std::fs::read_dir(&host).map_err(|e| io_error(path, &e))?;
        let mut entries = Vec::new();
        for entry in reader.flatten() {
            let os_name = entry.file_name();
            let lossy = os_name.to_str().is_none();
            let name = os_name.to_string_lossy().into_owned();
            let host = entry.path();
            let is_symlink = entry.file_type().is_ok_and(|t| t.is_symlink());
            let machine_path = self.platform.join(&self.platform.normalize(path), &name);
            let kind = entry.file_type().ok().filter(|t| !t.is_symlink());
            let (is_dir, is_file) = if let Some(t) = kind {
                (t.is_dir(), t.is_file())
            } else if is_symlink && self.mapping_is_rooted() {
                match self.host_path(&machine_path) {
                    Ok(target) => (target.is_dir(), target.is_file()),
                    Err(_) => (false, false),
                }
            } else {
                let meta = std::fs::metadata(&host);
                (
                    meta.as_ref().is_ok_and(|m| m.is_dir()),
                    meta.as_ref().is_ok_and(|m| m.is_file()),
                )
            };
            entries.push(DirEntryInfo {
                name,
                path: machine_path,
                host,
                is_dir,
                is_file,
                is_symlink,
                lossy,
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// Reads a small text file whole, refusing files over `limit` bytes.
    pub fn read_to_string(&self, path: &str, limit: u64) -> Result<String, FsError> {
        if self.replay().is_some() {
            let bytes = self.replayed_content(path, limit)?;
            return Ok(String::from_utf8_lossy(&bytes).into_owned());
        }
        let text = self.read_to_string_on_host(path, limit)?;
        self.record(|rec| rec.note_text(&self.platform.normalize(path), &text));
        Ok(text)
    }

    /// Reads a small file's bytes whole (ld.so.cache), refusing files over `limit` bytes.
    pub fn read_bytes(&self, path: &str, limit: u64) -> Result<Vec<u8>, FsError> {
        if self.replay().is_some() {
            return self.replayed_content(path, limit);
        }
        let bytes = self.read_limited(path, limit)?;
        self.record(|rec| rec.note_bytes(&self.platform.normalize(path), &bytes));
        Ok(bytes)
    }

    fn read_to_string_on_host(&self, path: &str, limit: u64) -> Result<String, FsError> {
        let bytes = self.read_limited(path, limit)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// A regular file's bytes, refusing files over `limit` bytes.
    fn read_limited(&self, path: &str, limit: u64) -> Result<Vec<u8>, FsError> {
        let host = self.file(path)?;
        let len = std::fs::metadata(&host)
            .map_err(|e| io_error(path, &e))?
            .len();
        if len > limit {
            return Err(too_big(path, len, limit));
        }
        std::fs::read(&host).map_err(|e| io_error(path, &e))
    }

    /// The machine path a link points to, resolved (inside the root for a mapped Linux root).
    pub fn read_link(&self, path: &str) -> Result<String, FsError> {
        if let Some(r) = self.replay() {
            return r
                .link(&self.platform.normalize(path))
                .ok_or_else(|| FsError::NotFound(path.to_string()));
        }
        let target = self.read_link_on_host(path)?;
        self.record(|rec| {
            rec.links
                .insert(self.platform.normalize(path), target.clone());
        });
        Ok(target)
    }

    fn read_link_on_host(&self, path: &str) -> Result<String, FsError> {
        let parent = self
            .platform
            .parent(path)
            .ok_or_else(|| FsError::NotFound(path.to_string()))?;
        let host_parent = self.host_path(&parent)?;
        let host = host_parent.join(self.platform.file_name(path));
        let target = std::fs::read_link(&host).map_err(|e| io_error(path, &e))?;
        let target = target.to_string_lossy().into_owned();
        if self.platform.is_absolute(&target) {
            Ok(self.platform.normalize(&target))
        } else {
            Ok(self
                .platform
                .normalize(&self.platform.join(&parent, &target)))
        }
    }
}

fn too_big(path: &str, len: u64, limit: u64) -> FsError {
    FsError::Io {
        path: path.to_string(),
        message: format!("file is {len} bytes, over the {limit}-byte limit"),
    }
}

fn io_error(path: &str, e: &std::io::Error) -> FsError {
    match e.kind() {
        std::io::ErrorKind::NotFound => FsError::NotFound(path.to_string()),
        _ if e.raw_os_error() == Some(40) => FsError::SymlinkLoop(path.to_string()),
        _ => FsError::Io {
            path: path.to_string(),
            message: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_lookup_is_case_insensitive() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("C/Program Files/NVIDIA")).unwrap();
        std::fs::write(
            dir.path().join("C/Program Files/NVIDIA/CUBLAS64_11.DLL"),
            b"x",
        )
        .unwrap();
        let fs = FsView::drives([('c', dir.path().join("C"))].into());
        assert!(fs.is_file(r"C:\program files\nvidia\cublas64_11.dll"));
        assert!(fs.is_dir("c:/PROGRAM FILES"));
        assert!(!fs.exists(r"D:\x"));
        assert!(matches!(fs.host_path(r"D:\x"), Err(FsError::Unmapped(_))));
        let list = fs.read_dir(r"C:\Program Files\nvidia").unwrap();
        assert_eq!(list[0].path, r"C:\Program Files\nvidia\CUBLAS64_11.DLL");
    }

    #[test]
    fn rooted_links_stay_inside_root_and_loops_end() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("usr/lib")).unwrap();
        std::fs::write(root.join("usr/lib/libcuda.so.1.2"), b"x").unwrap();
        std::os::unix::fs::symlink("/usr/lib/libcuda.so.1.2", root.join("usr/lib/libcuda.so.1"))
            .unwrap();
        std::os::unix::fs::symlink("usr/lib", root.join("lib")).unwrap();
        std::os::unix::fs::symlink("loop2", root.join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", root.join("loop2")).unwrap();
        let fs = FsView::rooted(root.to_path_buf());
        assert_eq!(
            fs.file("/lib/libcuda.so.1").unwrap(),
            root.join("usr/lib/libcuda.so.1.2")
        );
        assert_eq!(
            fs.read_link("/usr/lib/libcuda.so.1").unwrap(),
            "/usr/lib/libcuda.so.1.2"
        );
        assert!(matches!(
            fs.host_path("/loop1"),
            Err(FsError::SymlinkLoop(_))
        ));
        assert!(!fs.is_file("/usr/lib/LIBCUDA.so.1"));
    }
}
