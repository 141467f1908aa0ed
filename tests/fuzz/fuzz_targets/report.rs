//! Fuzzes a saved report someone sent: `Report::load` (JSON, schema check), reopening it (the
//! snapshot's machine rebuilt and diagnosed again by this build's rules), every renderer (text,
//! Markdown, HTML) and `compare` of the saved against the re-diagnosed report.
#![no_main]

use cuda_triage_fuzz::Scratch;
use cuda_triage_fuzz::engine::report::{Report, compare, html, markdown, reopen, text};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn scratch() -> &'static Scratch {
    static S: OnceLock<Scratch> = OnceLock::new();
    S.get_or_init(Scratch::new)
}

fuzz_target!(|data: &[u8]| {
    let s = scratch();
    s.write("/report.json", data);
    let Ok(saved) = Report::load(&s.host("/report.json")) else {
        return;
    };
    let _ = text::render_text(&saved, false);
    let _ = markdown::render(&saved);
    let _ = html::render(&saved);
    let again = reopen::rediagnose(saved.clone()).document;
    let _ = text::render_text(&again, true);
    let c = compare::compare(&saved, &again);
    let _ = c.differs();
    let _ = compare::render_text("saved", "again", &c);
    let _ = compare::render_markdown("saved", "again", &c);
    let groups = compare::group(&[("saved".into(), saved), ("again".into(), again)]);
    let _ = compare::render_groups_text(&groups);
    let _ = compare::render_groups_markdown(&groups);
});
