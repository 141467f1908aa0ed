//! Fuzzes the ELF symbol-version reader (`read_versioned_symbols`, through its in-memory twin
//! `parse_versioned_symbols`): `.gnu.version`, `.gnu.version_r`, `.gnu.version_d` and the dynamic
//! symbols, then the symbol-need checks made between two libraries. Inputs start with `\x7fELF`.
#![no_main]

use cuda_triage_fuzz::binfmt::parse_versioned_symbols;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    if bytes.len() >= 4 {
        bytes[..4].copy_from_slice(b"\x7fELF");
    }
    let Ok(syms) = parse_versioned_symbols(&bytes, "fuzz.so") else {
        return;
    };
    let mut libraries: Vec<&str> = syms.needs.iter().map(|n| n.library.as_str()).collect();
    libraries.sort_unstable();
    libraries.dedup();
    for library in libraries.into_iter().take(8) {
        let _ = syms.missing_from(library, &syms);
    }
    for need in syms.needs.iter().take(64) {
        let _ = syms.defines(&need.symbol, &need.version);
        let _ = syms.has_version(&need.version);
    }
});
