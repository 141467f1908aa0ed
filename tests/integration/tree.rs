//! `cuda-triage tree`: the JSON contract (`root`, `nodes`), text output, context flags, exit
//! codes (0 clean, 1 an error finding, 2 the tool failed) on fake machines and on this computer.

use crate::oracle_support::{So, Tag, gcc, have};
use crate::support::{json, run_cli, stderr, stdout};
use std::path::Path;

/// A fake Linux machine: `fs/` is `/`, its cache described by /etc/ld.so.conf.
fn linux_machine(dir: &Path) -> String {
    let root = dir.join("fs");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::create_dir_all(root.join("opt/cuda/lib64")).unwrap();
    std::fs::write(root.join("etc/ld.so.conf"), "/opt/cuda/lib64\n").unwrap();
    let b = dir.join("build");
    gcc(
        &b,
        So {
            out: "libcudart.so.12",
            soname: Some("libcudart.so.12"),
            ..Default::default()
        },
    );
    gcc(
        &b,
        So {
            out: "libcublasLt.so.12",
            soname: Some("libcublasLt.so.12"),
            ..Default::default()
        },
    );
    gcc(
        &b,
        So {
            out: "libcublas.so.12",
            soname: Some("libcublas.so.12"),
            needs: &["libcublasLt.so.12"],
            ..Default::default()
        },
    );
    gcc(
        &b,
        So {
            out: "app",
            needs: &["libcudart.so.12", "libcublas.so.12"],
            tag: Tag::Runpath,
            path: "$ORIGIN/../lib",
            exe: true,
            ..Default::default()
        },
    );
    std::fs::create_dir_all(root.join("app/bin")).unwrap();
    std::fs::create_dir_all(root.join("app/lib")).unwrap();
    std::fs::copy(b.join("app"), root.join("app/bin/app")).unwrap();
    std::fs::copy(
        b.join("libcudart.so.12"),
        root.join("app/lib/libcudart.so.12"),
    )
    .unwrap();
    std::fs::copy(
        b.join("libcublas.so.12"),
        root.join("opt/cuda/lib64/libcublas.so.12"),
    )
    .unwrap();
    // libcublasLt.so.12 exists only somewhere the loader does not look.
    std::fs::create_dir_all(root.join("usr/local/cuda-12.4/lib64")).unwrap();
    std::fs::copy(
        b.join("libcublasLt.so.12"),
        root.join("usr/local/cuda-12.4/lib64/libcublasLt.so.12"),
    )
    .unwrap();
    let toml = dir.join("machine.toml");
    std::fs::write(
        &toml,
        "platform = \"linux\"\nroot = \"fs\"\n[env]\nPATH = \"/usr/bin\"\n",
    )
    .unwrap();
    toml.display().to_string()
}

