//! Unit tests of the Windows search orders with hand-made DLLs (fixtures built with mingw and a
//! fake machine are in tests/integration/oracle_windows.rs).

use super::*;
use crate::engine::binfmt::Format;
use crate::engine::loader::testing::{FakeProbe, binary, machine, pe64};

fn base() -> WindowsSearch {
    WindowsSearch {
        flags: 0,
        safe_dll_search: true,
        app_dir: Some(r"C:\App".into()),
        dll_load_dir: Some(r"C:\Lib".into()),
        user_dirs: vec![r"C:\User1".into(), r"C:\User2".into()],
        set_dll_dir: None,
        system32: r"C:\Windows\System32".into(),
        system16: r"C:\Windows\System".into(),
        windows_dir: r"C:\Windows".into(),
        cwd: Some(r"C:\Cwd".into()),
        path: vec![r"C:\P1".into(), r"C:\P2".into()],
        known_dlls: vec!["kernel32.dll".into()],
        then_standard: false,
    }
}

fn dirs(s: &WindowsSearch) -> Vec<(How, &str)> {
    // leak-free: collect owned then map in the test
    let steps = s.steps();
    steps
        .into_iter()
        .map(|(h, d)| (h, Box::leak(d.into_boxed_str()) as &str))
        .collect()
}

#[test]
fn standard_order_with_safe_dll_search() {
    let s = base();
    assert_eq!(
        dirs(&s),
        vec![
            (How::AppDir, r"C:\App"),
            (How::System32, r"C:\Windows\System32"),
            (How::WindowsDir, r"C:\Windows\System"),
            (How::WindowsDir, r"C:\Windows"),
            (How::Cwd, r"C:\Cwd"),
            (How::Path, r"C:\P1"),
            (How::Path, r"C:\P2"),
        ]
    );
    let mut unsafe_mode = base();
    unsafe_mode.safe_dll_search = false;
    assert_eq!(dirs(&unsafe_mode)[1], (How::Cwd, r"C:\Cwd"));
    let mut set_dir = base();
    set_dir.set_dll_dir = Some(r"C:\Set".into());
    let d = dirs(&set_dir);
    assert_eq!(d[1], (How::DllDirectory, r"C:\Set"));
    assert!(
        d.iter().all(|(h, _)| *h != How::Cwd),
        "SetDllDirectory drops the cwd"
    );
    let mut altered = base();
    altered.flags = LOAD_WITH_ALTERED_SEARCH_PATH;
    assert_eq!(dirs(&altered)[0], (How::DllLoadDir, r"C:\Lib"));
}

#[test]
fn flag_orders_ignore_path() {
    let mut s = base();
    s.flags = 0x1100;
    assert_eq!(
        dirs(&s),
        vec![
            (How::DllLoadDir, r"C:\Lib"),
            (How::AppDir, r"C:\App"),
            (How::DllDirectory, r"C:\User1"),
            (How::DllDirectory, r"C:\User2"),
            (How::System32, r"C:\Windows\System32"),
        ]
    );
    s.flags = LOAD_LIBRARY_SEARCH_SYSTEM32;
    assert_eq!(dirs(&s), vec![(How::System32, r"C:\Windows\System32")]);
    s.flags = LOAD_LIBRARY_SEARCH_USER_DIRS;
    s.set_dll_dir = Some(r"C:\Set".into());
    assert_eq!(dirs(&s).last(), Some(&(How::DllDirectory, r"C:\Set")));
}

/// torch's retry (torch/__init__.py `_load_dll_libraries`): after the 0x1100 folders,
/// `LoadLibraryW`'s standard order with the DLL folders in front of PATH — so PATH counts for
/// torch, as Wine's loader shows (tests/integration/oracle_import_windows/torch.rs).
#[test]
fn torch_retries_a_miss_with_the_standard_order_and_its_folders_before_path() {
    let mut s = base();
    s.flags = 0x1100;
    s.then_standard = true;
    assert_eq!(
        dirs(&s),
        vec![
            (How::DllLoadDir, r"C:\Lib"),
            (How::AppDir, r"C:\App"),
            (How::DllDirectory, r"C:\User1"),
            (How::DllDirectory, r"C:\User2"),
            (How::System32, r"C:\Windows\System32"),
            (How::WindowsDir, r"C:\Windows\System"),
            (How::WindowsDir, r"C:\Windows"),
            (How::Cwd, r"C:\Cwd"),
            (How::Path, r"C:\P1"),
            (How::Path, r"C:\P2"),
        ]
    );
}

#[test]
fn api_sets_known_dlls_case_and_wrong_machine() {
    let mut probe = FakeProbe::windows();
    probe.add(r"C:\Windows\System32\KERNEL32.DLL", pe64(&[]));
    probe.add(r"C:\App\zlibwapi.dll", binary(Format::Pe, "i386", 32, &[]));
    probe.add(r"C:\P2\ZLIBWAPI.DLL", pe64(&[]));
    let s = base();
    let want = machine("x86_64", 64);
    let r = s.resolve("api-ms-win-core-libraryloader-l1-2-0.dll", &want, &probe);
    assert!(r.is_resolved() && r.path.is_none() && r.how == How::ApiSet);
    let r = s.resolve("Kernel32.dll", &want, &probe);
    assert_eq!(r.how, How::KnownDll);
    let r = s.resolve("zlibwapi", &want, &probe);
    assert_eq!(r.path.as_deref(), Some(r"C:\P2\zlibwapi.dll"));
    assert_eq!(r.how, How::Path);
    assert_eq!(r.wrong_machine().count(), 1);
    let r = s.resolve("cudnn64_8.dll", &want, &probe);
    assert!(!r.is_resolved());
    assert_eq!(r.attempts.len(), 7);
}

#[test]
fn flags_parse() {
    assert_eq!(parse_flags("0x1100"), Ok(0x1100));
    assert_eq!(parse_flags("1100h"), Ok(0x1100));
    assert_eq!(parse_flags("8"), Ok(8));
    assert!(parse_flags("zz").is_err());
}
