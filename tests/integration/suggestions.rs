//! The Dependencies step's suggestions, computed by the engine from a scan's inventory: each
//! framework's key entry library with its process preset, each toolkit's and cuDNN copy's main
//! cuBLAS/cuDNN — on the seed fixture machines and on the real torch 2.5.1 + CuPy 13.3.0 install.

use crate::support::fixture;
use cuda_triage::engine::context::{EnvVars, SystemContext, live, machine_file};
use cuda_triage::engine::loader::windows::Preset;
use cuda_triage::engine::progress::Progress;
use cuda_triage::engine::suggest::{self, BinarySuggestion};

fn suggestions_of(ctx: &SystemContext) -> Vec<BinarySuggestion> {
    let inventory = cuda_triage::engine::diagnosis::run(ctx, &Progress::new()).inventory;
    suggest::binaries(ctx, &inventory)
}

fn machine(name: &str) -> SystemContext {
    machine_file::load(&fixture(&format!("machines/{name}/machine.toml"))).unwrap()
}

fn find<'a>(all: &'a [BinarySuggestion], path_end: &str) -> &'a BinarySuggestion {
    all.iter()
        .find(|s| s.path.ends_with(path_end))
        .unwrap_or_else(|| panic!("no suggestion ending in {path_end}: {all:#?}"))
}

#[test]
fn windows_fixture_suggests_framework_entries_in_their_process_then_toolkit_libraries() {
    let all = suggestions_of(&machine("win-cuda-tf-torch"));
    let torch = find(&all, r"site-packages\torch\lib\torch_cuda.dll");
    assert_eq!(all[0].path, torch.path, "frameworks come first");
    assert_eq!(torch.label, "torch_cuda.dll — PyTorch 2.1.2+cu121");
    assert_eq!(torch.options.windows.preset, Some(Preset::Torch));
    assert_eq!(
        torch.options.windows.app_dir.as_deref(),
        Some(r"C:\Users\ana\projects\vision\.venv\Scripts")
    );
    assert!(torch.process.contains("PyTorch (LoadLibraryExW 0x1100)"));
    let ort = find(&all, r"onnxruntime\capi\onnxruntime_providers_cuda.dll");
    // ONNX Runtime loads its provider with LOAD_WITH_ALTERED_SEARCH_PATH: the standard search
    // with the provider's folder first (PATH searched).
    assert_eq!(ort.options.windows.preset, Some(Preset::App));
    assert!(
        ort.options
            .windows
            .app_dir
            .as_deref()
            .is_some_and(|d| d.ends_with(r"site-packages\onnxruntime\capi")),
        "{:?}",
        ort.options.windows.app_dir
    );
    assert!(
        ort.process.contains("LOAD_WITH_ALTERED_SEARCH_PATH"),
        "{}",
        ort.process
    );
    assert!(
        ort.label
            .starts_with("onnxruntime_providers_cuda.dll — ONNX Runtime 1.16.3")
    );

    // Each toolkit's cuBLAS, searched as an application would.
    let cublas12 = find(&all, r"CUDA\v12.1\bin\cublas64_12.dll");
    assert_eq!(cublas12.label, "cublas64_12.dll — CUDA 12.1.1 toolkit");
    assert_eq!(cublas12.options.windows.preset, None);
    find(&all, r"CUDA\v11.8\bin\cublas64_11.dll");
    // cuDNN: the standalone copy, and torch's bundled one in torch's own process.
    let cudnn = find(&all, r"CUDNN\v8.9\bin\cudnn64_8.dll");
    assert_eq!(cudnn.options.windows.preset, None);
    let bundled = find(&all, r"torch\lib\cudnn64_8.dll");
    assert_eq!(bundled.options.windows.preset, Some(Preset::Torch));
    // No sub-library and no path twice.
    assert!(all.iter().all(|s| !s.path.contains("cublasLt")));
    for (i, s) in all.iter().enumerate() {
        assert!(
            all[i + 1..]
                .iter()
                .all(|o| !o.path.eq_ignore_ascii_case(&s.path)),
            "{} twice",
            s.path
        );
    }
}

#[test]
fn linux_fixture_suggests_toolkit_wheel_and_system_cudnn_with_the_venv_python() {
    let all = suggestions_of(&machine("linux-cuda124-jax"));
    // The toolkit's cuBLAS and the distribution's cuDNN: a program's search.
    let toolkit = find(&all, "/usr/local/cuda/lib64/libcublas.so.12");
    assert_eq!(toolkit.label, "libcublas.so.12 — CUDA 12.4.1 toolkit");
    assert_eq!(toolkit.options.main_program, None);
    let system_cudnn = find(&all, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9");
    assert_eq!(system_cudnn.label, "libcudnn.so.9 — cuDNN 9.1.0");
    // The venv's pip wheels load in JAX's process: its python is the main program.
    let wheel = find(&all, "site-packages/nvidia/cublas/lib/libcublas.so.12");
    assert_eq!(
        wheel.options.main_program.as_deref(),
        Some("/home/dev/venvs/jax/bin/python3")
    );
    assert!(wheel.why.contains("JAX 0.4.26"), "{}", wheel.why);
    find(&all, "site-packages/nvidia/cudnn/lib/libcudnn.so.8");
}

#[test]
fn machines_without_cuda_libraries_suggest_nothing() {
    assert!(suggestions_of(&machine("linux-basic")).is_empty());
    assert!(suggestions_of(&machine("win-basic")).is_empty());
}

#[test]
fn real_torch_and_cupy_install_suggests_libtorch_cuda_and_cupys_cublas_module() {
    let venv = crate::closure_installs::cupy_venv();
    let mut ctx = live::load_without_driver(&live::SessionEnvironment::this_process());
    ctx.env = EnvVars::new(
        ctx.platform,
        [
            (
                "PATH".to_string(),
                format!("{}/bin:/usr/bin:/bin", venv.display()),
            ),
            ("VIRTUAL_ENV".to_string(), venv.display().to_string()),
            ("HOME".to_string(), venv.display().to_string()),
        ],
    );
    let all = suggestions_of(&ctx);
    let torch = find(&all, "site-packages/torch/lib/libtorch_cuda.so");
    assert_eq!(torch.label, "libtorch_cuda.so — PyTorch 2.5.1+cu124");
    assert!(
        torch.options.main_program.is_some(),
        "python is the main program"
    );
    let cupy = all
        .iter()
        .find(|s| {
            s.path
                .contains("site-packages/cupy_backends/cuda/libs/cublas.")
        })
        .unwrap_or_else(|| panic!("no CuPy cuBLAS module: {all:#?}"));
    assert!(cupy.label.contains("CuPy 13.3.0"), "{}", cupy.label);
    // The wheels torch pulled in, walked in the framework's process.
    let cublas = find(&all, "site-packages/nvidia/cublas/lib/libcublas.so.12");
    assert!(cublas.options.main_program.is_some());
    find(&all, "site-packages/nvidia/cudnn/lib/libcudnn.so.9");
    // And the tree of the suggestion builds, resolving the CUDA libraries from the wheels.
    let graph = cuda_triage::engine::graph::build_with(
        &ctx,
        &torch.path,
        &torch.options,
        cuda_triage::engine::graph::Reader::HEADERS,
    )
    .unwrap();
    let cudart = graph
        .nodes
        .iter()
        .find(|n| n.name == "libcudart.so.12")
        .expect("libtorch_cuda.so needs cudart");
    assert!(
        cudart
            .path
            .as_deref()
            .is_some_and(|p| p.contains("nvidia/cuda_runtime/lib")),
        "{cudart:?}"
    );
}
