//! Status codes read through the generated tables and the catalog's status families, on real
//! lines from public issues: an NVML answer spelled in words, a library's ARCH_MISMATCH or
//! NOT_INITIALIZED that no row names, a bare number that the name on its line already stands
//! for, a number a driver API call printed, a GPU program's bare "Error Code: N", and the
//! causes curated for a teardown's 4, a thread's missing context (201), a build older than the
//! GPU (300) and MPS's 805.

use super::*;

fn finding<'a>(t: &'a Triage, code: &str) -> &'a crate::engine::findings::Finding {
    t.findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("no {code}: {:#?}", t.findings))
}

#[test]
fn nvml_words_are_read_as_its_status_and_the_container_hook_points_at_the_host() {
    // https://github.com/NVIDIA/nvidia-container-toolkit/issues/260
    let t = triage(
        "stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
    );
    let code = finding(&t, "nvml-status-nvml-error-driver-not-loaded");
    assert!(
        code.detail.contains("NVIDIA driver is not loaded"),
        "{}",
        code.detail
    );
    let hook = finding(&t, "log-container-cli-nvml-error");
    assert!(hook.detail.contains("on the host"), "{}", hook.detail);
    assert!(
        hook.summary.ends_with("driver not loaded"),
        "{}",
        hook.summary
    );
}

#[test]
fn an_arch_mismatch_lists_the_oldest_capability_of_each_cuda_release() {
    // https://github.com/flairNLP/flair/issues/723 (a GT 620, compute capability 2.1)
    let t = triage("Error: CUDNN_STATUS_ARCH_MISMATCH");
    let f = finding(&t, "cudnn-status-arch-mismatch");
    assert!(
        f.detail.contains("CUDA 10.2 on: 3.0 (Kepler)"),
        "{}",
        f.detail
    );
    assert!(
        f.detail.contains("CUDA 12.0 on: 5.0 (Maxwell)"),
        "{}",
        f.detail
    );
    assert!(!f.fixes.is_empty());
}

#[test]
fn not_initialized_names_memory_and_a_bare_number_named_on_its_line_is_not_repeated() {
    // https://github.com/cupy/cupy/issues/3935
    let t = triage("cupy.cuda.cublas.CUBLASError: CUBLAS_STATUS_NOT_INITIALIZED");
    let f = finding(&t, "cublas-status-cublas-status-not-initialized");
    assert!(f.detail.contains("out of memory"), "{}", f.detail);
    // The number and the name of one cuRAND status on one line: one finding.
    let t = triage(
        "ERROR: CURANDError: initialization of CUDA failed (code 203, CURAND_STATUS_INITIALIZATION_FAILED)",
    );
    assert!(
        !t.findings
            .iter()
            .any(|f| f.summary.starts_with("Unrecognised code")),
        "{:#?}",
        t.findings
    );
}

#[test]
fn an_internal_error_names_the_first_cuda_of_recent_generations() {
    // https://github.com/pytorch/pytorch/issues/88038 (RTX 4090 with the CUDA 11.7 build)
    let t = triage("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR");
    let f = finding(&t, "cufft-status-cufft-internal-error");
    assert!(
        f.detail.contains("Ada Lovelace (8.9): CUDA 11.8"),
        "{}",
        f.detail
    );
}

#[test]
fn a_bare_cuda_number_also_reads_as_the_driver_api_code() {
    // Numba raises the driver API's CUresult as CudaAPIError: [N].
    let t = triage("numba.cuda.cudadrv.driver.CudaAPIError: [34]");
    let f = finding(&t, "cuda-error-34");
    assert!(f.detail.contains("CUDA_ERROR_STUB_LIBRARY"), "{}", f.detail);
}

#[test]
fn invalid_ptx_is_a_toolkit_newer_than_the_driver() {
    // https://github.com/nanoporetech/bonito/issues/196 (CUDA 11.1 toolkit, driver 450.51)
    let t = triage(
        "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed",
    );
    let f = finding(&t, "cuda-error-218");
    assert!(
        f.detail.contains("CUDA toolkit newer than the driver"),
        "{}",
        f.detail
    );
    assert!(all_text(&t).contains("kernel_cache"));
}

