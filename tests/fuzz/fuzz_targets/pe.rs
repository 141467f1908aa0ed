//! Fuzzes the PE parser: every input is made to start with `MZ` so it reaches pelite and our
//! import/delay-import/export/version/string code rather than the magic-byte check.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    if bytes.len() >= 2 {
        bytes[..2].copy_from_slice(b"MZ");
    }
    let _ = cuda_triage_fuzz::binfmt::parse_bytes(&bytes, "fuzz.dll");
});
