//! Wine as a Windows test bed, shared by the loader oracle and the .exe tests: a fresh prefix
//! (one wineserver kept alive for its runs), mingw-built DLLs and programs placed in its drive_c,
//! and this project's own Windows executable, cross-built once per test run (release, the
//! `x86_64-pc-windows-gnu` target) with the `ProcessPrng` shim Debian's Wine 8.0 lacks (it has
//! no `bcryptprimitives.dll`, which Rust's std imports for `ProcessPrng`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub const WINE: &str = "/usr/lib/wine/wine64";
pub const WINE_TARGET: &str = "x86_64-pc-windows-gnu";

/// A fresh Wine prefix in a temporary folder, with its wineserver running.
pub struct Prefix {
    folder: Folder,
    pub prefix: PathBuf,
}

/// Where a prefix lives: a temporary folder removed when the prefix is dropped, or a fixed one
/// for a prefix held in a static (never dropped), emptied when the next run makes it again.
enum Folder {
    Temporary(tempfile::TempDir),
    Kept(PathBuf),
}

impl Prefix {
    /// Runs a Windows program of the prefix with `args` and reads the JSON it prints (a panic
    /// names the arguments and shows what came instead); returns its exit code too.
    pub fn run_json(&self, exe: &str, args: &[&str]) -> (Option<i32>, serde_json::Value) {
        let out = self.command(exe).args(args).output().unwrap();
        let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: no JSON ({e}): {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code(), doc)
    }

    pub fn new() -> Prefix {
        Prefix::booted(Folder::Temporary(tempfile::tempdir().unwrap()))
    }

    /// A fresh prefix in `folder`, emptied first: for a prefix a static holds, which is never
    /// dropped, so that each run leaves one prefix of about 0.7 GB under `target/tmp` rather than
    /// one more in `/tmp` every time.
    pub fn kept_at(folder: PathBuf) -> Prefix {
        if folder.exists() {
            std::fs::remove_dir_all(&folder).unwrap();
        }
        std::fs::create_dir_all(&folder).unwrap();
        Prefix::booted(Folder::Kept(folder))
    }

    fn booted(folder: Folder) -> Prefix {
        let prefix = match &folder {
            Folder::Temporary(dir) => dir.path().join("prefix"),
            Folder::Kept(dir) => dir.join("prefix"),
        };
        wineboot(&prefix);
        // One wineserver for every run (each run would otherwise start and stop its own).
        let _ = Command::new("/usr/lib/wine/wineserver")
            .arg("-p30")
            .env("WINEPREFIX", &prefix)
            .status();
        Prefix { folder, prefix }
    }

    /// The folder that holds the prefix, for a test's own files beside it.
    pub fn folder(&self) -> &Path {
        match &self.folder {
            Folder::Temporary(dir) => dir.path(),
            Folder::Kept(dir) => dir,
        }
    }

    pub fn drive_c(&self) -> PathBuf {
        self.prefix.join("drive_c")
    }

    /// The host path of a `C:\...` path (or one relative to C:\).
    pub fn c(&self, windows_path: &str) -> PathBuf {
        let rel = windows_path
            .trim_start_matches("C:\\")
            .trim_start_matches("c:\\");
        self.drive_c().join(rel.replace('\\', "/"))
    }