#[test]
fn a_pycuda_device_call_failing_to_initialise_is_not_read_as_a_stale_kernel_cache() {
    // https://github.com/cong/yolov5_deepsort_tensorrt/issues/3 (make_context; not a module load)
    let t = triage("pycuda._driver.LogicError: cuDeviceGet failed: initialization error");
    let f = finding(&t, "cuda-error-3");
    assert!(!all_text(&t).contains("compiler cache"), "{}", f.detail);
}

#[test]
fn nvjpeg_statuses_come_from_nvjpeg_h_and_say_what_they_mean() {
    // https://github.com/NVIDIA/CUDALibrarySamples/issues/153 (the title; maintainer: a T4
    // has no hardware JPEG decoder, fall back to NVJPEG_BACKEND_DEFAULT)
    let t = triage("NVJPEG_STATUS_ARCH_MISMATCH");
    let code = t
        .codes
        .iter()
        .find(|c| c.kind == "nvjpeg")
        .expect("nvjpeg status");
    assert_eq!(code.number, Some(7), "{code:?}");
    let text = all_text(&t);
    assert!(text.contains("hardware JPEG decoder"), "{text}");
    assert!(text.contains("NVJPEG_BACKEND_DEFAULT"), "{text}");
    // https://github.com/NVIDIA/DALI/issues/3084 (an image the A100's hardware decoder could not take)
    let t =
        triage("NVJPEG error \"4\" : NVJPEG_STATUS_JPEG_NOT_SUPPORTED on A100, but works on V100");
    let code = t
        .codes
        .iter()
        .find(|c| c.kind == "nvjpeg")
        .expect("nvjpeg status");
    assert_eq!(code.number, Some(4), "{code:?}");
    let text = all_text(&t);
    assert!(text.contains("could not decode this image"), "{text}");
    assert!(text.contains("CPU decoder"), "{text}");
}

#[test]
fn opencl_and_nvenc_statuses_are_read_from_the_generated_tables() {
    // https://github.com/hashcat/hashcat/issues/1671 (fixed by a newer driver)
    let t = triage("clCreateContext(): CL_OUT_OF_HOST_MEMORY");
    let code = finding(&t, "opencl-status-cl-out-of-host-memory");
    assert!(code.detail.contains("driver"), "{}", code.detail);
    // PyOpenCL drops the CL_ prefix; C programs print the bare number.
    // https://github.com/NVIDIA/nvidia-docker/issues/919,
    // https://github.com/KhronosGroup/OpenCL-Guide/issues/33
    for line in [
        "pyopencl._cl.LogicError: clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR",
        "I compiled with gcc main.c -o ./main -lOpenCL, output: clGetPlatformIDs(-1001)",
    ] {
        let t = triage(line);
        let code = finding(&t, "opencl-status-cl-platform-not-found-khr");
        assert!(code.detail.contains("nvidia.icd"), "{}", code.detail);
    }
    // https://github.com/obsproject/obs-studio/issues/7980
    let t = triage(
        "21:00:23.653: [jim-nvenc] init_encoder_h264: nv.nvEncInitializeEncoder(enc->session, &enc->params) failed: 8 (NV_ENC_ERR_INVALID_PARAM)",
    );
    let code = finding(&t, "nvenc-status-nv-enc-err-invalid-param");
    assert!(code.detail.contains("multipass"), "{}", code.detail);
    assert!(code.detail.contains("Video Codec SDK"), "{}", code.detail);
}

#[test]
fn a_pynvml_exception_class_is_the_nvml_status_it_raises() {
    // https://github.com/jwohlwend/boltz/issues/355
    let t = triage("pynvml.NVMLError_NotSupported: Not Supported");
    finding(&t, "nvml-status-nvml-error-not-supported");
    let t = triage(
        "pynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
    );
    finding(&t, "nvml-status-nvml-error-lib-rm-version-mismatch");
}

#[test]
fn a_check_against_success_is_read_in_any_case_of_vs() {
    // https://github.com/BVLC/caffe/issues/5564 (glog's check with an upper-case "VS.")
    let t = triage("Check failed: status ==CUBLAS_STATUS_SUCCESS(1 VS.0)CUBLAS_NOT_INITALIZATION");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cublas" && c.number == Some(1)),
        "{:?}",
        t.codes
    );
}

