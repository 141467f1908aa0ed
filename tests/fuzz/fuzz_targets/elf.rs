//! Fuzzes the ELF parser: every input is made to start with `\x7fELF` so it reaches goblin and
//! our dynamic-section/version-need/symbol/string code rather than the magic-byte check.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    if bytes.len() >= 4 {
        bytes[..4].copy_from_slice(b"\x7fELF");
    }
    let _ = cuda_triage_fuzz::binfmt::parse_bytes(&bytes, "fuzz.so");
});
