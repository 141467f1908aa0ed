//! Side-by-side manifests with Wine's loader as the oracle: a program built with mingw embeds an
//! application manifest (windres, RT_MANIFEST 1) that depends on a private assembly beside it and
//! on a shared one in the WinSxS store; both DLL names also exist, as decoys, in the application
//! folder, which the standard search would take. Wine's activation context loads the assemblies'
//! copies; `tree` on a machine file over the same drive must say the same, found `side_by_side`,
//! and list the assemblies with where each manifest was found. A .NET assembly's header is read
//! from a real one (Python.NET's `Python.Runtime.dll` from its PyPI wheel).

use super::support::{json, run_cli};
use super::wine_support::{Prefix, build_c, build_dll, tree_node};
use std::path::Path;
use std::process::Command;

const SHARED: &str = "amd64_ct.shared_0123456789abcdef_1.0.0.0_none_deadbeef";

const APP_MANIFEST: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0">
  <dependency><dependentAssembly>
    <assemblyIdentity type="win32" name="CT.Private" version="1.0.0.0" processorArchitecture="amd64"/>
  </dependentAssembly></dependency>
  <dependency><dependentAssembly>
    <assemblyIdentity type="win32" name="CT.Shared" version="1.0.0.0" processorArchitecture="amd64" publicKeyToken="0123456789abcdef"/>
  </dependentAssembly></dependency>
</assembly>
"#;

