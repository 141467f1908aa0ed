//! What a program states it needs, read in the general form any program prints it: a CUDA
//! floor ("requires CUDA >= 12.1", "CUDA 11.8 or higher is required", "only supported on CUDA
//! 11.6 and above"), a cuDNN floor ("cuDNN version >=8 is required"), an NVIDIA driver floor ("requires NVIDIA driver version 535 or newer"), and
//! a compiled extension module that is not there (`No module named 'causal_conv1d_cuda'`,
//! `cannot import name '_C' from 'groundingdino'`). A program's own row, where the catalog has
//! one for the line, reads it instead (the caller drops lines a specific row reads).

use super::extract::clip;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::drivers::requirement_words;
use crate::engine::knowledge::torch_extensions::package_of;
use regex::Regex;
use std::sync::OnceLock;

/// A floor a line states: what (`Cuda` or `Driver`), the version, the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatedFloor {
    pub of: FloorOf,
    pub version: String,
    pub line: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorOf {
    Cuda,
    Cudnn,
    Driver,
}

/// An extension module Python could not import: the module as written, its package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingExtension {
    pub module: String,
    pub package: String,
    pub line: String,
}

struct Patterns {
    cuda: [Regex; 4],
    cudnn: [Regex; 3],
    driver: [Regex; 3],
    /// A version the line says was found ("found 11.4", "CUDA 11.3 is installed").
    found: Regex,
    /// A cuDNN version the line says was found ("Found cuDNN: ver. 7.6.5 found").
    found_cudnn: Regex,
    /// A driver version the line says was found ("version 510.85.02 was detected").
    found_driver: Regex,
    /// A line that reports a fallback or a notice, not a failure.
    notice: Regex,
    /// A line a logger wrote at information or debug level (`INFO`, glog's `I0412`).
    info_level: Regex,
    no_module: Regex,
    cannot_import: Regex,
    /// A package that imports its extension inside try/except and uses the name later:
    /// "NameError: name 'fused_act_ext' is not defined" (BasicSR).
    undefined_name: Regex,
}

