//! Windows loader emulation on fake machines (a machine file + a folder tree) with DLLs built by
//! x86_64-w64-mingw32-gcc (and i686 for the wrong-machine cases): each test moves one DLL through
//! the places the documented search order visits and checks where, and how, it resolves.

use crate::oracle_support::have;
use cuda_triage::engine::context::{SystemContext, machine_file};
use cuda_triage::engine::graph::{self, DependencyGraph, GraphOptions};
use cuda_triage::engine::loader::windows::{Preset, WindowsOptions};
use cuda_triage::engine::loader::{How, Outcome};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fake Windows machine under a temp dir: `C/` is drive C:, `build/` holds compiled DLLs.
struct WinMachine {
    dir: tempfile::TempDir,
}

impl WinMachine {
    fn new() -> Option<WinMachine> {
        assert!(
            have("x86_64-w64-mingw32-gcc"),
            "x86_64-w64-mingw32-gcc is needed: install gcc-mingw-w64-x86-64"
        );
        let dir = tempfile::tempdir().ok()?;
        std::fs::create_dir_all(dir.path().join("C/Windows/System32")).ok()?;
        std::fs::create_dir_all(dir.path().join("build32")).ok()?;
        Some(WinMachine { dir })
    }

    fn c(&self, rel: &str) -> PathBuf {
        self.dir.path().join("C").join(rel.replace('\\', "/"))
    }

