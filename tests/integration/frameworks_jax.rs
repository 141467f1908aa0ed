//! The JAX reader on the real files of real releases: jaxlib and the jax-cudaNN plugins (CUDA 11 and 12, and a CPU-only jaxlib),
//! listed in tests/fixtures/framework_releases.toml.

use crate::release_files::{assert_expected, releases, scanned};

#[test]
fn every_listed_jax_release_reads_as_its_files_say() {
    let all = releases("jax");
    assert!(all.len() >= 3, "a spread of releases is listed");
    for rel in &all {
        let (_, _, _, f) = scanned(rel);
        assert_expected(rel, &f);
    }
}
