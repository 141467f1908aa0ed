//! Every status enum NVIDIA's headers declare, across the sampled releases: name, number,
//! NVIDIA's comment, the first and last release that has it; for `cudaError_t` also the message
//! the CUDA runtime itself prints (`cudaGetErrorString` of each major's `libcudart`, called
//! here: it needs no driver and no GPU). OpenCL's error codes come from the `CL/cl.h` that the
//! CUDA toolkit ships (`nvidia-cuda-opencl`), NVENC's from the Video Codec SDK's
//! `nvEncodeAPI.h` in Debian's `libffmpeg-nvenc-dev` (FFmpeg's nv-codec-headers); cuTENSOR's and
//! cuDSS's from their own wheels, GPUDirect Storage's (cuFile) from `cufile.h`'s X-macro list.

use super::c_enums::{
    Enumerator, defines_in_section, enumerators, integer_defines, x_macro_entries,
};
use super::{Cache, GenerateError, Listing, major_minor, read, short_name};
use crate::engine::knowledge::generated::{StatusCode, StatusFile};
use crate::engine::knowledge::version::compare;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

/// Which enum of which header, its C type and the library that returns it.
struct Spec {
    header: &'static str,
    wanted: Wanted,
    type_name: &'static str,
    library: &'static str,
}

/// What a spec reads of its header.
#[derive(Clone, Copy)]
enum Wanted {
    /// The enum of this tag or typedef name.
    Enum(&'static str),
    /// The `#define`s under the line holding this section comment.
    Defines(&'static str),
    /// Every integer `#define` of this value or lower.
    DefinesAtMost(i64),
    /// Windows' `#define STATUS_X ((NTSTATUS)0xC000....)` of error severity and facility 0.
    NtStatusErrors,
    /// The entries of an X-macro list (cufile.h's `CUFILE_OP(code, name, message)`).
    XMacro(&'static str),
}

impl Wanted {
    fn read(self, text: &str) -> Vec<Enumerator> {
        match self {
            Wanted::Enum(name) => enumerators(text, name),
            Wanted::Defines(section) => defines_in_section(text, section),
            Wanted::DefinesAtMost(most) => integer_defines(text)
                .into_iter()
                .filter(|e| e.value <= most)
                .collect(),
            Wanted::NtStatusErrors => nt_status_errors(text),
            Wanted::XMacro(name) => x_macro_entries(text, name),
        }
    }

    fn describe(self) -> String {
        match self {
            Wanted::Enum(name) => format!("no enum {name}"),
            Wanted::Defines(section) => format!("no #define section {section}"),
            Wanted::DefinesAtMost(most) => format!("no #define of {most} or lower"),
            Wanted::NtStatusErrors => "no #define STATUS_X ((NTSTATUS)0xC000....)".to_string(),
            Wanted::XMacro(name) => format!("no {name}(...) entries"),
        }
    }
}

const SPECS: &[Spec] = &[
    Spec {
        header: "include/cuda.h",
        wanted: Wanted::Enum("cudaError_enum"),
        type_name: "CUresult",
        library: "CUDA driver API",
    },
    Spec {
        header: "include/driver_types.h",
        wanted: Wanted::Enum("cudaError"),
        type_name: "cudaError_t",
        library: "CUDA runtime",
    },
    Spec {
        header: "include/cublas_api.h",
        wanted: Wanted::Enum("cublasStatus_t"),
        type_name: "cublasStatus_t",
        library: "cuBLAS",
    },
    Spec {
        header: "include/cudnn_graph.h",
        wanted: Wanted::Enum("cudnnStatus_t"),
        type_name: "cudnnStatus_t",
        library: "cuDNN",
    },
    Spec {
        header: "include/cudnn_ops_infer.h",
        wanted: Wanted::Enum("cudnnStatus_t"),
        type_name: "cudnnStatus_t",
        library: "cuDNN",
    },
    Spec {
        header: "include/cupti_result.h",
        wanted: Wanted::Enum("CUptiResult"),
        type_name: "CUptiResult",
        library: "CUPTI",
    },
    Spec {
        header: "include/nvrtc.h",
        wanted: Wanted::Enum("nvrtcResult"),
        type_name: "nvrtcResult",
        library: "NVRTC",
    },
    Spec {
        header: "include/nvJitLink.h",
        wanted: Wanted::Enum("nvJitLinkResult"),
        type_name: "nvJitLinkResult",
        library: "nvJitLink",
    },
    Spec {
        header: "include/cufft.h",
        wanted: Wanted::Enum("cufftResult_t"),
        type_name: "cufftResult",
        library: "cuFFT",
    },
    Spec {
        header: "include/curand.h",
        wanted: Wanted::Enum("curandStatus"),
        type_name: "curandStatus_t",
        library: "cuRAND",
    },
    Spec {
        header: "include/cusolver_common.h",
        wanted: Wanted::Enum("cusolverStatus_t"),
        type_name: "cusolverStatus_t",
        library: "cuSOLVER",
    },
    Spec {
        header: "include/cusparse.h",
        wanted: Wanted::Enum("cusparseStatus_t"),
        type_name: "cusparseStatus_t",
        library: "cuSPARSE",
    },
    Spec {
        header: "include/nccl.h",
        wanted: Wanted::Enum("ncclResult_t"),
        type_name: "ncclResult_t",
        library: "NCCL",
    },
    Spec {
        header: "include/nvml.h",
        wanted: Wanted::Enum("nvmlReturn_enum"),
        type_name: "nvmlReturn_t",
        library: "NVML",
    },
    Spec {
        header: "include/nvjpeg.h",
        wanted: Wanted::Enum("nvjpegStatus_t"),
        type_name: "nvjpegStatus_t",
        library: "nvJPEG",
    },
    Spec {
        header: "include/nppdefs.h",
        wanted: Wanted::Enum("NppStatus"),
        type_name: "NppStatus",
        library: "NPP",
    },
    Spec {
        header: "include/cutensor/types.h",
        wanted: Wanted::Enum("cutensorStatus_t"),
        type_name: "cutensorStatus_t",
        library: "cuTENSOR",
    },
    Spec {
        header: "include/cudss_data_types.h",
        wanted: Wanted::Enum("cudssStatus_t"),
        type_name: "cudssStatus_t",
        library: "cuDSS",
    },
    // GPUDirect Storage's statuses, each with its message, as one X-macro list.
    Spec {
        header: "include/cufile.h",
        wanted: Wanted::XMacro("CUFILE_OP"),
        type_name: "CUfileOpError",
        library: "cuFile (GPUDirect Storage)",
    },
    Spec {
        header: "include/CL/cl.h",
        wanted: Wanted::Defines("/* Error Codes */"),
        type_name: "cl_int",
        library: "OpenCL",
    },
    // The extensions' codes (CL_PLATFORM_NOT_FOUND_KHR, -1001: no OpenCL driver registered):
    // Khronos gives extensions error codes from -1000 down; the header's comments over them vary
    // from release to release.
    Spec {
        header: "include/CL/cl_ext.h",
        wanted: Wanted::DefinesAtMost(-1000),
        type_name: "cl_int",
        library: "OpenCL",
    },
];

/// Headers of Debian's packages (`manifest.debian`): the package, the header and what it holds.
const DEBIAN_SPECS: &[(&str, Spec)] = &[
    (
        "libffmpeg-nvenc-dev",
        Spec {
            header: "usr/include/ffnvcodec/nvEncodeAPI.h",
            wanted: Wanted::Enum("_NVENCSTATUS"),
            type_name: "NVENCSTATUS",
            library: "NVENC (Video Codec SDK)",
        },
    ),
    // A Windows process that dies of an exception or a loader failure exits with its NTSTATUS
    // (0xC0000135 STATUS_DLL_NOT_FOUND, 0xC0000409 STATUS_STACK_BUFFER_OVERRUN): the code an
    // app's log prints when its GPU worker crashed.
    (
        "mingw-w64-common",
        Spec {
            header: "usr/share/mingw-w64/include/ntstatus.h",
            wanted: Wanted::NtStatusErrors,
            type_name: "NTSTATUS",
            library: "Windows",
        },
    ),
];

/// `#define STATUS_DLL_NOT_FOUND ((NTSTATUS)0xC0000135)`: the error-severity values of
/// facility 0 (0xC0000000 to 0xC000FFFF), the ones a process's exit code carries.
fn nt_status_errors(text: &str) -> Vec<Enumerator> {
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("#define")).then_some(())?;
            let name = words.next().filter(|n| n.starts_with("STATUS_"))?;
            let value = words.next()?.strip_prefix("((NTSTATUS)0x")?;
            let hex = value.trim_end_matches(')').trim_end_matches(['L', 'l']);
            let value = i64::from_str_radix(hex, 16).ok()?;
            ((0xC000_0000..=0xC000_FFFF).contains(&value)).then(|| Enumerator {
                name: name.to_string(),
                value,
                comment: String::new(),
            })
        })
        .collect()
}

