//! Bounded, cancellable file access for one scan step. A [`Walker`] wraps the context's
//! `FsView` with what the scan needs to survive any machine: a deadline (the step's time
//! budget), the shared cancel flag, a cap on entries read per folder, a size cap per file,
//! refusal to open anything that is not a regular file (a FIFO would block a read forever),
//! and a record of everything skipped and why.
//!
//! Listings read names and entry types only (no `stat` per entry unless the entry is a link),
//! which keeps a 100,000-entry folder cheap.

use crate::engine::context::{FsError, Platform, SystemContext};
use crate::engine::inventory::Skipped;
use crate::engine::progress::Progress;
use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

/// `ELOOP` on Linux: too many levels of symbolic links.
const ELOOP: i32 = 40;

/// Most entries read from one folder; the rest is skipped and recorded.
pub const MAX_ENTRIES: usize = 20_000;

/// One folder entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    /// Machine path.
    pub path: String,
    pub is_dir: bool,
    pub is_file: bool,
}

/// File access for one step of the scan.
pub struct Walker<'a> {
    pub ctx: &'a SystemContext,
    progress: &'a Progress,
    step: &'static str,
    deadline: Instant,
    out_of_time: bool,
    pub skipped: Vec<Skipped>,
}

impl<'a> Walker<'a> {
    pub fn new(
        ctx: &'a SystemContext,
        progress: &'a Progress,
        step: &'static str,
        deadline: Instant,
    ) -> Walker<'a> {
        Walker {
            ctx,
            progress,
            step,
            deadline,
            out_of_time: false,
            skipped: Vec::new(),
        }
    }

    pub fn platform(&self) -> Platform {
        self.ctx.platform
    }

    /// Joins machine-path pieces with the platform's separator.
    pub fn join(&self, dir: &str, name: &str) -> String {
        self.ctx.platform.join(dir, name)
    }

    pub fn skip(&mut self, path: &str, reason: impl Into<String>) {
        self.skipped.push(Skipped {
            path: path.to_string(),
            reason: reason.into(),
        });
    }

    /// True when the step must stop: cancelled, or its time budget is spent. The first time
    /// the budget runs out, `at` is recorded as skipped.
    pub fn should_stop(&mut self, at: &str) -> bool {
        if self.progress.is_cancelled() {
            return true;
        }
        if self.out_of_time {
            return true;
        }
        if Instant::now() >= self.deadline {
            self.out_of_time = true;
            let reason = format!(
                "the time budget of the \"{}\" step ran out; this and later paths of the step were not read",
                self.step
            );
            self.skip(at, reason);
            return true;
        }
        false
    }

    pub fn is_dir(&self, path: &str) -> bool {
        self.ctx.fs.is_dir(path)
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.ctx.fs.is_file(path)
    }

    /// The host path of a machine path (for bounded binary reads), without recording.
    pub fn host(&self, path: &str) -> Option<PathBuf> {
        self.ctx.fs.host_path(path).ok()
    }

    /// Lists a folder, sorted by name. Missing folders give an empty list silently; folders
    /// that exist but cannot be read, names that are not UTF-8 and entries past
    /// [`MAX_ENTRIES`] are recorded as skipped.
    pub fn list(&mut self, path: &str) -> Vec<Entry> {
        if self.should_stop(path) {
            return Vec::new();
        }
        let host = match self.ctx.fs.host_path(path) {
            Ok(h) => h,
            Err(FsError::NotFound(_)) | Err(FsError::Unmapped(_)) => return Vec::new(),
            Err(e) => {
                self.skip(path, format!("cannot open folder: {e}"));
                return Vec::new();
            }
        };
        let reader = match std::fs::read_dir(&host) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                self.skip(path, format!("cannot read folder: {e}"));
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        let mut lossy = 0usize;
        let mut first_lossy = String::new();
        let mut truncated = false;
        let mut loops = Vec::new();
        for entry in reader {
            let Ok(entry) = entry else { continue };
            if out.len() >= MAX_ENTRIES {
                truncated = true;
                break;
            }
            let os_name = entry.file_name();
            let Some(name) = os_name.to_str() else {
                if lossy == 0 {
                    first_lossy = os_name.to_string_lossy().into_owned();
                }
                lossy += 1;
                continue;
            };
            let machine = self.join(path, name);
            let (is_dir, is_file) = match entry.file_type() {
                Ok(t) if t.is_symlink() => match self.ctx.fs.host_path(&machine) {
                    Ok(target) => match std::fs::metadata(target) {
                        Ok(m) => (m.is_dir(), m.is_file()),
                        Err(e) if e.raw_os_error() == Some(ELOOP) => {
                            loops.push(machine.clone());
                            (false, false)
                        }
                        Err(_) => (false, false),
                    },
                    Err(FsError::SymlinkLoop(_)) => {
                        loops.push(machine.clone());
                        (false, false)
                    }
                    Err(_) => (false, false),
                },
                Ok(t) => (t.is_dir(), t.is_file()),
                Err(_) => (false, false),
            };
            out.push(Entry {
                name: name.to_string(),
                path: machine,
                is_dir,
                is_file,
            });
        }
        for l in loops {
            self.skip(
                &l,
                "symbolic link loop (too many levels of symbolic links); not followed",
            );
        }
        if lossy > 0 {
            let shown = self.join(path, &first_lossy);
            self.skip(
                &shown,
                format!("{lossy} name(s) in this folder are not valid UTF-8 and cannot be addressed; not read"),
            );
        }
        if truncated {
            self.skip(
                path,
                format!("folder has more than {MAX_ENTRIES} entries; only the first {MAX_ENTRIES} were read"),
            );
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// Reads a small text file. Missing files give `None` silently; anything else that stops
    /// the read (not a regular file, too big, unreadable) is recorded.
    pub fn read_text(&mut self, path: &str, limit: u64) -> Option<String> {
        let bytes = self.read_bytes(path, limit, false)?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Reads at most `limit` bytes from the start of a regular file. With `prefix` the file may
    /// be bigger than `limit` (only its head is read); without, a bigger file is skipped.
    pub fn read_bytes(&mut self, path: &str, limit: u64, prefix: bool) -> Option<Vec<u8>> {
        if self.should_stop(path) {
            return None;
        }
        let host = self.ctx.fs.host_path(path).ok()?;
        let meta = match std::fs::metadata(&host) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                self.skip(path, format!("cannot read: {e}"));
                return None;
            }
        };
        if meta.is_dir() {
            self.skip(path, "expected a file, found a folder");
            return None;
        }
        if !meta.is_file() {
            self.skip(
                path,
                "not a regular file (a FIFO, socket or device); not opened",
            );
            return None;
        }
        if !prefix && meta.len() > limit {
            self.skip(
                path,
                format!("file is {} bytes, over the {limit}-byte limit", meta.len()),
            );
            return None;
        }
        let file = match std::fs::File::open(&host) {
            Ok(f) => f,
            Err(e) => {
                self.skip(path, format!("cannot open: {e}"));
                return None;
            }
        };
        let mut buf = Vec::new();
        if let Err(e) = file.take(limit).read_to_end(&mut buf) {
            self.skip(path, format!("cannot read: {e}"));
            return None;
        }
        Some(buf)
    }
}

/// Whether a file name is a CUDA-family library worth listing (cudart, cublas, cudnn, cupti,
/// nvrtc, npp, nvJitLink, ...), on either platform.
pub fn is_cuda_library(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let stem = lower.strip_prefix("lib").unwrap_or(&lower);
    let is_lib = lower.ends_with(".dll") || lower.contains(".so");
    is_lib
        && [
            "cu", "nv", "npp", "zlibwapi", "cudnn", "cupti", "cusparse", "nccl",
        ]
        .iter()
        .any(|p| stem.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_library_names() {
        assert!(is_cuda_library("cublas64_11.dll"));
        assert!(is_cuda_library("libcudnn.so.9"));
        assert!(is_cuda_library("nvrtc64_120_0.dll"));
        assert!(is_cuda_library("zlibwapi.dll"));
        assert!(!is_cuda_library("python311.dll"));
        assert!(!is_cuda_library("cuda_runtime.h"));
    }
}
