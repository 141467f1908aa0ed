//! The live machine as a [`SystemContext`]: host platform, host files, this process's
//! environment, the registry keys the engine needs (Windows) and NVML's driver/GPU facts.

use super::{
    ContextSource, DriverFacts, EnvVars, FsView, GpuFacts, Platform, RegistryView, SystemContext,
};
use std::process::Command;
use std::sync::RwLock;

/// Registry keys read on a live Windows machine (values, and sub-keys two levels down).
pub const LIVE_REGISTRY_KEYS: &[&str] = &[
    r"HKCU\Environment",
    r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment",
    r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\KnownDLLs",
    r"HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA",
    r"HKLM\SOFTWARE\NVIDIA Corporation\Installer2",
];

/// What the driver says of itself and its GPUs (NVML's answer).
#[derive(Debug, Clone)]
pub struct DriverReadout {
    pub driver: DriverFacts,
    pub gpus: Vec<GpuFacts>,
}

/// Builds the context of the machine this program runs on, with the driver facts `query`
/// returns (the GPU module's NVML query, handed in by the caller; its error is a sentence for
/// the user and its text becomes the context's driver note).
pub fn load_with_driver<E: std::fmt::Display>(
    query: impl FnOnce() -> Result<DriverReadout, E>,
) -> SystemContext {
    let mut ctx = load_without_driver();
    match query() {
        Ok(readout) => {
            ctx.driver = Some(readout.driver);
            ctx.gpus = readout.gpus;
            ctx.driver_note = None;
        }
        Err(note) => ctx.driver_note = Some(note.to_string()),
    }
    ctx
}

/// After a fix, the environment a new session gets (PATH rebuilt from the registry, the login
/// profile's block run): this program diagnoses that as this computer's from then on, since a
/// running program keeps the environment it started with (Windows' Explorer likewise rebuilds
/// its own when told the settings changed). `None`: this process's own environment.
static SESSION_ENVIRONMENT: RwLock<Option<Vec<(String, String)>>> = RwLock::new(None);

/// Diagnoses this computer with `env` from now on (`None`: this process's own environment
/// again); returns the environment used until now, to put back later.
pub fn set_session_environment(
    env: Option<Vec<(String, String)>>,
) -> Option<Vec<(String, String)>> {
    let mut slot = SESSION_ENVIRONMENT
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    std::mem::replace(&mut *slot, env)
}

/// The environment this computer is diagnosed with: the session's after a fix, else this
/// process's.
pub fn environment() -> Vec<(String, String)> {
    session_environment().unwrap_or_else(|| {
        std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect()
    })
}

/// The session environment set after a fix, if any.
fn session_environment() -> Option<Vec<(String, String)>> {
    SESSION_ENVIRONMENT
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// A program of this computer started in the environment it is diagnosed with (a Python
/// probe, the GPU test's child), so that it sees what the scan saw.
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    if let Some(env) = session_environment() {
        cmd.env_clear().envs(env);
    }
    cmd
}

/// This machine without asking the driver (for work such as `tree` that needs only files).
pub fn load_without_driver() -> SystemContext {
    let platform = Platform::host();
    let env = EnvVars::new(platform, environment());
    SystemContext {
        platform,
        wsl: platform == Platform::Linux && is_wsl(),
        fs: FsView::live(platform),
        env,
        registry: read_registry(),
        driver: None,
        gpus: Vec::new(),
        driver_note: Some("not queried by `tree` (run `scan` for driver facts)".into()),
        source: ContextSource::Live,
    }
}

/// What glibc's dynamic loader of this computer expands `$PLATFORM` to for a process of `arch`
/// (`haswell` on an x86-64 CPU with AVX2 under glibc 2.36, where the CPU's own AT_PLATFORM says
/// `x86_64`): `ld.so --list-diagnostics` prints it as `dl_platform` (glibc 2.33 and later).
/// Asked once; `None` for another architecture or an older glibc.
pub fn ld_platform(arch: &str) -> Option<String> {
    static X86_64: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if arch != "x86_64" || !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return None;
    }
    X86_64
        .get_or_init(|| {
            let out = Command::new("/lib64/ld-linux-x86-64.so.2")
                .arg("--list-diagnostics")
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stdout);
            text.lines()
                .find_map(|l| l.strip_prefix("dl_platform=\""))
                .map(|v| v.trim_end_matches('"').to_string())
                .filter(|v| !v.is_empty())
        })
        .clone()
}

fn is_wsl() -> bool {
    std::env::var_os("WSL_DISTRO_NAME").is_some()
        || std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .is_ok_and(|s| s.to_ascii_lowercase().contains("microsoft"))
}

#[cfg(windows)]
fn read_registry() -> RegistryView {
    use std::collections::BTreeMap;
    use winreg::RegKey;
    use winreg::enums::{HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE};

    fn collect(
        key: &RegKey,
        path: &str,
        depth: usize,
        out: &mut BTreeMap<String, BTreeMap<String, String>>,
    ) {
        let values = key
            .enum_values()
            .flatten()
            .map(|(name, value)| (name, value.to_string()))
            .collect();
        out.insert(path.to_string(), values);
        if depth == 0 {
            return;
        }
        for name in key.enum_keys().flatten() {
            if let Ok(sub) = key.open_subkey(&name) {
                collect(&sub, &format!("{path}\\{name}"), depth - 1, out);
            }
        }
    }

    let mut out = BTreeMap::new();
    for path in LIVE_REGISTRY_KEYS {
        let (hive, rest) = path.split_once('\\').unwrap_or((path, ""));
        let root = RegKey::predef(if hive == "HKCU" {
            HKEY_CURRENT_USER
        } else {
            HKEY_LOCAL_MACHINE
        });
        if let Ok(key) = root.open_subkey(rest) {
            collect(&key, path, 2, &mut out);
        }
    }
    RegistryView::new(out)
}

#[cfg(not(windows))]
fn read_registry() -> RegistryView {
    RegistryView::default()
}

#[cfg(test)]
mod tests {
    use super::{command, environment, load_without_driver, set_session_environment};

    /// The session environment is this process's plus one variable, so that other tests that
    /// load this computer meanwhile see nothing else change.
    #[cfg(unix)]
    #[test]
    fn a_session_environment_is_what_loads_and_started_programs_see_until_it_is_put_back() {
        const MARK: &str = "CUDA_TRIAGE_TEST_SESSION_MARK";
        let mut env = environment();
        env.push((MARK.into(), "after-the-fix".into()));
        let before = set_session_environment(Some(env));
        let seen = load_without_driver().env.get(MARK).map(str::to_string);
        let out = command("sh")
            .args(["-c", "echo $CUDA_TRIAGE_TEST_SESSION_MARK"])
            .output();
        let back = set_session_environment(before);
        assert_eq!(seen.as_deref(), Some("after-the-fix"));
        assert_eq!(
            String::from_utf8_lossy(&out.unwrap().stdout),
            "after-the-fix\n"
        );
        assert!(back.is_some_and(|e| e.iter().any(|(k, _)| k == MARK)));
        assert!(!environment().iter().any(|(k, _)| k == MARK), "put back");
    }
}
