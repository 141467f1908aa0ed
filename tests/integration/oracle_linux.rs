//! Linux oracle: a matrix of gcc-built fixtures where the emulation on the live context must
//! resolve every library exactly as the real glibc loader does (`ld.so --list` for paths and
//! order, `LD_DEBUG=libs` for which search step found each one), plus a fake root with its own
//! `ld.so.cache` checked against the real loader under `chroot` (oracle_chroot.rs).

use crate::oracle_support::{So, Tag, gcc, gcc32, have, ld_debug_how, ld_list, live_ctx};
use cuda_triage::engine::context::SystemContext;
use cuda_triage::engine::graph::{self, DependencyGraph, GraphOptions};
use cuda_triage::engine::loader::How;
use std::path::Path;

fn canon(p: &str) -> String {
    std::fs::canonicalize(p).map_or_else(|_| p.to_string(), |c| c.display().to_string())
}

pub fn emulate(ctx: &SystemContext, bin: &Path) -> DependencyGraph {
    let opts = GraphOptions {
        runtime: false,
        ..GraphOptions::default()
    };
    graph::build(ctx, &bin.display().to_string(), &opts).expect("graph builds")
}

/// Asserts the emulation equals the real loader for `bin` under `env`; returns the graph.
pub fn assert_like_loader(bin: &Path, env: &[(&str, &str)]) -> DependencyGraph {
    let real = ld_list(bin, env);
    let g = emulate(&live_ctx(env), bin);
    assert_same_lists(&real, &g, canon, &bin.display().to_string());
    let hows = ld_debug_how(bin, env);
    let mut compared = 0;
    for (name, how) in hows {
        if real.iter().any(|(n, p)| *n == name && p.is_some())
            && let Some(node) = g
                .nodes
                .iter()
                .find(|n| n.name == name && n.how != How::Loaded)
        {
            assert_eq!(
                node.how, how,
                "{name}: emulation says {:?}, LD_DEBUG says {how:?}",
                node.how
            );
            compared += 1;
        }
    }
    let searched = g
        .nodes
        .iter()
        .filter(|n| n.path.is_some() && n.how != How::Loaded)
        .count();
    assert!(
        compared > 0 || searched == 0,
        "LD_DEBUG gave nothing to compare for {}",
        bin.display()
    );
    g
}

