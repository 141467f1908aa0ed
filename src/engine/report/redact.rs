//! Redaction of a report before it leaves the machine, by enumeration: the exact identifying
//! values of the diagnosed machine and of the host writing the report (user name, home folder,
//! host name, domain) are collected first and replaced wherever they appear — paths included —
//! by stable marked aliases (`<home>`, `<user>`, `<host>`, `<domain>`); GPU UUIDs become
//! `GPU-1`, `GPU-2`, … in order of appearance; environment variables outside an allow-list of
//! names that steer library loading keep their name but show `<set>` instead of their value —
//! in an `env` map and in the registry's `…\Environment` keys (what `setx` writes) alike.
//!
//! Only string values and keys that are paths are rewritten: field names, variable names and
//! registry value names stay as they are, so a user called `root` or `python` leaves `root` and
//! `python_version` readable. Values that look like enum tags are reported back to the caller
//! ([`Redactor::redact_document`]), which puts back those the report's types read as tags
//! ([`super::redact_check`]).
//!
//! Replacing known values (rather than guessing at patterns) is what torch's `collect_env` lacks
//! and what `nvidia-bug-report.sh` users are burned by (see `fix-report-rules.md`).

use serde_json::Value;
use std::collections::BTreeMap;

/// Shown instead of the value of an environment variable outside the allow-list.
pub const HIDDEN_VALUE: &str = "<set>";

/// Names (exact, case-insensitive) and prefixes (ending in `_` or `*`) whose values a redacted
/// report keeps: the variables that decide which GPU library loads.
const ALLOWED_ENV: &[&str] = &[
    "PATH",
    "PATHEXT",
    "LD_*",
    "DYLD_*",
    "CUDA*",
    "CUDNN*",
    "NVIDIA_*",
    "NV_*",
    "TF_*",
    "XLA_*",
    "JAX_*",
    "TORCH_*",
    "PYTORCH_*",
    "CUPY_*",
    "ORT_*",
    "TRT_*",
    "TENSORRT*",
    "CONDA*",
    "PYTHON*",
    "VIRTUAL_ENV",
    "PIP_*",
    // Identity variables: their values become aliases, so they may show.
    "HOME",
    "USERPROFILE",
    "USER",
    "USERNAME",
    "LOGNAME",
    "HOSTNAME",
    "COMPUTERNAME",
    "USERDOMAIN",
    "SYSTEMROOT",
    "WINDIR",
    "SYSTEMDRIVE",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    "PROGRAMDATA",
    "PROCESSOR_ARCHITECTURE",
    "OS",
    "WSL_DISTRO_NAME",
    "WSLENV",
];

/// Whether a variable's value may appear in a redacted report.
pub fn env_allowed(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ALLOWED_ENV.iter().any(|allowed| {
        if let Some(prefix) = allowed.strip_suffix('*') {
            upper.starts_with(prefix)
        } else {
            upper == *allowed
        }
    })
}

/// What kind of identifying value a needle is; decides its alias and how it is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Home,
    User,
    Host,
    Domain,
}

impl Kind {
    fn alias(self) -> &'static str {
        match self {
            Kind::Home => "<home>",
            Kind::User => "<user>",
            Kind::Host => "<host>",
            Kind::Domain => "<domain>",
        }
    }
}

/// The identifying values of one report, collected before anything is written.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    needles: Vec<(String, Kind)>,
}

impl Identity {
    /// Collects identity from environment variables (the diagnosed process's, and the host's).
    pub fn from_env<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Identity {
        let mut id = Identity::default();
        for (name, value) in vars {
            let kind = match name.to_ascii_uppercase().as_str() {
                "HOME" | "USERPROFILE" => Kind::Home,
                "USER" | "USERNAME" | "LOGNAME" => Kind::User,
                "HOSTNAME" | "COMPUTERNAME" => Kind::Host,
                "USERDOMAIN" | "USERDNSDOMAIN" | "USERDOMAIN_ROAMINGPROFILE" => Kind::Domain,
                _ => continue,
            };
            id.add(kind, value);
        }
        id
    }

