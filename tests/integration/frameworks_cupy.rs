//! The CuPy reader on the real files of real releases (cupy-cuda102, -cuda110, -cuda11x 11 to 13,
//! -cuda12x 12 to 14, with their `_wheel.json` preloads), listed in
//! tests/fixtures/framework_releases.toml.

use crate::release_machines::check_every_release;

#[test]
fn every_listed_cupy_release_reads_as_its_files_say() {
    check_every_release("cupy", 8);
}
