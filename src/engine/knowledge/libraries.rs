//! `library_names.toml`: which component and version family a library file name implies.
//!
//! Windows DLL names match case-insensitively; Linux sonames match on their longest known
//! prefix (`libcudart.so.12.4.127` → `libcudart.so.12`), then on the same major
//! (`libcudart.so.11.8.89` → `libcudart.so.11.0`), then on patterns such as `libcupti.so.11.N`.
//! A known stem with an unknown version (`cublas64_99.dll`) still names the component.

use super::KnowledgeError;
use regex::Regex;
use serde::{Deserialize, Serialize};

/// One row of the table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryRow {
    /// Exact file name, or a regular expression when `pattern` is set.
    pub file: String,
    #[serde(default)]
    pub pattern: bool,
    pub component: String,
    pub family: String,
    /// `windows` or `linux`.
    pub platform: String,
    #[serde(default)]
    pub toolkits: Vec<String>,
    #[serde(default = "super::yes")]
    pub verified: bool,
    #[serde(default)]
    pub note: Option<String>,
    /// 32 for a library of 32-bit processes (`cudart32_110.dll`); None for 64-bit.
    #[serde(default)]
    pub bits: Option<u8>,
    /// For the driver's own libraries: the driver capability (`compute`, `utility`, `video`,
    /// `graphics`, `ngx`) with which the NVIDIA Container Toolkit mounts it into a container, or
    /// `jetson` for Jetson's L4T libraries, which the NVIDIA runtime mounts from its CSV files.
    #[serde(default)]
    pub container_capability: Option<String>,
    pub source: String,
}

#[derive(Debug, Deserialize)]
struct File {
    library: Vec<LibraryRow>,
}

/// What a file name says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LibraryIdentity {
    /// The name as asked about (file name only, no folder).
    pub file: String,
    /// The table row it matched (an exact name or a pattern).
    pub matched: String,
    pub component: String,
    /// The family the name implies: "11.x", "10.1-10.2", "8", "driver", "unversioned", "unknown".
    pub version_family: String,
    pub platform: String,
    /// CUDA toolkit releases that ship this exact name (empty when not a toolkit file or unknown).
    pub toolkits: Vec<String>,
    pub verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The driver capability a container needs for this driver library (see [`LibraryRow`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_capability: Option<String>,
    pub source: String,
}

/// The compiled table.
#[derive(Debug, Default)]
pub struct LibraryTable {
    pub rows: Vec<LibraryRow>,
    /// The pattern rows' regexes, compiled the first time a name is not found as written (most
    /// are: a scan that never needs one does not pay for compiling them).
    patterns: std::sync::OnceLock<Vec<(usize, Regex)>>,
}

/// The file-name part of a path or quoted name, without surrounding punctuation.
pub fn file_name(text: &str) -> &str {
    let base = text.rsplit(['/', '\\']).next().unwrap_or(text);
    base.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"' | '`' | ',' | ';' | ':' | '(' | ')' | '[' | ']'
            )
    })
    .trim_end_matches('.')
}

/// Splits `libfoo.so.1.2.3` into (`libfoo.so`, [1, 2, 3]); `None` if it is not a soname.
fn split_soname(name: &str) -> Option<(&str, Vec<&str>)> {
    let idx = name.find(".so")?;
    let (stem, rest) = name.split_at(idx + 3);
    if rest.is_empty() {
        return Some((stem, Vec::new()));
    }
    let rest = rest.strip_prefix('.')?;
    let parts: Vec<&str> = rest.split('.').collect();
    if parts
        .iter()
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    {
        Some((stem, parts))
    } else {
        None
    }
}

/// `cublas64_11.dll` → `cublas64`; `nvrtc64_120_0.dll` → `nvrtc64`; `cupti64_2022.3.0.dll` → `cupti64`.
fn windows_stem(lower: &str) -> &str {
    let base = lower.strip_suffix(".dll").unwrap_or(lower);
    let mut end = base.len();
    while let Some(idx) = base[..end].rfind('_') {
        let tail = &base[idx + 1..end];
        if !tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit() || c == '.') {
            end = idx;
        } else {
            break;
        }
    }
    &base[..end]
}