    /// This host's identity: its environment and its host name.
    pub fn of_host() -> Identity {
        let vars: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let mut id = Identity::from_env(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if let Ok(host) = gethostname::gethostname().into_string() {
            id.add(Kind::Host, &host);
            if let Some((short, _)) = host.split_once('.') {
                id.add(Kind::Host, short);
            }
        }
        id
    }

    /// Adds every value of another identity.
    pub fn merge(mut self, other: Identity) -> Identity {
        for (value, kind) in other.needles {
            self.add(kind, &value);
        }
        self
    }

    fn add(&mut self, kind: Kind, value: &str) {
        let value = value.trim().trim_end_matches(['/', '\\']);
        // A home of "/" or "C:" or a one-letter user would redact everything; an alias (a report
        // redacted before) is no value of its own.
        let alias = value.starts_with('<') && value.ends_with('>');
        if value.chars().count() < 2 || value == "/" || value.ends_with(':') || alias {
            return;
        }
        if !self
            .needles
            .iter()
            .any(|(v, k)| *k == kind && v.eq_ignore_ascii_case(value))
        {
            self.needles.push((value.to_string(), kind));
        }
    }

    /// The kinds of value this identity holds, for "what --no-redact adds".
    pub fn describe(&self) -> Vec<&'static str> {
        let mut kinds: Vec<Kind> = self.needles.iter().map(|(_, k)| *k).collect();
        kinds.sort();
        kinds.dedup();
        kinds
            .into_iter()
            .map(|k| match k {
                Kind::Home => "home folder",
                Kind::User => "user name",
                Kind::Host => "host name",
                Kind::Domain => "domain",
            })
            .collect()
    }
}

/// A tag-like string that redaction changed: where it is now (a JSON pointer into the redacted
/// document) and what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub pointer: String,
    pub original: String,
}

/// Where in a document a value sits, for what redaction does to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Plain,
    /// The values of environment variables, by name.
    Env,
    /// Inside a registry view: a key ending in `\Environment` holds environment variables.
    Registry,
}

impl Place {
    fn child(self, key: &str) -> Place {
        match self {
            Place::Registry if is_environment_key(key) => Place::Env,
            Place::Registry => Place::Registry,
            _ if key == "env" => Place::Env,
            _ if key == "registry" => Place::Registry,
            _ => Place::Plain,
        }
    }
}

/// `HKCU\Environment`, `HKLM\…\Session Manager\Environment`: the keys `setx` writes variables to.
fn is_environment_key(key: &str) -> bool {
    let lower = key.trim_end_matches('\\').to_ascii_lowercase();
    lower == "environment" || lower.ends_with("\\environment")
}

/// A key that names a path (a file view's paths and links, registry key paths) may hold a user or
/// host name; a field or variable name never does, and is never rewritten.
fn is_path_like(key: &str) -> bool {
    key.contains(['/', '\\'])
}

/// A string shaped like a serde enum tag (`error`, `machine-file`, `conda`).
fn is_tag_like(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Replaces identifying values in every string of a JSON document.
pub struct Redactor {
    /// Longest first, so a home folder is replaced before the user name inside it.
    needles: Vec<(String, Kind)>,
    gpu_ids: BTreeMap<String, String>,
}

impl Redactor {
    /// A home folder that contains the user name (`C:\Users\alice`, `/home/alice`) is not a
    /// needle of its own: replacing the name inside it keeps paths paths (`C:\Users\<user>\x`),
    /// so a reopened report's file view still resolves them.
    pub fn new(identity: &Identity) -> Redactor {
        let users: Vec<&String> = identity
            .needles
            .iter()
            .filter(|(_, k)| *k == Kind::User)
            .map(|(v, _)| v)
            .collect();
        let mut needles: Vec<(String, Kind)> = identity
            .needles
            .iter()
            .filter(|(home, kind)| {
                *kind != Kind::Home
                    || !users
                        .iter()
                        .any(|u| replace_word(home, u, "", false) != **home)
            })
            .cloned()
            .collect();
        needles.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        Redactor {
            needles,
            gpu_ids: BTreeMap::new(),
        }
    }

    /// Redacts a whole document in place: strings everywhere, keys that are paths, environment
    /// maps by name. Returns the tag-like strings it changed ([`Changed`]), which a typed part of
    /// the report may read as an enum value.
    pub fn redact_document(&mut self, doc: &mut Value) -> Vec<Changed> {
        let mut changed = Vec::new();
        self.walk(doc, Place::Plain, &mut String::new(), &mut changed);
        changed
    }

    fn walk(&mut self, value: &mut Value, place: Place, at: &mut String, log: &mut Vec<Changed>) {
        match value {
            Value::String(s) => {
                let redacted = self.redact_text(s);
                if redacted != *s && is_tag_like(s) {
                    log.push(Changed {
                        pointer: at.clone(),
                        original: s.clone(),
                    });
                }
                *s = redacted;
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let len = at.len();
                    at.push_str(&format!("/{i}"));
                    self.walk(item, Place::Plain, at, log);
                    at.truncate(len);
                }
            }
            Value::Object(map) => {
                for (key, mut inner) in std::mem::take(map) {
                    let new_key = if is_path_like(&key) {
                        self.redact_text(&key)
                    } else {
                        key.clone()
                    };
                    if place == Place::Env && !env_allowed(&key) {
                        inner = Value::String(HIDDEN_VALUE.into());
                    } else {
                        let len = at.len();
                        at.push('/');
                        at.push_str(&new_key.replace('~', "~0").replace('/', "~1"));
                        self.walk(&mut inner, place.child(&key), at, log);
                        at.truncate(len);
                    }
                    map.insert(new_key, inner);
                }
            }
            _ => {}
        }
    }

    /// Redacts one string.
    pub fn redact_text(&mut self, text: &str) -> String {
        let mut out = text.to_string();
        for (needle, kind) in &self.needles {
            out = replace_word(&out, needle, kind.alias(), *kind == Kind::Home);
        }
        self.replace_gpu_ids(&out)
    }

    /// `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (NVML's UUID form) → `GPU-1`, stable per report.
    fn replace_gpu_ids(&mut self, text: &str) -> String {
        let Some(re) = gpu_uuid_pattern() else {
            return text.to_string();
        };
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for m in re.find_iter(text) {
            out.push_str(&text[last..m.start()]);
            let next = format!("GPU-{}", self.gpu_ids.len() + 1);
            let alias = self
                .gpu_ids
                .entry(m.as_str().to_ascii_lowercase())
                .or_insert(next);
            out.push_str(alias);
            last = m.end();
        }
        out.push_str(&text[last..]);
        out
    }
}

