//! The ONNX Runtime reader on the real files of real releases: onnxruntime-gpu 1.12 → 1.20, cuDNN 8 and 9 builds, and the Linux wheel that records no version,
//! listed in tests/fixtures/framework_releases.toml.

use crate::release_files::{assert_expected, releases, scanned};

#[test]
fn every_listed_onnxruntime_release_reads_as_its_files_say() {
    let all = releases("onnxruntime");
    assert!(all.len() >= 3, "a spread of releases is listed");
    for rel in &all {
        let (_, _, _, f) = scanned(rel);
        assert_expected(rel, &f);
    }
}
