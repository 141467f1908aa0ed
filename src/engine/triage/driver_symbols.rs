//! Missing symbols that are CUDA API entry points, read with the generated entry-point table
//! (each release's cuda.h and cuda_runtime_api.h): a driver or runtime older than the release
//! that introduced the function, a stub that answered instead of the real library, or a
//! function every driver exports missing, so the library that answered is no real driver.

use super::extract::MissingSymbol;
use crate::engine::context::Platform;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::generated::generated;

/// Missing symbols that are CUDA API entry points: the driver (or, for `cuda*` names, the CUDA
/// runtime library) that was loaded is older than the CUDA release that introduced them.
pub fn driver_symbol_findings(symbols: &[MissingSymbol], k: &Knowledge) -> Vec<Finding> {
    let g = generated();
    symbols
        .iter()
        .filter_map(|s| {
            let e = g.entry_point(&s.symbol)?;
            let since = if e.exact {
                format!("CUDA {}", e.since)
            } else {
                format!("CUDA {} or earlier", e.since)
            };
            // A stub (the toolkit's stubs/libcuda.so, a package's libcudart_stub.so) exports next
            // to nothing: the symbol is missing because the wrong file answered, not an old one.
            let library_named = |word: &str| {
                s.library
                    .as_deref()
                    .filter(|l| l.to_ascii_lowercase().contains(word))
            };
            let stub = library_named("stub");
            // A profiler's interposer (Nsight Compute's libcuda-injection.so) stands in for the
            // driver while the program runs under it, and knows the CUDA of its own release.
            let injection = library_named("injection").filter(|_| !s.at_link);
            let (summary, detail, fix) = if let Some(lib) = injection {
                (
                    format!(
                        "{} was looked up in {lib}, the profiler's stand-in for the driver, and this profiler release does not know it",
                        s.symbol
                    ),
                    format!(
                        "{lib} is the injection library of NVIDIA's profilers (Nsight Compute, Nsight \
                         Systems): while a program runs under the profiler, its CUDA calls go through it, \
                         and it exports the driver functions of the CUDA release the profiler came with. \
                         {} first appeared in {since}, so the profiler is older than that; the driver \
                         itself may well have it. Programs that resolve every driver function at start \
                         (Rust's cudarc, built for a CUDA level) stop on it although they never call it.",
                        s.symbol
                    ),
                    format!(
                        "Run the program under a newer Nsight Compute / Nsight Systems (the one of {since} \
                         or newer, usually the toolkit's own), or build the program for an older CUDA \
                         level (cudarc's cuda-12050 feature, for example) or with a release that \
                         resolves driver functions lazily."
                    ),
                )
            } else if s.at_link {
                (
                    format!("The CUDA toolkit this build links against is older than the code: it lacks {}", s.symbol),
                    format!(
                        "{} is a CUDA {} API function, first declared in {since}. The linker found no \
                         definition of it in the CUDA libraries it was given, so the CUDA toolkit the build \
                         uses is older than the code was written for, or the build picked another CUDA than \
                         intended (an old /usr/local/cuda, a distribution's nvidia-cuda-toolkit, a conda \
                         cudatoolkit first on the path).",
                        s.symbol,
                        if e.api == "runtime" { "runtime" } else { "driver" }
                    ),
                    "Build with a newer CUDA toolkit (the project's README names its minimum): install it \
                     and point the build at it (PATH and CUDA_HOME, CMake's CMAKE_CUDA_COMPILER or \
                     CUDAToolkit_ROOT), then check nvcc --version and rebuild from a clean build folder."
                        .to_string(),
                )
            } else if let Some(lib) = stub {
                (
                    format!(
                        "{} was looked up in {lib}, a stub library, not the real CUDA {}: the wrong library answered",
                        s.symbol,
                        if e.api == "runtime" { "runtime" } else { "driver" }
                    ),
                    format!(
                        "{lib} is a stub or look-alike: stubs (the CUDA toolkit's lib64/stubs/libcuda.so, a \
                         package's *_stub.so) exist to link against or to stand in, and export few or none of \
                         the real library's functions, so {} is not found in it. The process loaded or picked \
                         the stub instead of the real library: a stubs folder on LD_LIBRARY_PATH or the library \
                         path, or a program that finds the library among those loaded by its name prefix and \
                         took the wrong one.",
                        s.symbol
                    ),
                    "Take the stubs folder off LD_LIBRARY_PATH (and the ld cache); make the real library \
                     (libcudart.so.* of the toolkit or the nvidia-cuda-runtime wheel, the driver's \
                     libcuda.so.1) the one found; where a package picks a loaded library by name prefix, \
                     update it or report it to its project."
                        .to_string(),
                )
            } else if e.api == "driver" && older_than_every_listed_cuda(&e.since, k) {
                (
                    format!(
                        "{} is missing from the CUDA driver library that answered: that library is not a working NVIDIA driver",
                        s.symbol
                    ),
                    format!(
                        "{} has been in the CUDA driver API since {since}, older than every CUDA release in \
                         NVIDIA's driver table: every NVIDIA driver exports it, so an old driver is not the \
                         cause. The library that answered is not the real driver library: the toolkit's \
                         stub (lib64/stubs/libcuda.so) or another libcuda found first on the library path; \
                         under WSL a libcuda.so installed inside the distribution (by a Linux driver or \
                         toolkit package) instead of the Windows driver's /usr/lib/wsl/lib/libcuda.so.1; or \
                         a binding that found no libcuda at all and looked in the process itself.",
                        s.symbol
                    ),
                    "Make the real driver library the one found: ldconfig -p | grep libcuda shows which \
                     libcuda.so.1 the loader takes. Under WSL put /usr/lib/wsl/lib first \
                     (LD_LIBRARY_PATH=/usr/lib/wsl/lib) and remove any libcuda.so* installed inside the \
                     distribution; elsewhere take stubs folders off LD_LIBRARY_PATH, or reinstall the \
                     NVIDIA driver."
                        .to_string(),
                )
            } else if e.api == "runtime" {
                (
                    format!("The CUDA runtime library loaded is older than the program needs: it lacks {}", s.symbol),
                    format!(
                        "{} is a CUDA runtime API function, first declared in {since}'s cuda_runtime_api.h. \
                         The libcudart / cudart64_*.dll that was loaded does not export it, so it is older than \
                         the CUDA the program was built with: an older CUDA runtime is found first on the \
                         library path.",
                        s.symbol
                    ),
                    "Put the CUDA runtime of the release the program was built with first on the library \
                     path (or install it), and remove the older one from the path."
                        .to_string(),
                )
            } else {
                let mins: Vec<String> = [Platform::Linux, Platform::Windows]
                    .iter()
                    .filter_map(|p| {
                        let r = k.drivers.min_driver(&e.since, *p)?;
                        Some(format!("{} on {p:?}", r.min_driver))
                    })
                    .collect();
                (
                    format!("The NVIDIA driver is older than the program needs: it lacks {}", s.symbol),
                    format!(
                        "{} is a CUDA driver API entry point introduced in {since} (NVIDIA's cuda.h and \
                         cudaTypedefs.h). The NVIDIA driver library that was loaded (libcuda.so.1 / \
                         nvcuda.dll) does not export it, so the driver is older than {since}, the CUDA \
                         whose cuda.h the program (or its compiled extension, such as a PyCUDA or \
                         cupy binary) was built against. {}",
                        s.symbol,
                        if mins.is_empty() {
                            "Update the driver.".to_string()
                        } else {
                            format!("Its minimum driver is {}.", mins.join(", "))
                        }
                    ),
                    "Update the driver: install a newer one from NVIDIA \
                     (https://www.nvidia.com/Download/index.aspx) and reboot; or reinstall or rebuild the \
                     program (from source, against the CUDA this driver supports) so that it is built \
                     for an older CUDA."
                        .to_string(),
                )
            };
            let source = if injection.is_some() {
                "cuda.h and cudaTypedefs.h of each CUDA release's nvidia-cuda-runtime wheel; \
                 https://github.com/vortex-data/vortex/pull/6660 (a cudarc program under ncu: \
                 libcuda-injection.so without cuTensorMapEncodeIm2colWide)"
            } else {
                "cuda.h, cudaTypedefs.h (PFN_<name>_v<CUDA version>) and cuda_runtime_api.h of each CUDA release's nvidia-cuda-runtime wheel"
            };
            Some(
                Finding::new(codes::DRIVER_ENTRY_POINT_MISSING, Severity::Error, summary, detail)
                    .with_libraries([s.library.clone().unwrap_or_default()].into_iter().filter(|l| !l.is_empty()))
                    .with_evidence(Evidence::new("log", s.line.clone()))
                    .with_evidence(Evidence::new("source", source))
                    .with_fix(FixRef {
                        id: "advice-update-cuda-library".into(),
                        kind: FixKind::Manual,
                        summary: fix,
                    }),
            )
        })
        .collect()
}

/// Whether `since` is older than the oldest CUDA release in NVIDIA's driver table: every driver
/// NVIDIA lists exports what that release introduced.
fn older_than_every_listed_cuda(since: &str, k: &Knowledge) -> bool {
    k.drivers.releases.iter().all(|r| {
        crate::engine::knowledge::version::compare(since, &r.cuda) == Some(std::cmp::Ordering::Less)
    })
}
