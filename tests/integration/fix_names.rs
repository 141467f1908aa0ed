//! Every fix names something that exists: every rule runs over the seed machines, the seed
//! situations a–e, the machine of every framework release of the release-file tests (real
//! wheel files), and the real venvs of the install tests (torch 2.5.1, CuPy 13.3, ONNX Runtime
//! 1.20.2, JAX 0.4.35; healthy, and copies with a wheel's library removed); every fix it offers is checked — each package and version a pip command or pin
//! names against PyPI's releases for the machine's platform (the generated
//! `package_releases.toml`), each folder a PATH edit or DLL hook adds against the machine.

use crate::release_files::releases;
use crate::release_machines::machine_with;
use crate::support::fixture;
use cuda_triage::engine::api::{Driver, Source, load};
use cuda_triage::engine::context::SystemContext;
use cuda_triage::engine::diagnosis;
use cuda_triage::engine::fix::names_exist::{missing_conda_names, missing_names};
use cuda_triage::engine::progress::Progress;

/// (where, fix id, what does not exist) for every fix of `ctx`'s findings.
fn missing(label: &str, ctx: &SystemContext, seen: &mut usize) -> Vec<String> {
    let d = diagnosis::run(ctx, &Progress::new());
    let mut out = Vec::new();
    for f in &d.findings {
        // A conda command in a finding's text is a fix too.
        for m in missing_conda_names(&f.detail, ctx) {
            out.push(format!("{label}: {}: {m}", f.code));
        }
        for fix in &f.fixes {
            *seen += 1;
            for m in missing_names(fix, ctx) {
                out.push(format!("{label}: {} ({}): {m}", fix.id, f.code));
            }
        }
    }
    out
}

#[test]
fn every_fix_of_every_machine_names_what_exists() {
    let mut problems = Vec::new();
    let mut fixes = 0;
    for seed in [
        "linux-basic",
        "linux-cuda124-jax",
        "win-basic",
        "win-cuda-tf-torch",
    ] {
        let path = fixture(&format!("machines/{seed}/machine.toml"));
        let ctx = load(&Source::machine_file(path), Driver::Skip).expect("seed machine loads");
        problems.extend(missing(seed, &ctx, &mut fixes));
    }
    for (name, s) in [
        ("situation a", crate::gui_walk::situation_a()),
        ("situation b", crate::gui_walk::situation_b().0),
        ("situation c", crate::gui_walk::situation_c()),
        ("situation d", crate::gui_walk::situation_d().0),
        ("situation e", crate::gui_walk::situation_e()),
    ] {
        let ctx = load(&Source::machine_file(s.file().into()), Driver::Skip).expect("loads");
        problems.extend(missing(name, &ctx, &mut fixes));
    }
    let mut machines = 0;
    for framework in ["tensorflow", "torch", "jax", "cupy", "onnxruntime"] {
        for rel in releases(framework) {
            let (m, _) = machine_with(&rel);
            let label = format!(
                "{} {} ({})",
                rel.framework, rel.wheel[0].version, rel.platform
            );
            problems.extend(missing(&label, &m.context(), &mut fixes));
            machines += 1;
        }
    }
    assert!(machines > 90, "{machines} release machines");
    // The real venvs, as this computer with each activated, healthy and broken.
    use crate::closure_installs::{Copy, cupy_venv, torch_venv};
    use crate::framework_loads::{jax_venv, ort_venv};
    for (name, venv) in [
        ("torch venv", torch_venv()),
        ("cupy venv", cupy_venv()),
        ("onnxruntime venv", ort_venv()),
        ("jax venv", jax_venv()),
    ] {
        let ctx = load(&Source::python_env(venv.to_path_buf()), Driver::Skip).expect("venv loads");
        problems.extend(missing(name, &ctx, &mut fixes));
    }
    for (name, gone) in [
        ("nvrtc", "nvidia/cuda_nvrtc/lib/libnvrtc.so.12"),
        ("cudnn", "nvidia/cudnn/lib/libcudnn.so.9"),
        ("cublas", "nvidia/cublas/lib/libcublasLt.so.12"),
    ] {
        let copy = Copy::of(ort_venv(), &format!("fix-names-{name}"));
        copy.replace(gone, None);
        let ctx = load(&Source::python_env(copy.root.clone()), Driver::Skip).expect("copy loads");
        problems.extend(missing(
            &format!("onnxruntime venv without {name}"),
            &ctx,
            &mut fixes,
        ));
    }
    assert!(
        fixes > 50,
        "only {fixes} fixes offered: the machines lost their findings"
    );
    assert!(
        problems.is_empty(),
        "{} of {fixes} fixes name what does not exist:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
