//! A view's record of binaries is its own: two captures, a view that is not capturing and a
//! reopened report in one process never see each other's reads.

use crate::engine::binfmt::cache::Reader;
use crate::engine::context::recorded::RecordedPath;
use crate::engine::context::{FsView, Platform};

/// The binary this test runs as (a real ELF or PE of this host).
fn this_program() -> String {
    std::env::current_exe()
        .expect("the test binary's path")
        .display()
        .to_string()
}

fn recorded_binary(view: &FsView, path: &str) -> bool {
    let recording = view.recording().expect("the view is recording");
    matches!(
        recording.paths.get(&Platform::host().normalize(path)),
        Some(RecordedPath::File {
            binary: Some(_),
            ..
        })
    )
}

#[test]
fn a_capture_records_only_the_binaries_read_through_its_own_view() {
    let path = this_program();
    let mut first = FsView::live(Platform::host());
    first.start_recording();
    let mut second = FsView::live(Platform::host());
    second.start_recording();
    let not_capturing = FsView::live(Platform::host());

    // Both captures hand the file out; only the first (and a view that captures nothing) reads it.
    let second_host = second.file(&path).expect("the test binary is a file");
    let host = not_capturing
        .file(&path)
        .expect("the test binary is a file");
    not_capturing
        .binaries()
        .binary(&host, Reader::HEADERS)
        .expect("it parses");
    assert!(
        !recorded_binary(&second, &path),
        "another view's read was recorded"
    );
    let first_host = first.file(&path).expect("the test binary is a file");
    first
        .binaries()
        .binary(&first_host, Reader::HEADERS)
        .expect("it parses");

    assert!(recorded_binary(&first, &path));
    assert!(
        !recorded_binary(&second, &path),
        "the other capture's read was recorded"
    );
    assert_eq!(second_host, first_host);
}

#[test]
fn a_reopened_report_answers_its_binaries_only_through_its_own_view() {
    let path = this_program();
    let mut capture = FsView::live(Platform::host());
    capture.start_recording();
    let host = capture.file(&path).expect("the test binary is a file");
    let read = capture
        .binaries()
        .binary(&host, Reader::HEADERS)
        .expect("it parses");

    let reopened = FsView::recorded(Platform::host(), capture.recording().expect("recording"));
    let synthetic = reopened.file(&path).expect("the report recorded the file");
    assert_ne!(synthetic, host);
    let replayed = reopened
        .binaries()
        .binary(&synthetic, Reader::HEADERS)
        .expect("the report's record answers");
    assert_eq!(*replayed, *read);

    let elsewhere = FsView::live(Platform::host());
    assert!(
        elsewhere
            .binaries()
            .binary(&synthetic, Reader::HEADERS)
            .is_err(),
        "a view that is no replay answered from the reopened report's record"
    );
}
