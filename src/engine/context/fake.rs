//! Builds fake machines on disk — a folder tree plus the `SystemContext` over it — for tests,
//! benchmarks and demos. Paths are given in the fake platform's syntax (`C:\...` or `/...`).
//! A test helper: a folder it cannot create is the test's failure, so it panics with the reason.
#![allow(
    clippy::expect_used,
    reason = "test helper: failing to build the fake machine fails the test that asked for it"
)]

use super::{
    ContextSource, DriverFacts, EnvVars, FsView, GpuFacts, Platform, RegistryView, SystemContext,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A fake machine under construction; the folder lives as long as the builder.
pub struct FakeMachine {
    pub platform: Platform,
    dir: tempfile::TempDir,
    env: BTreeMap<String, String>,
    registry: BTreeMap<String, BTreeMap<String, String>>,
    driver: Option<DriverFacts>,
    gpus: Vec<GpuFacts>,
}

/// A TOML string for any text (basic string with escapes; no literal-string pitfalls).
fn literal(value: &str) -> String {
    toml::Value::String(value.to_string()).to_string()
}

/// The Windows installer's parent folder of every `vX.Y` toolkit.
pub const WINDOWS_TOOLKITS: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA";

impl FakeMachine {
    pub fn new(platform: Platform) -> std::io::Result<FakeMachine> {
        let dir = tempfile::tempdir()?;
        match platform {
            Platform::Windows => std::fs::create_dir_all(dir.path().join("C"))?,
            Platform::Linux => std::fs::create_dir_all(dir.path().join("root"))?,
        }
        Ok(FakeMachine {
            platform,
            dir,
            env: BTreeMap::new(),
            registry: BTreeMap::new(),
            driver: None,
            gpus: Vec::new(),
        })
    }

    /// The host path standing for a machine path.
    pub fn host(&self, machine_path: &str) -> PathBuf {
        match self.platform {
            Platform::Windows => {
                let drive = machine_path
                    .chars()
                    .next()
                    .unwrap_or('C')
                    .to_ascii_uppercase();
                let rest = machine_path.get(3..).unwrap_or("").replace('\\', "/");
                self.dir.path().join(drive.to_string()).join(rest)
            }
            Platform::Linux => self
                .dir
                .path()
                .join("root")
                .join(machine_path.trim_start_matches('/')),
        }
    }

    /// Creates a folder (and its parents).
    pub fn dir(&mut self, machine_path: &str) -> &mut Self {
        std::fs::create_dir_all(self.host(machine_path)).expect("create fake folder");
        self
    }

    /// Creates a file with the given content (and its folder).
    pub fn file(&mut self, machine_path: &str, content: impl AsRef<[u8]>) -> &mut Self {
        let host = self.host(machine_path);
        if let Some(parent) = host.parent() {
            std::fs::create_dir_all(parent).expect("create fake folder");
        }
        std::fs::write(host, content).expect("write fake file");
        self
    }

    /// A symbolic link at `machine_path` pointing at `target` (as written, e.g. a bare file name).
    pub fn symlink(&mut self, machine_path: &str, target: &str) -> &mut Self {
        let host = self.host(machine_path);
        if let Some(parent) = host.parent() {
            std::fs::create_dir_all(parent).expect("create fake folder");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &host).expect("create fake link");
        #[cfg(not(unix))]
        std::fs::write(&host, target).expect("write link stand-in");
        self
    }

    /// A GPU as NVML would report it.
    pub fn gpu(&mut self, name: &str, compute_capability: &str) -> &mut Self {
        self.gpus.push(GpuFacts {
            name: name.to_string(),
            compute_capability: Some(compute_capability.to_string()),
            memory_mib: None,
        });
        self
    }

    /// Copies a real file (e.g. a binary built at test time) into the machine.
    pub fn copy(&mut self, machine_path: &str, from: &Path) -> &mut Self {
        let bytes = std::fs::read(from).expect("read file to copy");
        self.file(machine_path, bytes)
    }

    /// A Windows CUDA toolkit where its installer puts it, `{WINDOWS_TOOLKITS}\v<version>`, with
    /// version.txt, `bin\ptxas.exe`, `nvvm\libdevice\libdevice.10.bc` and `dlls` in `bin`
    /// (placeholder contents); returns the toolkit root.
    pub fn windows_toolkit(&mut self, version: &str, dlls: &[&str]) -> String {
        let root = format!(r"{WINDOWS_TOOLKITS}\v{version}");
        self.file(
            &format!(r"{root}\version.txt"),
            format!("CUDA Version {version}.0"),
        );
        self.file(&format!(r"{root}\bin\ptxas.exe"), b"MZ");
        self.file(&format!(r"{root}\nvvm\libdevice\libdevice.10.bc"), b"BC");
        for d in dlls {
            self.file(&format!(r"{root}\bin\{d}"), b"MZ");
        }
        root
    }

    pub fn env(&mut self, name: &str, value: &str) -> &mut Self {
        self.env.insert(name.to_string(), value.to_string());
        self
    }

    pub fn registry(&mut self, key: &str, name: &str, value: &str) -> &mut Self {
        self.registry
            .entry(key.to_string())
            .or_default()
            .insert(name.to_string(), value.to_string());
        self
    }

    pub fn driver(&mut self, version: &str, cuda: &str) -> &mut Self {
        self.driver = Some(DriverFacts {
            version: version.to_string(),
            cuda: Some(cuda.to_string()),
        });
        self
    }

    /// The folder holding the machine (drive folders `C`, ... or `root`).
    pub fn folder(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `machine.toml` describing this machine into its folder and returns its path,
    /// so the CLI and the wizard can load it with `--machine`.
    pub fn write_machine_file(&self) -> std::io::Result<PathBuf> {
        use std::fmt::Write as _;
        let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
        let mut text = format!("platform = \"{}\"\n", self.platform.as_str());
        match self.platform {
            Platform::Linux => text.push_str("root = \"root\"\n"),
            Platform::Windows => {
                text.push_str("[drives]\n");
                for entry in std::fs::read_dir(self.dir.path())?.flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if name.len() == 1 && entry.path().is_dir() {
                        let _ = writeln!(text, "{name} = \"{name}\"");
                    }
                }
            }
        }
        text.push_str("[env]\n");
        for (k, v) in &self.env {
            let _ = writeln!(text, "{} = {}", quote(k), literal(v));
        }
        text.push_str("[registry]\n");
        for (key, values) in &self.registry {
            let pairs: Vec<String> = values
                .iter()
                .map(|(n, v)| format!("{} = {}", quote(n), literal(v)))
                .collect();
            let _ = writeln!(text, "{} = {{ {} }}", quote(key), pairs.join(", "));
        }
        if let Some(d) = &self.driver {
            let _ = write!(text, "[driver]\nversion = {}\n", literal(&d.version));
            if let Some(cuda) = &d.cuda {
                let _ = writeln!(text, "cuda = {}", literal(cuda));
            }
        }
        for g in &self.gpus {
            let _ = writeln!(text, "[[gpu]]\nname = {}", literal(&g.name));
            if let Some(cc) = &g.compute_capability {
                let _ = writeln!(text, "compute_capability = {}", literal(cc));
            }
        }
        let path = self.dir.path().join("machine.toml");
        std::fs::write(&path, text)?;
        Ok(path)
    }

    /// The context over the machine as it is now.
    pub fn context(&self) -> SystemContext {
        let fs = match self.platform {
            Platform::Windows => {
                let drives = std::fs::read_dir(self.dir.path())
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        let mut chars = name.chars();
                        match (chars.next(), chars.next()) {
                            (Some(c), None) => Some((c, e.path())),
                            _ => None,
                        }
                    })
                    .collect();
                FsView::drives(drives)
            }
            Platform::Linux => FsView::rooted(self.dir.path().join("root")),
        };
        SystemContext {
            platform: self.platform,
            wsl: false,
            fs,
            env: EnvVars::new(self.platform, self.env.clone()),
            registry: RegistryView::new(self.registry.clone()),
            driver: self.driver.clone(),
            gpus: self.gpus.clone(),
            driver_note: None,
            source: ContextSource::MachineFile(self.dir.path().display().to_string()),
            session: crate::engine::context::SessionEnvironment::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_file_round_trips() {
        let mut m = FakeMachine::new(Platform::Windows).unwrap();
        m.dir(r"C:\Windows\System32")
            .env("PATH", r"C:\Windows\system32;C:\it's here")
            .registry(r"HKCU\Environment", "Path", r"C:\x")
            .driver("531.14", "12.1");
        let path = m.write_machine_file().unwrap();
        let ctx = crate::engine::context::machine_file::load(&path).unwrap();
        assert_eq!(
            ctx.env.get("PATH"),
            Some(r"C:\Windows\system32;C:\it's here")
        );
        assert_eq!(
            ctx.registry.value(r"HKCU\Environment", "path"),
            Some(r"C:\x")
        );
        assert!(ctx.fs.is_dir(r"C:\windows\system32"));
        assert_eq!(ctx.driver.unwrap().version, "531.14");
        let mut l = FakeMachine::new(Platform::Linux).unwrap();
        l.dir("/usr/lib").env("LD_LIBRARY_PATH", "/usr/lib");
        let ctx =
            crate::engine::context::machine_file::load(&l.write_machine_file().unwrap()).unwrap();
        assert!(ctx.fs.is_dir("/usr/lib"));
    }
}
