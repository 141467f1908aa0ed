//! The inventory scan on fake machines that reproduce real layouts: a Windows workstation with
//! two toolkits, cuDNN 8.9, conda TensorFlow 2.10, a torch venv, python.org and Store Python;
//! a Linux server with CUDA 12.4, distribution cuDNN 9 and a JAX venv with pip nvidia wheels.

use crate::support::{fixture, json, run_cli};
use cuda_triage::engine::context::machine_file;
use cuda_triage::engine::progress::Progress;
use cuda_triage::engine::scan::{
    CudnnSource, FoundBy, FrameworkKind, Inventory, PythonKind, ToolkitKind,
};

fn inventory(name: &str) -> Inventory {
    let ctx = machine_file::load(&fixture(&format!("machines/{name}/machine.toml"))).unwrap();
    let r = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new());
    assert!(!r.cancelled);
    r.inventory
}

#[test]
fn windows_toolkits_cudnn_and_zlibwapi() {
    let inv = inventory("win-cuda-tf-torch");
    let standalone: Vec<_> = inv
        .toolkits
        .iter()
        .filter(|t| t.kind == ToolkitKind::Standalone)
        .collect();
    assert_eq!(standalone.len(), 2, "{:#?}", inv.toolkits);
    let t118 = standalone
        .iter()
        .find(|t| t.root.ends_with("v11.8"))
        .unwrap();
    assert_eq!(t118.version.as_deref(), Some("11.8.0"));
    assert!(t118.found_by.contains(&FoundBy::EnvVar {
        name: "CUDA_PATH_V11_8".into()
    }));
    assert!(
        t118.found_by
            .iter()
            .any(|f| matches!(f, FoundBy::Registry { .. }))
    );
    assert!(t118.found_by.contains(&FoundBy::DefaultLocation));
    assert!(t118.libraries.contains(&"cublas64_11.dll".to_string()));
    assert_eq!(
        t118.ptxas.as_ref().unwrap().version.as_deref(),
        Some("11.8.89")
    );
    assert!(
        t118.libdevice
            .as_deref()
            .unwrap()
            .ends_with(r"nvvm\libdevice\libdevice.10.bc")
    );
    let cupti = t118.cupti.as_ref().unwrap();
    assert!(!cupti.legacy_libx64);
    assert_eq!(cupti.libraries, vec!["cupti64_2022.3.0.dll"]);
    let t121 = standalone
        .iter()
        .find(|t| t.root.ends_with("v12.1"))
        .unwrap();
    assert_eq!(t121.version.as_deref(), Some("12.1.1"));
    assert!(t121.bin_dirs[0].ends_with(r"v12.1\bin"));

    let conda_tk = inv
        .toolkits
        .iter()
        .find(|t| t.kind == ToolkitKind::Conda)
        .unwrap();
    assert_eq!(conda_tk.version.as_deref(), Some("11.2.2"));
    assert!(conda_tk.library_dirs[0].ends_with(r"tf210\Library\bin"));

    let standalone_cudnn = inv
        .cudnn
        .iter()
        .find(|c| c.source == CudnnSource::Standalone)
        .unwrap();
    assert_eq!(standalone_cudnn.version.as_deref(), Some("8.9.7"));
    assert!(
        standalone_cudnn
            .libraries
            .contains(&"cudnn_cnn_infer64_8.dll".to_string())
    );
    assert!(
        inv.cudnn
            .iter()
            .any(|c| matches!(c.source, CudnnSource::Conda { .. })
                && c.version.as_deref() == Some("8.1.0.77"))
    );
    assert!(inv.cudnn.iter().any(
        |c| matches!(&c.source, CudnnSource::Bundled { framework, .. } if framework == "torch")
    ));

    let z64 = inv
        .zlibwapi
        .iter()
        .find(|z| z.path.contains("v11.8"))
        .unwrap();
    assert_eq!((z64.machine.as_deref(), z64.bits), (Some("x64"), Some(64)));
    let z32 = inv
        .zlibwapi
        .iter()
        .find(|z| z.path.contains("SysWOW64"))
        .unwrap();
    assert_eq!(z32.bits, Some(32));

    assert!(
        inv.driver
            .libraries
            .iter()
            .any(|l| l.ends_with("nvcuda.dll"))
    );
    assert_eq!(inv.driver.version.as_deref(), Some("546.33"));
    assert!(
        inv.toolkit_references
            .iter()
            .any(|r| r.source == "CUDA_PATH" && r.exists)
    );
}

