//! Fuzzes the triage of pasted text (`cuda-triage why`, the Welcome step's box) on arbitrary
//! bytes — invalid UTF-8 read lossily as the CLI does, very long lines, control characters — on a
//! Windows and a Linux machine without files, then renders the report.
#![no_main]

use cuda_triage_fuzz::engine::api::explain;
use cuda_triage_fuzz::engine::context::Platform;
use cuda_triage_fuzz::engine::report::text::render_text;
use cuda_triage_fuzz::{bare_context, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let platform = match data.first() {
        Some(b) if b & 1 == 1 => Platform::Windows,
        _ => Platform::Linux,
    };
    let pasted = text(data);
    let explained = explain(&bare_context(platform), &pasted);
    let _ = render_text(&explained.report, false);
});
