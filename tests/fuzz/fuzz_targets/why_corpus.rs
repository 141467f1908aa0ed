//! Fuzzes an error corpus file (`cuda-triage why --corpus FILE`): the TOML of `[[entry]]` tables,
//! then the triage of each entry's text against what it expects (the first eight entries, so an
//! input stays fast).
#![no_main]

use cuda_triage_fuzz::engine::triage::corpus;
use cuda_triage_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(entries) = corpus::parse(&text(data)) else {
        return;
    };
    let _ = corpus::run(&entries[..entries.len().min(8)]);
});