#[test]
fn windows_python_environments_and_frameworks() {
    let inv = inventory("win-cuda-tf-torch");
    let env = |suffix: &str| {
        inv.python_envs
            .iter()
            .find(|e| e.root.ends_with(suffix))
            .unwrap_or_else(|| panic!("{suffix}: {:#?}", inv.python_envs))
    };
    let tf = env(r"envs\tf210");
    assert_eq!(tf.kind, PythonKind::CondaEnv);
    assert_eq!(tf.python_version.as_deref(), Some("3.10.13"));
    let f = tf
        .frameworks
        .iter()
        .find(|f| f.kind == FrameworkKind::TensorFlow)
        .unwrap();
    assert_eq!(f.version.as_deref(), Some("2.10.1"));
    assert_eq!(f.cuda_build, Some(true));
    assert_eq!(f.expects.cuda.as_deref(), Some("11.2"));
    assert_eq!(f.expects.cudnn.as_deref(), Some("8"));
    assert!(
        f.expects
            .dll_names
            .contains(&"cudart64_112.dll".to_string())
    );
    assert!(tf.conda_packages.iter().any(|p| p.name == "cudatoolkit"));

    let base = env("miniconda3");
    assert_eq!(base.kind, PythonKind::CondaBase);
    assert_eq!(base.python_version.as_deref(), Some("3.11.5"));

    let venv = env(r"vision\.venv");
    assert_eq!(venv.kind, PythonKind::Venv);
    assert_eq!(venv.python_version.as_deref(), Some("3.11.7"));
    assert!(venv.base_home.as_deref().unwrap().ends_with("Python311"));
    let torch = venv
        .frameworks
        .iter()
        .find(|f| f.kind == FrameworkKind::PyTorch)
        .unwrap();
    assert_eq!(torch.version.as_deref(), Some("2.1.2+cu121"));
    assert_eq!(torch.expects.cuda.as_deref(), Some("12.1"));
    assert_eq!(torch.expects.cudnn.as_deref(), Some("8"));
    assert!(
        torch
            .bundled_libraries
            .contains(&"cudnn_cnn_infer64_8.dll".to_string())
    );

    let org = env("Python311");
    assert_eq!(org.kind, PythonKind::PythonOrg);
    assert_eq!(org.python_version.as_deref(), Some("3.11"));
    let ort = org
        .frameworks
        .iter()
        .find(|f| f.kind == FrameworkKind::OnnxRuntime)
        .unwrap();
    assert_eq!(
        (ort.package.as_str(), ort.cuda_build),
        ("onnxruntime-gpu", Some(true))
    );

    let store = inv
        .python_envs
        .iter()
        .find(|e| e.kind == PythonKind::MicrosoftStore)
        .unwrap();
    assert_eq!(store.python_version.as_deref(), Some("3.11"));
    assert!(!store.notes.is_empty());
    let cupy = store
        .frameworks
        .iter()
        .find(|f| f.kind == FrameworkKind::CuPy)
        .unwrap();
    assert_eq!(cupy.expects.cuda.as_deref(), Some("12.x"));
}

