//! The CuPy reader on the real files of real releases: cupy-cuda102, -cuda110, -cuda12x (13 and 14), with their _wheel.json preloads,
//! listed in tests/fixtures/framework_releases.toml.

use crate::release_files::{assert_expected, releases, scanned};

#[test]
fn every_listed_cupy_release_reads_as_its_files_say() {
    let all = releases("cupy");
    assert!(all.len() >= 3, "a spread of releases is listed");
    for rel in &all {
        let (_, _, _, f) = scanned(rel);
        assert_expected(rel, &f);
    }
}
