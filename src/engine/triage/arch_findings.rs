//! Findings about GPU architectures a message refused: "no kernel image" and ptxas' "Unsupported
//! gpu architecture" with the CUDA releases that compile for the architecture (the generated ptxas
//! table, sourced rows before 11.8), a GPU too old for the build or for the toolkit, and the
//! minimum generation a part (a kernel library, an attention backend) demands.

use super::architectures::RefusedArch;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::cudnn::ComputeTables;
use crate::engine::knowledge::generated::generated;
use regex::Regex;
use std::sync::OnceLock;

/// The CUDA releases that compile for an architecture: (first, last when dropped). The
/// generated ptxas table decides from 11.8 on; the sourced rows before it.
pub(super) fn arch_support(arch: &str, k: &Knowledge) -> Option<(String, Option<String>)> {
    let g = generated();
    let releases = g.ptxas_releases();
    let oldest = releases.first()?.cuda.clone();
    let newest = releases.last()?.cuda.clone();
    let row = k.compute.arch(arch);
    match g.arch_span(arch) {
        Some((first, last)) => {
            let first = match row {
                Some(r) if first == oldest => r.first_cuda.clone(),
                _ => first.to_string(),
            };
            Some((first, (last != newest).then(|| last.to_string())))
        }
        None => row.map(|r| {
            (
                r.first_cuda.clone(),
                Some(
                    r.last_cuda
                        .clone()
                        .unwrap_or_else(|| "an older release".into()),
                ),
            )
        }),
    }
}

/// " The kernel without code for it: flash_attn_ext_f16 (ggml builds some kernels, FlashAttention's
/// among them, only for the architectures that can run them, so one feature may fail where the
/// others run)." for ggml's "CUDA kernel X has no device code compatible with CUDA arch N".
fn kernel_without_code(line: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"\bCUDA kernel ([A-Za-z_][A-Za-z0-9_]*) has no device code compatible",
        )
    });
    re.captures(line)
        .map(|c| {
            format!(
                " The kernel without code for it: {} (ggml builds some kernels, FlashAttention's and some quantized matrix kernels among them, only for the architectures that can run them, so a feature that uses one fails where the rest runs: turn that feature off, such as --flash-attn, or use a build or release with a kernel for this GPU).",
                &c[1]
            )
        })
        .unwrap_or_default()
}