    /// `wine64 <program> <args>` in this prefix, with the Unix PATH kept out and no debug noise.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(WINE);
        cmd.arg(program)
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            .env_remove("WINEPATH")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY");
        cmd
    }

    /// Runs `reg <args>` in this prefix and insists that it worked. A run that fails without a
    /// word (seen once in a full suite on 2 busy cores: Wine's `reg` exiting non-zero with no
    /// output while the wineserver was loaded) is tried again, twice at most; a `reg` that
    /// says why it failed is not.
    pub fn reg(&self, args: &[&str]) -> Output {
        let mut out = self.command("reg").args(args).output().expect("wine64 reg");
        for _ in 0..2 {
            if out.status.success() || !out.stdout.is_empty() || !out.stderr.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_secs(1));
            out = self.command("reg").args(args).output().expect("wine64 reg");
        }
        assert!(
            out.status.success(),
            "wine reg {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The type and data of one registry value as `reg query` prints them.
    pub fn reg_value(&self, key: &str, name: &str) -> Option<(String, String)> {
        let out = self
            .command("reg")
            .args(["query", key, "/v", name])
            .output()
            .expect("wine64 reg");
        let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
        text.lines().find_map(|line| {
            let rest = line.trim_start().strip_prefix(name)?;
            let rest = rest.trim_start();
            let (kind, data) = rest.split_once(char::is_whitespace)?;
            Some((kind.to_string(), data.trim_start().to_string()))
        })
    }
}

/// Makes a Wine prefix at `prefix` (its parent must exist) and insists that it worked.
pub fn wineboot(prefix: &Path) {
    assert!(
        Path::new(WINE).is_file(),
        "{WINE} is needed: install wine64 (Debian package wine64)"
    );
    let out = Command::new(WINE)
        .args(["wineboot", "-i"])
        .env("WINEPREFIX", prefix)
        .env("WINEDEBUG", "-all")
        .output()
        .expect("wine64 starts");
    assert!(
        prefix.join("drive_c/windows/system32").is_dir(),
        "wineboot made no prefix: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A program that loads one library as asked (`probe <flags hex> <name> [--dll-dir D]
/// [--set-dll-dir D] [--default-dirs F] [--dep NAME]`) and prints what `GetModuleFileNameW` says
/// of it and of each `--dep`, or the error code; `probe path` prints its PATH.
pub const LOAD_PROBE_C: &str = r#"
#include <windows.h>
#include <stdio.h>
#include <wchar.h>
#include <stdlib.h>
int wmain(int argc, wchar_t **argv) {
    wchar_t buf[2048];
    if (argc == 2 && !wcscmp(argv[1], L"path")) {
        GetEnvironmentVariableW(L"PATH", buf, 2048);
        printf("%ls\n", buf);
        return 0;
    }
    if (argc < 3) return 2;
    DWORD flags = wcstoul(argv[1], NULL, 16);
    GetEnvironmentVariableW(L"PATH", buf, 2048);
    printf("path %ls\n", buf);
    for (int i = 3; i < argc; i++) {
        if (!wcscmp(argv[i], L"--dll-dir") && i + 1 < argc) AddDllDirectory(argv[++i]);
        else if (!wcscmp(argv[i], L"--set-dll-dir") && i + 1 < argc) SetDllDirectoryW(argv[++i]);
        else if (!wcscmp(argv[i], L"--default-dirs") && i + 1 < argc)
            SetDefaultDllDirectories(wcstoul(argv[++i], NULL, 16));
    }
    HMODULE h = LoadLibraryExW(argv[2], NULL, flags);
    if (!h) { printf("error %lu\n", GetLastError()); return 0; }
    GetModuleFileNameW(h, buf, 2048);
    printf("loaded %ls\n", buf);
    for (int i = 3; i < argc; i++) {
        if (!wcscmp(argv[i], L"--dep") && i + 1 < argc) {
            HMODULE m = GetModuleHandleW(argv[++i]);
            if (m && GetModuleFileNameW(m, buf, 2048)) printf("dep %ls\n", buf);
            else printf("dep -\n");
        }
    }
    return 0;
}
"#;

/// Builds `<dir>/<name>` (64- or 32-bit, no C runtime) importing `imports` from `dir`.
pub fn build_dll(dir: &Path, name: &str, imports: &[&str], bits32: bool) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let stem = name.trim_end_matches(".dll");
    let mut src = String::new();
    for (i, imp) in imports.iter().enumerate() {
        let s = imp.trim_end_matches(".dll").replace(['.', '-'], "_");
        src.push_str(&format!(
            "__declspec(dllimport) int f_{s}(void);\nint use{i}(void){{return f_{s}();}}\n"
        ));
    }
    let own = stem.replace(['.', '-'], "_");
    src.push_str(&format!(
        "__declspec(dllexport) int f_{own}(void){{return 1;}}\n"
    ));
    let c = dir.join(format!("{stem}.c"));
    std::fs::write(&c, src).unwrap();
    let gcc = if bits32 {
        "i686-w64-mingw32-gcc"
    } else {
        "x86_64-w64-mingw32-gcc"
    };
    let out = dir.join(name);
    let mut cmd = Command::new(gcc);
    cmd.args(["-nostdlib", "-shared", "-Wl,-e,0", "-o"])
        .arg(&out)
        .arg(&c);
    for imp in imports {
        cmd.arg(dir.join(imp));
    }
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("{gcc} runs (install gcc-mingw-w64): {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// Builds a 64-bit program or DLL from C source with mingw (`extra` are gcc's last arguments).
pub fn build_c(out: &Path, c_source: &str, extra: &[&str]) {
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let src = out.with_extension("c");
    std::fs::write(&src, c_source).unwrap();
    let o = Command::new("x86_64-w64-mingw32-gcc")
        .args(["-O1", "-o"])
        .arg(out)
        .arg(&src)
        .args(extra)
        .output()
        .expect("x86_64-w64-mingw32-gcc runs (install gcc-mingw-w64-x86-64)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Rust's std imports `ProcessPrng` from `bcryptprimitives.dll`, which Wine 8.0 lacks; this
/// stand-in answers it with `RtlGenRandom`, as Windows' own does.
const PROCESS_PRNG_C: &str = r#"
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n; len -= n;
    }
    return TRUE;
}
"#;

/// This project's release .exe for Windows, cross-built on first use into `target/wine-exe`.
pub fn triage_exe() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| crate::support::release_binary(Some(WINE_TARGET)))
}

/// This integration-test binary built for Windows (release, `target/wine-exe`), to walk the wizard
/// inside a prefix (`gui_walk_wine`); built once per test run.
#[cfg(unix)]
pub fn walk_binary() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| crate::support::test_binary_for(WINE_TARGET))
}