fn fill(template: &str, caps: &regex::Captures<'_>) -> String {
    let mut out = template.to_string();
    for i in 1..caps.len() {
        let value = caps.get(i).map(|m| m.as_str()).unwrap_or("");
        out = out.replace(&format!("{{{i}}}"), value);
    }
    out
}

impl LibraryTable {
    pub fn load() -> Result<LibraryTable, KnowledgeError> {
        let file: File = super::parse("library_names.toml")?;
        Ok(LibraryTable {
            rows: file.library,
            patterns: std::sync::OnceLock::new(),
        })
    }

    /// The pattern rows, compiled (a row that does not compile matches nothing; the table's
    /// unit test checks that each does).
    pub fn compiled_patterns(&self) -> &[(usize, Regex)] {
        self.patterns.get_or_init(|| {
            self.rows
                .iter()
                .enumerate()
                .filter(|(_, row)| row.pattern)
                .filter_map(|(i, row)| {
                    Regex::new(&format!("(?i)^(?:{})$", row.file))
                        .ok()
                        .map(|re| (i, re))
                })
                .collect()
        })
    }

    fn identity(&self, asked: &str, row: &LibraryRow) -> LibraryIdentity {
        LibraryIdentity {
            file: asked.to_string(),
            matched: row.file.clone(),
            component: row.component.clone(),
            version_family: row.family.clone(),
            platform: row.platform.clone(),
            toolkits: row.toolkits.clone(),
            verified: row.verified,
            note: row.note.clone(),
            container_capability: row.container_capability.clone(),
            source: row.source.clone(),
        }
    }

    fn exact(&self, lower: &str) -> Option<&LibraryRow> {
        self.rows
            .iter()
            .find(|r| !r.pattern && r.file.eq_ignore_ascii_case(lower))
    }

    fn by_pattern(&self, asked: &str, candidate: &str) -> Option<LibraryIdentity> {
        for (i, re) in self.compiled_patterns() {
            if let Some(caps) = re.captures(candidate) {
                let row = &self.rows[*i];
                let mut id = self.identity(asked, row);
                id.version_family = fill(&row.family, &caps);
                id.toolkits = row.toolkits.iter().map(|t| fill(t, &caps)).collect();
                return Some(id);
            }
        }
        None
    }

    /// Identifies a library by file name (a path or quoted name is reduced to its file name):
    /// the hand table first, then the names the wheels ship (the generated table) where the
    /// hand table does not know the name or its version.
    pub fn identify(&self, name: &str) -> Option<LibraryIdentity> {
        let hand = self.identify_by_table(name);
        if hand
            .as_ref()
            .is_some_and(|h| !matches!(h.version_family.as_str(), "unknown" | "unversioned"))
        {
            // A hand row that infers a name the wheels' own file lists have is replaced by what
            // the wheels say (libcublasLt.so.13 is in nvidia-cublas 13.x).
            if hand.as_ref().is_some_and(|h| !h.verified)
                && let Some(shipped) = shipped_identity(file_name(name))
            {
                return Some(shipped);
            }
            return hand;
        }
        shipped_identity(file_name(name))
            .or(hand)
            .or_else(|| stem_identity(file_name(name)))
    }

    fn identify_by_table(&self, name: &str) -> Option<LibraryIdentity> {
        let asked = file_name(name);
        if asked.is_empty() || asked.len() > 200 {
            return None;
        }
        let lower = asked.to_ascii_lowercase();
        if lower.ends_with(".dll") {
            return self.identify_windows(asked, &lower);
        }
        if let Some((stem, parts)) = split_soname(&lower) {
            return self.identify_linux(asked, stem, &parts);
        }
        if !lower.contains('.') && lower.contains('_') {
            let with_ext = format!("{lower}.dll");
            return self.identify_windows(asked, &with_ext);
        }
        None
    }

    fn identify_windows(&self, asked: &str, lower: &str) -> Option<LibraryIdentity> {
        if let Some(row) = self.exact(lower) {
            return Some(self.identity(asked, row));
        }
        if let Some(id) = self.by_pattern(asked, lower) {
            return Some(id);
        }
        let stem = windows_stem(lower);
        let base = lower.strip_suffix(".dll").unwrap_or(lower);
        let row = self.rows.iter().find(|r| {
            !r.pattern
                && r.platform == "windows"
                && windows_stem(&r.file.to_ascii_lowercase()) == stem
        })?;
        Some(self.unknown_version(asked, row, stem == base))
    }