/// The real loader's list against the emulation: found libraries in load order, and the set of
/// missing names.
pub fn assert_same_lists(
    real: &[(String, Option<String>)],
    g: &DependencyGraph,
    canon: impl Fn(&str) -> String,
    what: &str,
) {
    let emu_found: Vec<(String, String)> = g
        .nodes
        .iter()
        .filter(|n| n.how != How::Loaded)
        .filter_map(|n| n.path.as_ref().map(|p| (n.name.clone(), canon(p))))
        .collect();
    let real_found: Vec<(String, String)> = real
        .iter()
        .filter_map(|(n, p)| p.as_ref().map(|p| (n.clone(), canon(p))))
        .collect();
    assert_eq!(emu_found, real_found, "found libraries differ for {what}");
    let mut emu_missing: Vec<&str> = g
        .nodes
        .iter()
        .filter(|n| n.path.is_none())
        .map(|n| n.name.as_str())
        .collect();
    let mut real_missing: Vec<&str> = real
        .iter()
        .filter(|(_, p)| p.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    emu_missing.sort();
    emu_missing.dedup();
    real_missing.sort();
    real_missing.dedup();
    assert_eq!(
        emu_missing, real_missing,
        "missing libraries differ for {what}"
    );
}

pub fn how_of(g: &DependencyGraph, name: &str) -> How {
    g.nodes
        .iter()
        .find(|n| n.name == name)
        .map(|n| n.how)
        .expect(name)
}

/// The fixture set: liba needs libb; variants of app carry RPATH or RUNPATH to `rp/`.
fn fixtures(dir: &Path) {
    gcc(
        dir,
        So {
            out: "rp/libb.so",
            soname: Some("libb.so"),
            ..Default::default()
        },
    );
    gcc(
        dir,
        So {
            out: "other/libb.so",
            soname: Some("libb.so"),
            ..Default::default()
        },
    );
    gcc(
        dir,
        So {
            out: "rp/liba.so",
            soname: Some("liba.so"),
            needs: &["rp/libb.so"],
            ..Default::default()
        },
    );
    gcc(
        dir,
        So {
            out: "other/liba.so",
            soname: Some("liba.so"),
            ..Default::default()
        },
    );
    let needs = &["rp/liba.so"];
    gcc(
        dir,
        So {
            out: "app_rpath",
            needs,
            tag: Tag::Rpath,
            path: "$ORIGIN/rp",
            exe: true,
            ..Default::default()
        },
    );
    gcc(
        dir,
        So {
            out: "app_runpath",
            needs,
            tag: Tag::Runpath,
            path: "$ORIGIN/rp",
            exe: true,
            ..Default::default()
        },
    );
}

#[test]
fn rpath_runpath_and_ld_library_path_match_the_real_loader() {
    assert!(
        have("gcc") && Path::new(crate::oracle_support::RTLD).exists(),
        "gcc and ld.so are needed: install gcc and libc-bin"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixtures(d);
    // RPATH is inherited: libb (needed by liba) is found through app's RPATH.
    let g = assert_like_loader(&d.join("app_rpath"), &[]);
    assert_eq!(how_of(&g, "libb.so"), How::Rpath);
    // RUNPATH is not inherited: libb is missing.
    let g = assert_like_loader(&d.join("app_runpath"), &[]);
    assert!(
        g.nodes
            .iter()
            .any(|n| n.name == "libb.so" && n.path.is_none())
    );
    // LD_LIBRARY_PATH fills the gap, and beats RUNPATH for liba.
    let other = d.join("other").display().to_string();
    let g = assert_like_loader(&d.join("app_runpath"), &[("LD_LIBRARY_PATH", &other)]);
    assert_eq!(how_of(&g, "liba.so"), How::LdLibraryPath);
    // ... but RPATH beats LD_LIBRARY_PATH.
    let g = assert_like_loader(&d.join("app_rpath"), &[("LD_LIBRARY_PATH", &other)]);
    assert_eq!(how_of(&g, "liba.so"), How::Rpath);
    // Empty LD_LIBRARY_PATH entries mean the current directory.
    assert_like_loader(
        &d.join("app_rpath"),
        &[("LD_LIBRARY_PATH", ":/nonexistent:")],
    );
}

#[test]
fn nested_runpath_tokens_rpath_with_runpath_cycles_and_missing() {
    assert!(
        have("gcc") && Path::new(crate::oracle_support::RTLD).exists(),
        "gcc and ld.so are needed: install gcc and libc-bin"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Nested RUNPATH: libn's own RUNPATH finds its dependency.
    gcc(
        d,
        So {
            out: "n/sub/libdeep.so",
            soname: Some("libdeep.so"),
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "n/libn.so",
            soname: Some("libn.so"),
            needs: &["n/sub/libdeep.so"],
            tag: Tag::Runpath,
            path: "$ORIGIN/sub",
            ..Default::default()
        },
    );
    // $PLATFORM and ${ORIGIN}; an RPATH ignored because RUNPATH is present too. $PLATFORM is
    // what this computer's loader makes of it (`haswell` for glibc 2.36 on an AVX2 CPU).
    let platform = cuda_triage::engine::context::live::ld_platform("x86_64")
        .unwrap_or_else(|| "x86_64".into());
    let plat_out = format!("{platform}/libplat.so");
    gcc(
        d,
        So {
            out: &plat_out,
            soname: Some("libplat.so"),
            ..Default::default()
        },
    );
    // A missing library, and a soname already loaded reused by a later need.
    gcc(
        d,
        So {
            out: "gone/libgone.so",
            soname: Some("libgone.so"),
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "s/libs1.so.1",
            soname: Some("libs1.so.1"),
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "s/libuser.so",
            soname: Some("libuser.so"),
            needs: &["s/libs1.so.1"],
            tag: Tag::Rpath,
            path: "$ORIGIN",
            ..Default::default()
        },
    );
    let needs = &[
        "n/libn.so",
        plat_out.as_str(),
        "gone/libgone.so",
        "s/libs1.so.1",
        "s/libuser.so",
    ];
    gcc(
        d,
        So {
            out: "app",
            needs,
            tag: Tag::Runpath,
            path: "${ORIGIN}/n:$ORIGIN/$PLATFORM:$ORIGIN/s",
            exe: true,
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "app_both",
            needs: &["n/libn.so"],
            tag: Tag::Runpath,
            path: "$ORIGIN/n",
            exe: true,
            extra: &["-Wl,--disable-new-dtags,-rpath,/nonexistent-rpath"],
            ..Default::default()
        },
    );
    std::fs::remove_file(d.join("gone/libgone.so")).unwrap();
    let g = assert_like_loader(&d.join("app"), &[]);
    assert_eq!(how_of(&g, "libdeep.so"), How::Runpath);
    assert_eq!(how_of(&g, "libplat.so"), How::Runpath);
    assert!(
        g.nodes
            .iter()
            .any(|n| n.name == "libs1.so.1" && n.how == How::Loaded)
    );
    assert_like_loader(&d.join("app_both"), &[]);
    // Cycle: two libraries needing each other.
    gcc(
        d,
        So {
            out: "c/libc2.so",
            soname: Some("libc2.so"),
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "c/libc1.so",
            soname: Some("libc1.so"),
            needs: &["c/libc2.so"],
            tag: Tag::Rpath,
            path: "$ORIGIN",
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "c/libc2.so",
            soname: Some("libc2.so"),
            needs: &["c/libc1.so"],
            tag: Tag::Rpath,
            path: "$ORIGIN",
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "c/app",
            needs: &["c/libc1.so"],
            tag: Tag::Rpath,
            path: "$ORIGIN",
            exe: true,
            ..Default::default()
        },
    );
    let g = assert_like_loader(&d.join("c/app"), &[]);
    assert!(
        g.nodes
            .iter()
            .any(|n| n.name == "libc1.so" && n.how == How::Loaded)
    );
}

#[test]
fn wrong_elf_class_is_skipped_like_the_real_loader() {
    assert!(
        have("gcc") && Path::new(crate::oracle_support::RTLD).exists(),
        "gcc and ld.so are needed: install gcc and libc-bin"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(
        gcc32(d, "w32/libw.so", "libw.so").is_some(),
        "gcc -m32 cannot build a 32-bit object here: install gcc-multilib"
    );
    gcc(
        d,
        So {
            out: "w64/libw.so",
            soname: Some("libw.so"),
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "app",
            needs: &["w64/libw.so"],
            tag: Tag::Rpath,
            path: "$ORIGIN/w32:$ORIGIN/w64",
            exe: true,
            ..Default::default()
        },
    );
    gcc(
        d,
        So {
            out: "app32only",
            needs: &["w64/libw.so"],
            tag: Tag::Rpath,
            path: "$ORIGIN/w32",
            exe: true,
            ..Default::default()
        },
    );
    let g = assert_like_loader(&d.join("app"), &[]);
    let node = g.nodes.iter().find(|n| n.name == "libw.so").unwrap();
    assert!(node.path.as_deref().unwrap().ends_with("w64/libw.so"));
    assert_eq!(g.nodes[0].attempts.len(), 2);
    let g = assert_like_loader(&d.join("app32only"), &[]);
    let node = g.nodes.iter().find(|n| n.name == "libw.so").unwrap();
    assert!(node.path.is_none());
    assert!(node.attempts.iter().any(|a| matches!(
        a.outcome,
        cuda_triage::engine::loader::Outcome::WrongMachine { .. }
    )));
}

#[test]
fn system_libraries_resolve_like_the_real_loader() {
    // The live cache and default directories: a few system binaries.
    for bin in [
        "/bin/ls",
        "/usr/bin/gcc",
        "/usr/bin/python3",
        "/usr/bin/ldd",
    ] {
        let p = Path::new(bin);
        let is_elf = std::fs::read(p).is_ok_and(|b| b.starts_with(b"\x7fELF"));
        if is_elf {
            assert_like_loader(p, &[]);
        }
    }
}