#[test]
fn json_contract_on_a_fake_linux_machine() {
    assert!(
        have("gcc"),
        "the test builds an ELF with gcc (install Debian's gcc)"
    );
    let dir = tempfile::tempdir().unwrap();
    let machine = linux_machine(dir.path());
    let out = run_cli(&[
        "tree",
        "--machine",
        &machine,
        "/app/bin/app",
        "--json",
        "--no-runtime",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["schema"], "cuda-triage/1");
    assert_eq!(doc["root"], "/app/bin/app");
    let nodes = doc["nodes"].as_array().unwrap();
    let find = |name: &str| {
        nodes
            .iter()
            .find(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let cudart = find("libcudart.so.12");
    assert_eq!(cudart["path"], "/app/lib/libcudart.so.12");
    assert_eq!(cudart["how"], "runpath");
    assert_eq!(cudart["parent"], "/app/bin/app");
    assert_eq!(cudart["depth"], 1);
    assert_eq!(cudart["machine"], "x86_64");
    for key in [
        "name", "path", "how", "parent", "depth", "version", "machine", "attempts",
    ] {
        assert!(cudart.get(key).is_some(), "node lacks {key}: {cudart}");
    }
    assert_eq!(find("libcublas.so.12")["how"], "ld_so_cache");
    let lt = find("libcublasLt.so.12");
    assert!(lt["path"].is_null());
    assert_eq!(lt["depth"], 2);
    assert!(
        lt["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["source"] == "ld_so_cache")
    );
    let finding = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "library-not-found" && f["libraries"][0] == "libcublasLt.so.12")
        .expect("missing cublasLt");
    assert!(
        finding["detail"]
            .as_str()
            .unwrap()
            .contains("app → libcublas.so.12 → libcublasLt.so.12")
    );
    assert!(
        finding["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["path"] == "/usr/local/cuda-12.4/lib64/libcublasLt.so.12")
    );

    let out = run_cli(&[
        "tree",
        "--machine",
        &machine,
        "/app/bin/app",
        "--no-runtime",
    ]);
    let text = stdout(&out);
    assert!(
        text.starts_with("/app/bin/app (x86_64, 64-bit)\n"),
        "{text}"
    );
    assert!(
        text.contains("├── libcudart.so.12 [runpath] /app/lib/libcudart.so.12"),
        "{text}"
    );
    assert!(text.contains("libcublasLt.so.12 not found"), "{text}");
    assert!(
        text.contains("┊ tried runpath /app/lib — not there"),
        "{text}"
    );

    let out = run_cli(&[
        "tree",
        "--machine",
        &machine,
        "/app/bin/app",
        "--json",
        "--max-depth",
        "1",
    ]);
    let doc = json(&out);
    assert!(
        doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["depth"] == 1)
    );
    // Run-time loads: cudart opens the driver, absent here.
    let out = run_cli(&["tree", "--machine", &machine, "/app/bin/app", "--json"]);
    let doc = json(&out);
    let cuda = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "libcuda.so.1")
        .expect("driver edge");
    assert_eq!(cuda["how"], "runtime");
    assert_eq!(cuda["runtime"]["required"], true);
}

#[test]
fn windows_context_flags_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("machine.toml");
    std::fs::create_dir_all(dir.path().join("C/Windows/System32")).unwrap();
    std::fs::write(&toml, "platform = \"windows\"\n[drives]\nC = \"C\"\n").unwrap();
    let machine = toml.display().to_string();
    // Not a binary / missing: exit 2 with a JSON error.
    std::fs::write(dir.path().join("C/junk.dll"), b"not a dll").unwrap();
    for target in [r"C:\junk.dll", r"C:\missing.dll"] {
        let out = run_cli(&["tree", "--machine", &machine, target, "--json"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            json(&out)["error"]["message"]
                .as_str()
                .unwrap()
                .contains(target)
        );
    }
    let out = run_cli(&[
        "tree",
        "--machine",
        &machine,
        r"C:\junk.dll",
        "--load-flags",
        "zz",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("0x1100"));
    // A bare name is searched for as the process would (issue 11): here nothing has it.
    let out = run_cli(&["tree", "--machine", &machine, "relative.dll", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["findings"][0]["code"], "library-not-found");
    assert!(
        have("x86_64-w64-mingw32-gcc"),
        "x86_64-w64-mingw32-gcc is needed: install gcc-mingw-w64-x86-64"
    );
    let b = dir.path().join("build");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(
        b.join("dep.c"),
        "__declspec(dllexport) int dep(void){return 1;}\n",
    )
    .unwrap();
    std::fs::write(
        b.join("root.c"),
        "__declspec(dllimport) int dep(void);\nint r(void){return dep();}\n",
    )
    .unwrap();
    let mingw = |args: &[&str]| {
        let o = std::process::Command::new("x86_64-w64-mingw32-gcc")
            .current_dir(&b)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    mingw(&["-shared", "-nostdlib", "-Wl,-e,0", "-o", "dep.dll", "dep.c"]);
    mingw(&[
        "-shared",
        "-nostdlib",
        "-Wl,-e,0",
        "-o",
        "root.dll",
        "root.c",
        "dep.dll",
    ]);
    std::fs::create_dir_all(dir.path().join("C/Lib")).unwrap();
    std::fs::create_dir_all(dir.path().join("C/Extra")).unwrap();
    std::fs::copy(b.join("root.dll"), dir.path().join("C/Lib/root.dll")).unwrap();
    std::fs::copy(b.join("dep.dll"), dir.path().join("C/Extra/DEP.DLL")).unwrap();
    let out = run_cli(&[
        "tree",
        "--machine",
        &machine,
        r"C:\Lib\root.dll",
        "--json",
        "--load-flags",
        "0x1100",
        "--dll-dir",
        r"C:\Extra",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let doc = json(&out);
    let dep = &doc["nodes"][0];
    assert_eq!(dep["name"], "dep.dll");
    assert_eq!(dep["how"], "dll_directory");
    assert_eq!(dep["path"], r"C:\Extra\dep.dll");
    let out = run_cli(&[
        "tree",
        "--machine",
        &machine,
        r"C:\Lib\root.dll",
        "--json",
        "--context",
        "python",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let out = run_cli(&[
        "tree",
        "--machine",
        &machine,
        r"C:\Lib\root.dll",
        "--set-dll-dir",
        r"C:\Extra",
    ]);
    assert!(stdout(&out).contains("[dll_directory]"), "{}", stdout(&out));
}

#[test]
fn live_tree_of_a_system_binary_and_the_bench_flag() {
    let out = run_cli(&["tree", "/bin/ls", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["root"], "/bin/ls");
    assert!(
        doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["name"] == "libc.so.6")
    );
    let out = run_cli(&["tree", "/bin/ls", "--bench", "3"]);
    assert!(stderr(&out).contains("tree --bench 3"), "{}", stderr(&out));
}

/// Names embedded in a dependency are followed as run-time loads only when the dependency is an
/// NVIDIA or framework library: a helper elsewhere that mentions `libtriage_plugin.so.1` (as
/// libselinux or libmount mention their plug-ins) adds nothing; the same helper inside a
/// framework's site-packages folder adds the run-time edge.
#[test]
fn embedded_names_are_followed_only_out_of_nvidia_and_framework_libraries() {
    use crate::fixtures_build::SoSpec;
    let dir = tempfile::tempdir().unwrap();
    for folder in ["plain", "venv/lib/python3.11/site-packages/fw"] {
        let d = dir.path().join(folder);
        std::fs::create_dir_all(&d).unwrap();
        let helper = SoSpec::new("libtriage_helper.so")
            .soname("libtriage_helper.so")
            .source("const char *fixture_plugin = \"libtriage_plugin.so.1\";\n")
            .build(&d)
            .expect("gcc builds the helper");
        let root = SoSpec::new("libtriage_root.so")
            .soname("libtriage_root.so")
            .link_with(&helper)
            .runpath(&["$ORIGIN"])
            .build(&d)
            .unwrap();
        let o = run_cli(&["tree", root.to_str().unwrap(), "--json"]);
        let v = json(&o);
        let plugin = v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["name"] == "libtriage_plugin.so.1");
        assert_eq!(plugin, folder != "plain", "{folder}: {v:#}");
    }
}
