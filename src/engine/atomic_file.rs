//! Writing a file so that a reader (or a crash) sees either the old content or the new one,
//! never half of it: a temporary file in the same folder, fsynced, renamed over the target.
//! Shared by the CLI and the wizard for reports.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