fn assembly_manifest(name: &str, token: Option<&str>, file: &str) -> String {
    let token = token.map_or(String::new(), |t| format!(r#" publicKeyToken="{t}""#));
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0">
  <assemblyIdentity type="win32" name="{name}" version="1.0.0.0" processorArchitecture="amd64"{token}/>
  <file name="{file}"/>
</assembly>
"#
    )
}

const APP_C: &str = r#"
#include <windows.h>
#include <stdio.h>
__declspec(dllimport) int f_ctpriv(void);
__declspec(dllimport) int f_ctshared(void);
int main(void) {
    wchar_t buf[1024];
    const wchar_t *names[] = { L"ctpriv.dll", L"ctshared.dll" };
    for (int i = 0; i < 2; i++) {
        GetModuleFileNameW(GetModuleHandleW(names[i]), buf, 1024);
        printf("%ls %ls\n", names[i], buf);
    }
    return f_ctpriv() + f_ctshared() == 2 ? 0 : 1;
}
"#;

fn put(wine: &Prefix, windows_path: &str, bytes: impl AsRef<[u8]>) {
    let host = wine.c(windows_path);
    std::fs::create_dir_all(host.parent().unwrap()).unwrap();
    std::fs::write(host, bytes).unwrap();
}

#[test]
fn side_by_side_assemblies_resolve_as_wines_activation_context_does() {
    let wine = Prefix::new();
    let build = wine.folder().join("build");
    let private = build_dll(&build, "ctpriv.dll", &[], false);
    let shared = build_dll(&build, "ctshared.dll", &[], false);
    // The program, linked against both DLLs, with its manifest as resource 1 of type 24.
    std::fs::write(build.join("app.manifest"), APP_MANIFEST).unwrap();
    std::fs::write(build.join("app.rc"), "1 24 \"app.manifest\"\n").unwrap();
    let res = build.join("app_res.o");
    let o = Command::new("x86_64-w64-mingw32-windres")
        .current_dir(&build)
        .args(["app.rc", "-O", "coff", "-o"])
        .arg(&res)
        .output()
        .expect("x86_64-w64-mingw32-windres runs (install binutils-mingw-w64-x86-64)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let exe = wine.c(r"C:\app\sxsapp.exe");
    build_c(
        &exe,
        APP_C,
        &[
            res.to_str().unwrap(),
            private.to_str().unwrap(),
            shared.to_str().unwrap(),
        ],
    );
    let dll = |p: &Path| std::fs::read(p).unwrap();
    // The assemblies, and decoys where the standard search looks first.
    put(&wine, r"C:\app\CT.Private\ctpriv.dll", dll(&private));
    put(
        &wine,
        r"C:\app\CT.Private\CT.Private.manifest",
        assembly_manifest("CT.Private", None, "ctpriv.dll"),
    );
    put(
        &wine,
        &format!(r"C:\windows\winsxs\{SHARED}\ctshared.dll"),
        dll(&shared),
    );
    put(
        &wine,
        &format!(r"C:\windows\winsxs\manifests\{SHARED}.manifest"),
        assembly_manifest("CT.Shared", Some("0123456789abcdef"), "ctshared.dll"),
    );
    put(&wine, r"C:\app\ctpriv.dll", dll(&private));
    put(&wine, r"C:\app\ctshared.dll", dll(&shared));

    let out = wine.command(r"C:\app\sxsapp.exe").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout)
        .replace('\r', "")
        .to_lowercase();
    assert_eq!(out.status.code(), Some(0), "{said}{out:?}");
    let real = |name: &str| -> String {
        said.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{said}"))
            .to_string()
    };
    assert_eq!(real("ctpriv.dll"), r"c:\app\ct.private\ctpriv.dll");
    assert_eq!(
        real("ctshared.dll"),
        format!(r"c:\windows\winsxs\{SHARED}\ctshared.dll")
    );

    // The emulation, on a machine file over the same drive.
    let machine = wine.folder().join("machine.toml");
    std::fs::write(
        &machine,
        format!(
            "platform = \"windows\"\n[drives]\nC = '{}'\n[env]\nSystemRoot = 'C:\\windows'\nPATH = 'C:\\windows\\system32;C:\\windows'\n",
            wine.drive_c().display()
        ),
    )
    .unwrap();
    let tree_of_app = || {
        json(&run_cli(&[
            "tree",
            r"C:\app\sxsapp.exe",
            "--machine",
            machine.to_str().unwrap(),
            "--json",
        ]))
    };
    let tree = tree_of_app();
    for name in ["ctpriv.dll", "ctshared.dll"] {
        let node = tree_node(&tree, name);
        assert_eq!(node["path"].as_str().unwrap().to_lowercase(), real(name));
        assert_eq!(node["how"], "side_by_side", "{node:#}");
    }
    let assemblies = tree["root_info"]["assemblies"].as_array().unwrap();
    assert_eq!(assemblies.len(), 2);
    assert_eq!(assemblies[0]["name"], "CT.Private");
    assert_eq!(assemblies[0]["store"], "private");
    assert_eq!(assemblies[1]["store"], "winsxs");

    // Without the private assembly's manifest, Windows cannot build the activation context and
    // the program does not start (error 14001, "side-by-side configuration is incorrect").
    // Wine 8.0 differs: it drops the whole context and starts the program with the standard
    // search (both decoys), so here the emulation follows Windows and the test says so.
    std::fs::remove_file(wine.c(r"C:\app\CT.Private\CT.Private.manifest")).unwrap();
    let out = wine.command(r"C:\app\sxsapp.exe").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        said.contains(r"ctshared.dll c:\app\ctshared.dll"),
        "Wine now refuses a broken activation context as Windows does; make this case agree: {said}"
    );
    let tree = tree_of_app();
    let missing = &tree["root_info"]["assemblies"][0];
    assert!(missing["manifest"].is_null(), "{missing:#}");
    assert!(
        missing["tried"].to_string().contains("CT.Private.manifest"),
        "{missing:#}"
    );
    let finding = tree["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "assembly-not-found")
        .unwrap_or_else(|| panic!("{:#}", tree["findings"]));
    assert_eq!(finding["severity"], "error");
    assert!(
        finding["summary"]
            .as_str()
            .unwrap()
            .contains("CT.Private 1.0.0.0")
    );
}

#[test]
fn a_python_net_assembly_is_described_with_its_bitness_and_the_python_it_is_given() {
    use super::wheels::{WheelPlatform, wheel_member};
    use cuda_triage::engine::context::Platform;
    use cuda_triage::engine::context::fake::FakeMachine;
    // The real Python.NET 3.0.5 runtime (an Any CPU assembly) and a 64-bit python DLL.
    let runtime = wheel_member(
        "pythonnet",
        "3.0.5",
        WheelPlatform::Windows,
        "pythonnet/runtime/Python.Runtime.dll",
    );
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.copy(r"C:\app\Python.Runtime.dll", &runtime);
    let build = m.folder().join("build");
    let python = build_dll(&build, "python311.dll", &[], false);
    m.copy(r"C:\Python311\python311.dll", &python);
    m.env("PATH", r"C:\Windows\System32")
        .env("PYTHONNET_PYDLL", r"C:\Python311\python311.dll")
        .env("PYTHONHOME", r"C:\Python311");
    let machine = m.write_machine_file().unwrap();
    let tree = json(&run_cli(&[
        "tree",
        r"C:\app\Python.Runtime.dll",
        "--machine",
        machine.to_str().unwrap(),
        "--json",
    ]));
    let clr = &tree["root_info"]["clr"];
    assert_eq!(clr["runtime"], "v4.0.30319", "{clr:#}");
    assert_eq!(clr["platform"], "any", "{clr:#}");
    assert_eq!(clr["il_only"], true);
    assert!(clr["runs"].as_str().unwrap().contains("32- or 64-bit"));
    assert_eq!(clr["python_env"]["PYTHONHOME"], r"C:\Python311");
    assert_eq!(clr["python_env"]["pydll_bits"], 64, "{clr:#}");
    // A native DLL has no CLR header.
    let tree = json(&run_cli(&[
        "tree",
        r"C:\Python311\python311.dll",
        "--machine",
        machine.to_str().unwrap(),
        "--json",
    ]));
    assert!(tree["root_info"]["clr"].is_null());
}