pub fn arch_findings(archs: &[RefusedArch], text: &str, k: &Knowledge) -> Vec<Finding> {
    let g = generated();
    let releases = g.ptxas_releases();
    let (Some(oldest), Some(newest)) = (releases.first(), releases.last()) else {
        return Vec::new();
    };
    archs
        .iter()
        .map(|a| {
            if !a.arch.chars().any(|c| c.is_ascii_digit()) {
                return empty_arch_finding(a);
            }
            if let Some(f) = super::gpu_generation::feature_finding(&a.line, Some(&a.arch), k) {
                return f;
            }
            if let Some(f) = same_major_above_range(a) {
                return f;
            }
            if let Some(f) = super::ggml_arch_list::newest_code_ran(a) {
                return f;
            }
            let detail = match arch_support(&a.arch, k) {
                Some((first, None)) if built_without(&a.line) => format!(
                    "The program or package that refused {} was not compiled for it (built without code \
                     for it): its build lists only older GPUs' architectures. CUDA {first} and newer can \
                     build for it: reinstall the package from its build made with CUDA {first} or newer \
                     that includes it (the wheel for the newer CUDA, e.g. a cu{} build, from the \
                     package's own install page or index), or rebuild it with the architecture listed.",
                    a.arch,
                    cuda_tag(&first)
                ),
                Some((first, None)) => format!(
                    "{} is supported by the CUDA compiler from CUDA {first} on. The tool that refused it \
                     was built with, or is, an older CUDA: use a CUDA toolkit (ptxas/nvcc) of {first} or \
                     newer, or a framework build made with one for this GPU. Where a new enough toolkit is \
                     installed, the build runs an older one found first (check nvcc --version and which \
                     nvcc; put the newer toolkit's bin first on PATH, or set CUDA_HOME / CUDACXX to it).{}",
                    a.arch,
                    super::gpu_generation::older_build(text, &first)
                ),
                Some((first, Some(last))) if built_without(&a.line) => format!(
                    "The program or package that refused {} was not compiled for it (built without code \
                     for it): its build listed other GPUs' architectures (often only those of the machine that built it), \
                     or used a CUDA newer than {last}{}. CUDA {first} to {last} can build for it: \
                     install a build that includes it, or rebuild with it listed.",
                    a.arch,
                    dropped_in(&a.arch, k)
                        .map(|c| format!(" (CUDA {c} and newer cannot build for it)"))
                        .unwrap_or_default()
                ),
                Some((first, Some(last))) => format!(
                    "{} is supported by the CUDA compiler from CUDA {first} to {last}, and dropped after \
                     {last}{}. The tool that refused it is newer than {last} (the usual case for an old \
                     GPU), or older than {first} (an old toolkit's nvcc found first on PATH: nvcc \
                     --version shows which): build for this GPU with a CUDA from {first} to {last}, \
                     first on PATH, or use a framework build that still includes it.",
                    a.arch,
                    dropped_in(&a.arch, k)
                        .map(|c| format!(" (CUDA {c} and newer cannot build for it)"))
                        .unwrap_or_default()
                ),
                None => format!(
                    "No ptxas from CUDA {} to {} accepts {}: it is not an NVIDIA architecture name, or \
                     it is newer than every release read.",
                    oldest.cuda, newest.cuda, a.arch
                ),
            };
            let detail = match &a.minimum {
                Some(min) => format!(
                    "The program that refused it supports compute capability {min} and newer. {detail}"
                ),
                None => detail,
            } + &kernel_without_code(&a.line);
            let what = match (k.compute.generation(&a.arch), crate::engine::knowledge::cudnn::ComputeTables::cc_of(&a.arch)) {
                (Some(g), Some(cc)) => format!("{} ({g}, compute capability {cc})", a.arch),
                (None, Some(cc)) => format!("{} (compute capability {cc})", a.arch),
                _ => a.arch.clone(),
            };
            let finding = Finding::new(
                codes::GPU_ARCH_REFUSED,
                Severity::Error,
                format!("The GPU architecture {what} was refused"),
                detail,
            )
            .with_evidence(Evidence::new("log", a.line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "`ptxas --help` (--gpu-name values) of each nvidia-cuda-nvcc wheel on PyPI; before CUDA 11.8 https://en.wikipedia.org/wiki/CUDA#GPUs_supported",
            ))
            .with_fix(build_for_arch_fix(&a.arch));
            let triton = match arch_support(&a.arch, k) {
                Some((first, None)) => super::gpu_generation::bundled_ptxas_fix(text, &first),
                _ => None,
            };
            let mut finding = finding;
            if let Some(fix) = triton {
                finding.fixes.insert(0, fix);
            }
            if let Some((_, Some(last))) = arch_support(&a.arch, k) {
                finding.fixes.push(too_old_gpu_fix(&a.arch, &last));
            }
            finding
        })
        .collect()
}

/// PyTorch's "Minimum and Maximum cuda capability supported by this version of PyTorch is (8.0) -
/// (12.0)" for a GPU of the highest major with a higher minor (12.1, DGX Spark's GB10): the
/// build's kernels for X.y run on X.z with z >= y (CUDA's binary compatibility), so the warning
/// is harmless (https://github.com/eugr/spark-vllm-docker/issues/15).
fn same_major_above_range(a: &RefusedArch) -> Option<Finding> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)minimum and maximum cuda capability[^\n]*?\(\s*[0-9]+\.[0-9]\s*\)\s*-\s*\(\s*([0-9]+)\.([0-9])\s*\)",
        )
    });
    let c = re.captures(&a.line)?;
    let cc = crate::engine::knowledge::cudnn::ComputeTables::cc_of(&a.arch)?;
    let (major, minor) = cc.split_once('.')?;
    let (max_major, max_minor) = (&c[1], &c[2]);
    let above = minor.parse::<u32>().ok()? > max_minor.parse::<u32>().ok()?;
    if major != max_major || !above {
        return None;
    }
    Some(
        Finding::new(
            codes::GPU_ARCH_REFUSED,
            Severity::Info,
            format!(
                "PyTorch's warning about compute capability {cc} is harmless: its kernels for \
                 {max_major}.{max_minor} (sm_{max_major}{max_minor}) run on this GPU"
            ),
            format!(
                "PyTorch warns whenever the GPU's compute capability is above the highest one its \
                 build lists. Kernels compiled for compute capability {max_major}.{max_minor} run on \
                 every GPU of the same major with an equal or higher minor (CUDA's binary \
                 compatibility), so a {cc} GPU uses the sm_{max_major}{max_minor} kernels; the \
                 warning is not the failure. If the program fails, the cause is a later line."
            ),
        )
        .with_evidence(Evidence::new("log", a.line.clone()))
        .with_evidence(Evidence::new(
            "source",
            "CUDA C++ Programming Guide, binary compatibility (a cubin for X.y runs on X.z, z >= y): https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility; https://github.com/eugr/spark-vllm-docker/issues/15 (the maintainer: safe to ignore on the GB10)",
        ))
        .with_fix(FixRef {
            id: "advice-ignore-harmless-warning".into(),
            kind: FixKind::Manual,
            summary: "Nothing to do for this warning; a PyTorch build that lists this capability \
                      (a newer release) silences it."
                .into(),
        }),
    )
}