#[test]
fn a_build_tools_exit_status_is_not_a_cuda_status() {
    // distutils/setuptools' spawn: "command %r failed with exit status %d" (CPython
    // Lib/distutils/spawn.py), printed when nvcc fails while building an extension.
    for line in [
        "error: command '/usr/local/cuda/bin/nvcc' failed with exit status 1",
        "subprocess.CalledProcessError: Command '['/usr/local/cuda/bin/nvcc', '-c', 'k.cu']' returned non-zero exit status 2.",
    ] {
        let t = triage(line);
        assert!(t.codes.is_empty(), "{line}: {:?}", t.codes);
    }
    // The same words with a real CUDA status still read it.
    let t = triage("CUDA error: cudaMalloc failed with error 2");
    assert!(t.codes.iter().any(|c| c.number == Some(2)), "{:?}", t.codes);
}

#[test]
fn a_windows_exit_status_is_read_as_the_ntstatus_it_is() {
    // https://github.com/FoldingAtHome/fah-issues/issues/1212 (signed and hexadecimal)
    let t = triage("WARNING:WU01:FS01:FahCore returned: UNKNOWN_ENUM (-1073741515 = 0xc0000135)");
    let f = finding(&t, "ntstatus-0xc0000135");
    assert!(f.summary.contains("STATUS_DLL_NOT_FOUND"), "{}", f.summary);
    assert!(f.detail.contains("DLL"), "{}", f.detail);
    assert!(!t.codes.iter().any(|c| c.kind == "win32"), "{:?}", t.codes);
    // https://github.com/tensorflow/tensorflow/issues/35598 (unsigned decimal): the catalog's
    // line leads, the status says the same.
    let t = triage("dll load failed with errorcode 3221225501");
    finding(&t, "ntstatus-0xc000001d");
    assert!(!t.codes.iter().any(|c| c.kind == "win32"), "{:?}", t.codes);
    // Ctrl+C is no failure: a note, not an error.
    let t = triage("The program '[1234] python.exe' has exited with code 3221225786 (0xc000013a).");
    let f = finding(&t, "ntstatus-0xc000013a");
    assert_eq!(f.severity, crate::engine::findings::Severity::Info);
    // A value no Windows header declares is left alone, and so is a number that is no result
    // (a byte count, an address range).
    let t = triage("exit status 0xc000ffff");
    assert!(t.codes.is_empty(), "{:?}", t.codes);
    let t = triage("Tried to allocate 3221225781 bytes on the GPU");
    assert!(
        !t.codes.iter().any(|c| c.kind == "ntstatus"),
        "{:?}",
        t.codes
    );
    let t = triage("pci 0000:00:02.0: reg 0x10: [mem 0xc0000005-0xc00fffff]");
    assert!(
        !t.codes.iter().any(|c| c.kind == "ntstatus"),
        "{:?}",
        t.codes
    );
}

#[test]
fn curated_causes_read_the_lines_around_a_status() {
    // https://github.com/microsoft/CNTK/issues/441 (an odd layer size for curandGenerateNormal)
    let t = triage(
        "CURAND failure 105: (see curand.h & look for curandStatus or CURAND_STATUS_xxx) ; GPU=0 ; expr=curandGenerateNormal(((curandGenerator_t*) s_curandGenerator)[0], reinterpret_cast<float*>(Data()), GetNumElements(), (float) mean, (float) sigma)",
    );
    assert!(all_text(&t).contains("the count must be even"));
    // https://github.com/NVIDIA/DIGITS/issues/1890 (a Fermi card: cuDNN's handle, then 46)
    let t = triage(
        "E1122 12:29:18.206468  3480 common.cpp:128] Cannot create cuDNN handle. cuDNN won't be available.\n\
         F1122 12:29:18.252681  3480 gpu_memory.cpp:152] Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable",
    );
    assert!(all_text(&t).contains("no longer supports"));
    // The same status without cuDNN's line keeps the compute-mode reading only.
    let t = triage(
        "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable",
    );
    assert!(!all_text(&t).contains("no longer supports"));
    // https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/2986 (a Windows desktop
    // whose driver was not installed properly): the fixes name the driver's reinstall.
    let t = triage("RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable");
    let f = finding(&t, "cuda-error-46");
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("reinstall the NVIDIA driver")),
        "{:?}",
        f.fixes
    );
    // https://github.com/NVIDIA/nvvl/issues/9 (a stub libnvcuvid in a container)
    let t = triage(
        "CUDA error 302 at line 32 in file /tmp/nvvl/src/detail/CUVideoParser.h: shared object symbol not found",
    );
    assert!(all_text(&t).contains("libnvcuvid.so.1 found is a stub"));
}