/// Installs the .exe and its shim into `C:\<folder>` of the prefix; returns the `C:\` path.
pub fn install_triage(prefix: &Prefix, folder: &str) -> String {
    install_program(prefix, folder, triage_exe(), "cuda-triage.exe")
}

/// Installs a Rust program built for Windows as `C:\<folder>\<name>`, with the `ProcessPrng`
/// shim beside it; returns the `C:\` path.
pub fn install_program(prefix: &Prefix, folder: &str, exe: &Path, name: &str) -> String {
    let dir = prefix.c(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(exe, dir.join(name)).unwrap();
    build_c(
        &dir.join("bcryptprimitives.dll"),
        PROCESS_PRNG_C,
        &["-shared", "-ladvapi32"],
    );
    format!(r"C:\{}\{name}", folder.trim_start_matches("C:\\"))
}

/// The node of a `tree --json` document whose name is `name` (Windows case rules).
pub fn tree_node<'a>(tree: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| {
            n["name"]
                .as_str()
                .is_some_and(|s| s.eq_ignore_ascii_case(name))
        })
        .unwrap_or_else(|| panic!("{name} not in the tree: {:#}", tree["nodes"]))
}

impl Prefix {
    /// `cuda-triage.exe tree BINARY --app-dir APP --json` run live in the prefix: exit code, JSON.
    pub fn live_tree(
        &self,
        exe: &str,
        binary: &str,
        app_dir: &str,
    ) -> (Option<i32>, serde_json::Value) {
        let out = self
            .command(exe)
            .args(["tree", binary, "--app-dir", app_dir, "--json"])
            .output()
            .unwrap();
        (
            out.status.code(),
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}")),
        )
    }
}