fn patterns() -> &'static Patterns {
    static RE: OnceLock<Patterns> = OnceLock::new();
    RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        // CUDA, its toolkit or runtime, or nvcc; a version of one or two parts.
        const CUDA: &str = r"\b(?:CUDA(?:[ _-]?(?:toolkit|runtime))?|nvcc)\s*(?:version\s*)?";
        const CUDNN: &str = r"\bcuDNN\s*(?:version\s*)?";
        const DRIVER: &str = r"\b(?:NVIDIA\s+)?(?:(?:graphics|display|GPU)\s+)?driver(?:\s+(?:version|release))?\s*";
        const MORE: &str = r"\+?\s*(?:or|and)\s*(?:newer|higher|later|above|greater|up)\b";
        // A version the line says was found: after a word that says so, or before "is
        // installed" (`more` adds words to the first list).
        let found = |more: &str, version: &str| {
            format!(
                r"(?i)(?:\b(?:found|got|detected|current(?:ly)?|installed|you have{more})\b[^0-9]{{0,24}}?({version})\b|\b({version}) (?:is|was) (?:installed|found|detected))"
            )
        };
        const ASKS: &str = r"\b(?:requires?|required|needs?|at least|minimum(?:\s+required)?(?:\s+version)?(?:\s+of)?|only supported (?:on|with|for)|supports? only)\s+(?:an?\s+|the\s+)?";
        Patterns {
            cuda: [
                re(&format!(r"(?i){CUDA}(?:>=|≥|=>)\s*v?(\d{{1,2}}(?:\.\d+)?)\b")),
                re(&format!(r"(?i){CUDA}v?(\d{{1,2}}(?:\.\d+)?){MORE}")),
                re(&format!(
                    r"(?i){ASKS}(?:NVIDIA\s+)?{CUDA}(?:of\s+)?(?:>=\s*)?v?(\d{{1,2}}(?:\.\d+)?)\b(?:[^.\d]|$)"
                )),
                // "The detected CUDA driver version 11.4 is lower than the required version 12.0".
                re(&format!(
                    r"(?i){CUDA}(?:driver\s+)?(?:version\s*)?v?\d{{1,2}}\.\d+\s+is\s+(?:lower|older|less)\s+than\s+(?:the\s+)?(?:required|minimum|needed)(?:\s+version)?\s*(?:of\s+)?v?(\d{{1,2}}(?:\.\d+)?)\b"
                )),
            ],
            cudnn: [
                re(&format!(r"(?i){CUDNN}(?:>=|≥|=>)\s*v?(\d{{1,2}}(?:\.\d+){{0,2}})\b")),
                re(&format!(r"(?i){CUDNN}v?(\d{{1,2}}(?:\.\d+){{0,2}}){MORE}")),
                re(&format!(
                    r"(?i){ASKS}{CUDNN}(?:of\s+)?(?:>=\s*)?v?(\d{{1,2}}(?:\.\d+){{0,2}})\b(?:[^.\d]|$)"
                )),
            ],
            driver: [
                re(&format!(r"(?i){DRIVER}(?:>=|≥|=>)\s*[rR]?(\d{{3}}(?:\.\d+){{0,2}})\b")),
                re(&format!(r"(?i){DRIVER}[rR]?(\d{{3}}(?:\.\d+){{0,2}}){MORE}")),
                re(&format!(
                    r"(?i){ASKS}{DRIVER}(?:of\s+)?(?:>=\s*)?[rR]?(\d{{3}}(?:\.\d+){{0,2}})\b"
                )),
            ],
            found: re(&found(r"|but", r"\d{1,2}\.\d+")),
            found_cudnn: re(&found("", r"\d{1,2}\.\d+(?:\.\d+)?")),
            found_driver: re(&found("", r"\d{3}\.\d+(?:\.\d+)?")),
            notice: re(
                r"(?i)\bwarn(?:ing)?\b|fall(?:ing)? ?back|will (?:not|be disabled)|\bdisabl|\bskipp|\bignor|\boptional\b",
            ),
            info_level: re(r"(?:^|[\s\[|:])(?:INFO|DEBUG)\b|^\s*I[0-9]{4} "),
            no_module: re(r#"No module named ['"]?([A-Za-z_][A-Za-z0-9_.]*)"#),
            undefined_name: re(r"NameError: name '([A-Za-z_][A-Za-z0-9_]*)' is not defined"),
            cannot_import: re(
                r#"cannot import name ['"]?(_[A-Za-z0-9_]*|[A-Za-z0-9_]*_(?:C|ext|cuda))['"]? from ['"]?([A-Za-z_][A-Za-z0-9_.]*)"#,
            ),
        }
    })
}

/// The CUDA and driver floors the text states, once each.
pub fn stated_floors(text: &str) -> Vec<StatedFloor> {
    let p = patterns();
    let mut out: Vec<StatedFloor> = Vec::new();
    for line in text.lines() {
        if super::extract::is_conditional_hint(line) {
            continue;
        }
        for (of, res) in [
            (FloorOf::Cuda, &p.cuda[..]),
            (FloorOf::Cudnn, &p.cudnn[..]),
            (FloorOf::Driver, &p.driver[..]),
        ] {
            // nvidia-container-cli's own command line (`--require=cuda>=8.0`) states the
            // image's requirement as an option, not a failure.
            let option = |c: &regex::Captures| {
                let start = c.get(0).map_or(0, |m| m.start());
                line[..start].ends_with("--require=")
            };
            let Some(version) = res.iter().find_map(|re| {
                re.captures(line)
                    .filter(|c| !option(c))
                    .map(|c| c[1].to_string())
            }) else {
                continue;
            };
            if !out.iter().any(|f| f.of == of && f.version == version) {
                out.push(StatedFloor {
                    of,
                    version,
                    line: clip(line),
                });
            }
        }
    }
    out
}

/// Whether a module's last part names a compiled extension: `_C`, `_ext`, a name ending in
/// `_C`/`_ext`, or an underscore-joined name with a `cuda` part (`selective_scan_cuda`).
fn is_extension_module(last: &str) -> bool {
    last.starts_with('_') && last.len() > 1
        || last.ends_with("_C")
        || last.ends_with("_ext")
        || (last.contains('_') && last.split('_').any(|part| part == "cuda"))
}