#[test]
fn a_gpu_programs_bare_error_code_is_cudas_not_windows() {
    // DaVinci Resolve's message, as ArchWiki's DaVinci Resolve page quotes it ("Error code 999 on
    // Intel/NVIDIA hybrid graphics card"); a DLL's error code stays Windows'.
    let t =
        triage("The GPU failed to perform image processing because of an error. Error Code: 999.");
    finding(&t, "cuda-error-999");
    assert!(!t.findings.iter().any(|f| f.code == "win32-error-999"));
    let t = triage("Failed to load cudnn64_8.dll, error code 126");
    finding(&t, "win32-error-126");
}

#[test]
fn a_miners_driver_error_in_quotes_is_the_driver_apis_number() {
    // https://github.com/nicehash/excavator/issues/275: Excavator prints which API failed
    // ("DRIVER") and the number quoted.
    let t = triage("CUDA error DRIVER: '300' in func 'kernel_launcher::kernel_launcher' line 332");
    let f = finding(&t, "cuda-error-300");
    assert!(
        f.detail.contains("CUDA_ERROR_INVALID_SOURCE"),
        "{}",
        f.detail
    );
    // The line number after it is not a code.
    assert!(!t.findings.iter().any(|f| f.code == "cuda-error-332"));
}

#[test]
fn cutensor_cudss_and_cufile_statuses_come_from_their_headers() {
    // The names as the headers declare them, in the call lines that print them.
    let t = triage("cutensorContract failed: CUTENSOR_STATUS_ARCH_MISMATCH");
    finding(&t, "cutensor-status-cutensor-status-arch-mismatch");
    let t = triage("RuntimeError: cuFile error: CU_FILE_DRIVER_NOT_INITIALIZED");
    let f = finding(&t, "cufile-status-cu-file-driver-not-initialized");
    assert!(f.detail.contains("5001"), "{}", f.detail);
    assert!(f.detail.contains("nvidia_fs"), "{}", f.detail);
    let t = triage("cudssCreate failed: CUDSS_STATUS_ALLOC_FAILED");
    finding(&t, "cudss-status-cudss-status-alloc-failed");
}

#[test]
fn a_go_cu_panic_is_the_driver_result_it_names() {
    // https://github.com/gorgonia/cu/issues/2 (cuInit failed: nvidia_uvm was not loaded)
    let t = triage(
        "panic: Unknown\n\ngoroutine 1 [running]:\ngithub.com/chewxy/cu.init.1()\n\tgithub.com/chewxy/cu/cu.go:13 +0x5e",
    );
    let f = finding(&t, "cuda-error-999");
    assert!(f.detail.contains("nvidia_uvm"), "{}", f.detail);
    // Any other Go program's panic is not a CUDA result.
    let t = triage("panic: Unknown\n\ngoroutine 1 [running]:\nmain.main()");
    assert!(!t.findings.iter().any(|f| f.code == "cuda-error-999"));
}

#[test]
fn cuda_failed_with_a_number_is_the_runtimes_code() {
    // https://github.com/openucx/ucx/issues/2295 (UCX's cuda_copy transport).
    let t = triage(
        "cuda_copy_iface.c:239  UCX  ERROR [cuda/cuda_copy/cuda_copy_iface.c:239] cuda failed with 2 ",
    );
    finding(&t, "cuda-error-2");
}

#[test]
fn a_host_program_on_the_codes_line_is_named_as_its_reporter() {
    // https://github.com/openucx/ucx/issues/2295
    let t = triage(
        "[vulcan01:14323:0] cuda_copy_iface.c:239  UCX  ERROR [cuda/cuda_copy/cuda_copy_iface.c:239] cuda failed with 2 ",
    );
    let f = finding(&t, "cuda-error-2");
    assert!(f.detail.contains("Reported by UCX."), "{}", f.detail);
    // A word inside another word is not a program ("cuccess" is no UCC).
    assert_eq!(
        super::super::requester::reporter_named("cudaSuccess (0 vs. 0)"),
        None
    );
}

