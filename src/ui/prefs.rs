//! What the wizard remembers between runs through eframe's persistence (with the window's size
//! and position, which eframe keeps itself): the theme and the reports opened or saved lately.

use serde::{Deserialize, Serialize};

/// The key of the wizard's preferences in eframe's storage.
const KEY: &str = "cuda-triage/prefs";
/// How many recent reports the Welcome step lists.
pub const RECENT_MAX: usize = 8;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    pub dark_mode: bool,
    /// Report files, most recent first.
    pub recent_reports: Vec<String>,
}

impl Default for Prefs {
    fn default() -> Prefs {
        Prefs {
            dark_mode: true,
            recent_reports: Vec::new(),
        }
    }
}

impl Prefs {
    /// The stored preferences (the defaults without storage or when they do not read back).
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Prefs {
        storage
            .and_then(|s| eframe::get_value(s, KEY))
            .unwrap_or_default()
    }

    pub fn store(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, KEY, self);
    }

    /// Puts `path` first in the recent reports (once), keeping the newest [`RECENT_MAX`].
    pub fn remember_report(&mut self, path: &str) {
        self.recent_reports.retain(|p| p != path);
        self.recent_reports.insert(0, path.to_string());
        self.recent_reports.truncate(RECENT_MAX);
    }

    pub fn forget_report(&mut self, path: &str) {
        self.recent_reports.retain(|p| p != path);
    }
}
