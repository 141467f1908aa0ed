//! The live machine as a [`SystemContext`]: host platform, host files, this process's
//! environment, the registry keys the engine needs (Windows) and NVML's driver/GPU facts.

use super::{
    ContextSource, DriverFacts, EnvVars, FsView, GpuFacts, Platform, RegistryView, SystemContext,
};
use std::process::Command;
use std::sync::Arc;

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

/// Builds the context of the machine this program runs on, in `session`'s environment, with the
/// driver facts `query` returns (the GPU module's NVML query, handed in by the caller; its error
/// is a sentence for the user and its text becomes the context's driver note).
pub fn load_with_driver<E: std::fmt::Display>(
    session: &SessionEnvironment,
    query: impl FnOnce() -> Result<DriverReadout, E>,
) -> SystemContext {
    let mut ctx = load_without_driver(session);
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

/// The environment this computer is diagnosed in: this process's own, or — after a fix — the
/// environment a new session gets (PATH rebuilt from the registry, the login profile's block
/// run), since a running program keeps the environment it started with (Windows' Explorer
/// likewise rebuilds its own when told the settings changed). The caller that applied the fix
/// (the wizard) holds it and hands it in with the machine it diagnoses; the engine keeps none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionEnvironment {
    /// `None`: this process's own environment.
    after_fix: Option<Arc<Vec<(String, String)>>>,
}

impl SessionEnvironment {
    /// This process's own environment.
    pub fn this_process() -> SessionEnvironment {
        SessionEnvironment::default()
    }

    /// The environment a new session gets after a fix (its verification rebuilt it).
    pub fn after_fix(vars: impl IntoIterator<Item = (String, String)>) -> SessionEnvironment {
        SessionEnvironment {
            after_fix: Some(Arc::new(vars.into_iter().collect())),
        }
    }

    /// Whether this is this process's own environment (no fix changed it).
    pub fn is_this_process(&self) -> bool {
        self.after_fix.is_none()
    }

    /// The variables: the session's after a fix, else this process's.
    pub fn vars(&self) -> Vec<(String, String)> {
        match &self.after_fix {
            Some(vars) => vars.as_ref().clone(),
            None => std::env::vars_os()
                .map(|(k, v)| {
                    (
                        k.to_string_lossy().into_owned(),
                        v.to_string_lossy().into_owned(),
                    )
                })
                .collect(),
        }
    }

    /// A program of this computer started in this environment (a Python probe, the GPU test's
    /// child), so that it sees what the scan saw.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        if let Some(vars) = &self.after_fix {
            cmd.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
        }
        cmd
    }
}

/// This machine without asking the driver (for work such as `tree` that needs only files), in
/// `session`'s environment.
pub fn load_without_driver(session: &SessionEnvironment) -> SystemContext {
    let platform = Platform::host();
    let env = EnvVars::new(platform, session.vars());
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
        session: session.clone(),
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
    use super::{SessionEnvironment, load_without_driver};

    /// Two sessions in one process: a load and a started program see the session they were
    /// handed, and this process's own environment is untouched.
    #[cfg(unix)]
    #[test]
    fn a_session_environment_is_what_its_loads_and_started_programs_see() {
        const MARK: &str = "CUDA_TRIAGE_TEST_SESSION_MARK";
        let this_process = SessionEnvironment::this_process();
        let mut vars = this_process.vars();
        vars.push((MARK.into(), "after-the-fix".into()));
        let after_fix = SessionEnvironment::after_fix(vars);

        let seen = load_without_driver(&after_fix)
            .env
            .get(MARK)
            .map(str::to_string);
        let out = after_fix
            .command("sh")
            .args(["-c", "echo $CUDA_TRIAGE_TEST_SESSION_MARK"])
            .output();
        assert_eq!(seen.as_deref(), Some("after-the-fix"));
        assert_eq!(
            String::from_utf8_lossy(&out.unwrap().stdout),
            "after-the-fix\n"
        );
        assert_eq!(load_without_driver(&this_process).env.get(MARK), None);
        assert!(!this_process.vars().iter().any(|(k, _)| k == MARK));
        let plain = this_process
            .command("sh")
            .args(["-c", "echo \"[$CUDA_TRIAGE_TEST_SESSION_MARK]\""])
            .output();
        assert_eq!(String::from_utf8_lossy(&plain.unwrap().stdout), "[]\n");
    }
}
