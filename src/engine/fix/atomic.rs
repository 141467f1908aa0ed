//! Atomic file writes: the new content goes to a temporary file in the target's own folder, is
//! fsynced and renamed over the target, so a crash leaves the file wholly old or wholly new. A
//! symlinked dotfile is written through to its target and stays a symlink; the file's permissions
//! are kept; a missing folder is created (and stays after undo); a read-only file or folder is
//! refused before anything is touched.

use super::FixError;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Follows symlinks to the file that really holds the bytes (the target may not exist yet).
pub fn resolve(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::read_link(&current) {
            Ok(link) => {
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                }
            }
            Err(_) => return current,
        }
    }
    current
}

/// Refuses early, with the reason, when `path` could not be replaced.
pub fn check_writable(path: &Path) -> Result<(), FixError> {
    let real = resolve(path);
    let err = |why: String| FixError::ReadOnly {
        path: path.display().to_string(),
        why,
    };
    if let Ok(meta) = fs::metadata(&real)
        && meta.permissions().readonly()
    {
        return Err(err("the file is read-only".into()));
    }
    // A folder that does not exist yet (a conda env's activate.d) is created under the
    // nearest one that does, so that one must be writable.
    let mut dir = real
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    while !dir.exists()
        && let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty())
    {
        dir = parent;
    }
    match fs::metadata(dir) {
        Err(e) => {
            return Err(err(format!(
                "its folder {} cannot be read: {e}",
                dir.display()
            )));
        }
        Ok(meta) if meta.permissions().readonly() => {
            return Err(err(format!("its folder {} is read-only", dir.display())));
        }
        Ok(_) => {}
    }
    #[cfg(unix)]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let writable = |p: &Path| {
            CString::new(p.as_os_str().as_bytes())
                .map(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
                .unwrap_or(false)
        };
        if !writable(dir) {
            return Err(err(format!("its folder {} is not writable", dir.display())));
        }
        if real.exists() && !writable(&real) {
            return Err(err("the file is not writable".into()));
        }
    }
    Ok(())
}

fn sync_dir(dir: &Path) {
    // Makes the rename durable; not possible (nor needed) on every platform.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Writes `bytes` to `path` atomically (see the module comment).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), FixError> {
    check_writable(path)?;
    let real = resolve(path);
    let io = |e: std::io::Error| FixError::Io {
        path: real.display().to_string(),
        source: e,
    };
    let dir = real
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".cuda-triage-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    if let Ok(meta) = fs::metadata(&real) {
        fs::set_permissions(tmp.path(), meta.permissions()).map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(&real).map_err(|e| io(e.error))?;
    sync_dir(dir);
    Ok(())
}

/// Removes a file (through a symlink: the link's target), durably.
pub fn remove(path: &Path) -> Result<(), FixError> {
    let real = resolve(path);
    match fs::remove_file(&real) {
        Ok(()) => {
            if let Some(dir) = real.parent() {
                sync_dir(dir);
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(FixError::Io {
            path: real.display().to_string(),
            source: e,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_symlinked_dotfile_stays_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-bashrc");
        fs::write(&real, b"old\n").unwrap();
        let link = dir.path().join(".bashrc");
        std::os::unix::fs::symlink("dotfiles-bashrc", &link).unwrap();
        write(&link, b"new\n").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new\n");
    }

    #[test]
    fn a_read_only_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".profile");
        fs::write(&file, b"keep\n").unwrap();
        let mut perms = fs::metadata(&file).unwrap().permissions();
        perms.set_readonly(true);
        fs::set_permissions(&file, perms).unwrap();
        let err = write(&file, b"new\n").unwrap_err();
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(fs::read(&file).unwrap(), b"keep\n");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }
}