#[test]
fn linux_toolkit_driver_cudnn_and_jax_venv() {
    let inv = inventory("linux-cuda124-jax");
    assert_eq!(inv.toolkits.len(), 1, "{:#?}", inv.toolkits);
    let t = &inv.toolkits[0];
    assert_eq!(t.root, "/usr/local/cuda-12.4");
    assert!(t.also_at.contains(&"/usr/local/cuda".to_string()), "{t:#?}");
    assert_eq!(t.version.as_deref(), Some("12.4.1"));
    assert_eq!(
        t.ptxas.as_ref().unwrap().version.as_deref(),
        Some("12.4.131")
    );
    assert!(t.libraries.contains(&"libcudart.so.12".to_string()));
    assert_eq!(
        t.library_dirs.len(),
        1,
        "lib64 is a link to targets/x86_64-linux/lib"
    );
    assert!(
        t.cupti
            .as_ref()
            .unwrap()
            .libraries
            .contains(&"libcupti.so.12".to_string())
    );
    assert!(
        inv.toolkit_references
            .iter()
            .any(|r| r.source == "XLA_FLAGS" && r.path == "/usr/local/cudda" && !r.exists)
    );

    assert_eq!(inv.driver.version.as_deref(), Some("550.54.15"));
    assert!(
        inv.driver
            .version_source
            .as_deref()
            .unwrap()
            .contains("libcuda")
    );
    assert!(
        inv.driver
            .libraries
            .iter()
            .any(|l| l.ends_with("libcuda.so.1"))
    );

    let system_cudnn = inv
        .cudnn
        .iter()
        .find(|c| c.source == CudnnSource::Standalone)
        .unwrap();
    assert_eq!(system_cudnn.version.as_deref(), Some("9.1.0"));

    let venv = inv
        .python_envs
        .iter()
        .find(|e| e.root == "/home/dev/venvs/jax")
        .unwrap();
    assert_eq!(venv.python_version.as_deref(), Some("3.10.12"));
    let jax = venv
        .frameworks
        .iter()
        .find(|f| f.kind == FrameworkKind::Jax)
        .unwrap();
    assert_eq!(jax.version.as_deref(), Some("0.4.26"));
    assert_eq!(jax.expects.cuda.as_deref(), Some("12"));
    assert!(jax.plugins.iter().any(|p| p.name == "jax-cuda12-plugin"));
    assert!(
        jax.expects
            .wheels
            .iter()
            .any(|w| w.name == "nvidia-cuda-nvcc-cu12")
    );
    assert!(
        venv.nvidia_wheels
            .iter()
            .any(|w| w.name == "nvidia-cudnn-cu12" && w.version.as_deref() == Some("8.9.7.29"))
    );
    assert!(
        venv.nvidia_lib_dirs
            .iter()
            .any(|d| d.component == "cublas"
                && d.libraries.contains(&"libcublasLt.so.12".to_string()))
    );
    assert_eq!(
        venv.pip_ptxas.as_ref().unwrap().version.as_deref(),
        Some("12.4.131")
    );
    let pip_cudnn = inv
        .cudnn
        .iter()
        .find(|c| matches!(c.source, CudnnSource::Pip { .. }))
        .unwrap();
    assert_eq!(pip_cudnn.version.as_deref(), Some("8.9.7"));

    let system = inv
        .python_envs
        .iter()
        .find(|e| e.kind == PythonKind::System)
        .unwrap();
    assert_eq!(system.python_version.as_deref(), Some("3.10"));
}

#[test]
fn scan_json_carries_the_inventory() {
    let m = fixture("machines/win-cuda-tf-torch/machine.toml")
        .display()
        .to_string();
    let doc = json(&run_cli(&["scan", "--machine", &m, "--json"]));
    let inv = &doc["inventory"];
    assert!(inv["toolkits"].as_array().unwrap().len() >= 2);
    assert!(
        inv["python_envs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "microsoft-store")
    );
    assert!(inv["skipped"].is_array());
    let doc = json(&run_cli(&[
        "scan",
        "--machine",
        &fixture("machines/win-basic/machine.toml")
            .display()
            .to_string(),
        "--json",
    ]));
    // win-basic has only an empty CUDA\v12.1\bin folder: one toolkit, known by its folder name.
    let toolkits = doc["inventory"]["toolkits"].as_array().unwrap();
    assert_eq!(toolkits.len(), 1, "{toolkits:#?}");
    assert!(toolkits[0].to_string().contains("12.1"));
}