    fn identify_linux(&self, asked: &str, stem: &str, parts: &[&str]) -> Option<LibraryIdentity> {
        for k in (0..=parts.len()).rev() {
            let candidate = if k == 0 {
                stem.to_string()
            } else {
                format!("{stem}.{}", parts[..k].join("."))
            };
            if let Some(row) = self.exact(&candidate) {
                return Some(self.identity(asked, row));
            }
            if let Some(id) = self.by_pattern(asked, &candidate) {
                return Some(id);
            }
        }
        let linux_rows = || {
            self.rows
                .iter()
                .filter(|r| !r.pattern && r.platform == "linux")
                .filter_map(|r| {
                    let lower = r.file.to_ascii_lowercase();
                    let (s, p) = split_soname(&lower)?;
                    Some((r, s.to_string(), p.first().map(|x| x.to_string())))
                })
        };
        if let Some(major) = parts.first() {
            let same_major = linux_rows()
                .find(|(_, s, m)| s == stem && m.as_deref() == Some(*major) && !major.is_empty());
            if let Some((row, _, _)) = same_major {
                return Some(self.identity(asked, row));
            }
        }
        let (row, _, _) = linux_rows().find(|(_, s, _)| s == stem)?;
        Some(self.unknown_version(asked, row, parts.is_empty()))
    }

    fn unknown_version(&self, asked: &str, row: &LibraryRow, unversioned: bool) -> LibraryIdentity {
        let mut id = self.identity(asked, row);
        id.matched = asked.to_string();
        id.toolkits.clear();
        id.verified = false;
        if unversioned {
            id.version_family = "unversioned".into();
            let bare = if asked.contains('.') {
                ""
            } else {
                " A program that asks for a bare name searches the versioned file names it knows: on Windows each CUDA major has its own DLL name (cusolver64_10.dll, cusolver64_11.dll), so a release whose name its list lacks is not found even when installed."
            };
            id.note = Some(format!(
                "An unversioned {} name: it does not say which release it is (usually a development symlink or a loader's fallback name).{bare}",
                row.component
            ));
        } else {
            id.version_family = "unknown".into();
            id.note = Some(format!(
                "A {} name with a version the knowledge tables do not list.",
                row.component
            ));
        }
        id
    }

    /// Rows the reference lists as shipped by a CUDA toolkit release ("12.4") on a platform.
    pub fn shipped_by(&self, cuda: &str, platform: &str) -> Vec<&LibraryRow> {
        self.rows
            .iter()
            .filter(|r| r.platform == platform && r.toolkits.iter().any(|t| t == cuda))
            .collect()
    }
}

impl LibraryIdentity {
    /// Whether the version family is the library's own release line (cuDNN 9, TensorRT 10,
    /// NCCL 2) rather than a CUDA release range.
    pub fn own_family(&self) -> bool {
        const OWN: &[&str] = &[
            "cuDNN",
            "TensorRT",
            "NCCL",
            "cuTENSOR",
            "cuSPARSELt",
            "cuDSS",
        ];
        OWN.iter().any(|c| self.component.starts_with(c))
    }

    /// "cuDNN 9", "cuBLAS (CUDA 12.x)", or the component alone when the version is unknown.
    pub fn describe(&self) -> String {
        match self.version_family.as_str() {
            "unknown" | "unversioned" | "any" => self.component.clone(),
            "driver" => format!("{} (NVIDIA driver)", self.component),
            fam if self.own_family() => format!("{} {fam}", self.component),
            fam => format!("{} (CUDA {fam})", self.component),
        }
    }
}

/// Where a pip install puts the file: " (in site-packages/nvidia/cuda_nvcc/nvvm/lib64)". A loader
/// searches none of these folders unless told (RPATH, LD_LIBRARY_PATH, add_dll_directory).
fn wheel_folders(folders: &[String]) -> String {
    if folders.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = folders
        .iter()
        .take(3)
        .map(|f| format!("site-packages/{f}"))
        .collect();
    format!(" (in {})", shown.join(", "))
}