    /// Builds `build[32]/<name>` importing the given built DLLs (by file name).
    fn build(&self, name: &str, imports: &[&str], bits32: bool) -> PathBuf {
        let sub = if bits32 { "build32" } else { "build" };
        let out_dir = self.dir.path().join(sub);
        std::fs::create_dir_all(&out_dir).unwrap();
        let stem = name
            .trim_end_matches(".dll")
            .trim_end_matches(".exe")
            .replace(['-', '.'], "_");
        let mut src = String::new();
        for (i, imp) in imports.iter().enumerate() {
            let s = imp.trim_end_matches(".dll").replace(['-', '.'], "_");
            src.push_str(&format!(
                "__declspec(dllimport) int f_{s}(void);\nint use{i}(void){{return f_{s}();}}\n"
            ));
        }
        src.push_str(&format!(
            "__declspec(dllexport) int f_{stem}(void){{return 1;}}\nint start(void){{return 0;}}\n"
        ));
        let c = out_dir.join(format!("{stem}.c"));
        std::fs::write(&c, src).unwrap();
        let gcc = if bits32 {
            "i686-w64-mingw32-gcc"
        } else {
            "x86_64-w64-mingw32-gcc"
        };
        let out = out_dir.join(name);
        let mut cmd = Command::new(gcc);
        cmd.arg("-nostdlib").arg("-o").arg(&out).arg(&c);
        if name.ends_with(".dll") {
            cmd.args(["-shared", "-Wl,-e,0"]);
        } else {
            cmd.arg("-Wl,-e,start");
        }
        for imp in imports {
            cmd.arg(out_dir.join(imp));
        }
        let o = cmd.output().expect("mingw gcc runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    }

    /// Copies a built file to a machine path such as `App\dep.dll`.
    fn place(&self, built: &Path, machine_rel: &str) {
        let to = self.c(machine_rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(built, to).unwrap();
    }

    fn remove(&self, machine_rel: &str) {
        std::fs::remove_file(self.c(machine_rel)).unwrap();
    }

    fn ctx(&self, env: &[(&str, &str)], registry: &str) -> SystemContext {
        let mut toml = String::from("platform = \"windows\"\n[drives]\nC = \"C\"\n[env]\n");
        for (k, v) in env {
            toml.push_str(&format!("{k} = '{v}'\n"));
        }
        toml.push_str(registry);
        let file = self.dir.path().join("machine.toml");
        std::fs::write(&file, toml).unwrap();
        machine_file::load(&file).unwrap()
    }
}

fn tree(ctx: &SystemContext, root: &str, windows: WindowsOptions) -> DependencyGraph {
    let opts = GraphOptions {
        runtime: false,
        windows,
        ..GraphOptions::default()
    };
    graph::build(ctx, root, &opts).expect("graph")
}

fn dep(g: &DependencyGraph) -> (Option<String>, How) {
    let n = g
        .nodes
        .iter()
        .find(|n| n.name.eq_ignore_ascii_case("dep.dll"))
        .expect("dep node");
    (n.path.clone(), n.how)
}

#[test]
fn standard_order_app_system32_windows_cwd_path() {
    let Some(m) = WinMachine::new() else { return };
    let dep_dll = m.build("dep.dll", &[], false);
    let app = m.build("app.exe", &["dep.dll"], false);
    m.place(&app, r"App\app.exe");
    for place in [
        r"App\dep.dll",
        r"Windows\System32\dep.dll",
        r"Windows\dep.dll",
        r"Cwd\dep.dll",
        r"P2\dep.dll",
    ] {
        m.place(&dep_dll, place);
    }
    let ctx = m.ctx(&[("PATH", r"C:\P1;C:\P2")], "");
    let opts = WindowsOptions {
        cwd: Some(r"C:\Cwd".into()),
        ..Default::default()
    };
    let expected = [
        (r"App\dep.dll", How::AppDir),
        (r"Windows\System32\dep.dll", How::System32),
        (r"Windows\dep.dll", How::WindowsDir),
        (r"Cwd\dep.dll", How::Cwd),
        (r"P2\dep.dll", How::Path),
    ];
    for (place, how) in expected {
        let g = tree(&ctx, r"C:\App\app.exe", opts.clone());
        assert_eq!(dep(&g), (Some(format!(r"C:\{place}")), how));
        m.remove(place);
    }
    let g = tree(&ctx, r"C:\App\app.exe", opts);
    let (path, _) = dep(&g);
    assert_eq!(path, None);
    let node = &g.nodes[0];
    let dirs: Vec<&str> = node.attempts.iter().map(|a| a.directory.as_str()).collect();
    assert_eq!(
        dirs,
        [
            r"C:\App",
            r"C:\Windows\System32",
            r"C:\Windows\System",
            r"C:\Windows",
            r"C:\Cwd",
            r"C:\P1",
            r"C:\P2"
        ]
    );
    let findings = graph::checks::check(&ctx, &g);
    assert!(
        findings
            .iter()
            .any(|f| f.code == "library-not-found" && f.detail.contains("126"))
    );
}

#[test]
fn torch_python_and_conda_modes_ignore_path() {
    let Some(m) = WinMachine::new() else { return };
    let dep_dll = m.build("dep.dll", &[], false);
    let root = m.build("torch_cuda.dll", &["dep.dll"], false);
    m.place(&root, r"env\Lib\site-packages\torch\lib\torch_cuda.dll");
    m.place(&dep_dll, r"OnPath\dep.dll");
    let root_path = r"C:\env\Lib\site-packages\torch\lib\torch_cuda.dll";
    let ctx = m.ctx(&[("PATH", r"C:\OnPath"), ("CONDA_PREFIX", r"C:\env")], "");
    // 0x1100: PATH is not searched.
    let flags = WindowsOptions {
        load_flags: Some(0x1100),
        ..Default::default()
    };
    assert_eq!(dep(&tree(&ctx, root_path, flags.clone())).0, None);
    let g = tree(&ctx, root_path, flags.clone());
    assert!(g.nodes[0].attempts.iter().all(|a| a.source != How::Path));
    // An AddDllDirectory directory is searched.
    m.place(&dep_dll, r"Added\dep.dll");
    let added = WindowsOptions {
        dll_dirs: vec![r"C:\Added".into()],
        ..flags.clone()
    };
    assert_eq!(
        dep(&tree(&ctx, root_path, added.clone())),
        (Some(r"C:\Added\dep.dll".into()), How::DllDirectory)
    );
    // conda's Python adds <prefix>\Library\bin.
    m.place(&dep_dll, r"env\Library\bin\dep.dll");
    m.remove(r"Added\dep.dll");
    let conda = WindowsOptions {
        preset: Some(Preset::CondaPython),
        ..Default::default()
    };
    assert_eq!(
        dep(&tree(&ctx, root_path, conda)),
        (
            Some(r"C:\env\Library\bin\dep.dll".into()),
            How::DllDirectory
        )
    );
    // Plain Python (no conda patch) does not.
    let python = WindowsOptions {
        preset: Some(Preset::Python),
        app_dir: Some(r"C:\Python".into()),
        ..Default::default()
    };
    assert_eq!(dep(&tree(&ctx, root_path, python.clone())).0, None);
    // The DLL's own directory comes first (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR).
    m.place(&dep_dll, r"env\Lib\site-packages\torch\lib\dep.dll");
    assert_eq!(dep(&tree(&ctx, root_path, python)).1, How::DllLoadDir);
    let torch = WindowsOptions {
        preset: Some(Preset::Torch),
        ..Default::default()
    };
    assert_eq!(dep(&tree(&ctx, root_path, torch)).1, How::DllLoadDir);
}

#[test]
fn set_dll_directory_known_dlls_api_sets_and_wrong_machine() {
    let Some(m) = WinMachine::new() else { return };
    let dep64 = m.build("dep.dll", &[], false);
    let dep32 = m.build("dep.dll", &[], true);
    let known = m.build("known.dll", &[], false);
    let api = m.build("api-ms-win-core-synch-l1-2-0.dll", &[], false);
    let app = m.build(
        "app.exe",
        &["dep.dll", "known.dll", "api-ms-win-core-synch-l1-2-0.dll"],
        false,
    );
    let _ = api;
    m.place(&app, r"App\app.exe");
    m.place(&known, r"App\known.dll");
    m.place(&known, r"Windows\System32\known.dll");
    let registry = "[registry.'HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs']\nknown = \"known.dll\"\n";
    let ctx = m.ctx(&[("PATH", r"C:\P")], registry);
    // SetDllDirectory: its directory comes after the app dir and replaces the cwd.
    m.place(&dep64, r"Set\dep.dll");
    m.place(&dep64, r"Cwd\dep.dll");
    let set = WindowsOptions {
        set_dll_dir: Some(r"C:\Set".into()),
        cwd: Some(r"C:\Cwd".into()),
        ..Default::default()
    };
    let g = tree(&ctx, r"C:\App\app.exe", set);
    assert_eq!(dep(&g), (Some(r"C:\Set\dep.dll".into()), How::DllDirectory));
    // KnownDLLs beat the application directory.
    let known_node = g.nodes.iter().find(|n| n.name == "known.dll").unwrap();
    assert_eq!(
        (known_node.path.as_deref(), known_node.how),
        (Some(r"C:\Windows\System32\known.dll"), How::KnownDll)
    );
    // API sets resolve without a file and are never missing.
    let api_node = g
        .nodes
        .iter()
        .find(|n| n.name.starts_with("api-ms-win"))
        .unwrap();
    assert_eq!(api_node.how, How::ApiSet);
    assert!(api_node.is_resolved());
    // A 32-bit dep.dll in the app dir is skipped; the 64-bit one on PATH is taken.
    m.remove(r"Set\dep.dll");
    m.remove(r"Cwd\dep.dll");
    m.place(&dep32, r"App\dep.dll");
    m.place(&dep64, r"P\dep.dll");
    let g = tree(&ctx, r"C:\App\app.exe", WindowsOptions::default());
    assert_eq!(dep(&g), (Some(r"C:\P\dep.dll".into()), How::Path));
    let node = g.nodes.iter().find(|n| n.name == "dep.dll").unwrap();
    assert!(
        matches!(&node.attempts[0].outcome, Outcome::WrongMachine { found } if found.contains("i386"))
    );
    // Only the 32-bit one: error 193.
    m.remove(r"P\dep.dll");
    let g = tree(&ctx, r"C:\App\app.exe", WindowsOptions::default());
    let findings = graph::checks::check(&ctx, &g);
    let f = findings
        .iter()
        .find(|f| f.code == "library-wrong-machine")
        .expect("193 finding");
    assert!(f.detail.contains("193"), "{}", f.detail);
    assert!(
        findings
            .iter()
            .all(|f| !f.libraries.iter().any(|l| l.starts_with("api-ms-win")))
    );
}
