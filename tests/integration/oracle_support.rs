//! Helpers for the loader oracle tests: build ELF fixtures with gcc and PE fixtures with mingw at
//! test time, ask the real glibc loader what it resolves (`ld.so --list`, `LD_DEBUG=libs`), and
//! build contexts for the emulation. Tests skip (with a note) where a tool is missing.

use cuda_triage::engine::context::{
    ContextSource, EnvVars, FsView, Platform, RegistryView, SystemContext,
};
use cuda_triage::engine::loader::How;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The x86-64 dynamic linker of this host.
pub const RTLD: &str = "/lib64/ld-linux-x86-64.so.2";

pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// How a fixture library records its search path.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    None,
    Rpath,
    Runpath,
}

/// One gcc-built ELF object.
pub struct So<'a> {
    /// Output file (relative to the fixture dir).
    pub out: &'a str,
    pub soname: Option<&'a str>,
    /// Libraries to link against (paths relative to the fixture dir); NEEDED takes their soname.
    pub needs: &'a [&'a str],
    pub tag: Tag,
    pub path: &'a str,
    pub exe: bool,
    pub extra: &'a [&'a str],
}

impl Default for So<'_> {
    fn default() -> Self {
        So {
            out: "",
            soname: None,
            needs: &[],
            tag: Tag::None,
            path: "",
            exe: false,
            extra: &[],
        }
    }
}

/// Builds one object with gcc; panics with gcc's message on failure (gcc is known present).
pub fn gcc(dir: &Path, so: So) -> PathBuf {
    let out = dir.join(so.out);
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let src = dir.join(format!("{}.c", so.out.replace('/', "_")));
    let body = if so.exe {
        "int main(void){return 0;}\n"
    } else {
        "int fixture_fn(void){return 1;}\n"
    };
    std::fs::write(&src, body).unwrap();
    let mut cmd = Command::new("gcc");
    if !so.exe {
        cmd.args(["-shared", "-fPIC"]);
    }
    cmd.arg("-o").arg(&out).arg(&src).arg("-Wl,--no-as-needed");
    if let Some(s) = so.soname {
        cmd.arg(format!("-Wl,-soname,{s}"));
    }
    for need in so.needs {
        cmd.arg(dir.join(need));
    }
    match so.tag {
        Tag::None => {}
        Tag::Rpath => {
            cmd.arg(format!("-Wl,--disable-new-dtags,-rpath,{}", so.path));
        }
        Tag::Runpath => {
            cmd.arg(format!("-Wl,--enable-new-dtags,-rpath,{}", so.path));
        }
    }
    cmd.args(so.extra);
    let o = cmd.output().expect("gcc runs");
    assert!(
        o.status.success(),
        "gcc failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// A 32-bit shared object without libc (works without gcc-multilib's libgcc).
pub fn gcc32(dir: &Path, out: &str, soname: &str) -> Option<PathBuf> {
    let path = dir.join(out);
    std::fs::create_dir_all(path.parent()?).ok()?;
    let src = dir.join("w32.c");
    std::fs::write(&src, "int fixture_fn(void){return 32;}\n").ok()?;
    let o = Command::new("gcc")
        .args(["-m32", "-shared", "-fPIC", "-nostdlib", "-o"])
        .arg(&path)
        .arg(&src)
        .arg(format!("-Wl,-soname,{soname}"))
        .output()
        .ok()?;
    o.status.success().then_some(path)
}

/// What the real loader lists: (name, path or None when not found), in load order, without the
/// vDSO and the dynamic linker's own line.
pub fn ld_list(bin: &Path, env: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
    // What ldd does: trace mode lists every object, missing ones included (`--list` stops at
    // the first miss).
    let o = Command::new(RTLD)
        .arg(bin)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD")
        .envs(env.iter().copied())
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .output()
        .expect("ld.so runs");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" => ")?;
            if rest.starts_with("not found") {
                return Some((name.to_string(), None));
            }
            let path = rest.split(" (0x").next()?.trim();
            Some((name.to_string(), Some(path.to_string())))
        })
        .collect()
}

/// Which search step found each library, from `LD_DEBUG=libs` in trace mode.
pub fn ld_debug_how(bin: &Path, env: &[(&str, &str)]) -> Vec<(String, How)> {
    let o = Command::new(RTLD)
        .arg(bin)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD")
        .envs(env.iter().copied())
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .env("LD_DEBUG", "libs")
        .output()
        .expect("ld.so runs");
    let text = String::from_utf8_lossy(&o.stderr).into_owned();
    let mut out: Vec<(String, How)> = Vec::new();
    let mut current: Option<(String, Option<How>, bool)> = None;
    let finish = |c: Option<(String, Option<How>, bool)>, out: &mut Vec<(String, How)>| {
        if let Some((name, Some(how), true)) = c {
            out.push((name, how));
        }
    };
    for line in text.lines() {
        let body = line.split_once(':').map_or(line, |(_, b)| b).trim_start();
        if let Some(rest) = body.strip_prefix("find library=") {
            finish(current.take(), &mut out);
            let name = rest.split(" [").next().unwrap_or(rest).to_string();
            current = Some((name, None, false));
        } else if let Some(c) = current.as_mut() {
            if body.starts_with("search cache=") {
                c.1 = Some(How::LdSoCache);
            } else if body.starts_with("search path=") {
                c.1 = Some(if body.contains("(RPATH from file") {
                    How::Rpath
                } else if body.contains("(RUNPATH from file") {
                    How::Runpath
                } else if body.contains("(LD_LIBRARY_PATH)") {
                    How::LdLibraryPath
                } else {
                    How::Default
                });
            } else if body.starts_with("trying file=") {
                c.2 = true;
            } else if body.is_empty() {
                finish(current.take(), &mut out);
            }
        }
    }
    finish(current.take(), &mut out);
    out
}

/// A live Linux context with exactly this environment (no NVML, nothing from the test's own env).
pub fn live_ctx(env: &[(&str, &str)]) -> SystemContext {
    let mut vars: Vec<(String, String)> = vec![("PATH".into(), "/usr/bin:/bin".into())];
    vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    SystemContext {
        platform: Platform::Linux,
        wsl: false,
        fs: FsView::live(Platform::Linux),
        env: EnvVars::new(Platform::Linux, vars),
        registry: RegistryView::default(),
        driver: None,
        gpus: Vec::new(),
        driver_note: None,
        source: ContextSource::Live,
        session: cuda_triage::engine::context::SessionEnvironment::default(),
    }
}

/// Where test downloads go (never committed).
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/.cache")
}