/// A GPU the text describes (a device listing's "compute capability: 2.1", a product name) whose
/// architecture current CUDA toolkits dropped, when nothing in the text refused it: a note that
/// programs built with a newer CUDA cannot use it (AliceVision's device listing of a GT 540M:
/// https://github.com/alicevision/AliceVision/issues/621).
pub fn dropped_gpu_finding(refused: &[RefusedArch], text: &str, k: &Knowledge) -> Option<Finding> {
    if !refused.is_empty() {
        return None;
    }
    let arch = super::architectures::gpu_arch_in(text)?;
    let (first, Some(last)) = arch_support(&arch, k)? else {
        return None;
    };
    let cc = ComputeTables::cc_of(&arch)?;
    let generation = k
        .compute
        .generation(&arch)
        .map(|g| format!(", {g}"))
        .unwrap_or_default();
    let dropped = dropped_in(&arch, k).unwrap_or_else(|| format!("after {last}"));
    Some(
        Finding::new(
            codes::GPU_ARCH_REFUSED,
            Severity::Info,
            format!(
                "The GPU here ({arch}{generation}, compute capability {cc}) is too old for CUDA \
                 releases after {last}: programs built with a newer CUDA cannot use it"
            ),
            format!(
                "The CUDA compiler builds for {arch} from CUDA {first} to {last}; CUDA {dropped} \
                 dropped it, so a program or library built with a newer CUDA has no code for this \
                 GPU and either does not use it or fails with no kernel image. The text names the \
                 GPU but no refusal, so this is a note on what it can run."
            ),
        )
        .with_evidence(Evidence::new("source", "`ptxas --help` (--gpu-name values) of each nvidia-cuda-nvcc wheel on PyPI; before CUDA 11.8 https://en.wikipedia.org/wiki/CUDA#GPUs_supported"))
        .with_fix(too_old_gpu_fix(&arch, &last)),
    )
}

/// For an architecture current toolkits dropped: when it is the GPU's own (the build detected
/// it), the GPU is too old for them, and usually for the program's current releases too
/// (XGBoost's GPU code needs compute capability 3.5: https://github.com/dmlc/xgboost/issues/3625).
fn too_old_gpu_fix(arch: &str, last: &str) -> FixRef {
    FixRef {
        id: "advice-too-old-gpu".into(),
        kind: FixKind::Manual,
        summary: format!(
            "If {arch} is this GPU's own architecture (the build detected it), the GPU is too old for \
             CUDA toolkits after {last}, and current releases of most programs no longer support it: \
             run on a newer GPU (or a cloud GPU instance), use the program's CPU mode, or an old \
             release of the program built with CUDA {last} or older. If it only comes from the build's \
             architecture list, remove it there."
        ),
    }
}

/// Whether a line says the program lacks code for an architecture ("no kernel image is
/// available", "Could not find compatible tinycudann extension for compute capability 70")
/// rather than a compiler refusing to build for it.
fn built_without(line: &str) -> bool {
    static BUILT_WITHOUT: OnceLock<Regex> = OnceLock::new();
    BUILT_WITHOUT
        .get_or_init(|| {
            crate::engine::static_regex::compile(
                r"(?i)no kernel image|not compiled for|\bcompiled for\b[^\n]{0,80}\bbut\b|no device code compatible|not compatible with [^\n]{0,40}\b(?:installation|build|package|wheel) with arch|\b(?:could not|couldn't|cannot|can't) find\s+compatible\b|\bno\s+(?:compatible\s+)?(?:binary|binaries|kernels?|cubin|sass)\s+(?:is\s+)?(?:available\s+)?for\b",
            )
        })
        .is_match(line)
}