/// Compiled extension modules Python could not import, with the package each belongs to.
pub fn missing_extensions(text: &str) -> Vec<MissingExtension> {
    let p = patterns();
    let mut out: Vec<MissingExtension> = Vec::new();
    for line in text.lines() {
        let module = if let Some(c) = p.cannot_import.captures(line) {
            format!("{}.{}", &c[2], &c[1])
        } else if let Some(c) = p.no_module.captures(line) {
            c[1].trim_end_matches('.').to_string()
        } else if let Some(c) = p.undefined_name.captures(line) {
            c[1].to_string()
        } else {
            continue;
        };
        let parts: Vec<&str> = module.split('.').collect();
        let last = parts.last().copied().unwrap_or_default();
        // TensorFlow 1.x on Windows says "No module named '_pywrap_tensorflow_internal'" when
        // the module's DLL failed to load (a catalog row reads it): not a missing extension.
        if !is_extension_module(last) || last.starts_with("_pywrap_tensorflow") {
            continue;
        }
        // A dotted module belongs to its top package; a flat one to the package the extension
        // table names, else to its name without the extension suffix.
        let package = if parts.len() > 1 {
            package_of(parts[0]).map_or(parts[0].to_string(), |row| row.package.clone())
        } else {
            package_of(last).map_or_else(
                || {
                    last.split("_cuda")
                        .next()
                        .unwrap_or(last)
                        .trim_end_matches("_ext")
                        .trim_end_matches("_C")
                        .to_string()
                },
                |row| row.package.clone(),
            )
        };
        if package.is_empty() || out.iter().any(|m| m.module == module) {
            continue;
        }
        out.push(MissingExtension {
            module,
            package,
            line: clip(line),
        });
    }
    out
}

/// The severity of a floor on `line`: a line logged at information level is information, a
/// notice or a fallback a warning, anything else an error.
fn floor_severity(line: &str) -> Severity {
    if patterns().info_level.is_match(line) {
        Severity::Info
    } else if patterns().notice.is_match(line) {
        Severity::Warning
    } else {
        Severity::Error
    }
}

/// The version the floor's line says was found (by `found`), else one the rest of `text` says
/// was found (a message that goes on to the next line); never the floor itself.
fn found_version(found: &Regex, line: &str, text: &str, floor: &str) -> Option<String> {
    [line, text].into_iter().find_map(|t| {
        found
            .captures_iter(t)
            .filter_map(|c| c.get(1).or(c.get(2)).map(|m| m.as_str().to_string()))
            .find(|v| v != floor)
    })
}

/// NVIDIA's table of CUDA releases and the drivers they need.
const DRIVER_TABLE_SOURCE: &str = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html (CUDA Toolkit and minimum driver versions)";

/// A finding per stated floor, with the version `text` says was found.
pub fn floor_findings(floors: &[StatedFloor], text: &str, k: &Knowledge) -> Vec<Finding> {
    floors
        .iter()
        .map(|f| match f.of {
            FloorOf::Cuda => cuda_floor_finding(f, text, k),
            FloorOf::Cudnn => cudnn_floor_finding(f, text),
            FloorOf::Driver => driver_floor_finding(f, text, k),
        })
        .collect()
}

fn cuda_floor_finding(f: &StatedFloor, text: &str, k: &Knowledge) -> Finding {
    let v = &f.version;
    let found = found_version(&patterns().found, &f.line, text, v)
        .map(|o| format!(" The text shows CUDA {o}."))
        .unwrap_or_default();
    let driver = requirement_words(v, &k.drivers)
        .map(|w| format!(" {w}"))
        .unwrap_or_default();
    Finding::new(
        codes::VERSION_MISMATCH_REPORTED,
        floor_severity(&f.line),
        format!("The program needs CUDA {v} or newer, and the CUDA it found is older"),
        format!(
            "The line states a minimum CUDA version, {v}.{found} Which CUDA counts depends on the \
             step: a build (a package compiling its CUDA extension) uses the toolkit that nvcc on \
             PATH, CUDA_HOME or CUDA_PATH points at (nvcc --version shows it); a running program \
             uses the CUDA runtime it ships or loads (a framework's +cuXXX build) and the NVIDIA \
             driver, which must support CUDA {v}.{driver}"
        ),
    )
    .with_evidence(Evidence::new("log", f.line.clone()))
    .with_evidence(Evidence::new("source", DRIVER_TABLE_SOURCE))
    .with_fix(FixRef {
        id: "advice-cuda-floor".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Give the program CUDA {v} or newer where it looks: for a build, install a CUDA \
             toolkit {v}+ and point CUDA_HOME (CUDA_PATH on Windows) and PATH at it; for a \
             framework, install its build for CUDA {v} or newer; and keep an NVIDIA driver that \
             supports CUDA {v} (nvidia-smi shows the newest CUDA the driver supports)."
        ),
    })
}

