//! The GPU architectures a message names or refuses: `sm_121a`, `compute_70`, "capability 8.6",
//! a product name ("Tesla K80"), the floor a program states ("minimum cuda capability ... 3.7",
//! "Ampere GPUs or newer"), and a build's empty architecture value (`compute_`).

use super::extract::clip;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// A GPU architecture a tool said it does not know or support.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedArch {
    pub arch: String,
    /// The oldest capability the refusing program says it supports ("The minimum cuda
    /// capability supported by this library is 3.7").
    pub minimum: Option<String>,
    pub line: String,
}

struct Patterns {
    arch: Regex,
    empty_arch: Regex,
    arch_refused_here: Regex,
    arch_minimum: Regex,
    arch_refused: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            // An architecture by name, a capability "8.6" (also "Compute Capability: 8.6"), or
            // the two digits some programs print ("compute cap 75", "gpu architecture 21",
            // PaddlePaddle's "your current GPU is 120"; not the "12" of "compute capability
            // 12.0", which the capability form reads as 12.0), or
            // ggml's `__CUDA_ARCH__` value ("CUDA arch 520"), or Ollama's `cc=610` (6.1).
            arch: re(
                r"(?i)\b((?:sm|compute)_[0-9]{2,3}[a-z]?)\b|\b(?:capability|CC)\s*[:=(]?\s*(?:of\s+|is\s+|v)?([0-9]{1,2})(?:\.|,\s*|\s)([0-9])\b|\b(?:compute cap(?:ability)?|gpu architecture|current capability|current gpu is)\s*[:=]?\s*([1-9][0-9]?)([0-9])(?:$|[^.0-9]|\.(?:$|[^0-9]))|\bcuda arch\s+([1-9][0-9]?)([0-9])0\b|\bcc=([1-9][0-9]?)([0-9])0\b",
            ),
            empty_arch: re(r"(?i)unsupported gpu architecture '((?:compute|sm)_(?:[^0-9'][^']*)?)'"),
            // Broader refusals, read only when the same line names the architecture.
            arch_refused_here: re(
                r"(?i)\bis not supported\b|not a recognized processor|\bminimum (?:supported|required)\b|\bunsupported\b",
            ),
            arch_minimum: re(
                r"(?i)\b(?:minimum|at least)\b[^0-9\n]{0,48}?\b([0-9]{1,2}\.[0-9])\b|\b(?:requires?\b[^0-9\n]{0,24}?\bcompute capability\s+(?:of\s+)?|capability\s*>=\s*)([0-9]{1,2}\.[0-9])",
            ),
            arch_refused: re(
                r"(?i)is not defined for option|unsupported gpu architecture|mismatched gpu architecture|not compatible with|not supported by|no kernel image|unknown (?:target|architecture)|invalid value .*gpu-(?:name|architecture)|does not support|no longer supports?|too old|invalid.option|not compiled for|\bat least\b[^\n]{0,30}capability|capability\b[^\n]{0,30}\bat least|minimum required cuda capability|minimum and maximum cuda capability|no device code compatible with|not in (?:the )?compiled architectures|ignoring visible gpu device|\b(?:binary|kernel|cubin)\b[^\n]{0,60}?\bnot found\b|\b(?:no|(?:could not|couldn't|cannot|can't) find)\s+(?:compatible\s+)?(?:[\w.-]+\s+)?(?:kernel image|binary|binaries|extension|kernels?|cubin|sass)\s+(?:is\s+)?(?:available\s+|compiled\s+|built\s+)?for\b",
            ),
        }
    })
}

/// The first architecture a line names, as `sm_XY` (or the name as written).
/// A capability a line states as a requirement ("at least 8.0", "minimum required ... 3.5",
/// ">= 7.0") is the program's floor, not the GPU: it is skipped.
fn arch_on(line: &str) -> Option<String> {
    named_arch_on(line).or_else(|| {
        // A GPU's product name ("Tesla K80") stands for its architecture (sm_37), a generation
        // said of the machine's GPU ("... in your current machine is Ampere") for its first one.
        super::gpu_generation::named_gpu(line, crate::engine::knowledge::knowledge())
            .map(|g| format!("sm_{}", g.cc.replace('.', "")))
    })
}