/// The release a Debian package's header stands for: the Video Codec SDK's version for
/// nvEncodeAPI.h, the upstream version for the others ("mingw-w64 10.0.0").
fn debian_label(package: &str, version: &str, path: &Path) -> Result<String, GenerateError> {
    match package {
        "libffmpeg-nvenc-dev" => video_codec_sdk_label(path),
        "mingw-w64-common" => Ok(format!(
            "mingw-w64 {}",
            version.split('-').next().unwrap_or(version)
        )),
        _ => Ok(format!("{package} {version}")),
    }
}

/// The releases a listing's headers stand for: "CUDA 12.4" for a toolkit wheel (each CUDA
/// release that pins it), "cuDNN 9.1" / "NCCL 2.21" for the others.
pub(super) fn release_labels(cache: &Cache, l: &Listing) -> Vec<String> {
    match short_name(&l.dist) {
        "cudnn" => vec![format!("cuDNN {}", major_minor(&l.version))],
        "nccl" => vec![format!("NCCL {}", major_minor(&l.version))],
        "cutensor" => vec![format!("cuTENSOR {}", major_minor(&l.version))],
        "cudss" => vec![format!("cuDSS {}", major_minor(&l.version))],
        _ => cache
            .toolkits_pinning(&l.dist, &l.version)
            .into_iter()
            .map(|m| format!("CUDA {m}"))
            .collect(),
    }
}

