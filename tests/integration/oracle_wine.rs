//! Wine's loader as the oracle for the Windows loader emulation. A probe program built with mingw
//! at test time calls `LoadLibraryExW(name, 0, flags)` (after `AddDllDirectory`,
//! `SetDllDirectoryW`, `SetDefaultDllDirectories` as asked) inside a fresh Wine prefix and prints
//! what `GetModuleFileNameW` reports for the module and its dependency, or the error code. Each
//! case lays DLLs (built with mingw, 64- or 32-bit) into the prefix's drive_c — the application
//! folder, System32, the Windows folder, the current folder, PATH folders, added DLL folders —
//! and the engine, given a machine file whose drive C is that drive_c, must predict the same file
//! or the same error (126, 193, 87). Names are unique per case, so cases never see each other's
//! files. Wine 8.0 differs from Windows in two documented ways (no KnownDLLs; a missing export
//! does not fail the load), so no case uses a KnownDLL name or a missing export.

use super::wine_support::{LOAD_PROBE_C, Prefix, WINE, build_c, build_dll};
use cuda_triage::engine::context::machine_file;
use cuda_triage::engine::graph::root::{Rooted, build_for};
use cuda_triage::engine::graph::{GraphError, GraphOptions};
use cuda_triage::engine::loader::Outcome;
use cuda_triage::engine::loader::windows::WindowsOptions;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The prefix with the probe built into `C:\app`.
fn wine() -> &'static Prefix {
    static WINE_PREFIX: OnceLock<Prefix> = OnceLock::new();
    WINE_PREFIX.get_or_init(|| {
        let w = Prefix::kept_at(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-wine"));
        build_c(&w.c(r"C:\app\probe.exe"), LOAD_PROBE_C, &["-municode"]);
        w
    })
}

/// What a case places: the root (importing the dependency), the dependency, their 32-bit
/// builds, and a dependency that itself imports a library that is nowhere.
#[derive(Clone, Copy, PartialEq)]
enum Piece {
    Root,
    Dep,
    Root32,
    Dep32,
    DepWithMissingChild,
}

