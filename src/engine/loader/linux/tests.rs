//! Unit tests of the ld.so search order with hand-made binaries (the oracle tests against the
//! real loader live in tests/integration/oracle_linux.rs).

use super::*;
use crate::engine::binfmt::Format;
use crate::engine::loader::ldcache::LdCache;
use crate::engine::loader::testing::{FakeProbe, binary, elf64, machine};

fn search() -> LinuxSearch {
    LinuxSearch {
        ld_library_path: Vec::new(),
        cache: CacheSource::None,
        default_dirs: vec!["/lib/x86_64-linux-gnu".into(), "/usr/lib".into()],
        lib_token: "lib/x86_64-linux-gnu".into(),
        platform_token: std::sync::OnceLock::new(),
        arch: "x86_64".into(),
        live: false,
        cwd: "/work".into(),
    }
}

fn with_rpath(rpath: &[&str], runpath: &[&str]) -> BinaryInfo {
    let mut b = elf64(&[]);
    b.rpath = rpath.iter().map(|s| s.to_string()).collect();
    b.runpath = runpath.iter().map(|s| s.to_string()).collect();
    b
}

fn obj<'a>(path: &'a str, info: &'a BinaryInfo) -> LinuxObject<'a> {
    LinuxObject { path, info }
}

#[test]
fn expansion_of_tokens_and_empty_entries() {
    let s = search();
    assert_eq!(s.expand("$ORIGIN/../lib", "/opt/app/bin"), "/opt/app/lib");
    assert_eq!(s.expand("${ORIGIN}/x", "/o"), "/o/x");
    assert_eq!(s.expand("/usr/$LIB", "/o"), "/usr/lib/x86_64-linux-gnu");
    assert_eq!(s.expand("/p/${PLATFORM}", "/o"), "/p/x86_64");
    assert_eq!(s.expand("", "/o"), "/work");
    assert_eq!(s.expand("rel", "/o"), "/work/rel");
}

#[test]
fn rpath_is_inherited_runpath_is_not() {
    let mut probe = FakeProbe::default();
    probe.add("/main/rp/libc1.so", elf64(&[]));
    let main = with_rpath(&["$ORIGIN/rp"], &[]);
    let mid = with_rpath(&[], &[]);
    let s = search();
    let want = machine("x86_64", 64);
    // libmid (no tags) loaded by main (RPATH): main's RPATH applies to libmid's needs.
    let r = s.resolve(
        "libc1.so",
        &[obj("/lib/libmid.so", &mid), obj("/main/app", &main)],
        obj("/main/app", &main),
        &want,
        &probe,
    );
    assert_eq!(r.path.as_deref(), Some("/main/rp/libc1.so"));
    assert_eq!(r.how, How::Rpath);
    // The same with RUNPATH on main: not inherited, so libmid's need is missing.
    let main_rp = with_rpath(&[], &["$ORIGIN/rp"]);
    let r = s.resolve(
        "libc1.so",
        &[obj("/lib/libmid.so", &mid), obj("/main/app", &main_rp)],
        obj("/main/app", &main_rp),
        &want,
        &probe,
    );
    assert_eq!(r.path, None);
    // A loader with RUNPATH disables every RPATH, its own and the inherited ones.
    let mid_runpath = with_rpath(&["/ignored"], &["/nowhere"]);
    let r = s.resolve(
        "libc1.so",
        &[obj("/lib/libmid.so", &mid_runpath), obj("/main/app", &main)],
        obj("/main/app", &main),
        &want,
        &probe,
    );
    assert_eq!(r.path, None);
    assert!(r.attempts.iter().all(|a| a.source != How::Rpath));
    assert!(r.attempts.iter().any(|a| a.directory == "/nowhere"));
}

#[test]
fn order_rpath_llp_runpath_cache_default_and_wrong_class_skip() {
    let mut probe = FakeProbe::default();
    probe.add("/llp/libx.so", binary(Format::Elf, "i386", 32, &[]));
    probe.add("/usr/lib/libx.so", elf64(&[]));
    let mut s = search();
    s.ld_library_path = vec!["/llp".into()];
    let main = with_rpath(&[], &["/rp"]);
    let want = machine("x86_64", 64);
    let r = s.resolve("libx.so", &[], obj("/a/app", &main), &want, &probe);
    assert_eq!(r.path.as_deref(), Some("/usr/lib/libx.so"));
    assert_eq!(r.how, How::Default);
    let sources: Vec<(How, &str)> = r
        .attempts
        .iter()
        .map(|a| (a.source, a.directory.as_str()))
        .collect();
    assert_eq!(
        sources,
        vec![
            (How::LdLibraryPath, "/llp"),
            (How::Runpath, "/rp"),
            (How::LdSoCache, "/etc/ld.so.cache"),
            (How::Default, "/lib/x86_64-linux-gnu"),
            (How::Default, "/usr/lib"),
        ]
    );
    assert_eq!(r.wrong_machine().count(), 1);
}

#[test]
fn cache_and_nodeflib() {
    let cache_bytes = std::fs::read("/etc/ld.so.cache").ok();
    let Some(cache) = cache_bytes.and_then(|b| LdCache::parse(&b).ok()) else {
        return;
    };
    let Some(entry) = cache.lookup("libc.so.6", &machine("x86_64", 64)) else {
        return;
    };
    let mut probe = FakeProbe::default();
    probe.add(&entry.path, elf64(&[]));
    let mut s = search();
    s.cache = CacheSource::Binary(std::sync::Arc::new(cache));
    s.default_dirs = vec![Platform::Linux.parent(&entry.path).unwrap()];
    let mut main = elf64(&[]);
    let want = machine("x86_64", 64);
    let r = s.resolve("libc.so.6", &[], obj("/a/app", &main), &want, &probe);
    assert_eq!(r.how, How::LdSoCache);
    assert_eq!(r.path.as_deref(), Some(entry.path.as_str()));
    main.nodeflib = true;
    let r = s.resolve("libc.so.6", &[], obj("/a/app", &main), &want, &probe);
    assert_eq!(r.path, None, "nodeflib skips cache entries in default dirs");
}

#[test]
fn slash_names_and_unreadable_files() {
    let mut probe = FakeProbe::default();
    probe.add("/a/sub/libz.so", elf64(&[]));
    probe.add_junk("/usr/lib/libjunk.so");
    let s = search();
    let main = elf64(&[]);
    let want = machine("x86_64", 64);
    let r = s.resolve("sub/libz.so", &[], obj("/a/app", &main), &want, &probe);
    assert_eq!(r.path, None, "relative to the current directory, /work");
    assert_eq!(r.attempts[0].directory, "/work/sub");
    assert_eq!(r.how, How::Direct);
    let r = s.resolve(
        "$ORIGIN/sub/libz.so",
        &[],
        obj("/a/app", &main),
        &want,
        &probe,
    );
    assert_eq!(r.path.as_deref(), Some("/a/sub/libz.so"));
    let r = s.resolve("/a/sub/libz.so", &[], obj("/a/app", &main), &want, &probe);
    assert_eq!(r.path.as_deref(), Some("/a/sub/libz.so"));
    let r = s.resolve("libjunk.so", &[], obj("/a/app", &main), &want, &probe);
    assert_eq!(r.path, None);
    assert!(r.unreadable().is_some());
}
