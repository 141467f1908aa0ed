//! glibc `ld.so`'s search for a `DT_NEEDED` name or a `dlopen` argument (`elf/dl-load.c`,
//! `_dl_map_object`), as data:
//!
//! 0. a name with a slash is used as a path (relative to the current directory);
//! 1. `DT_RPATH` — only when the loading object has no `DT_RUNPATH` — of the loading object,
//!    then of the object that loaded *it*, and so on up the chain, then of the main program
//!    (an object with both tags contributes no RPATH: glibc drops DT_RPATH when DT_RUNPATH is
//!    present);
//! 2. `LD_LIBRARY_PATH`;
//! 3. `DT_RUNPATH` of the loading object only (not inherited);
//! 4. `/etc/ld.so.cache` (entries in default directories skipped under `-z nodeflib`);
//! 5. the default directories (skipped under `-z nodeflib`): on Debian/Ubuntu
//!    `/lib/<triplet>`, `/usr/lib/<triplet>`, `/lib`, `/usr/lib` (what `ld.so --help` prints
//!    here), elsewhere `/lib64`, `/usr/lib64` for 64-bit and `/lib`, `/usr/lib` for 32-bit.
//!
//! `$ORIGIN`, `$LIB` and `$PLATFORM` (also `${...}`) are expanded per object; an empty entry
//! means the current directory. A candidate of the wrong ELF class or machine is skipped and the
//! search goes on; a file that is not ELF stops it (glibc: "invalid ELF header"). The
//! already-loaded check (sonames and names loaded so far) is the graph builder's job.
//! `LD_PRELOAD` ([`ld_preload`]) is the graph builder's too: the objects it names are loaded
//! before the main program's needs, so a need their soname answers binds to them.
//! Not emulated: glibc-hwcaps and legacy hwcap subdirectories, secure (setuid) mode,
//! `/etc/ld.so.preload`.

use super::ldconf::{CacheHit, CacheSource};
use super::{Attempt, FileProbe, How, Outcome, Resolution, try_dir};
use crate::engine::binfmt::{BinaryInfo, Machine};
use crate::engine::context::{Platform, SystemContext};

/// The entries of `LD_PRELOAD` in the context, in order: glibc's `rtld.c` splits the variable at
/// spaces and colons and skips empty entries (`handle_preload_list`); an entry with a slash is a
/// path, one without is searched like a needed name.
pub fn ld_preload(ctx: &SystemContext) -> Vec<String> {
    ctx.env
        .get("LD_PRELOAD")
        .map(|v| {
            v.split([' ', ':'])
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The search strategy of one Linux process, read once from the context.
#[derive(Debug, Clone)]
pub struct LinuxSearch {
    /// LD_LIBRARY_PATH entries, unexpanded (empty entries kept).
    pub ld_library_path: Vec<String>,
    pub cache: CacheSource,
    pub default_dirs: Vec<String>,
    /// What `$LIB` expands to (`lib/x86_64-linux-gnu` on Debian, `lib64` elsewhere).
    pub lib_token: String,
    /// What `$PLATFORM` expands to (`x86_64`, `i686`, `aarch64`, or what this computer's
    /// loader says, e.g. `haswell`): worked out the first time an entry names it, since asking
    /// the live loader starts a process.
    platform_token: std::sync::OnceLock<String>,
    /// The process's architecture, and whether the loader to ask is this computer's.
    arch: String,
    live: bool,
    /// The current directory of the process (for empty and relative entries).
    pub cwd: String,
}

/// One object of the chain that leads to a load: its path (as loaded) and its facts.
#[derive(Debug, Clone, Copy)]
pub struct LinuxObject<'a> {
    pub path: &'a str,
    pub info: &'a BinaryInfo,
}

impl LinuxObject<'_> {
    fn origin(&self) -> String {
        Platform::Linux
            .parent(self.path)
            .unwrap_or_else(|| ".".to_string())
    }

    /// DT_RPATH as glibc sees it: ignored when DT_RUNPATH is present.
    fn effective_rpath(&self) -> &[String] {
        if self.info.runpath.is_empty() {
            &self.info.rpath
        } else {
            &[]
        }
    }
}

/// GNU multiarch triplet of a machine, if known.
fn triplet(m: &Machine) -> Option<&'static str> {
    match (m.arch.as_str(), m.bits) {
        ("x86_64", 64) => Some("x86_64-linux-gnu"),
        ("i386", 32) => Some("i386-linux-gnu"),
        ("aarch64", 64) => Some("aarch64-linux-gnu"),
        ("arm", 32) => Some("arm-linux-gnueabihf"),
        _ => None,
    }
}