/// An architecture or capability the line spells out (`sm_86`, "capability 8.6").
fn named_arch_on(line: &str) -> Option<String> {
    patterns().arch.captures_iter(line).find_map(|c| {
        let start = c.get(0)?.start();
        let before = line[..start].to_ascii_lowercase();
        let recent = tail_chars(&before, 24);
        // A floor in the sentence before ("Minimum capability: 75. Current capability: 70.")
        // is not this one's.
        let recent = recent.rsplit_once(". ").map_or(recent, |(_, tail)| tail);
        if ["least", "minimum", "require", ">=", "or higher", "or newer"]
            .iter()
            .any(|w| recent.contains(w))
        {
            return None;
        }
        // "compute capability 8.9 or higher required": a floor stated after the number.
        let after = line[c.get(0)?.end()..].to_ascii_lowercase();
        let next: String = after.chars().take(16).collect();
        if [
            "or higher",
            "or newer",
            "or above",
            "or later",
            "and higher",
            "and above",
        ]
        .iter()
        .any(|w| next.contains(w))
        {
            return None;
        }
        if let Some(name) = c.get(1) {
            return Some(name.as_str().to_ascii_lowercase());
        }
        // The capability's major and minor digits, whichever form matched.
        [(2, 3), (4, 5), (6, 7), (8, 9)]
            .iter()
            .find_map(|&(major, minor)| {
                Some(format!(
                    "sm_{}{}",
                    c.get(major)?.as_str(),
                    c.get(minor)?.as_str()
                ))
            })
    })
}

/// The last `n` characters of `s` (never cutting one).
fn tail_chars(s: &str, n: usize) -> &str {
    let start = s
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    &s[start..]
}

/// The GPU's architecture a text names: a capability it states (not a floor), else a product.
/// A build's list of target architectures (CMake's "CUDA NVCC target flags: -gencode;arch=
/// compute_50,...", TORCH_CUDA_ARCH_LIST, CUDA_ARCH_BIN) says what was compiled, not which GPU
/// ran it.
pub fn gpu_arch_in(text: &str) -> Option<String> {
    static BUILD_LIST: OnceLock<Regex> = OnceLock::new();
    let build_list = BUILD_LIST.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)gencode|target flags|_arch_list|cuda_arch_bin|cuda_architectures|\s-arch[= ]|\.ptx\b",
        )
    });
    let gpu_lines = || text.lines().filter(|l| !build_list.is_match(l));
    gpu_lines()
        .find_map(named_arch_on)
        .or_else(|| gpu_lines().find_map(arch_on))
}

/// Architectures named on lines that refuse them. A refusing line that names none takes the
/// architecture another line of the text names (the GPU's "Compute Capability: 8.6" a framework
/// printed first, the `-arch=compute_61` of the options that were refused); an architecture
/// value that is empty or not a number (`compute_`, what a build's GPU detection gives on a
/// machine without a GPU) is kept as written.
pub fn refused_architectures(text: &str) -> Vec<RefusedArch> {
    let p = patterns();
    let mut out: Vec<RefusedArch> = Vec::new();
    let elsewhere = || text.lines().find_map(arch_on);
    for line in text.lines() {
        let refused_here = p.arch_refused_here.is_match(line) && arch_on(line).is_some();
        if !(p.arch_refused.is_match(line) || refused_here) {
            continue;
        }
        // The first architecture of a line is the refused one ("sm_86 is not compatible ...
        // supports sm_50 sm_60 sm_70").
        let arch = p
            .empty_arch
            .captures(line)
            .map(|c| c[1].to_string())
            .or_else(|| arch_on(line))
            .or_else(elsewhere);
        let Some(arch) = arch else { continue };
        // The program's floor, on the refusing line or on a line of its own ("The minimum cuda
        // capability that we support is 3.5.").
        let minimum_on = |l: &str| {
            p.arch_minimum
                .captures(l)
                .and_then(|m| m.get(1).or(m.get(2)))
                .map(|m| m.as_str().to_string())
        };
        let minimum = minimum_on(line).or_else(|| {
            text.lines()
                .filter(|l| l.to_ascii_lowercase().contains("capabilit"))
                .find_map(minimum_on)
        });
        if !out.iter().any(|a| a.arch == arch) {
            out.push(RefusedArch {
                arch,
                minimum,
                line: clip(line),
            });
        }
    }
    out
}

