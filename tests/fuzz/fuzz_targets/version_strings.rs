//! Fuzzes what a binary's *true* version is read from besides its headers: the library names
//! embedded in `.rodata`/`.rdata` (`strings::scan`, both shapes), file names and SONAMEs, the
//! numeric version-resource fields and nvcc's banner (`true_version`).
#![no_main]

use cuda_triage_fuzz::binfmt::strings::{self, Shape};
use cuda_triage_fuzz::binfmt::{VersionInfo, true_version};
use cuda_triage_fuzz::{pieces, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = pieces(data, 2);
    let _ = strings::scan(&[parts[0], parts[1]], Shape::So);
    let _ = strings::scan(&[data], Shape::Dll);
    let t = text(data);
    for line in t.lines().take(32) {
        let _ = true_version::from_original_filename(line);
        let _ = true_version::from_numeric_field(line);
        let _ = true_version::from_nvcc_banner(line);
        let _ = true_version::from_so_name(line);
        let mut info = VersionInfo::default();
        true_version::from_file_name(line, &mut info);
        true_version::pick_pe_version(&mut info, Some([12, 4, 127, 0]));
    }
    let _ = true_version::from_nvcc_banner(&t);
});