/// The wheel tag of a CUDA release ("12.8" is cu128).
fn cuda_tag(cuda: &str) -> String {
    cuda.split('.').take(2).collect()
}

/// The CUDA release whose notes drop an architecture (the compute table's `[[toolkit]]` rows).
fn dropped_in(arch: &str, k: &Knowledge) -> Option<String> {
    let cc = ComputeTables::cc_of(arch)?;
    k.compute
        .toolkits
        .iter()
        .find(|t| t.dropped.contains(&cc))
        .map(|t| t.cuda.clone())
}

/// How to build for a GPU architecture with the build systems CUDA projects use.
fn build_for_arch_fix(arch: &str) -> FixRef {
    let (cc, digits) = match ComputeTables::cc_of(arch) {
        Some(cc) => (cc.clone(), cc.replace('.', "")),
        None => ("8.6".to_string(), "86".to_string()),
    };
    FixRef {
        id: "advice-build-for-architecture".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Check the GPU's compute capability (nvidia-smi --query-gpu=name,compute_cap --format=csv). \
             A prebuilt package must include it: install a build made for it. Building from source, name \
             the architectures the CUDA toolkit in use supports: CMake CMAKE_CUDA_ARCHITECTURES={digits} \
             (CUDA_ARCHITECTURES property), PyTorch extensions TORCH_CUDA_ARCH_LIST=\"{cc}\", OpenCV \
             CUDA_ARCH_BIN={cc}, TensorFlow TF_CUDA_COMPUTE_CAPABILITIES={cc}, nvcc \
             -gencode arch=compute_{digits},code=sm_{digits}."
        ),
    }
}

/// nvcc was given an architecture without a number: the build's GPU detection found no GPU.
fn empty_arch_finding(a: &RefusedArch) -> Finding {
    Finding::new(
        codes::GPU_ARCH_REFUSED,
        Severity::Error,
        format!("nvcc was given no GPU architecture ('{}')", a.arch),
        "The architecture value is empty or not a number, so the build computed its architecture \
         list from the GPU it detected at configure time and detected none: CMake's \
         CMAKE_CUDA_ARCHITECTURES / CUDA_ARCHITECTURES = native, a project's native-GPU option \
         (llama.cpp's GGML_NATIVE) or TORCH_CUDA_ARCH_LIST auto-detection, run where no GPU is \
         visible (docker build, CI, a login node). Name the architectures explicitly for such builds."
            .to_string(),
    )
    .with_evidence(Evidence::new("log", a.line.clone()))
    .with_evidence(Evidence::new(
        "source",
        "CMake CUDA_ARCHITECTURES (native: the GPUs of the build machine): https://cmake.org/cmake/help/latest/prop_tgt/CUDA_ARCHITECTURES.html",
    ))
    .with_fix(FixRef {
        id: "advice-set-architectures".into(),
        kind: FixKind::Manual,
        summary: "Set the architectures explicitly instead of detecting them: \
                  -DCMAKE_CUDA_ARCHITECTURES=\"75;86;89\" (the GPUs you deploy to; docker build \
                  --build-arg where the Dockerfile takes one), turn the project's native option off \
                  (-DGGML_NATIVE=OFF), or TORCH_CUDA_ARCH_LIST=\"7.5;8.6\" for PyTorch extensions."
            .into(),
    })
}