struct Case {
    label: &'static str,
    place: Vec<(&'static str, Piece)>,
    /// Folders in front of Wine's PATH (WINEPATH), in order.
    path: Vec<&'static str>,
    cwd: &'static str,
    flags: u32,
    default_dirs: Option<u32>,
    dll_dirs: Vec<&'static str>,
    set_dll_dir: Option<&'static str>,
    /// `{root}` stands for the root's file name; anything else is taken as written.
    load: &'static str,
    /// Where Wine is known to differ from Windows: why, and the answer Windows documents (the
    /// emulation must give that one).
    wine_differs: Option<(&'static str, u32)>,
}

impl Case {
    fn new(label: &'static str) -> Case {
        Case {
            label,
            place: Vec::new(),
            path: Vec::new(),
            cwd: r"C:\work",
            flags: 0,
            default_dirs: None,
            dll_dirs: Vec::new(),
            set_dll_dir: None,
            load: "{root}",
            wine_differs: None,
        }
    }
    fn wine_differs(mut self, why: &'static str, windows_error: u32) -> Case {
        self.wine_differs = Some((why, windows_error));
        self
    }
    fn at(mut self, folder: &'static str, piece: Piece) -> Case {
        self.place.push((folder, piece));
        self
    }
    fn both(self, folder: &'static str) -> Case {
        self.at(folder, Piece::Root).at(folder, Piece::Dep)
    }
    fn path(mut self, folders: &[&'static str]) -> Case {
        self.path = folders.to_vec();
        self
    }
    fn cwd(mut self, folder: &'static str) -> Case {
        self.cwd = folder;
        self
    }
    fn flags(mut self, flags: u32) -> Case {
        self.flags = flags;
        self
    }
    fn default_dirs(mut self, flags: u32) -> Case {
        self.default_dirs = Some(flags);
        self
    }
    fn dll_dir(mut self, folder: &'static str) -> Case {
        self.dll_dirs.push(folder);
        self
    }
    fn set_dll_dir(mut self, folder: &'static str) -> Case {
        self.set_dll_dir = Some(folder);
        self
    }
    fn load(mut self, what: &'static str) -> Case {
        self.load = what;
        self
    }
}

/// The answer of one load: the module's and the dependency's files, or an error code.
#[derive(Debug, PartialEq)]
enum Answer {
    Loaded { module: String, dep: String },
    Error(u32),
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

fn run_case(w: &Prefix, i: usize, case: &Case) -> (Answer, Answer) {
    let (root, dep, child) = (
        format!("r{i}.dll"),
        format!("d{i}.dll"),
        format!("m{i}.dll"),
    );
    let build = w.folder().join(format!("build{i}"));
    let built = |piece: Piece| -> PathBuf {
        let (sub, bits32) = match piece {
            Piece::Root32 | Piece::Dep32 => ("x86", true),
            Piece::DepWithMissingChild => ("child", false),
            _ => ("x64", false),
        };
        let dir = build.join(sub);
        let want = match piece {
            Piece::Root | Piece::Root32 => &root,
            _ => &dep,
        };
        let path = dir.join(want);
        if !path.is_file() {
            if piece == Piece::DepWithMissingChild {
                build_dll(&dir, &child, &[], false);
                build_dll(&dir, &dep, &[&child], false);
            } else if matches!(piece, Piece::Root | Piece::Root32) {
                build_dll(&dir, &dep, &[], bits32);
                build_dll(&dir, &root, &[&dep], bits32);
            } else {
                build_dll(&dir, &dep, &[], bits32);
            }
        }
        path
    };
    for (folder, piece) in &case.place {
        let from = built(*piece);
        let to = w.c(&folder.trim_start_matches(r"C:\").replace('\\', "/"));
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(&from, to.join(from.file_name().unwrap())).unwrap();
    }
    let cwd = w.c(&case.cwd.trim_start_matches(r"C:\").replace('\\', "/"));
    std::fs::create_dir_all(&cwd).unwrap();
    let load = case
        .load
        .replace("{root}", &root)
        .replace("{i}", &i.to_string());

    // The oracle.
    let mut cmd = Command::new(WINE);
    cmd.arg(r"C:\app\probe.exe")
        .arg(format!("{:x}", case.flags))
        .arg(&load)
        .current_dir(&cwd)
        .env("WINEPREFIX", &w.prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEPATH", case.path.join(";"));
    for d in &case.dll_dirs {
        cmd.args(["--dll-dir", d]);
    }
    if let Some(d) = case.set_dll_dir {
        cmd.args(["--set-dll-dir", d]);
    }
    if let Some(f) = case.default_dirs {
        cmd.args(["--default-dirs", &format!("{f:x}")]);
    }
    cmd.args(["--dep", &dep]);
    let out = cmd.output().expect("wine64 runs the probe");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let mut module = None;
    let mut dep_file = String::from("-");
    let mut error = None;
    let mut path_var = String::new();
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("path ") {
            path_var = p.trim().to_string();
        } else if let Some(p) = line.strip_prefix("loaded ") {
            module = Some(lower(p));
        } else if let Some(p) = line.strip_prefix("dep ") {
            dep_file = lower(p);
        } else if let Some(code) = line.strip_prefix("error ") {
            error = code.trim().parse().ok();
        }
    }
    let real = match (module, error) {
        (Some(module), _) => Answer::Loaded {
            module,
            dep: dep_file,
        },
        (None, Some(code)) => Answer::Error(code),
        _ => panic!(
            "{}: the probe said nothing: {text} {}",
            case.label,
            String::from_utf8_lossy(&out.stderr)
        ),
    };

    // The prediction, from a machine file whose drive C is the prefix's drive_c.
    let toml = w.folder().join(format!("machine{i}.toml"));
    std::fs::write(
        &toml,
        format!(
            "platform = \"windows\"\n[drives]\nC = '{}'\n[env]\nPATH = '{path_var}'\nSystemRoot = 'C:\\windows'\n",
            w.drive_c().display()
        ),
    )
    .unwrap();
    let ctx = machine_file::load(&toml).unwrap();
    let flags = match (case.flags, case.default_dirs) {
        (0, Some(d)) => Some(d),
        (0, None) => None,
        (f, _) => Some(f),
    };
    let opts = GraphOptions {
        runtime: false,
        windows: WindowsOptions {
            preset: None,
            app_dir: Some(r"C:\app".into()),
            dll_dirs: case.dll_dirs.iter().map(|s| s.to_string()).collect(),
            set_dll_dir: case.set_dll_dir.map(str::to_string),
            load_flags: flags,
            cwd: Some(case.cwd.to_string()),
        },
        ..GraphOptions::default()
    };
    let predicted = match build_for(&ctx, &load, &opts, None) {
        Err(GraphError::InvalidParameter { .. }) => Answer::Error(87),
        // A full path to no file: ERROR_MOD_NOT_FOUND.
        Err(GraphError::Root { .. }) => Answer::Error(126),
        Err(e) => panic!("{}: {e}", case.label),
        Ok(Rooted::NotFound(r)) => {
            let wrong = r
                .attempts
                .iter()
                .any(|a| matches!(a.outcome, Outcome::WrongMachine { .. }));
            Answer::Error(if wrong { 193 } else { 126 })
        }
        Ok(Rooted::Built { graph, .. }) => {
            match graph.nodes.iter().find(|n| !n.is_resolved() && !n.delay) {
                Some(n) => {
                    let wrong = n
                        .attempts
                        .iter()
                        .any(|a| matches!(a.outcome, Outcome::WrongMachine { .. }));
                    Answer::Error(if wrong { 193 } else { 126 })
                }
                None => Answer::Loaded {
                    module: lower(&graph.root),
                    dep: graph
                        .nodes
                        .iter()
                        .find(|n| n.name.eq_ignore_ascii_case(&dep))
                        .and_then(|n| n.path.clone())
                        .map_or_else(|| "-".to_string(), |p| lower(&p)),
                },
            }
        }
    };
    (real, predicted)
}

fn cases() -> Vec<Case> {
    use Piece::*;
    let sys = r"C:\windows\system32";
    vec![
        // The standard order (no flags): application folder, System32, Windows, current, PATH.
        Case::new("app folder").both(r"C:\app"),
        Case::new("System32").both(sys),
        Case::new("Windows folder").both(r"C:\windows"),
        Case::new("current folder").both(r"C:\cur").cwd(r"C:\cur"),
        Case::new("PATH folder").both(r"C:\p1").path(&[r"C:\p1"]),
        Case::new("app beats System32").both(r"C:\app").both(sys),
        Case::new("System32 beats Windows")
            .both(sys)
            .both(r"C:\windows"),
        Case::new("Windows beats current")
            .both(r"C:\windows")
            .both(r"C:\cur")
            .cwd(r"C:\cur"),
        Case::new("current beats PATH")
            .both(r"C:\cur")
            .cwd(r"C:\cur")
            .both(r"C:\p1")
            .path(&[r"C:\p1"]),
        Case::new("PATH order")
            .both(r"C:\p1")
            .both(r"C:\p2")
            .path(&[r"C:\p1", r"C:\p2"]),
        Case::new("root in app, dependency on PATH")
            .at(r"C:\app", Root)
            .at(r"C:\p1", Dep)
            .path(&[r"C:\p1"]),
        Case::new("root on PATH, dependency in System32")
            .at(r"C:\p1", Root)
            .at(sys, Dep)
            .path(&[r"C:\p1"]),
        Case::new("a 32-bit root earlier on PATH is skipped")
            .at(r"C:\x86", Root32)
            .both(r"C:\p2")
            .path(&[r"C:\x86", r"C:\p2"]),
        Case::new("a 32-bit dependency earlier on PATH is skipped")
            .at(r"C:\app", Root)
            .at(r"C:\x86", Dep32)
            .at(r"C:\p2", Dep)
            .path(&[r"C:\x86", r"C:\p2"]),
        Case::new("only a 32-bit root")
            .at(r"C:\x86", Root32)
            .path(&[r"C:\x86"]),
        Case::new("not found anywhere").path(&[r"C:\p1"]),
        Case::new("dependency missing").at(r"C:\app", Root),
        Case::new("a dependency's own dependency missing")
            .at(r"C:\app", Root)
            .at(r"C:\app", DepWithMissingChild),
        Case::new("name in another case")
            .both(r"C:\app")
            .load("R{i}.DLL"),
        Case::new("name without .dll").both(r"C:\app").load("r{i}"),
        // Full paths: the module is that file; its dependencies follow the flags.
        Case::new("full path, dependency beside it, no flags")
            .both(r"C:\lib")
            .load(r"C:\lib\r{i}.dll"),
        Case::new("full path, dependency in System32")
            .at(r"C:\lib", Root)
            .at(sys, Dep)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("full path, nonexistent").load(r"C:\nowhere\r{i}.dll"),
        Case::new("LOAD_WITH_ALTERED_SEARCH_PATH: dependency beside the DLL")
            .both(r"C:\lib")
            .flags(0x8)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("LOAD_WITH_ALTERED_SEARCH_PATH: the app folder is replaced")
            .at(r"C:\lib", Root)
            .at(r"C:\app", Dep)
            .flags(0x8)
            .load(r"C:\lib\r{i}.dll"),
        // Python before 3.8 imports an extension module this way (dynload_win.c at v3.7.9).
        Case::new("LOAD_WITH_ALTERED_SEARCH_PATH with a full path: dependency on PATH")
            .at(r"C:\lib", Root)
            .at(r"C:\p1", Dep)
            .path(&[r"C:\p1"])
            .flags(0x8)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("0x1100 with a full path: dependency beside it")
            .both(r"C:\lib")
            .flags(0x1100)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("0x1100: dependency on PATH is not searched")
            .at(r"C:\lib", Root)
            .at(r"C:\p1", Dep)
            .path(&[r"C:\p1"])
            .flags(0x1100)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("0x1100: dependency in an added DLL folder")
            .at(r"C:\lib", Root)
            .at(r"C:\added", Dep)
            .dll_dir(r"C:\added")
            .flags(0x1100)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("0x1100: dependency in System32")
            .at(r"C:\lib", Root)
            .at(sys, Dep)
            .flags(0x1100)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("0x1100 with a bare name is error 87")
            .both(r"C:\app")
            .flags(0x1100),
        Case::new("DLL_LOAD_DIR alone: only the DLL's folder")
            .both(r"C:\lib")
            .flags(0x100)
            .load(r"C:\lib\r{i}.dll"),
        Case::new("DLL_LOAD_DIR alone: System32 is not searched")
            .at(r"C:\lib", Root)
            .at(sys, Dep)
            .flags(0x100)
            .load(r"C:\lib\r{i}.dll"),
        // LOAD_LIBRARY_SEARCH_* for a bare name.
        Case::new("DEFAULT_DIRS: an added DLL folder")
            .both(r"C:\added")
            .dll_dir(r"C:\added")
            .flags(0x1000),
        Case::new("DEFAULT_DIRS: PATH is not searched")
            .both(r"C:\p1")
            .path(&[r"C:\p1"])
            .flags(0x1000),
        Case::new("DEFAULT_DIRS: the app folder")
            .both(r"C:\app")
            .flags(0x1000),
        Case::new("APPLICATION_DIR: the app folder")
            .both(r"C:\app")
            .flags(0x200),
        Case::new("APPLICATION_DIR: System32 is not searched")
            .both(sys)
            .flags(0x200),
        Case::new("SYSTEM32: System32").both(sys).flags(0x800),
        Case::new("SYSTEM32: the app folder is not searched")
            .both(r"C:\app")
            .flags(0x800),
        Case::new("USER_DIRS: an added DLL folder")
            .both(r"C:\added")
            .dll_dir(r"C:\added")
            .flags(0x400),
        // Process-wide settings.
        Case::new("SetDllDirectory: its folder is searched")
            .both(r"C:\setdir")
            .set_dll_dir(r"C:\setdir"),
        Case::new("SetDllDirectory: the current folder is no longer searched")
            .both(r"C:\cur")
            .cwd(r"C:\cur")
            .set_dll_dir(r"C:\setdir")
            .wine_differs(
                "SetDllDirectoryW's documentation lists the search order after the call without \
                 the current folder; Wine 8.0 keeps searching it",
                126,
            ),
        Case::new("SetDefaultDllDirectories(DEFAULT_DIRS): PATH is not searched")
            .both(r"C:\p1")
            .path(&[r"C:\p1"])
            .default_dirs(0x1000),
        Case::new("SetDefaultDllDirectories(DEFAULT_DIRS): an added DLL folder")
            .both(r"C:\added")
            .dll_dir(r"C:\added")
            .default_dirs(0x1000),
        // Relative paths are searched like names, the relative path appended to each folder.
        Case::new("relative path under the app folder")
            .both(r"C:\app\sub")
            .load(r"sub\r{i}.dll"),
        Case::new("relative path with 0x1100 is error 87")
            .both(r"C:\app\sub")
            .flags(0x1100)
            .load(r"sub\r{i}.dll"),
    ]
}

#[test]
fn the_windows_loader_emulation_agrees_with_wines_loader_case_for_case() {
    let w = wine();
    let cases = cases();
    assert!(cases.len() >= 40, "at least 40 cases");
    let mut disagreements = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let (real, predicted) = run_case(w, i, case);
        if let Some((why, windows_error)) = case.wine_differs {
            assert_ne!(
                real, predicted,
                "#{i} {}: Wine now agrees with Windows ({why})",
                case.label
            );
            assert_eq!(
                predicted,
                Answer::Error(windows_error),
                "#{i} {}: {why}",
                case.label
            );
            continue;
        }
        if real != predicted {
            disagreements.push(format!(
                "#{i} {}: Wine {real:?}, emulation {predicted:?}",
                case.label
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}
