//! Every status enum NVIDIA's headers declare, across the sampled releases: name, number,
//! NVIDIA's comment, the first and last release that has it; for `cudaError_t` also the message
//! the CUDA runtime itself prints (`cudaGetErrorString` of each major's `libcudart`, called
//! here: it needs no driver and no GPU).

use super::c_enums::enumerators;
use super::{Cache, GenerateError, Listing, major_minor, read, short_name};
use crate::engine::knowledge::generated::{StatusCode, StatusFile};
use crate::engine::knowledge::version::compare;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

/// Which enum of which header, its C type and the library that returns it.
struct Spec {
    header: &'static str,
    wanted: &'static str,
    type_name: &'static str,
    library: &'static str,
}

const SPECS: &[Spec] = &[
    Spec {
        header: "include/cuda.h",
        wanted: "cudaError_enum",
        type_name: "CUresult",
        library: "CUDA driver API",
    },
    Spec {
        header: "include/driver_types.h",
        wanted: "cudaError",
        type_name: "cudaError_t",
        library: "CUDA runtime",
    },
    Spec {
        header: "include/cublas_api.h",
        wanted: "cublasStatus_t",
        type_name: "cublasStatus_t",
        library: "cuBLAS",
    },
    Spec {
        header: "include/cudnn_graph.h",
        wanted: "cudnnStatus_t",
        type_name: "cudnnStatus_t",
        library: "cuDNN",
    },
    Spec {
        header: "include/cudnn_ops_infer.h",
        wanted: "cudnnStatus_t",
        type_name: "cudnnStatus_t",
        library: "cuDNN",
    },
    Spec {
        header: "include/cupti_result.h",
        wanted: "CUptiResult",
        type_name: "CUptiResult",
        library: "CUPTI",
    },
    Spec {
        header: "include/nvrtc.h",
        wanted: "nvrtcResult",
        type_name: "nvrtcResult",
        library: "NVRTC",
    },
    Spec {
        header: "include/nvJitLink.h",
        wanted: "nvJitLinkResult",
        type_name: "nvJitLinkResult",
        library: "nvJitLink",
    },
    Spec {
        header: "include/cufft.h",
        wanted: "cufftResult_t",
        type_name: "cufftResult",
        library: "cuFFT",
    },
    Spec {
        header: "include/curand.h",
        wanted: "curandStatus",
        type_name: "curandStatus_t",
        library: "cuRAND",
    },
    Spec {
        header: "include/cusolver_common.h",
        wanted: "cusolverStatus_t",
        type_name: "cusolverStatus_t",
        library: "cuSOLVER",
    },
    Spec {
        header: "include/cusparse.h",
        wanted: "cusparseStatus_t",
        type_name: "cusparseStatus_t",
        library: "cuSPARSE",
    },
    Spec {
        header: "include/nccl.h",
        wanted: "ncclResult_t",
        type_name: "ncclResult_t",
        library: "NCCL",
    },
    Spec {
        header: "include/nvml.h",
        wanted: "nvmlReturn_enum",
        type_name: "nvmlReturn_t",
        library: "NVML",
    },
    Spec {
        header: "include/nvjpeg.h",
        wanted: "nvjpegStatus_t",
        type_name: "nvjpegStatus_t",
        library: "nvJPEG",
    },
    Spec {
        header: "include/nppdefs.h",
        wanted: "NppStatus",
        type_name: "NppStatus",
        library: "NPP",
    },
];

/// The releases a listing's headers stand for: "CUDA 12.4" for a toolkit wheel (each CUDA
/// release that pins it), "cuDNN 9.1" / "NCCL 2.21" for the others.
fn release_labels(cache: &Cache, l: &Listing) -> Vec<String> {
    match short_name(&l.dist) {
        "cudnn" => vec![format!("cuDNN {}", major_minor(&l.version))],
        "nccl" => vec![format!("NCCL {}", major_minor(&l.version))],
        _ => cache
            .toolkits_pinning(&l.dist, &l.version)
            .into_iter()
            .map(|m| format!("CUDA {m}"))
            .collect(),
    }
}

fn label_cmp(a: &str, b: &str) -> Ordering {
    let num = |s: &str| s.rsplit(' ').next().unwrap_or("").to_string();
    compare(&num(a), &num(b)).unwrap_or(Ordering::Equal)
}

#[derive(Default)]
struct Seen {
    library: &'static str,
    labels: Vec<String>,
    comment: String,
    newest: String,
    source: String,
}