fn cudnn_floor_finding(f: &StatedFloor, text: &str) -> Finding {
    let v = &f.version;
    let found = found_version(&patterns().found_cudnn, &f.line, text, v)
        .map(|o| format!(" The text shows cuDNN {o}."))
        .unwrap_or_default();
    Finding::new(
        codes::VERSION_MISMATCH_REPORTED,
        floor_severity(&f.line),
        format!("The program needs cuDNN {v} or newer, and the cuDNN it found is older"),
        format!(
            "The line states a minimum cuDNN version, {v}.{found} A build takes the first cudnn.h \
             and libcudnn its CMake or setup script finds (CUDNN_ROOT, CUDNN_INCLUDE_DIR, \
             CUDNN_LIBRARY, the CUDA toolkit's folders, /usr/include); a running program the first \
             libcudnn on the library path (PATH on Windows). cuDNN releases are built per CUDA \
             major, so the newer cuDNN must be one for the CUDA in use."
        ),
    )
    .with_evidence(Evidence::new("log", f.line.clone()))
    .with_evidence(Evidence::new(
        "source",
        "https://docs.nvidia.com/deeplearning/cudnn/latest/reference/support-matrix.html (cuDNN releases and the CUDA versions they are built for); https://github.com/gnina/gnina/issues/151 (a build requiring cuDNN 8 in an image with cuDNN 7.6.5)",
    ))
    .with_fix(FixRef {
        id: "advice-cudnn-floor".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Install cuDNN {v} or newer for the CUDA in use (NVIDIA's cuDNN archive, the \
             nvidia-cudnn-cuXX wheel, or the distribution's libcudnn package; in a Docker build, a \
             base image with it) and point the build or the library path at it; or use a release \
             of the program that accepts the installed cuDNN."
        ),
    })
}

fn driver_floor_finding(f: &StatedFloor, text: &str, k: &Knowledge) -> Finding {
    let v = &f.version;
    // A bare branch ("driver version >= 580") is any driver of that branch: 580.65.06 counts.
    let branch_top = if v.contains('.') {
        v.clone()
    } else {
        format!("{v}.999.999")
    };
    let cuda = k
        .drivers
        .newest_cuda_for_linux_driver(&branch_top)
        .map(|c| format!(" (driver {v} is the one for CUDA {c} on Linux, in NVIDIA's table)"))
        .unwrap_or_default();
    let found = found_version(&patterns().found_driver, &f.line, text, v)
        .map(|o| format!(" The text shows driver {o}."))
        .unwrap_or_default();
    Finding::new(
        codes::DRIVER_TOO_OLD,
        floor_severity(&f.line),
        format!("The program needs NVIDIA driver {v} or newer, and the driver installed is older"),
        format!(
            "The line states a minimum NVIDIA driver, {v}{cuda}.{found} The driver is the kernel module \
             and its user-space libraries (libcuda, nvcuda.dll); a CUDA runtime or toolkit \
             installed beside an older driver does not raise it. In a container or WSL the \
             driver is the host's."
        ),
    )
    .with_evidence(Evidence::new("log", f.line.clone()))
    .with_evidence(Evidence::new("source", DRIVER_TABLE_SOURCE))
    .with_fix(FixRef {
        id: "advice-update-driver".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Update the driver to {v} or newer (nvidia-smi shows the installed one; in a \
             container or WSL, update the driver on the host), then reboot or reload the kernel module."
        ),
    })
}

