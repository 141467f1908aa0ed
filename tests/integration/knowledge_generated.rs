//! The generated knowledge (`assets/knowledge/generated/`) is the generator's output: fetch
//! NVIDIA's artefacts from PyPI into `tests/.cache/knowledge` (knowledge_fetch.py; cached),
//! run `engine::knowledge::generate` over them and compare with the checked-in files. With
//! `CUDA_TRIAGE_REGENERATE=1` the files are rewritten instead (then the test still fails, so
//! a regeneration is never mistaken for a pass). Then facts that only a real artefact can
//! give are checked in the generated tables, as a user's pasted error meets them.

use cuda_triage::engine::knowledge::generate;
use cuda_triage::engine::knowledge::generated::generated;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The filled cache (fetched once per test process; a manifest newer than the fetch script
/// means complete for that script's plan — the script re-fetches only what its plan changed).
fn cache() -> &'static PathBuf {
    static CACHE: OnceLock<PathBuf> = OnceLock::new();
    CACHE.get_or_init(|| {
        let dir = root().join("tests/.cache/knowledge");
        let modified = |p: PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let script = root().join("tests/integration/knowledge_fetch.py");
        let fresh = match (modified(dir.join("manifest.json")), modified(script)) {
            (Some(manifest), Some(script)) => manifest >= script,
            _ => false,
        };
        if !fresh {
            std::fs::create_dir_all(&dir).expect("create tests/.cache/knowledge");
            let out = Command::new("python3")
                .arg(root().join("tests/integration/knowledge_fetch.py"))
                .arg(&dir)
                .output()
                .unwrap_or_else(|e| panic!("cannot run python3 (Debian package python3): {e}"));
            assert!(
                out.status.success(),
                "knowledge_fetch.py failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        dir
    })
}

#[test]
fn knowledge_generated_matches_the_artefacts() {
    let files = generate::generate(cache()).unwrap_or_else(|e| panic!("generator failed: {e}"));
    let dir = root().join("assets/knowledge/generated");
    let regenerate = std::env::var_os("CUDA_TRIAGE_REGENERATE").is_some();
    let mut differ = Vec::new();
    for (name, text) in &files {
        let path = dir.join(name);
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != *text {
            differ.push(name.to_string());
            if regenerate {
                std::fs::write(&path, text).expect("write the generated table");
            }
        }
    }
    assert!(
        differ.is_empty(),
        "generated tables differ from the artefacts: {differ:?} ({}); run \
         CUDA_TRIAGE_REGENERATE=1 cargo test --test integration knowledge_generated",
        if regenerate {
            "rewritten"
        } else {
            "not rewritten"
        }
    );
}

#[test]
fn knowledge_generated_tables_hold_what_the_artefacts_say() {
    let g = generated();
    // Every status enum family, from its header.
    for t in [
        "CUresult",
        "cudaError_t",
        "cublasStatus_t",
        "cudnnStatus_t",
        "CUptiResult",
        "nvrtcResult",
        "nvJitLinkResult",
        "cufftResult",
        "curandStatus_t",
        "cusolverStatus_t",
        "cusparseStatus_t",
        "ncclResult_t",
        "NppStatus",
        "cutensorStatus_t",
        "cudssStatus_t",
        "CUfileOpError",
        "cl_int",
        "NVENCSTATUS",
        "NTSTATUS",
    ] {
        assert!(
            g.status.code.iter().filter(|c| c.type_name == t).count() >= 5,
            "{t}: fewer than 5 codes generated"
        );
    }
    // Every library's functions from its header, with the releases that declare each: NVRTC's
    // nvrtcGetNVVM is gone from CUDA 13's nvrtc.h, NCCL's ncclCommRegister came with 2.19.
    for library in [
        "NVRTC",
        "nvJitLink",
        "cuBLAS",
        "cuFFT",
        "cuRAND",
        "cuSPARSE",
        "NCCL",
    ] {
        assert!(
            g.functions
                .function
                .iter()
                .filter(|f| f.library == library)
                .count()
                >= 5,
            "{library}: fewer than 5 functions generated"
        );
    }
    let (nvvm, nvrtc) = g.function_named("nvrtcGetNVVM").expect("nvrtcGetNVVM");
    assert_eq!(
        (nvvm.last.as_str(), nvrtc.library.as_str()),
        ("CUDA 12.9", "NVRTC")
    );
    assert!(nvrtc.last.starts_with("CUDA 13"), "{}", nvrtc.last);
    assert_eq!(
        g.function_named("ncclCommRegister")
            .map(|(f, _)| f.first.as_str()),
        Some("NCCL 2.19")
    );
    assert!(g.function_named("cublasSgemm_v2").is_some());
    // OpenCL's codes from the toolkit's CL/cl.h (a #define block) and its extensions' from
    // CL/cl_ext.h; NVENC's from the Video Codec SDK header, with NVIDIA's comment.
    assert_eq!(
        g.status_named("CL_OUT_OF_HOST_MEMORY")
            .first()
            .map(|c| c.number),
        Some(-6)
    );
    assert_eq!(
        g.status_named("CL_PLATFORM_NOT_FOUND_KHR")
            .first()
            .map(|c| c.number),
        Some(-1001)
    );
    // Windows' NTSTATUS errors from mingw-w64's ntstatus.h: only error severity, facility 0
    // (the values a crashed process exits with), numbered as Microsoft's MS-ERREF lists them.
    let dll_not_found = g
        .status_numbered("NTSTATUS", 0xC000_0135)
        .expect("NTSTATUS 0xC0000135");
    assert_eq!(dll_not_found.name, "STATUS_DLL_NOT_FOUND");
    assert!(
        g.status
            .code
            .iter()
            .filter(|c| c.type_name == "NTSTATUS")
            .all(|c| (0xC000_0000..=0xC000_FFFF).contains(&c.number)),
        "an NTSTATUS row outside the error values of facility 0"
    );
    // GPUDirect Storage's statuses from cufile.h's X-macro list: base 5000 plus the entry's
    // offset, with the message as the header's third argument; cuTENSOR's from its own wheel.
    let no_driver = g
        .status_numbered("CUfileOpError", 5001)
        .expect("CUfileOpError 5001");
    assert_eq!(no_driver.name, "CU_FILE_DRIVER_NOT_INITIALIZED");
    assert!(no_driver.comment.contains("nvidia-fs"), "{no_driver:?}");
    let arch = g
        .status_named("CUTENSOR_STATUS_ARCH_MISMATCH")
        .first()
        .map(|c| (c.number, c.first.clone()));
    assert_eq!(arch, Some((8, "cuTENSOR 1.6".to_string())));
    let invalid_param = g.status_numbered("NVENCSTATUS", 8).expect("NVENCSTATUS 8");
    assert_eq!(invalid_param.name, "NV_ENC_ERR_INVALID_PARAM");
    assert!(
        invalid_param.comment.contains("parameter"),
        "{invalid_param:?}"
    );
    // cuDNN 8 and 9 number the same name differently: both rows are there.
    let bad_param: Vec<i64> = g
        .status_named("CUDNN_STATUS_BAD_PARAM")
        .iter()
        .map(|c| c.number)
        .collect();
    assert!(
        bad_param.contains(&3) && bad_param.contains(&2000),
        "{bad_param:?}"
    );
    // The runtime's own message, read from libcudart.
    let mismatch = g
        .status_numbered("cudaError_t", 803)
        .expect("cudaError_t 803");
    assert_eq!(mismatch.name, "cudaErrorSystemDriverMismatch");
    assert!(
        mismatch
            .text
            .as_deref()
            .is_some_and(|t| t.contains("driver")),
        "{mismatch:?}"
    );
    // Library names outside the toolkit, on both platforms.
    for (name, component) in [
        ("libnccl.so.2", "NCCL"),
        ("libcudnn_graph.so.9", "cuDNN"),
        ("libcusparseLt.so.0", "cuSPARSELt"),
        ("libnvJitLink.so.12", "nvJitLink"),
    ] {
        let rows = g.files_named(name);
        assert!(
            rows.iter().any(|r| r.component == component),
            "{name}: {rows:?}"
        );
    }
    assert!(
        g.libraries
            .file
            .iter()
            .any(|f| f.component == "TensorRT" && f.platform == "windows"),
        "no Windows TensorRT DLL listed"
    );
    // Versioned driver entry points appear in a later cuda.h than the oldest sampled.
    let v4 = g.entry_point("cuCtxCreate_v4").expect("cuCtxCreate_v4");
    assert_ne!(v4.since, g.entry_points.sampled_from);
    // CUDA 13.0's cuda.h makes the plain cuCtxCreate mean _v4 (12.x: _v2).
    let (_, release, replaced) = g.rebound_entry_point("cuCtxCreate_v4").expect("rebound");
    assert_eq!((release, replaced), ("13.0", "cuCtxCreate_v2"));
    // ptxas: Hopper's sm_90a is known from 12.0; CUDA 13 dropped Volta (sm_70).
    let (first, _) = g.arch_span("sm_90a").expect("sm_90a");
    assert_eq!(first, "12.0");
    let (_, last70) = g.arch_span("sm_70").expect("sm_70");
    assert!(last70.starts_with("12."), "sm_70 last in {last70}");
}