pub fn status_codes(cache: &Cache) -> Result<StatusFile, GenerateError> {
    let mut seen: BTreeMap<(usize, i64, String), Seen> = BTreeMap::new();
    for l in cache.listings.iter().filter(|l| l.platform == "linux") {
        let labels = release_labels(cache, l);
        if labels.is_empty() {
            continue;
        }
        for spec in SPECS {
            // cuDNN 8's and 9's headers share a type: one key space.
            let order = SPECS
                .iter()
                .position(|s| s.type_name == spec.type_name)
                .unwrap_or(0);
            let Some(path) = cache.fetched(l, spec.header) else {
                continue;
            };
            let text = read(&path)?;
            let found = enumerators(&text, spec.wanted);
            if found.is_empty() {
                return Err(GenerateError::Missing(format!(
                    "{}: no enum {}",
                    path.display(),
                    spec.wanted
                )));
            }
            for e in found {
                let entry = seen.entry((order, e.value, e.name.clone())).or_default();
                entry.library = spec.library;
                for label in &labels {
                    entry.labels.push(label.clone());
                    if entry.newest.is_empty()
                        || label_cmp(label, &entry.newest) == Ordering::Greater
                    {
                        entry.newest = label.clone();
                        if !e.comment.is_empty() || entry.comment.is_empty() {
                            entry.comment = e.comment.clone();
                        }
                        entry.source =
                            format!("{} of {} {} (PyPI)", spec.header, l.dist, l.version);
                    }
                }
            }
        }
    }
    let texts = runtime_texts(cache);
    let mut out = StatusFile::default();
    for ((order, number, name), s) in seen {
        let first = s
            .labels
            .iter()
            .min_by(|a, b| label_cmp(a, b))
            .cloned()
            .unwrap_or_default();
        let last = s
            .labels
            .iter()
            .max_by(|a, b| label_cmp(a, b))
            .cloned()
            .unwrap_or_default();
        let type_name = SPECS[order].type_name;
        out.code.push(StatusCode {
            type_name: type_name.to_string(),
            library: s.library.to_string(),
            text: (type_name == "cudaError_t")
                .then(|| texts.get(&number).cloned())
                .flatten(),
            name,
            number,
            comment: s.comment,
            first,
            last,
            source: s.source,
        });
    }
    Ok(out)
}

/// `cudaGetErrorString` of every number the newest `libcudart` of each major knows, newest
/// major first (a message reworded later keeps the newest wording).
fn runtime_texts(cache: &Cache) -> BTreeMap<i64, String> {
    let mut minors: Vec<String> = cache.manifest.toolkits.keys().cloned().collect();
    super::sort_versions(&mut minors);
    let mut newest_per_major: BTreeMap<String, String> = BTreeMap::new();
    for m in minors {
        newest_per_major.insert(m.split('.').next().unwrap_or("").to_string(), m);
    }
    let mut out = BTreeMap::new();
    for minor in newest_per_major.values().rev() {
        let Some(l) = cache.toolkit_listing(minor, "cuda-runtime") else {
            continue;
        };
        let Some(lib) = l
            .fetched
            .iter()
            .find(|f| f.contains("/lib/libcudart.so."))
            .map(|f| cache.root.join(f))
        else {
            continue;
        };
        for (n, text) in error_strings(&lib) {
            out.entry(n).or_insert(text);
        }
    }
    out
}

/// Calls `cudaGetErrorString(n)` for 0..=1100 in `lib`; numbers it does not know are left out.
fn error_strings(lib: &Path) -> Vec<(i64, String)> {
    type GetErrorString = unsafe extern "C" fn(i32) -> *const std::ffi::c_char;
    // SAFETY: libcudart's initialisers only set up its own state; cudaGetErrorString reads a
    // static table and returns a static NUL-terminated string (or "unrecognized error code").
    let Ok(lib) = (unsafe { libloading::Library::new(lib) }) else {
        return Vec::new();
    };
    let Ok(f) = (unsafe { lib.get::<GetErrorString>(b"cudaGetErrorString\0") }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in 0..=1100 {
        // SAFETY: see above; the pointer is checked for null.
        let p = unsafe { f(n) };
        if p.is_null() {
            continue;
        }
        let text = unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned();
        if !text.contains("unrecognized error code") {
            out.push((i64::from(n), text));
        }
    }
    out
}
