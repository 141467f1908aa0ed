//! What a scanned fact was read from, or what chose a tool — one of a fixed set each, typed, and
//! serialised to the same strings the JSON contract has always carried (a test round-trips each).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a version of a toolkit or cuDNN copy was read (`VersionEvidence.source`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum VersionSource {
    /// A toolkit's `version.json`.
    VersionJson,
    /// A toolkit's `version.txt` (CUDA 10 and older).
    VersionTxt,
    /// The folder's name (`v12.4`, `cuda-11.8`).
    FolderName,
    /// The release in a library's file name (`libcudart.so.12.4.127`, `cudnn64_8.dll`).
    LibraryName,
    /// The nvcc banner in a ptxas or nvcc binary.
    ToolBinary,
    /// A conda package's record in `conda-meta`.
    CondaMeta,
    /// A pip wheel's metadata.
    Wheel,
    /// A header that defines the version (`cudnn_version.h`, `cudnn.h`): its file name.
    Header(String),
}

impl VersionSource {
    pub fn as_str(&self) -> &str {
        match self {
            VersionSource::VersionJson => "version.json",
            VersionSource::VersionTxt => "version.txt",
            VersionSource::FolderName => "folder name",
            VersionSource::LibraryName => "library name",
            VersionSource::ToolBinary => "ptxas/nvcc binary",
            VersionSource::CondaMeta => "conda-meta",
            VersionSource::Wheel => "wheel",
            VersionSource::Header(name) => name,
        }
    }
}

impl From<String> for VersionSource {
    /// Any text that is not one of the fixed sources names the header it was read from.
    fn from(text: String) -> VersionSource {
        [
            VersionSource::VersionJson,
            VersionSource::VersionTxt,
            VersionSource::FolderName,
            VersionSource::LibraryName,
            VersionSource::ToolBinary,
            VersionSource::CondaMeta,
            VersionSource::Wheel,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
        .unwrap_or(VersionSource::Header(text))
    }
}

impl From<VersionSource> for String {
    fn from(source: VersionSource) -> String {
        source.as_str().to_string()
    }
}

impl fmt::Display for VersionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a ptxas/nvcc's version was read (`ToolInfo.version_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToolVersionSource {
    /// The banner inside the binary.
    #[serde(rename = "binary")]
    Binary,
    /// What the program printed for `--version` (live, opt-in).
    #[serde(rename = "--version")]
    VersionFlag,
}

/// What chose the nvcc CuPy runs (`ChosenTool.how`), in CuPy's own order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NvccChoice {
    /// The `NVCC` variable.
    #[serde(rename = "NVCC")]
    NvccVariable,
    /// `CUDA_PATH`.
    #[serde(rename = "CUDA_PATH")]
    CudaPath,
    /// The folder above the first nvcc on PATH.
    #[serde(rename = "the nvcc on PATH")]
    NvccOnPath,
    /// `/usr/local/cuda` (Linux).
    #[serde(rename = "/usr/local/cuda")]
    UsrLocalCuda,
}

impl NvccChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            NvccChoice::NvccVariable => "NVCC",
            NvccChoice::CudaPath => "CUDA_PATH",
            NvccChoice::NvccOnPath => "the nvcc on PATH",
            NvccChoice::UsrLocalCuda => "/usr/local/cuda",
        }
    }
}

impl fmt::Display for NvccChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What chose a ptxas Triton runs (`TritonPtxas.how`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TritonPtxasChoice {
    /// The `TRITON_PTXAS_PATH` variable.
    #[serde(rename = "TRITON_PTXAS_PATH")]
    Variable,
    /// The ptxas in Triton's own wheel.
    #[serde(rename = "bundled with Triton")]
    Bundled,
}

impl TritonPtxasChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            TritonPtxasChoice::Variable => "TRITON_PTXAS_PATH",
            TritonPtxasChoice::Bundled => "bundled with Triton",
        }
    }
}

impl fmt::Display for TritonPtxasChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serialises `value`, checks the JSON string is `text`, and reads it back to `value`.
    fn round_trips<T>(value: T, text: &str)
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + fmt::Debug,
    {
        let json = serde_json::to_string(&value).expect("serialises");
        assert_eq!(json, format!("\"{text}\""));
        let back: T = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, value);
    }

    #[test]
    fn each_source_and_choice_keeps_its_json_string() {
        for (s, text) in [
            (VersionSource::VersionJson, "version.json"),
            (VersionSource::VersionTxt, "version.txt"),
            (VersionSource::FolderName, "folder name"),
            (VersionSource::LibraryName, "library name"),
            (VersionSource::ToolBinary, "ptxas/nvcc binary"),
            (VersionSource::CondaMeta, "conda-meta"),
            (VersionSource::Wheel, "wheel"),
            (
                VersionSource::Header("cudnn_version.h".into()),
                "cudnn_version.h",
            ),
        ] {
            assert_eq!(s.to_string(), text);
            round_trips(s, text);
        }
        round_trips(ToolVersionSource::Binary, "binary");
        round_trips(ToolVersionSource::VersionFlag, "--version");
        for c in [
            NvccChoice::NvccVariable,
            NvccChoice::CudaPath,
            NvccChoice::NvccOnPath,
            NvccChoice::UsrLocalCuda,
        ] {
            round_trips(c, c.as_str());
        }
        for c in [TritonPtxasChoice::Variable, TritonPtxasChoice::Bundled] {
            round_trips(c, c.as_str());
        }
    }
}