/// "FlashAttention only supports Ampere GPUs or newer", "the kernel requires 5.0 capability",
/// "requires compute capability >= 7.0": the oldest GPU a program says it supports, as a
/// generation name or a compute capability ("5.0"), with its line.
pub fn generation_minimums(text: &str) -> Vec<(String, String)> {
    static RE: OnceLock<([Regex; 2], Regex)> = OnceLock::new();
    let (res, sm_floor) = RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        (
            [
                re(r"(?i)\b(Fermi|Kepler|Maxwell|Pascal|Volta|Turing|Ampere|Ada Lovelace|Ada|Hopper|Blackwell)\b(?:[ -](?:GPUs?|architecture|cards?|or later GPUs?))?\s+(?:or|and) (?:newer|later|above|up)"),
                re(r"(?i)\b(?:requires?|required|needs?|minimum|at least|supports? only)\b[^\n]{0,24}?(?:(?:\b(?:compute )?capability(?: \(?sm\)?)?|\bCC)\s*(?:of|is|>=|=>|:)?\s*([1-9][0-9]?\.[0-9])\b|\b([1-9][0-9]?\.[0-9]) (?:compute )?capability)|\bcompute capability\s*(?:of\s+)?(?:>=\s*)?([1-9][0-9]?\.[0-9])\)? (?:or|and) (?:newer|higher|greater|later|above|up)|\bcapability\b[^\n]{0,60}?\b(?:but|while|and)\b[^\n]{0,30}?\b(?:requires?|needs?)\s+(?:at least\s+)?([1-9][0-9]?\.[0-9])\b|\bcompute capability\s*(?:of\s+)?(?:>=|=>|at least)\s*([1-9][0-9]?\.[0-9])\b"),
            ],
            // A floor said as an architecture: "pre SM 80 GPUs do not support", "requires
            // .target sm_80 or higher" (ptxas), "sm_75 or newer", vLLM's "Minimum capability: 75".
            re(
                r"(?i)\bpre[- ]?sm[ _]?([1-9][0-9]?)([0-9])\b|\bsm_?([1-9][0-9]?)([0-9])[a-z]?\s+(?:or|and)\s+(?:higher|newer|above|later)\b|\b(?:minimum capability:|capability\s*>=)\s*([1-9])([0-9])\b",
            ),
        )
    });
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        // A generation or a dotted capability first; an architecture's two digits otherwise.
        let name = match res.iter().find_map(|re| re.captures(line)) {
            Some(c) => (1..c.len())
                .find_map(|i| c.get(i))
                .map(|m| m.as_str().to_string()),
            None => sm_floor.captures(line).and_then(|c| {
                let major = c.get(1).or(c.get(3)).or(c.get(5))?;
                let minor = c.get(2).or(c.get(4)).or(c.get(6))?;
                Some(format!("{}.{}", major.as_str(), minor.as_str()))
            }),
        };
        if let Some(name) = name
            && !out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name))
        {
            out.push((name, clip(line)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_architectures_are_named() {
        let a = refused_architectures(
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        );
        assert_eq!(a[0].arch, "sm_121a");
        assert!(refused_architectures("compiling for sm_90 with ptxas").is_empty());
        // PyTorch's warning for a GPU older than its wheels (torch/cuda/__init__.py).
        let a = refused_architectures(
            "Found GPU0 NVIDIA GTX TITAN Black which is of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old. The minimum cuda capability supported by this library is 3.7.",
        );
        assert_eq!(a[0].arch, "sm_35");
        assert_eq!(a[0].minimum.as_deref(), Some("3.7"));
        // whisper.cpp's ggml names the architecture as __CUDA_ARCH__ (ggml-org/whisper.cpp#2050).
        let a = refused_architectures(
            "ERROR: CUDA kernel vec_dot_q5_0_q8_1_impl has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520",
        );
        assert_eq!(a[0].arch, "sm_52");
        // T-Rex says the capability as "CC 8.6".
        let a = refused_architectures(
            "ERROR: Can't start miner, GPU architecture CC 8.6 is not supported by CUDA v10.0, use T-Rex for CUDA 11.1",
        );
        assert_eq!(a[0].arch, "sm_86");
    }

    #[test]
    fn multibyte_text_before_an_architecture_is_not_cut() {
        // "™" and CJK characters right before a capability: the look-behind counts characters.
        for line in [
            "中文中文中文中文中文中文中文中文中文 capability 8.6 is not supported",
            "Pascal™™™™™™™™™™™™ (Compute Capability 6.0) or newer architecture is required",
        ] {
            let _ = refused_architectures(line);
            let _ = gpu_arch_in(line);
        }
    }

    #[test]
    fn a_floor_said_as_cc_is_a_generation_minimum() {
        // OpenCV's modules/dnn/CMakeLists.txt.
        let m = generation_minimums(
            "CUDA backend for DNN module requires CC 5.3 or higher.  Please remove",
        );
        assert_eq!(m[0].0, "5.3");
        // vLLM's quantization check (vllm-project/vllm#1488).
        let line = "The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70.";
        assert_eq!(generation_minimums(line)[0].0, "7.5");
        assert_eq!(gpu_arch_in(line).as_deref(), Some("sm_70"));
        // xFormers' floor as the two digits of __CUDA_ARCH__'s style.
        let m = generation_minimums(
            "RuntimeError: Your device is too old. We require compute capability >= 50",
        );
        assert_eq!(m[0].0, "5.0");
        // cuDF's import check (NVIDIA/cudf#12812).
        let m = generation_minimums(
            "UserWarning: A GPU with NVIDIA Pascal™ (Compute Capability 6.0) or newer architecture is required.",
        );
        assert!(m[0].0 == "6.0" || m[0].0 == "Pascal", "{m:?}");
    }
}
