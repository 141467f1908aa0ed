//! The library-cache step of a Linux machine, read through `ctx.fs`: the binary
//! `/etc/ld.so.cache` when the machine has one, else the directories `ldconfig` would put in it
//! (`/etc/ld.so.conf` with its `include` globs) — so a machine file can describe its cache as
//! text. On WSL the driver's `/usr/lib/wsl/lib` comes from `ld.so.conf.d/ld.wsl.conf`; a WSL
//! machine without that file still gets the directory, as every WSL distribution ships it,
//! unless `/etc/wsl.conf` turns WSL's ldconfig off (`[automount]` `ldconfig = false`).

use super::glob_match;
use super::ldcache::LdCache;
use crate::engine::binfmt::Machine;
use crate::engine::context::SystemContext;
use std::sync::Arc;

/// Where the WSL driver exposes `libcuda.so.1` and friends.
pub const WSL_LIB_DIR: &str = "/usr/lib/wsl/lib";
const CACHE_FILE: &str = "/etc/ld.so.cache";
const CONF_FILE: &str = "/etc/ld.so.conf";
/// Most bytes read from one cache or conf file.
const READ_LIMIT: u64 = 64 << 20;
/// Most nested includes followed.
const MAX_INCLUDE_DEPTH: usize = 8;
/// Most conf files read in all. With the depth cap alone, a line that includes the same file
/// several times (`include /etc/ld.so.conf /etc/ld.so.conf ...`, or `./ld.so.conf`, a new path at
/// each level) is followed n^8 times: a hang found by fuzzing (tests/fuzz, target `ldconf`).
const MAX_CONF_FILES: usize = 256;

/// The cache step's data: a parsed binary cache, or directories standing for it.
#[derive(Debug, Clone)]
pub enum CacheSource {
    /// `/etc/ld.so.cache` parsed.
    Binary(Arc<LdCache>),
    /// No (readable) binary cache: the directories ld.so.conf lists, searched in order.
    Dirs(Vec<String>),
    /// Neither: the step finds nothing.
    None,
}

/// `/etc/wsl.conf` says `[automount] ldconfig = false`: WSL writes no ld.wsl.conf.
fn wsl_ldconfig_off(ctx: &SystemContext) -> bool {
    let Ok(text) = ctx.fs.read_to_string("/etc/wsl.conf", 64 << 10) else {
        return false;
    };
    let mut section = String::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            section = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_ascii_lowercase();
        } else if let Some((k, v)) = line.split_once('=')
            && section == "automount"
            && k.trim().eq_ignore_ascii_case("ldconfig")
        {
            return v.trim().eq_ignore_ascii_case("false");
        }
    }
    false
}

/// The result of one cache look-up: the path, or nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheHit {
    /// The cache names this path (the file may still be missing or of another machine).
    Path(String),
    NotListed,
}

impl CacheSource {
    /// Reads the cache step of a machine.
    pub fn from_context(ctx: &SystemContext) -> CacheSource {
        if let Ok(bytes) = ctx.fs.read_bytes(CACHE_FILE, READ_LIMIT)
            && let Ok(cache) = LdCache::from_vec(bytes)
        {
            return CacheSource::Binary(Arc::new(cache));
        }
        let mut dirs = Vec::new();
        read_conf(ctx, CONF_FILE, 0, &mut dirs, &mut Vec::new());
        if ctx.wsl && !dirs.iter().any(|d| d == WSL_LIB_DIR) && !wsl_ldconfig_off(ctx) {
            dirs.insert(0, WSL_LIB_DIR.to_string());
        }
        if dirs.is_empty() {
            CacheSource::None
        } else {
            CacheSource::Dirs(dirs)
        }
    }

