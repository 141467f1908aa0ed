//! Fuzzes the ELF symbol-version reader (`SymbolTable`: `.gnu.version`, `.gnu.version_r`,
//! `.gnu.version_d`, the dynamic symbols and the GNU hash table), then the symbol-need checks
//! made between two libraries. The input is written to a file first (the table maps its file).
//! Inputs start with `\x7fELF`.
#![no_main]

use cuda_triage_fuzz::binfmt::SymbolTable;
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    if bytes.len() >= 4 {
        bytes[..4].copy_from_slice(b"\x7fELF");
    }
    let Ok(mut file) = tempfile::NamedTempFile::new() else {
        return;
    };
    if file.write_all(&bytes).is_err() {
        return;
    }
    let Ok(Some(table)) = SymbolTable::open(file.path()) else {
        return;
    };
    let mut libraries: Vec<String> = table.needs().map(|n| n.library.to_string()).collect();
    libraries.sort_unstable();
    libraries.dedup();
    for library in libraries.iter().take(8) {
        let _ = table.missing_from(library, &table).count();
    }
    let needs: Vec<(String, String)> = table
        .needs()
        .take(64)
        .map(|n| (n.symbol.to_string(), n.version.to_string()))
        .collect();
    for (symbol, version) in &needs {
        let _ = table.defines(symbol, version);
        let _ = table.has_version(version);
    }
});