fn gpu_uuid_pattern() -> Option<&'static regex::Regex> {
    static PATTERN: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    PATTERN
        .get_or_init(|| {
            regex::Regex::new(
                r"(?i)\b(?:GPU|MIG)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            )
            .ok()
        })
        .as_ref()
}

/// Replaces `needle` case-insensitively (ASCII) where it is not part of a longer word.
/// A home folder is a path prefix: it matches when followed by a separator or the end.
fn replace_word(text: &str, needle: &str, alias: &str, is_path: bool) -> String {
    let lower_text = text.to_ascii_lowercase();
    let lower_needle = needle.to_ascii_lowercase();
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut from = 0;
    while let Some(pos) = lower_text[from..].find(&lower_needle) {
        let start = from + pos;
        let end = start + lower_needle.len();
        let before_ok = start == 0 || !is_word(bytes[start - 1]) || is_path;
        let after_ok = end == bytes.len() || !is_word(bytes[end]);
        // An alias already there (`<user>` of a user named "user") stays as it is.
        let in_alias = start > 0 && bytes[start - 1] == b'<' && bytes.get(end) == Some(&b'>');
        if before_ok
            && after_ok
            && !in_alias
            && text.is_char_boundary(start)
            && text.is_char_boundary(end)
        {
            out.push_str(&text[last..start]);
            out.push_str(alias);
            last = end;
        }
        from = end.max(start + 1);
        while from < text.len() && !text.is_char_boundary(from) {
            from += 1;
        }
        if from >= text.len() {
            break;
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> Identity {
        Identity::from_env([
            ("USERPROFILE", r"C:\Users\Alice"),
            ("USERNAME", "alice"),
            ("COMPUTERNAME", "ALICE-WS"),
            ("USERDOMAIN", "CONTOSO"),
        ])
    }

    #[test]
    fn home_user_host_and_domain_become_aliases_wherever_they_appear() {
        let mut r = Redactor::new(&identity());
        assert_eq!(
            r.redact_text(r"c:\users\alice\envs\tf;D:\alice\bin;\\ALICE-WS\share;CONTOSO\alice"),
            r"c:\users\<user>\envs\tf;D:\<user>\bin;\\<host>\share;<domain>\<user>"
        );
    }

    #[test]
    fn a_home_without_the_user_name_is_replaced_whole() {
        let mut r = Redactor::new(&Identity::from_env([
            ("HOME", "/data/u123"),
            ("USER", "alice"),
        ]));
        assert_eq!(r.redact_text("/data/u123/envs"), "<home>/envs");
    }

    #[test]
    fn a_user_name_inside_a_longer_word_is_left_alone() {
        let mut r = Redactor::new(&Identity::from_env([("USER", "cuda")]));
        assert_eq!(
            r.redact_text("/opt/cuda/lib64 libcudart /home/cuda"),
            "/opt/<user>/lib64 libcudart /home/<user>"
        );
    }

    #[test]
    fn gpu_uuids_get_stable_numbers() {
        let mut r = Redactor::new(&Identity::default());
        let a = "GPU-12345678-abcd-ef01-2345-6789abcdef01";
        let b = "GPU-aaaaaaaa-abcd-ef01-2345-6789abcdef01";
        assert_eq!(r.redact_text(&format!("{a} {b} {a}")), "GPU-1 GPU-2 GPU-1");
    }

    #[test]
    fn environment_values_outside_the_allow_list_are_hidden_by_name() {
        let mut doc = serde_json::json!({"machine": {"env": {
            "PATH": r"C:\Users\Alice\bin", "HF_TOKEN": "hf_secret", "CUDA_PATH": "x"}}});
        Redactor::new(&identity()).redact_document(&mut doc);
        assert_eq!(doc["machine"]["env"]["HF_TOKEN"], "<set>");
        assert_eq!(doc["machine"]["env"]["PATH"], r"C:\Users\<user>\bin");
        assert_eq!(doc["machine"]["env"]["CUDA_PATH"], "x");
    }

    #[test]
    fn too_short_values_are_not_needles() {
        let id = Identity::from_env([("HOME", "/"), ("USER", "a")]);
        assert!(id.describe().is_empty());
    }

    #[test]
    fn registry_environment_keys_are_hidden_like_the_environment() {
        let mut doc = serde_json::json!({"snapshot": {"registry": {"keys": {
            r"HKCU\Environment": {"Path": r"C:\Users\Alice\bin", "HF_TOKEN": "hf_secret"},
            r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment":
                {"CUDA_PATH": "C:\\cuda", "GITHUB_TOKEN": "ghp_secret"},
            r"HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v12.1":
                {"InstallDir": "x", "Secretless": "y"}}}}});
        Redactor::new(&identity()).redact_document(&mut doc);
        let keys = &doc["snapshot"]["registry"]["keys"];
        assert_eq!(keys[r"HKCU\Environment"]["HF_TOKEN"], "<set>");
        assert_eq!(keys[r"HKCU\Environment"]["Path"], r"C:\Users\<user>\bin");
        let system = &keys[r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment"];
        assert_eq!(system["GITHUB_TOKEN"], "<set>");
        assert_eq!(system["CUDA_PATH"], "C:\\cuda");
        let toolkit = &keys[r"HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v12.1"];
        assert_eq!(
            toolkit["Secretless"], "y",
            "other keys are not environments"
        );
    }

    #[test]
    fn field_and_variable_names_stay_and_path_keys_are_redacted() {
        let mut doc = serde_json::json!({
            "inventory": {"toolkits": [{"root": "/root/cuda", "python_version": "3.10"}]},
            "env": {"PYTHON_ROOT": "/root"},
            "files": {"paths": {"/root/x": {"kind": "file"}, "/opt/python": {"kind": "dir"}}}});
        let id = Identity::from_env([("USER", "root"), ("HOME", "/root"), ("LOGNAME", "python")]);
        Redactor::new(&id).redact_document(&mut doc);
        let toolkit = &doc["inventory"]["toolkits"][0];
        assert_eq!(toolkit["root"], "/<user>/cuda");
        assert_eq!(toolkit["python_version"], "3.10");
        assert_eq!(doc["env"]["PYTHON_ROOT"], "/<user>");
        assert_eq!(doc["files"]["paths"]["/<user>/x"]["kind"], "file");
        assert_eq!(doc["files"]["paths"]["/opt/<user>"]["kind"], "dir");
    }

    #[test]
    fn tag_like_values_that_changed_are_reported() {
        let mut doc = serde_json::json!({"a": [{"severity": "error"}], "b": "/home/error/x",
            "c/d": {"e~": "error"}});
        let changed =
            Redactor::new(&Identity::from_env([("USER", "error")])).redact_document(&mut doc);
        let pointers: Vec<&str> = changed.iter().map(|c| c.pointer.as_str()).collect();
        assert_eq!(pointers, ["/a/0/severity", "/c~1d/e~0"]);
        assert!(changed.iter().all(|c| c.original == "error"));
        assert_eq!(doc.pointer("/c~1d/e~0").unwrap(), "<user>");
    }

    #[test]
    fn redacting_twice_changes_nothing_more() {
        let id = Identity::from_env([("USER", "user"), ("HOSTNAME", "host"), ("HOME", "<home>")]);
        let mut r = Redactor::new(&id);
        let once = r.redact_text("/home/user on host");
        assert_eq!(once, "/home/<user> on <host>");
        assert_eq!(r.redact_text(&once), once);
    }
}