/// "Only supports Ampere GPUs or newer": the oldest compute capability that generation has.
pub fn generation_minimum_findings(
    minimums: &[(String, String)],
    text: &str,
    k: &Knowledge,
) -> Vec<Finding> {
    // The GPU the text names, if any, is judged against the floor.
    let gpu = text.lines().find_map(|l| k.compute.gpu_on(l));
    minimums
        .iter()
        .filter_map(|(name, line)| {
            // A floor for a number format (FP8 on 8.9) is the format's, not the program's.
            let gpu_arch = super::architectures::gpu_arch_in(text);
            if let Some(f) = super::gpu_generation::feature_finding(line, gpu_arch.as_deref(), k) {
                return Some(f);
            }
            let gens = &k.compute.generations;
            // A capability ("5.0") stands for its generation, and is itself the floor.
            let stated = name.contains('.').then_some(name);
            let generation = stated
                .and_then(|cc| k.compute.generation(cc))
                .unwrap_or(name);
            let at = gens.iter().position(|g| {
                g.name
                    .to_ascii_lowercase()
                    .starts_with(&generation.to_ascii_lowercase())
            })?;
            let g = &gens[at];
            let cc = stated.or(g.cc.first())?;
            let older: Vec<String> = gens[..at]
                .iter()
                .rev()
                .take(3)
                .map(|o| format!("{} ({})", o.name, o.cc.join(", ")))
                .collect();
            let part = refusing_part(line);
            let who = part.as_deref().unwrap_or("The program");
            let mut finding = Some(
                Finding::new(
                    codes::GPU_ARCH_REFUSED,
                    Severity::Error,
                    format!(
                        "{who} needs {} {} GPU or newer: compute capability {cc} or higher",
                        article_for(&g.name),
                        g.name
                    ),
                    format!(
                        "{} GPUs have compute capability {}; the program refuses older generations ({}). \
                         A GPU below compute capability {cc} cannot run it, whatever the driver or CUDA \
                         version.{}",
                        g.name,
                        g.cc.join(", "),
                        older.join(", "),
                        gpu.as_ref()
                            .map(|(name, gcc)| format!(
                                " The text names {name}: compute capability {gcc}{}.",
                                k.compute
                                    .generation(gcc)
                                    .map(|n| format!(" ({n})"))
                                    .unwrap_or_default()
                            ))
                            .unwrap_or_default()
                    ),
                )
                .with_evidence(Evidence::new("log", line.clone()))
                .with_evidence(Evidence::new("source", g.source.clone()))
                .with_fix(FixRef {
                    id: "advice-gpu-generation".into(),
                    kind: FixKind::Manual,
                    summary: format!(
                        "Check the GPU's compute capability (nvidia-smi --query-gpu=name,compute_cap \
                         --format=csv) against the program's system requirements: run on a newer GPU (compute \
                         capability {cc} or higher), or use a version or alternative of the program \
                         that supports older GPUs."
                    ),
                }),
            );
            // "FlashAttention only supports Ampere GPUs or newer": a part the program can do
            // without (https://github.com/modelscope/ms-agent/issues/303: uninstalling flash-attn
            // made the model fall back to standard attention on a V100).
            if let (Some(f), Some(part)) = (finding.as_mut(), part) {
                f.fixes.push(FixRef {
                    id: "advice-turn-off-part".into(),
                    kind: FixKind::Manual,
                    summary: format!(
                        "Where {part} is an optional part of the program (an attention kernel such as \
                         flash-attn, a quantization or fused-kernel package), turn it off or uninstall \
                         it so the program falls back to a path older GPUs run (for Hugging Face models \
                         attn_implementation=\"sdpa\" or \"eager\" instead of FlashAttention 2)."
                    ),
                });
            }
            finding
        })
        .collect()
}

/// The part of a program a floor's line names as the one refusing ("FlashAttention only
/// supports Ampere GPUs or newer" → FlashAttention), when it is a name, not "This" or "It".
/// "an" before a generation name that starts with a vowel sound (Ampere, Ada), else "a".
fn article_for(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o') => "an",
        _ => "a",
    }
}

fn refusing_part(line: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?:^|[:\]'\x22]\s*)([A-Za-z][A-Za-z0-9_.\-]*(?: [A-Za-z][A-Za-z0-9_.\-]*){0,2}) (?:only )?(?:supports?|requires?|needs?)\b",
        )
    });
    let captured = re.captures(line)?.get(1)?.as_str().trim();
    let name = captured
        .strip_suffix(" only")
        .unwrap_or(captured)
        .to_string();
    const GENERIC: [&str; 8] = [
        "this",
        "it",
        "the program",
        "error",
        "warning",
        "gpu",
        "the gpu",
        "your gpu",
    ];
    (!GENERIC.contains(&name.to_ascii_lowercase().as_str())).then_some(name)
}
