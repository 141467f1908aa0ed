//! Writing a file so that a reader (or a crash) sees either the old content or the new one,
//! never half of it. One implementation serves reports (CLI and wizard) and fixes:
//! [`crate::engine::fix::atomic`] (temporary file in the same folder, fsync, rename; symlinks
//! written through; permissions kept; read-only targets refused up front).

use std::path::Path;

/// Writes `bytes` to `path` atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::engine::fix::atomic::write(path, bytes).map_err(|e| std::io::Error::other(e.to_string()))
}
