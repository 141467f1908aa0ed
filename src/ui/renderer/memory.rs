//! The renderer a machine remembers: `renderer.toml` beside eframe's own storage (the folder
//! `eframe::storage_dir` gives: `~/.local/share/cudatriage` on Linux, `%APPDATA%\CUDA Triage\data`
//! on Windows). It has to be read before the window exists, when eframe's storage is not open
//! yet, so it is a file of its own. Deleting it makes the next start try every renderer again.

use super::Remembered;
use std::path::PathBuf;

const FILE: &str = "renderer.toml";

const HEADER: &str = "# CUDA Triage: the renderer that drew the window on this machine, tried first at each start.\n\
# Delete this file to try them all again; CUDA_TRIAGE_RENDERER forces one.\n";

/// Where the remembered renderer is kept (no such folder on an unknown platform).
pub fn path() -> Option<PathBuf> {
    eframe::storage_dir(crate::ui::APP_NAME).map(|dir| dir.join(FILE))
}

/// The remembered renderer, if a readable one is stored.
pub fn load() -> Option<Remembered> {
    let text = std::fs::read_to_string(path()?).ok()?;
    parse(&text)
}

/// The remembered renderer in the file's text (`None` for text this build does not read).
pub fn parse(text: &str) -> Option<Remembered> {
    toml::from_str(text).ok()
}

/// The file's text for `remembered`.
pub fn render(remembered: &Remembered) -> String {
    format!(
        "{HEADER}{}",
        toml::to_string(remembered).unwrap_or_default()
    )
}

/// Stores `remembered` for the next start.
pub fn store(remembered: &Remembered) -> Result<PathBuf, String> {
    let path = path().ok_or("no folder to keep it in")?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    crate::engine::api::write_atomically(&path, render(remembered).as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::renderer::{Choice, Failure};

    #[test]
    fn the_file_reads_back_what_was_stored() {
        let remembered = Remembered {
            renderer: Choice::Vulkan,
            failed: vec![Failure {
                renderer: Choice::Dx12,
                error: "WGPU error: Parent device is lost".into(),
            }],
        };
        let text = render(&remembered);
        assert!(text.starts_with("# CUDA Triage"), "{text}");
        assert!(text.contains("renderer = \"vulkan\""), "{text}");
        assert_eq!(parse(&text), Some(remembered));
        assert_eq!(parse("renderer = \"directx\""), None);
        assert_eq!(
            parse("renderer = \"glow\"").map(|r| r.renderer),
            Some(Choice::Glow)
        );
    }
}