impl LinuxSearch {
    /// Reads LD_LIBRARY_PATH, the cache and the layout of the machine for a process of `m`.
    pub fn from_context(ctx: &SystemContext, m: &Machine) -> LinuxSearch {
        let ld_library_path = match ctx.env.get("LD_LIBRARY_PATH") {
            Some(v) if !v.is_empty() => Platform::Linux.split_list(v),
            _ => Vec::new(),
        };
        let multiarch = triplet(m).filter(|t| {
            ctx.fs.is_dir(&format!("/usr/lib/{t}")) || ctx.fs.is_dir(&format!("/lib/{t}"))
        });
        let (default_dirs, lib_token) = match multiarch {
            Some(t) => (
                vec![
                    format!("/lib/{t}"),
                    format!("/usr/lib/{t}"),
                    "/lib".to_string(),
                    "/usr/lib".to_string(),
                ],
                format!("lib/{t}"),
            ),
            None if m.bits == 64 => (
                vec!["/lib64".to_string(), "/usr/lib64".to_string()],
                "lib64".to_string(),
            ),
            None => (
                vec!["/lib".to_string(), "/usr/lib".to_string()],
                "lib".to_string(),
            ),
        };
        let cwd = ctx
            .env
            .get("PWD")
            .filter(|p| p.starts_with('/'))
            .map(String::from)
            .or_else(|| {
                matches!(ctx.source, crate::engine::context::ContextSource::Live)
                    .then(|| std::env::current_dir().ok())
                    .flatten()
                    .map(|p| p.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "/".to_string());
        LinuxSearch {
            ld_library_path,
            cache: CacheSource::from_context(ctx),
            default_dirs,
            lib_token,
            platform_token: std::sync::OnceLock::new(),
            arch: m.arch.clone(),
            live: matches!(ctx.source, crate::engine::context::ContextSource::Live),
            cwd,
        }
    }

    /// What `$PLATFORM` expands to. This computer's loader may name the platform after the CPU
    /// (glibc 2.36 on an AVX2 x86-64: `haswell`); it is asked only of the live machine.
    pub fn platform_token(&self) -> &str {
        self.platform_token.get_or_init(|| {
            let live = self
                .live
                .then(|| crate::engine::context::live::ld_platform(&self.arch))
                .flatten();
            match (live, self.arch.as_str()) {
                (Some(p), _) => p,
                (None, "i386") => "i686".to_string(),
                (None, other) => other.to_string(),
            }
        })
    }

    /// Expands `$ORIGIN`, `$LIB`, `$PLATFORM` in one search-path entry; an empty entry is the
    /// current directory; relative results are made absolute from the current directory.
    pub fn expand(&self, entry: &str, origin: &str) -> String {
        let mut out = entry.to_string();
        // Most entries name no token: no need to look for each spelling of each. `$PLATFORM`'s
        // value is worked out only for an entry that names it (it may ask the live loader).
        let tokens = ["ORIGIN", "LIB", "PLATFORM"]
            .into_iter()
            .filter(|token| entry.contains('$') && entry.contains(token));
        for token in tokens {
            let value = match token {
                "ORIGIN" => origin,
                "LIB" => self.lib_token.as_str(),
                _ => self.platform_token(),
            };
            out = out
                .replace(&format!("${{{token}}}"), value)
                .replace(&format!("${token}"), value);
        }
        if out.is_empty() {
            out = ".".to_string();
        }
        if !out.starts_with('/') {
            out = format!("{}/{out}", self.cwd);
        }
        Platform::Linux.normalize(&out)
    }

    /// Resolves `name` needed by `chain[0]` (whose loader is `chain[1]`, ...); `main` is the
    /// program. `want` is the machine of the process; `probe` looks at candidate files.
    pub fn resolve(
        &self,
        name: &str,
        chain: &[LinuxObject],
        main: LinuxObject,
        want: &Machine,
        probe: &dyn FileProbe,
    ) -> Resolution {
        let mut attempts: Vec<Attempt> = Vec::new();
        let loader = chain.first().copied().unwrap_or(main);
        if name.contains('/') {
            let path = self.expand(name, &loader.origin());
            let dir = Platform::Linux.parent(&path).unwrap_or_default();
            return try_dir(probe, want, &path, &dir, How::Direct, &mut attempts)
                .unwrap_or_else(|| Resolution::missing(How::Direct, attempts));
        }
        let search = |dirs: Vec<String>, how: How, attempts: &mut Vec<Attempt>| {
            dirs.into_iter().find_map(|dir| {
                let candidate = Platform::Linux.join(&dir, name);
                try_dir(probe, want, &candidate, &dir, how, attempts)
            })
        };
        // 1. DT_RPATH up the loader chain, then the main program's.
        if loader.info.runpath.is_empty() {
            let mut dirs = Vec::new();
            let main_in_chain = chain.iter().any(|o| o.path == main.path);
            let objects = chain
                .iter()
                .copied()
                .chain((!main_in_chain).then_some(main));
            for object in objects {
                let origin = object.origin();
                dirs.extend(
                    object
                        .effective_rpath()
                        .iter()
                        .map(|e| self.expand(e, &origin)),
                );
            }
            if let Some(r) = search(dirs, How::Rpath, &mut attempts) {
                return r;
            }
        }
        // 2. LD_LIBRARY_PATH.
        let origin = main.origin();
        let dirs = self
            .ld_library_path
            .iter()
            .map(|e| self.expand(e, &origin))
            .collect();
        if let Some(r) = search(dirs, How::LdLibraryPath, &mut attempts) {
            return r;
        }
        // 3. DT_RUNPATH of the loading object.
        let origin = loader.origin();
        let dirs = loader
            .info
            .runpath
            .iter()
            .map(|e| self.expand(e, &origin))
            .collect();
        if let Some(r) = search(dirs, How::Runpath, &mut attempts) {
            return r;
        }
        // 4. The cache; 5. the default directories — both governed by the loader's nodeflib.
        let nodeflib = loader.info.nodeflib;
        let exists = |p: &str| !matches!(probe.probe(p), super::Probe::Missing);
        match self.cache.lookup(name, want, &exists) {
            CacheHit::Path(path) => {
                let dir = Platform::Linux.parent(&path).unwrap_or_default();
                // glibc compares the cached path's prefix with each default directory.
                let in_default = self
                    .default_dirs
                    .iter()
                    .any(|d| path.starts_with(&format!("{}/", d.trim_end_matches('/'))));
                if !(nodeflib && in_default)
                    && let Some(r) =
                        try_dir(probe, want, &path, &dir, How::LdSoCache, &mut attempts)
                {
                    return r;
                }
            }
            CacheHit::NotListed => attempts.push(Attempt {
                directory: self.cache.describe().to_string(),
                source: How::LdSoCache,
                outcome: Outcome::NotFound,
            }),
        }
        if !nodeflib && let Some(r) = search(self.default_dirs.clone(), How::Default, &mut attempts)
        {
            return r;
        }
        Resolution::missing(How::Default, attempts)
    }
}

#[cfg(test)]
mod tests;
