//! The PyTorch reader on the real files of real releases (1.8 → 2.6; the Linux CUDA wheels and
//! the Windows CPU wheel PyPI serves), listed in tests/fixtures/framework_releases.toml.

use crate::release_machines::check_every_release;

#[test]
fn every_listed_torch_release_reads_as_its_files_say() {
    for (rel, f) in check_every_release("torch", 15) {
        if f.cuda_build == Some(true) && rel.wheel[0].version == "1.8.0" {
            // 1.8 bundles its CUDA runtime in torch/lib under a hashed name.
            assert!(
                f.bundled_libraries
                    .iter()
                    .any(|l| l.starts_with("libcudart-")),
                "{f:#?}"
            );
        }
    }
}