pub(super) fn label_cmp(a: &str, b: &str) -> Ordering {
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

/// Records what one header holds for `labels` (the releases it stands for).
fn record(
    seen: &mut BTreeMap<(usize, i64, String), Seen>,
    spec: &Spec,
    path: &Path,
    labels: &[String],
    source: &str,
) -> Result<(), GenerateError> {
    // cuDNN 8's and 9's headers share a type: one key space.
    let order = all_specs()
        .position(|s| s.type_name == spec.type_name)
        .unwrap_or(0);
    let text = read(path)?;
    let found = spec.wanted.read(&text);
    if found.is_empty() {
        return Err(GenerateError::Missing(format!(
            "{}: {}",
            path.display(),
            spec.wanted.describe()
        )));
    }
    for e in found {
        let entry = seen.entry((order, e.value, e.name.clone())).or_default();
        entry.library = spec.library;
        for label in labels {
            entry.labels.push(label.clone());
            if entry.newest.is_empty() || label_cmp(label, &entry.newest) == Ordering::Greater {
                entry.newest = label.clone();
                if !e.comment.is_empty() || entry.comment.is_empty() {
                    entry.comment = e.comment.clone();
                }
                entry.source = source.to_string();
            }
        }
    }
    Ok(())
}

/// The specs of the wheels' headers, then those of Debian's packages.
fn all_specs() -> impl Iterator<Item = &'static Spec> {
    SPECS
        .iter()
        .chain(DEBIAN_SPECS.iter().map(|(_, spec)| spec))
}

/// "Video Codec SDK 11.1", from `nvEncodeAPI.h`'s `NVENCAPI_MAJOR_VERSION`/`MINOR_VERSION`.
fn video_codec_sdk_label(path: &Path) -> Result<String, GenerateError> {
    let text = read(path)?;
    let define = |name: &str| {
        text.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("#define") && w.next() == Some(name))
                .then(|| w.next().map(str::to_string))
                .flatten()
        })
    };
    match (
        define("NVENCAPI_MAJOR_VERSION"),
        define("NVENCAPI_MINOR_VERSION"),
    ) {
        (Some(major), Some(minor)) => Ok(format!("Video Codec SDK {major}.{minor}")),
        _ => Err(GenerateError::Missing(format!(
            "{}: no NVENCAPI_MAJOR_VERSION/NVENCAPI_MINOR_VERSION",
            path.display()
        ))),
    }
}

pub fn status_codes(cache: &Cache) -> Result<StatusFile, GenerateError> {
    let mut seen: BTreeMap<(usize, i64, String), Seen> = BTreeMap::new();
    for l in cache.listings.iter().filter(|l| l.platform == "linux") {
        let labels = release_labels(cache, l);
        if labels.is_empty() {
            continue;
        }
        for spec in SPECS {
            let Some(path) = cache.fetched(l, spec.header) else {
                continue;
            };
            let source = format!("{} of {} {} (PyPI)", spec.header, l.dist, l.version);
            record(&mut seen, spec, &path, &labels, &source)?;
        }
    }
    for (package, spec) in DEBIAN_SPECS {
        let fetched = cache.manifest.debian.get(*package);
        let Some((version, file)) = fetched.and_then(|d| {
            d.files
                .iter()
                .find(|f| f.ends_with(spec.header))
                .map(|f| (&d.version, f))
        }) else {
            return Err(GenerateError::Missing(format!(
                "{}: not in the cache's manifest (Debian's {package})",
                spec.header
            )));
        };
        let path = cache.root.join(file);
        let labels = [debian_label(package, version, &path)?];
        let source = format!("{} of Debian's {package} {version}", spec.header);
        record(&mut seen, spec, &path, &labels, &source)?;
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
        let type_name = all_specs().nth(order).map_or("", |s| s.type_name);
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
