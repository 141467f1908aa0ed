//! `install_locations.toml`: where toolkits, cuDNN, pip wheels, conda packages and drivers put
//! their libraries by default, and the environment variables installers set.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocationRow {
    pub id: String,
    pub what: String,
    /// `windows`, `linux` or `any`.
    pub platform: String,
    pub path: String,
    #[serde(default)]
    pub applies: Option<String>,
    #[serde(default)]
    pub on_search_path: Option<bool>,
    #[serde(default = "super::yes")]
    pub verified: bool,
    #[serde(default)]
    pub note: Option<String>,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvRow {
    pub name: String,
    pub platform: String,
    pub text: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocationTables {
    #[serde(default, rename = "location")]
    pub locations: Vec<LocationRow>,
    #[serde(default)]
    pub env: Vec<EnvRow>,
}

impl LocationTables {
    pub fn get(&self, id: &str) -> Option<&LocationRow> {
        self.locations.iter().find(|l| l.id == id)
    }
}