/// A name the wheels ship (`engine::knowledge::generated`), tried as asked and, for a soname,
/// with its trailing version numbers taken off one by one (`libnccl.so.2.21.5` → `libnccl.so.2`).
fn shipped_identity(asked: &str) -> Option<LibraryIdentity> {
    let g = super::generated::generated();
    let mut candidate = asked.to_string();
    loop {
        if let Some(row) = g.files_named(&candidate).into_iter().next() {
            let (kind, number) = row.family.rsplit_once(' ').unwrap_or(("", &row.family));
            let version_family = if kind == "CUDA" {
                match number.split_once('-') {
                    Some((lo, hi)) => format!("{lo}.x-{hi}.x"),
                    None => format!("{number}.x"),
                }
            } else {
                number.to_string()
            };
            return Some(LibraryIdentity {
                file: asked.to_string(),
                matched: row.name.clone(),
                component: row.component.clone(),
                version_family,
                platform: row.platform.clone(),
                toolkits: row.toolkits.clone(),
                verified: true,
                note: Some(format!(
                    "{} ({}); shipped by {}{}.",
                    row.family,
                    row.component,
                    row.wheels.join(", "),
                    wheel_folders(&row.folders)
                )),
                container_capability: None,
                source: format!(
                    "the file lists of the wheels on PyPI that ship it: {}",
                    row.wheels.join(", ")
                ),
            });
        }
        let idx = candidate.rfind('.')?;
        let tail = &candidate[idx + 1..];
        if !candidate[..idx].contains(".so") || !tail.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        candidate.truncate(idx);
    }
}

/// Component names by file stem (lower case, `lib` and versions removed); the longest prefix
/// wins. Names for display (the generated table's `component`), not facts: the wheels' file
/// lists are the facts.
const COMPONENTS: &[(&str, &str)] = &[
    ("cudart", "CUDA runtime"),
    ("cublaslt", "cuBLASLt"),
    ("cublas", "cuBLAS"),
    ("cufftw", "cuFFTW"),
    ("cufft", "cuFFT"),
    ("curand", "cuRAND"),
    ("cusolvermg", "cuSOLVERMg"),
    ("cusolver", "cuSOLVER"),
    ("cusparselt", "cuSPARSELt"),
    ("cusparse", "cuSPARSE"),
    ("nvrtc-builtins", "NVRTC builtins"),
    ("nvrtc", "NVRTC"),
    ("nvjitlink", "nvJitLink"),
    ("cupti", "CUPTI"),
    ("nvperf", "CUPTI (Perf SDK)"),
    ("pcsamplingutil", "CUPTI"),
    ("checkpoint", "CUPTI"),
    ("nvtoolsext", "NVTX"),
    ("nvtx", "NVTX"),
    ("npp", "NPP"),
    ("nvjpeg", "nvJPEG"),
    ("cufile", "cuFile"),
    ("nvvm", "NVVM"),
    ("nvptxcompiler", "nvPTXCompiler"),
    ("nvfatbin", "nvFatbin"),
    ("cudnn", "cuDNN"),
    ("nccl", "NCCL"),
    ("cutensor", "cuTENSOR"),
    ("cudss", "cuDSS"),
    ("nvinfer_plugin", "TensorRT plugins"),
    ("nvinfer_lean", "TensorRT lean runtime"),
    ("nvinfer_dispatch", "TensorRT dispatch runtime"),
    ("nvinfer_builder_resource", "TensorRT builder resources"),
    ("nvinfer", "TensorRT"),
    ("nvonnxparser", "TensorRT ONNX parser"),
    ("nvparsers", "TensorRT parsers"),
    ("myelin", "TensorRT (Myelin)"),
    ("nvml", "NVML"),
    ("opencl", "OpenCL"),
    ("cudla", "cuDLA"),
    ("nvblas", "NVBLAS"),
];

/// The stem of a file name: `libcublasLt.so.12` → `cublaslt`, `cudnn_ops64_9.dll` → `cudnn_ops`.
fn stem(file: &str) -> String {
    let lower = file.to_ascii_lowercase();
    let base = lower.strip_prefix("lib").unwrap_or(&lower);
    let base = base.split(".so").next().unwrap_or(base);
    let base = base.strip_suffix(".dll").unwrap_or(base);
    base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_' || c == '.')
        .trim_end_matches("64")
        .to_string()
}