    /// What the cache says about `name` for a process of machine `m`; `exists` checks a path.
    pub fn lookup(&self, name: &str, m: &Machine, exists: &dyn Fn(&str) -> bool) -> CacheHit {
        match self {
            CacheSource::Binary(cache) => match cache.lookup(name, m) {
                Some(entry) => CacheHit::Path(entry.path),
                None => CacheHit::NotListed,
            },
            CacheSource::Dirs(dirs) => dirs
                .iter()
                .map(|d| format!("{}/{name}", d.trim_end_matches('/')))
                .find(|p| exists(p))
                .map_or(CacheHit::NotListed, CacheHit::Path),
            CacheSource::None => CacheHit::NotListed,
        }
    }

    /// How the step is named in attempts.
    pub fn describe(&self) -> &'static str {
        match self {
            CacheSource::Binary(_) => CACHE_FILE,
            CacheSource::Dirs(_) => CONF_FILE,
            CacheSource::None => CACHE_FILE,
        }
    }
}

/// Appends the directories of one conf file, following `include` lines.
/// Reads the conf file `path` into `dirs`, following its includes. `read` lists the files read so
/// far: a file is read once (reading it again adds no directory), and at most `MAX_CONF_FILES`.
fn read_conf(
    ctx: &SystemContext,
    path: &str,
    depth: usize,
    dirs: &mut Vec<String>,
    read: &mut Vec<String>,
) {
    if depth > MAX_INCLUDE_DEPTH || read.len() >= MAX_CONF_FILES || read.iter().any(|r| r == path) {
        return;
    }
    read.push(path.to_string());
    let Ok(text) = ctx.fs.read_to_string(path, READ_LIMIT) else {
        return;
    };
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with("hwcap ") {
            continue;
        }
        if let Some(pattern) = line.strip_prefix("include") {
            for p in pattern.split_whitespace() {
                for file in expand_include(ctx, path, p) {
                    read_conf(ctx, &file, depth + 1, dirs, read);
                }
            }
            continue;
        }
        // `dir` or the old `dir=TYPE` form; several may share a line.
        for dir in line.split([' ', '\t', ',', ':']).filter(|d| !d.is_empty()) {
            let dir = dir.split('=').next().unwrap_or(dir).trim_end_matches('/');
            if dir.starts_with('/') && !dirs.iter().any(|d| d == dir) {
                dirs.push(dir.to_string());
            }
        }
    }
}