#[test]
fn a_status_alone_on_the_line_after_a_library_failure_is_that_librarys() {
    // https://github.com/clab/dynet/issues/1218: DyNet prints cuRAND's status on its own line.
    let t = triage("CURAND failure in curandGenerateUniform(curandeng, val.v, val.d.size())\n201");
    let f = finding(&t, "curand-status-curand-status-launch-failure");
    assert!(f.detail.contains("201"), "{}", f.detail);
    // A number after a line that is no library's failure is not a status.
    let t = triage("Epoch finished\n201");
    assert!(t.findings.iter().all(|f| !f.code.starts_with("curand")));
}

#[test]
fn teardown_context_and_mps_statuses_carry_their_causes_not_only_nvidias_words() {
    // https://github.com/tensorlayer/HyperPose/pull/239 (a static CUDA tensor freed at exit)
    let exit = triage("  what():  cudaFree failed with: 4: driver shutting down");
    let f = finding(&exit, "cuda-error-4");
    assert!(f.detail.contains("teardown"), "{}", f.detail);
    assert!(f.detail.contains("not of the CUDA install"), "{}", f.detail);
    // https://github.com/cupy/cupy/issues/72 (a kernel launched from a thread with no context)
    let thread = triage("CUDADriverError: CUDA_ERROR_INVALID_CONTEXT: invalid device context");
    let f = finding(&thread, "cuda-error-201");
    assert!(f.detail.contains("thread"), "{}", f.detail);
    assert!(all_text(&thread).contains("spawn"));
    // https://github.com/NVIDIA/nvidia-container-toolkit/issues/714 (vLLM in a container, the
    // MPS daemon on the host)
    let mps = triage(
        "RuntimeError: Unexpected error from cudaGetDeviceCount().  Did you run some cuda functions before calling NumCudaDevices() that might have already set an error?  Error 805: MPS client failed to connect to the MPS control daemon or the MPS server.",
    );
    let f = finding(&mps, "cuda-error-805");
    assert!(f.detail.contains("pipe directory"), "{}", f.detail);
    assert!(all_text(&mps).contains("nvidia-cuda-mps-control"));
}

#[test]
fn each_grouped_cudnn_9_status_reads_its_groups_curated_meaning() {
    // cuDNN 9 numbers its statuses in groups (cudnn_graph.h): 5003,
    // CUDNN_STATUS_EXECUTION_FAILED_CUDART, is a kind of 5000, CUDNN_STATUS_EXECUTION_FAILED.
    // Every grouped name of the generated table whose group has a curated row reads it.
    let knowledge = crate::engine::knowledge::Knowledge::load().unwrap();
    let generated = crate::engine::knowledge::generated::generated();
    let mut read = 0;
    for code in generated
        .status
        .code
        .iter()
        .filter(|c| c.type_name == "cudnnStatus_t")
    {
        if knowledge.catalog.code_named(&code.name).is_some() {
            continue;
        }
        let Some((group, _)) = knowledge.catalog.code_parent(&code.name) else {
            continue;
        };
        let t = triage(&format!("cuDNN error: {}", code.name));
        let slug = code.name.to_ascii_lowercase().replace('_', "-");
        let f = finding(&t, &slug);
        assert!(
            f.detail.contains(&format!("grouped under {group}")),
            "{}: {}",
            code.name,
            f.detail
        );
        read += 1;
    }
    // NOT_SUPPORTED_*, BAD_PARAM_*, EXECUTION_FAILED_*, INTERNAL_ERROR_* of cuDNN 9.
    assert!(read >= 20, "only {read} grouped statuses read");
}

#[test]
fn invalid_source_from_a_driver_call_is_a_build_older_than_the_gpu() {
    // https://github.com/nicehash/excavator/issues/275 (an RTX 2080 Ti: the CUDA 10 build fixed it)
    let t = triage("CUDA error DRIVER: '300' in func 'kernel_launcher::kernel_launcher' line 332");
    let f = finding(&t, "cuda-error-300");
    assert!(
        f.detail.contains("built with a CUDA older than the GPU"),
        "{}",
        f.detail
    );
    assert!(all_text(&t).contains("CUDA 10, 11 or 12 build"));
}
