//! The JAX reader on the real files of real releases (the jax-cudaNN plugins for CUDA 11 and 12,
//! and a CPU-only jaxlib), listed in tests/fixtures/framework_releases.toml; and the rules on
//! them: ptxas and libdevice for XLA, and CUDA pieces (plugin, PJRT plugin) of different releases.

use crate::release_machines::check_every_release;

#[test]
fn every_listed_jax_release_reads_as_its_files_say() {
    check_every_release("jax", 4);
}

/// Real JAX 0.6.0 with its CUDA 12 plugin, whose METADATA asks for nvidia-cuda-nvcc-cu12 at
/// 12.6.85 or newer, on a machine whose PATH leads to CUDA 12.4's ptxas: the finding names ptxas
/// and both versions.
#[test]
fn a_toolkit_ptxas_older_than_the_plugin_asks_for_is_named_with_both_versions() {
    use cuda_triage::engine::progress::Progress;
    use cuda_triage::engine::rules;
    let rel = crate::release_files::release("jax", "0.6.0", "linux");
    let (mut m, _) = crate::release_machines::machine_with(&rel);
    m.file(
        "/usr/local/cuda-12.4/version.json",
        r#"{"cuda" : {"name" : "CUDA SDK", "version" : "12.4.1"}}"#,
    )
    .file("/usr/local/cuda-12.4/bin/ptxas", b"\x7fELF")
    .file("/usr/local/cuda-12.4/bin/nvcc", b"\x7fELF")
    .file("/usr/local/cuda-12.4/nvvm/libdevice/libdevice.10.bc", b"BC")
    .env("PATH", "/usr/local/cuda-12.4/bin:/usr/bin:/bin");
    let ctx = m.context();
    let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
    let findings = rules::run_all(&ctx, &inv);
    let f = findings
        .iter()
        .find(|f| f.code == "ptxas-too-old")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert!(f.summary.contains("ptxas 12.4"), "{}", f.summary);
    assert!(f.summary.contains("12.6.85"), "{}", f.summary);
    assert!(f.detail.contains("nvidia-cuda-nvcc-cu12"), "{}", f.detail);
    assert_eq!(f.libraries, ["ptxas"]);
}

/// A toolkit without `nvvm/libdevice` first on PATH: JAX 0.4.26's plugin ships its own
/// libdevice.10.bc (nothing to report), JAX 0.6.0's does not (XLA needs the toolkit's).
#[test]
fn libdevice_is_missing_only_for_a_plugin_that_does_not_ship_one() {
    use cuda_triage::engine::progress::Progress;
    use cuda_triage::engine::rules;
    let codes = |version: &str| -> Vec<String> {
        let rel = crate::release_files::release("jax", version, "linux");
        let (mut m, _) = crate::release_machines::machine_with(&rel);
        m.file(
            "/usr/local/cuda-12.8/version.json",
            r#"{"cuda" : {"name" : "CUDA SDK", "version" : "12.8.1"}}"#,
        )
        .file("/usr/local/cuda-12.8/bin/ptxas", b"\x7fELF")
        .file("/usr/local/cuda-12.8/bin/nvcc", b"\x7fELF")
        .env("PATH", "/usr/local/cuda-12.8/bin:/usr/bin:/bin");
        let ctx = m.context();
        let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
        rules::run_all(&ctx, &inv)
            .into_iter()
            .map(|f| f.code)
            .collect()
    };
    let old = codes("0.4.26");
    assert!(!old.iter().any(|c| c == "libdevice-missing"), "{old:?}");
    let new = codes("0.6.0");
    assert!(new.iter().any(|c| c == "libdevice-missing"), "{new:?}");
}

/// JAX's CUDA pieces of one release say nothing; the real jax-cuda12-plugin 0.6.0 beside the real
/// jax-cuda12-pjrt 0.4.26 (the plugin pins `jax-cuda12-pjrt ==0.6.0`) gets a warning naming both
/// versions, with `jax[cuda12]==0.6.0` as the fix.
#[test]
fn jax_cuda_pieces_of_different_releases_are_named() {
    use cuda_triage::engine::progress::Progress;
    use cuda_triage::engine::rules;
    let findings = |rel: &crate::release_files::Release| {
        let (m, _) = crate::release_machines::machine_with(rel);
        let ctx = m.context();
        let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
        rules::run_all(&ctx, &inv)
    };
    let new = crate::release_files::release("jax", "0.6.0", "linux");
    let healthy = findings(&new);
    assert!(
        !healthy.iter().any(|f| f.code == "jax-plugin-mismatch"),
        "{healthy:#?}"
    );
    let old = crate::release_files::release("jax", "0.4.26", "linux");
    let mut mixed = new.clone();
    mixed.wheel.retain(|w| w.dist != "jax-cuda12-pjrt");
    mixed.wheel.extend(
        old.wheel
            .iter()
            .filter(|w| w.dist == "jax-cuda12-pjrt")
            .cloned(),
    );
    assert_eq!(mixed.wheel.len(), 3, "{:?}", mixed.wheel);
    let found = findings(&mixed);
    let f = found
        .iter()
        .find(|f| f.code == "jax-plugin-mismatch")
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert!(
        f.summary.contains("jax-cuda12-plugin 0.6.0")
            && f.summary.contains("jax-cuda12-pjrt 0.4.26"),
        "{}",
        f.summary
    );
    assert!(
        f.detail.contains("Mismatched PJRT plugin PJRT API version"),
        "{}",
        f.detail
    );
    assert!(
        crate::support::fix(f, "pin-jax-cuda12-0.6.0")
            .summary
            .contains("jax[cuda12]==0.6.0")
    );
}