/// Expands an include pattern (a glob only in its last component), sorted as glibc does.
fn expand_include(ctx: &SystemContext, conf: &str, pattern: &str) -> Vec<String> {
    let pattern = if pattern.starts_with('/') {
        pattern.to_string()
    } else {
        let base = conf.rsplit_once('/').map_or("/etc", |(d, _)| d);
        format!("{base}/{pattern}")
    };
    let Some((dir, glob)) = pattern.rsplit_once('/') else {
        return Vec::new();
    };
    if !glob.contains(['*', '?']) {
        return vec![pattern.clone()];
    }
    let dir = if dir.is_empty() { "/" } else { dir };
    let mut files: Vec<String> = ctx
        .fs
        .read_dir(dir)
        .map(|entries| {
            entries
                .into_iter()
                .filter(|e| e.is_file && glob_match(glob, &e.name, false))
                .map(|e| e.path)
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::context::machine_file;
    use crate::engine::loader::testing::machine;

    #[test]
    fn conf_includes_and_wsl_dir() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("fs");
        std::fs::create_dir_all(root.join("etc/ld.so.conf.d")).unwrap();
        std::fs::create_dir_all(root.join("opt/cuda/lib64")).unwrap();
        std::fs::write(root.join("opt/cuda/lib64/libcudart.so.12"), b"x").unwrap();
        std::fs::write(
            root.join("etc/ld.so.conf"),
            "# comment\ninclude /etc/ld.so.conf.d/*.conf\n/usr/local/lib\n",
        )
        .unwrap();
        std::fs::write(root.join("etc/ld.so.conf.d/b.conf"), "/opt/b\n").unwrap();
        std::fs::write(root.join("etc/ld.so.conf.d/a.conf"), "/opt/cuda/lib64/\n").unwrap();
        let toml = dir.path().join("machine.toml");
        std::fs::write(&toml, "platform = \"linux\"\nroot = \"fs\"\nwsl = true\n").unwrap();
        let ctx = machine_file::load(&toml).unwrap();
        let source = CacheSource::from_context(&ctx);
        let CacheSource::Dirs(dirs) = &source else {
            panic!("expected dirs, got {source:?}");
        };
        assert_eq!(
            dirs,
            &[
                "/usr/lib/wsl/lib",
                "/opt/cuda/lib64",
                "/opt/b",
                "/usr/local/lib"
            ]
        );
        let exists = |p: &str| ctx.fs.is_file(p);
        assert_eq!(
            source.lookup("libcudart.so.12", &machine("x86_64", 64), &exists),
            CacheHit::Path("/opt/cuda/lib64/libcudart.so.12".into())
        );
    }

    /// Found by fuzzing (target `ldconf`): a file that includes itself several times on one line
    /// was followed 6^9 times (a hang); relative includes (`./ld.so.conf`) name it anew each time.
    #[test]
    fn includes_of_the_same_file_are_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("fs");
        std::fs::create_dir_all(root.join("etc/ld.so.conf.d")).unwrap();
        let bomb = "include /etc/ld.so.conf /etc/ld.so.conf /etc/ld.so.conf /etc/ld.so.conf \
                    /etc/ld.so.conf /etc/ld.so.conf\n/usr/lib\n";
        let relative = "include ./a.conf ./a.conf ./a.conf ./a.conf ./a.conf ./a.conf\n/opt/a\n";
        std::fs::write(
            root.join("etc/ld.so.conf"),
            format!("{bomb}include ld.so.conf.d/*.conf\n"),
        )
        .unwrap();
        std::fs::write(root.join("etc/ld.so.conf.d/a.conf"), relative).unwrap();
        // Before the fix this never returned (a hang, not a slow run).
        assert_eq!(conf_dirs(dir.path(), ""), ["/usr/lib", "/opt/a"]);
    }

    /// The folders the ld.so.conf of the machine in `dir` (its tree in `fs/`) gives, read through
    /// a machine file with `extra` lines.
    fn conf_dirs(dir: &std::path::Path, extra: &str) -> Vec<String> {
        let toml = dir.join("machine.toml");
        std::fs::write(
            &toml,
            format!("platform = \"linux\"\nroot = \"fs\"\n{extra}"),
        )
        .unwrap();
        let ctx = machine_file::load(&toml).unwrap();
        match CacheSource::from_context(&ctx) {
            CacheSource::Dirs(dirs) => dirs,
            other => panic!("expected dirs, got {other:?}"),
        }
    }

    /// The input the `ldconf` fuzz target timed out on (its `/etc/ld.so.conf`; the other conf
    /// files empty): `include *` and `include ld.so.conf ... ld.so.*onf` on four lines make about
    /// six self-includes per read. Not UTF-8 (`\xd0`), with NULs.
    #[test]
    fn the_fuzzed_self_including_conf_finishes() {
        const CONF: &[u8] = b"include* l cod/*uSr/A-\xd0\n\ninclude ld.so.conf mult.C/i,ainclude \
            ld.so.*onf mul\x00.d/i\na*# wsl.conf## # muh\x00lnclude* l cod/*uSr/A-\xd0\n\ninclude \
            ld.so.conf mult.C/i,ainclude ld.so.*onf mul\x00.d/itih";
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("fs");
        std::fs::create_dir_all(root.join("etc/ld.so.conf.d")).unwrap();
        std::fs::write(root.join("etc/ld.so.conf"), CONF).unwrap();
        for empty in [
            "ld.so.conf.d/cuda.conf",
            "ld.so.conf.d/x86_64-linux-gnu.conf",
            "wsl.conf",
        ] {
            std::fs::write(root.join("etc").join(empty), b"").unwrap();
        }
        assert_eq!(conf_dirs(dir.path(), "wsl = true\n"), [WSL_LIB_DIR]);
    }
}
