//! Linux oracle in a fake root: a machine with its own binary `/etc/ld.so.cache` (written by
//! `ldconfig -r`) and a `DF_1_NODEFLIB` library, where the emulation on the machine-file context
//! must equal the real glibc loader run under chroot(2) in trace mode.

use crate::oracle_linux::{assert_same_lists, emulate, how_of};
use crate::oracle_support::{So, gcc, have};
use cuda_triage::engine::loader::How;
use std::path::Path;

/// Copies a host file into the fake root at the same path.
fn copy_into(root: &Path, host: &str) {
    let to = root.join(host.trim_start_matches('/'));
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(host, to).unwrap();
}

#[test]
fn custom_ld_so_cache_and_nodeflib_match_the_real_loader_in_a_chroot() {
    let rtld_ok = Path::new(crate::oracle_support::RTLD).exists();
    let libc = "/lib/x86_64-linux-gnu/libc.so.6";
    assert!(
        have("gcc") && have("ldconfig") && rtld_ok && Path::new(libc).exists(),
        "gcc, ldconfig, ld.so and libc are needed: install gcc and libc-bin"
    );
    let dir = tempfile::tempdir().unwrap();
    let build = dir.path().join("build");
    let root = dir.path().join("fs");
    gcc(
        &build,
        So {
            out: "libcached.so.1",
            soname: Some("libcached.so.1"),
            ..Default::default()
        },
    );
    gcc(
        &build,
        So {
            out: "libdef.so",
            soname: Some("libdef.so"),
            ..Default::default()
        },
    );
    let needs = &["libcached.so.1", "libdef.so"];
    gcc(
        &build,
        So {
            out: "app",
            needs,
            exe: true,
            ..Default::default()
        },
    );
    // ld spells DF_1_NODEFLIB `-z nodefaultlib` (`-z nodeflib` is ignored with a warning).
    gcc(
        &build,
        So {
            out: "libnd.so",
            soname: Some("libnd.so"),
            needs,
            extra: &["-Wl,-z,nodefaultlib"],
            ..Default::default()
        },
    );
    gcc(
        &build,
        So {
            out: "app_nodeflib",
            needs: &["libnd.so"],
            exe: true,
            ..Default::default()
        },
    );
    for (from, to) in [
        ("libcached.so.1", "opt/vendor/lib/libcached.so.1"),
        ("libnd.so", "opt/vendor/lib/libnd.so"),
        ("libdef.so", "usr/lib/x86_64-linux-gnu/libdef.so"),
        ("app", "app"),
        ("app_nodeflib", "app_nodeflib"),
    ] {
        let to = root.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(build.join(from), to).unwrap();
    }
    copy_into(&root, crate::oracle_support::RTLD);
    copy_into(&root, libc);
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("etc/ld.so.conf"), "/opt/vendor/lib\n").unwrap();
    let made = std::process::Command::new("ldconfig")
        .arg("-r")
        .arg(&root)
        .status();
    assert!(
        made.is_ok_and(|s| s.success()) && root.join("etc/ld.so.cache").exists(),
        "ldconfig -r {} failed (it needs root, as CI runs)",
        root.display()
    );
    let toml = dir.path().join("machine.toml");
    std::fs::write(&toml, "platform = \"linux\"\nroot = \"fs\"\n").unwrap();
    let ctx = cuda_triage::engine::context::machine_file::load(&toml).unwrap();
    for app in ["/app", "/app_nodeflib"] {
        // chroot(2) in the child, so only ld.so (not a chroot binary) sees the trace variable.
        let mut cmd = std::process::Command::new(crate::oracle_support::RTLD);
        cmd.arg(app).env_clear().env("LD_TRACE_LOADED_OBJECTS", "1");
        let jail = root.clone();
        // SAFETY: only async-signal-safe calls (chroot, chdir) between fork and exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                std::os::unix::fs::chroot(&jail)?;
                std::env::set_current_dir("/")
            });
        }
        let out = cmd.output().expect("ld.so runs");
        assert!(
            !out.stdout.is_empty(),
            "ld.so printed nothing in the chroot (chroot(2) needs root, as CI runs): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let real: Vec<(String, Option<String>)> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let (name, rest) = l.trim().split_once(" => ")?;
                let path = (!rest.starts_with("not found"))
                    .then(|| rest.split(" (0x").next().unwrap_or(rest).trim().to_string());
                Some((name.to_string(), path))
            })
            .collect();
        let g = emulate(&ctx, Path::new(app));
        assert_same_lists(&real, &g, |p| p.to_string(), app);
        if app == "/app" {
            assert_eq!(how_of(&g, "libcached.so.1"), How::LdSoCache);
            assert_eq!(how_of(&g, "libc.so.6"), How::LdSoCache);
        } else {
            // libnd.so's needs: the cache entry under a default directory is refused.
            assert!(
                g.nodes
                    .iter()
                    .any(|n| n.name == "libdef.so" && n.path.is_none())
            );
            assert_eq!(how_of(&g, "libcached.so.1"), How::LdSoCache);
        }
    }
}
