//! Fuzzes the side-by-side manifest reader on its own (the `pe` target reaches it only through a
//! valid resource directory): the UTF-8/UTF-16 decoding, the XML parse (roxmltree) and the
//! `<dependentAssembly>` / `<file>` walk.
#![no_main]

use cuda_triage_fuzz::binfmt::pe_manifest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let xml = pe_manifest::decode(data);
    for id in [1, 2, 3] {
        let _ = pe_manifest::dependencies_in(&xml, id);
    }
    let _ = pe_manifest::assembly_files(&xml);
});
