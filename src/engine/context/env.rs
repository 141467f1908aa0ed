//! Environment variables and a registry view of the diagnosed process and machine.
//! Windows names compare case-insensitively (`Path` and `PATH` are one variable), Linux names exactly.

use super::platform::Platform;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Environment variables of the process being diagnosed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EnvVars {
    vars: BTreeMap<String, String>,
    #[serde(default)]
    case_insensitive: bool,
}

impl EnvVars {
    pub fn new(platform: Platform, vars: impl IntoIterator<Item = (String, String)>) -> EnvVars {
        EnvVars {
            vars: vars.into_iter().collect(),
            case_insensitive: platform.case_insensitive(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        if let Some(v) = self.vars.get(name) {
            return Some(v);
        }
        if self.case_insensitive {
            return self
                .vars
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str());
        }
        None
    }

    /// All variables, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Variables whose name starts with `prefix` (case rules of the platform).
    pub fn with_prefix<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.iter().filter(move |(k, _)| {
            if self.case_insensitive {
                k.to_ascii_uppercase()
                    .starts_with(&prefix.to_ascii_uppercase())
            } else {
                k.starts_with(prefix)
            }
        })
    }

    /// `text` with each `%NAME%` replaced by the variable's value, as Windows expands a
    /// REG_EXPAND_SZ value; a name that is not set is left as written. The flag says whether
    /// every name was set.
    pub fn expand_percent(&self, text: &str) -> (String, bool) {
        let mut out = String::with_capacity(text.len());
        let mut all_set = true;
        let mut rest = text;
        while let Some(start) = rest.find('%') {
            out.push_str(&rest[..start]);
            let after = &rest[start + 1..];
            match after.find('%') {
                Some(end) if end > 0 => {
                    let name = &after[..end];
                    match self.get(name) {
                        Some(v) => out.push_str(v),
                        None => {
                            all_set = false;
                            out.push('%');
                            out.push_str(name);
                            out.push('%');
                        }
                    }
                    rest = &after[end + 1..];
                }
                _ => {
                    out.push('%');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        (out, all_set)
    }

    pub fn len(&self) -> usize {
        self.vars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
}

/// The registry values the engine needs (Windows): key path → value name → data as text.
/// Key paths are written `HKLM\SYSTEM\...` or `HKCU\Environment`; look-ups ignore case.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RegistryView {
    keys: BTreeMap<String, BTreeMap<String, String>>,
}

impl RegistryView {
    pub fn new(keys: BTreeMap<String, BTreeMap<String, String>>) -> RegistryView {
        let keys = keys
            .into_iter()
            .map(|(k, v)| (canonical_key(&k), v))
            .collect();
        RegistryView { keys }
    }

    /// The values of one key, if the key exists.
    pub fn key(&self, key: &str) -> Option<&BTreeMap<String, String>> {
        let wanted = canonical_key(key);
        self.keys
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(&wanted))
            .map(|(_, v)| v)
    }

    /// One value of one key.
    pub fn value(&self, key: &str, name: &str) -> Option<&str> {
        let values = self.key(key)?;
        values
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Direct sub-keys of `key` that the view holds (names only).
    pub fn subkeys(&self, key: &str) -> Vec<String> {
        let prefix = format!("{}\\", canonical_key(key)).to_ascii_lowercase();
        let mut names: Vec<String> = self
            .keys
            .keys()
            .filter(|k| k.to_ascii_lowercase().starts_with(&prefix))
            .filter_map(|k| k[prefix.len()..].split('\\').next().map(String::from))
            .collect();
        names.dedup();
        names
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn keys(&self) -> impl Iterator<Item = (&str, &BTreeMap<String, String>)> {
        self.keys.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Spells hive names one way (`HKEY_LOCAL_MACHINE` → `HKLM`) and trims separators.
fn canonical_key(key: &str) -> String {
    let key = key.trim().trim_matches('\\').replace('/', "\\");
    let (hive, rest) = key.split_once('\\').unwrap_or((&key, ""));
    let hive = match hive.to_ascii_uppercase().as_str() {
        "HKEY_LOCAL_MACHINE" | "HKLM" => "HKLM",
        "HKEY_CURRENT_USER" | "HKCU" => "HKCU",
        "HKEY_CLASSES_ROOT" | "HKCR" => "HKCR",
        "HKEY_USERS" | "HKU" => "HKU",
        _ => hive,
    };
    if rest.is_empty() {
        hive.to_string()
    } else {
        format!("{hive}\\{rest}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_env_ignores_case() {
        let env = EnvVars::new(
            Platform::Windows,
            [("Path".to_string(), "C:\\x".to_string())],
        );
        assert_eq!(env.get("PATH"), Some("C:\\x"));
        let env = EnvVars::new(Platform::Linux, [("Path".to_string(), "/x".to_string())]);
        assert_eq!(env.get("PATH"), None);
    }

    #[test]
    fn registry_keys_ignore_case_and_hive_spelling() {
        let mut keys = BTreeMap::new();
        keys.insert(
            r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\Session Manager\KnownDLLs"
                .to_string(),
            [("kernel32".to_string(), "kernel32.dll".to_string())].into(),
        );
        let reg = RegistryView::new(keys);
        assert_eq!(
            reg.value(
                r"hklm\system\currentcontrolset\control\session manager\knowndlls",
                "KERNEL32"
            ),
            Some("kernel32.dll")
        );
        assert_eq!(
            reg.subkeys(r"HKLM\SYSTEM\CurrentControlSet\Control"),
            vec!["Session Manager".to_string()]
        );
    }
}