/// A finding per missing extension module.
pub fn extension_findings(missing: &[MissingExtension]) -> Vec<Finding> {
    missing
        .iter()
        .map(|m| {
            let install = package_of(&m.package)
                .or_else(|| package_of(m.module.split('.').next().unwrap_or_default()))
                .map(|row| format!(" Its maintainers say: {}.", row.install))
                .unwrap_or_default();
            Finding::new(
                codes::EXTENSION_MODULE_MISSING,
                Severity::Error,
                format!(
                    "{}'s compiled extension {} is missing: the package was installed or run without it",
                    m.package, m.module
                ),
                format!(
                    "{} is a compiled (C++/CUDA) part of {}, built when the package is built. It is \
                     missing when pip built the package from source without a CUDA toolkit (no nvcc, \
                     CUDA_HOME unset) and skipped the extension, when a CPU-only or pure-Python \
                     package was installed, when its build failed earlier in the install log, or when \
                     Python imports the package's unbuilt source folder (running from a checkout).",
                    m.module, m.package
                ),
            )
            .with_evidence(Evidence::new("log", m.line.clone()))
            .with_fix(FixRef {
                id: "advice-build-extension".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Reinstall {} with its extension built: a prebuilt wheel for your Python, torch and \
                     CUDA where the project publishes one, or a source build with the CUDA toolkit \
                     present (nvcc on PATH, CUDA_HOME set) and pip install --no-build-isolation \
                     --no-cache-dir --force-reinstall; run from outside its source folder.{install}",
                    m.package
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_and_driver_floors_in_their_common_spellings() {
        let floors = |t: &str| {
            stated_floors(t)
                .into_iter()
                .map(|f| (f.of, f.version))
                .collect::<Vec<_>>()
        };
        // https://github.com/OptimalScale/LMFlow/issues/88
        assert_eq!(
            floors(
                "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0"
            ),
            [(FloorOf::Cuda, "11.0".to_string())]
        );
        // https://github.com/NVIDIA/TensorRT-LLM/issues/23
        assert_eq!(
            floors(
                "ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but\n       version 510.85.02 was detected and compatibility mode is UNAVAILABLE."
            ),
            [(FloorOf::Driver, "535.86".to_string())]
        );
        // A capability is no CUDA floor
        // (https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/3003), nor is
        // nvidia-smi's header.
        assert!(
            floors(
                "Found GPU0 NVIDIA GTX TITAN Black which is of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old. The minimum cuda capability supported by this library is 3.7."
            )
            .is_empty()
        );
        // https://github.com/gnina/gnina/issues/151 (CMake's check in a cuDNN 7.6.5 image).
        assert_eq!(
            floors(
                "CMake Error at caffe/cmake/Cuda.cmake:237 (message):\n  cuDNN version >=8 is required."
            ),
            [(FloorOf::Cudnn, "8".to_string())]
        );
        assert!(
            floors(
                "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |"
            )
            .is_empty()
        );
    }

    #[test]
    fn extension_modules_and_their_packages() {
        // The extension causal-conv1d builds (CUDAExtension name in
        // https://github.com/Dao-AILab/causal-conv1d/blob/main/setup.py).
        let m = missing_extensions("ModuleNotFoundError: No module named 'causal_conv1d_cuda'");
        assert_eq!(m[0].module, "causal_conv1d_cuda");
        assert!(m[0].package.contains("causal-conv1d"), "{}", m[0].package);
        // https://github.com/Ksuriuri/index-tts-vllm/issues/6
        let m = missing_extensions("ModuleNotFoundError: No module named 'vllm._C'");
        assert_eq!(
            (m[0].module.as_str(), m[0].package.as_str()),
            ("vllm._C", "vllm")
        );
        // https://github.com/open-mmlab/mmdetection/issues/3272
        let m = missing_extensions("ModuleNotFoundError: No module named 'mmcv._ext'");
        assert_eq!(m[0].package, "mmcv");
        let m = missing_extensions("ModuleNotFoundError: No module named 'fused_layer_norm_cuda'");
        assert_eq!(m[0].package, "apex");
        // A package, not an extension, is no extension finding.
        assert!(missing_extensions("ModuleNotFoundError: No module named 'triton'").is_empty());
        assert!(missing_extensions("No module named 'pycuda'").is_empty());
        // https://github.com/TencentARC/GFPGAN/issues/90: BasicSR's try/except import.
        let m = missing_extensions("NameError: name 'fused_act_ext' is not defined");
        assert_eq!(m[0].package, "basicsr");
        assert!(missing_extensions("NameError: name 'model' is not defined").is_empty());
    }
}
