//! The symbol table on libraries gcc builds here: a consumer bound to versioned symbols of a
//! provider, checked against an older provider that lacks one, with the provider's GNU hash
//! table and without one (`--hash-style=sysv`: the sorted index answers).

use super::SymbolTable;
use std::path::Path;
use std::process::Command;

fn gcc(dir: &Path, out: &str, source: &str, extra: &[&str]) {
    let c = dir.join(format!("{out}.c"));
    std::fs::write(&c, source).unwrap();
    let status = Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join(out))
        .arg(&c)
        .args(extra)
        .current_dir(dir)
        .status()
        .expect("gcc runs");
    assert!(status.success(), "gcc built {out}");
}

const SCRIPT: &str =
    "LIBX_1 { global: foo; bar; baz; local: *; };\nLIBX_2 { global: two; } LIBX_1;\n";

/// `dir/new/libx.so.1` (foo, bar, baz; two at LIBX_2), `dir/old/libx.so.1` (foo, bar only)
/// built with `hash`, and `dir/libuse.so` built against the new one.
fn build(dir: &Path, hash: &str) {
    std::fs::write(dir.join("x.map"), SCRIPT).unwrap();
    let style = format!("-Wl,--hash-style={hash}");
    for (sub, body) in [
        (
            "new",
            "int foo(void){return 1;} int bar(void){return 2;} int baz(void){return 3;} int two(void){return 4;}",
        ),
        (
            "old",
            "int foo(void){return 1;} int bar(void){return 2;} int two(void){return 4;}",
        ),
    ] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        gcc(
            dir,
            &format!("{sub}/libx.so.1"),
            body,
            &[
                "-Wl,-soname,libx.so.1",
                "-Wl,--version-script=x.map",
                &style,
            ],
        );
    }
    gcc(
        dir,
        "libuse.so",
        "int foo(void); int baz(void); int two(void); int use(void){return foo()+baz()+two();}",
        &["new/libx.so.1"],
    );
}

fn check(hash: &str) {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), hash);
    let open = |rel: &str| SymbolTable::open(&dir.path().join(rel)).unwrap().unwrap();
    let (user, new, old) = (
        open("libuse.so"),
        open("new/libx.so.1"),
        open("old/libx.so.1"),
    );
    let mut needs: Vec<String> = user
        .needs()
        .filter(|n| n.library == "libx.so.1")
        .map(|n| format!("{}@{}", n.symbol, n.version))
        .collect();
    needs.sort();
    assert_eq!(needs, ["baz@LIBX_1", "foo@LIBX_1", "two@LIBX_2"]);
    assert_eq!(new.gnu_hash.is_some(), hash == "gnu");
    assert!(new.defines("baz", "LIBX_1") && new.defines("two", "LIBX_2"));
    assert!(!new.defines("two", "LIBX_1") && !new.defines("nothing", "LIBX_1"));
    assert!(old.has_version("LIBX_1") && !old.has_version("LIBX_9"));
    // The version-symbol shortcut agrees with a walk of the whole table, the base version too.
    for table in [&new, &old] {
        let walked = table.definitions_by_version();
        for name in ["LIBX_1", "LIBX_2", "libx.so.1"] {
            let by_walk = table
                .defined
                .iter()
                .zip(&walked)
                .any(|(v, &seen)| seen && v.as_deref() == Some(name));
            assert_eq!(table.has_version(name), by_walk, "{name}");
        }
    }
    assert_eq!(user.missing_from("libx.so.1", &new).count(), 0);
    let missing: Vec<String> = user
        .missing_from("libx.so.1", &old)
        .map(|n| format!("{}@{}", n.symbol, n.version))
        .collect();
    assert_eq!(missing, ["baz@LIBX_1"]);
    // glibc's own versions come from libc.so.6, not from libx.
    assert!(
        user.needs()
            .all(|n| n.library != "libx.so.1" || n.version.starts_with("LIBX"))
    );
}

#[test]
fn through_the_gnu_hash_table() {
    check("gnu");
}

#[test]
fn through_the_sorted_index_without_one() {
    check("sysv");
}

#[test]
fn a_file_that_is_not_elf_has_no_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.dll");
    std::fs::write(&path, b"MZ not really").unwrap();
    assert!(SymbolTable::open(&path).unwrap().is_none());
}
