//! Fuzzes machine files (`--machine FILE`): the TOML, its platform/drives/root checks, and what
//! the engine then reads from the environment and registry text they carry — `PATH` split by
//! platform, `%VAR%` expansion, registry keys and values — up to a full diagnosis of the machine
//! (its folders do not exist, so every rule runs on the environment and registry alone).
#![no_main]

use cuda_triage_fuzz::engine::context::machine_file;
use cuda_triage_fuzz::engine::diagnosis;
use cuda_triage_fuzz::engine::progress::Progress;
use cuda_triage_fuzz::text;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let t = text(data);
    let Ok(ctx) = machine_file::parse(&t, Path::new("/nonexistent/cuda-triage-fuzz/machine.toml"))
    else {
        return;
    };
    let _ = ctx.summary();
    let _ = ctx.path_entries();
    for (_, value) in ctx.env.iter() {
        let _ = ctx.env.expand_percent(value);
    }
    for (key, values) in ctx.registry.keys() {
        let _ = ctx.registry.subkeys(key);
        for (name, _) in values {
            let _ = ctx.registry.value(key, name);
        }
    }
    let opts = cuda_triage_fuzz::scan_options();
    let _ = diagnosis::run_with(&ctx, &Progress::new(), &opts);
});