/// The NVIDIA component a library file name belongs to, by its stem.
pub fn component_of_file(file: &str) -> Option<&'static str> {
    let s = stem(file);
    COMPONENTS
        .iter()
        .filter(|(prefix, _)| s.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, c)| *c)
}

/// A name neither table lists whose stem is an NVIDIA library's own (`libnvinfer_builder_resource.so.10.3.0`,
/// `cudnn_engines_foo64_9.dll`): the component, and for a library with its own release line the
/// major its name carries. Generic stems (OpenCL, "checkpoint") are not taken on their own.
fn stem_identity(asked: &str) -> Option<LibraryIdentity> {
    let lower = asked.to_ascii_lowercase();
    let file_like = !lower.contains(char::is_whitespace)
        && (lower.ends_with(".dll") || split_soname(&lower).is_some());
    if !file_like {
        return None;
    }
    let s = stem(asked);
    if !(s.starts_with("cu")
        || s.starts_with("nv")
        || s.starts_with("myelin")
        || s.starts_with("npp"))
    {
        return None;
    }
    let component = component_of_file(asked)?;
    let major = match lower.split_once(".so.") {
        Some((_, rest)) => rest.split('.').next().unwrap_or("").to_string(),
        None => lower
            .trim_end_matches(".dll")
            .rsplit('_')
            .next()
            .unwrap_or("")
            .to_string(),
    };
    let mut id = LibraryIdentity {
        file: asked.to_string(),
        matched: asked.to_string(),
        component: component.to_string(),
        version_family: "unknown".into(),
        platform: if lower.ends_with(".dll") {
            "windows"
        } else {
            "linux"
        }
        .into(),
        toolkits: Vec::new(),
        verified: false,
        note: Some(format!(
            "Identified by its name only: no wheel CUDA Triage read ships {asked}.{}",
            shipped_siblings(asked)
        )),
        container_capability: None,
        source: "the library's file name (the NVIDIA component names of the wheels' file lists)"
            .into(),
    };
    if id.own_family() && !major.is_empty() && major.chars().all(|c| c.is_ascii_digit()) {
        id.version_family = major;
    }
    Some(id)
}

/// The names the wheels ship for the same library as `asked` (`libcufile.so.1` is shipped only
/// as `libcufile.so.0`): a program that asks for a soname no release read has may ask for the
/// wrong one, or for a release newer than those read.
fn shipped_siblings(asked: &str) -> String {
    let lower = asked.to_ascii_lowercase();
    let Some((base, _)) = lower.split_once(".so") else {
        return String::new();
    };
    let g = super::generated::generated();
    let mut names: Vec<&str> = g
        .libraries
        .file
        .iter()
        .filter(|f| f.platform == "linux")
        .filter(|f| {
            f.name
                .to_ascii_lowercase()
                .split_once(".so")
                .is_some_and(|(b, _)| b == base)
        })
        .map(|f| f.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return String::new();
    }
    format!(
        " The wheels ship this library as {} (a soname no release read has: a program that asks \
         for {asked} asks for the wrong name, fixed in its newer releases or bridged by a symbolic \
         link to the shipped file, or for a release newer than those read).",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::component_of_file as component;

    #[test]
    fn components_by_stem() {
        assert_eq!(component("libcublasLt.so.12"), Some("cuBLASLt"));
        assert_eq!(component("cublas64_12.dll"), Some("cuBLAS"));
        assert_eq!(
            component("libnvinfer_plugin.so.10"),
            Some("TensorRT plugins")
        );
        assert_eq!(component("nvinfer_10.dll"), Some("TensorRT"));
        assert_eq!(
            component("libnvrtc-builtins.so.12.4"),
            Some("NVRTC builtins")
        );
        assert_eq!(component("cudnn_ops64_9.dll"), Some("cuDNN"));
        assert_eq!(component("libcusparseLt.so.0"), Some("cuSPARSELt"));
        assert_eq!(component("libfoo.so.1"), None);
    }
}
