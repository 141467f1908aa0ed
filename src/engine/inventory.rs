//! The inventory: what the scan found on a machine, as plain serde data. Rules query it
//! (`inventory.toolkits`, `toolkit.bin_dirs`, `env.frameworks`, `framework.expects`) and it is
//! written into the JSON document under the top-level `"inventory"` key.
//!
//! Every path is a *machine* path (`C:\Program Files\...`, `/usr/local/cuda-12.4/...`), never a
//! host path, so a report reads the same wherever it was produced. Versions are kept as text
//! exactly as found (`"12.4.131"`, `"11.x"`, `"8.9.7"`), and each carries where it came from.

mod how_found;
use crate::engine::context::GpuFacts;
pub use how_found::{NvccChoice, ToolVersionSource, TritonPtxasChoice, VersionSource};
use serde::{Deserialize, Serialize};

/// Everything the scan found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Inventory {
    pub toolkits: Vec<Toolkit>,
    pub cudnn: Vec<CudnnInstall>,
    pub driver: DriverInventory,
    pub python_envs: Vec<PythonEnv>,
    /// Every `zlibwapi.dll` seen (cuDNN 8 on Windows loads it at run time), with its bitness.
    #[serde(default)]
    pub zlibwapi: Vec<ZlibWapi>,
    /// Environment variables, registry values and PATH entries that name a toolkit folder,
    /// whether or not that folder exists (rules use these for "points at nothing" findings).
    #[serde(default)]
    pub toolkit_references: Vec<ToolkitReference>,
    /// What the scan did not look at, and why (unreadable, too big, out of time, cancelled...).
    #[serde(default)]
    pub skipped: Vec<Skipped>,
}

impl Inventory {
    /// Every framework of every environment, with the environment it lives in.
    pub fn frameworks(&self) -> impl Iterator<Item = (&PythonEnv, &Framework)> {
        self.python_envs
            .iter()
            .flat_map(|e| e.frameworks.iter().map(move |f| (e, f)))
    }
}

/// A path the scan did not read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// Where a version string came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionEvidence {
    /// `version.json`, `version.txt`, `folder name`, `library name`, `cudnn_version.h`, ...
    pub source: VersionSource,
    /// The file (or folder) it was read from.
    pub path: String,
    pub version: String,
}

/// How a toolkit was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FoundBy {
    /// `CUDA_PATH`, `CUDA_PATH_V12_1`, `CUDA_HOME`, ...
    EnvVar { name: String },
    /// A registry value (key and value name).
    Registry { key: String, value: String },
    /// A well-known install folder (`...\CUDA\v*`, `/usr/local/cuda*`, `/opt/cuda*`).
    DefaultLocation,
    /// A PATH entry holding `nvcc` or `ptxas`.
    PathEntry { entry: String },
    /// Conda packages of one environment (`cudatoolkit`, `cuda-*`).
    CondaPackages { env: String },
}

/// What sort of toolkit install this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolkitKind {
    /// NVIDIA's installer or a distribution package: a folder with bin/, lib64/, include/...
    Standalone,
    /// conda `cudatoolkit` or `cuda-*` packages inside an environment prefix.
    Conda,
}

/// One CUDA toolkit install.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Toolkit {
    /// The toolkit folder (`C:\...\CUDA\v12.1`, `/usr/local/cuda-12.4`, a conda prefix).
    pub root: String,
    pub kind: ToolkitKind,
    /// Best version known (`12.4.131` from version.json beats `12.4` from the folder name).
    pub version: Option<String>,
    /// Every version clue found, in order of trust.
    pub version_evidence: Vec<VersionEvidence>,
    pub found_by: Vec<FoundBy>,
    /// Other machine paths that lead to the same folder (`/usr/local/cuda` → `cuda-12.4`).
    #[serde(default)]
    pub also_at: Vec<String>,
    /// Folders with executables (`bin`); on Windows also the DLL folders (`bin`, CUDA 13's `bin\x64`).
    pub bin_dirs: Vec<String>,
    /// Folders holding the runtime libraries (Windows: the DLL folders; Linux: `lib64`,
    /// `targets/x86_64-linux/lib`; conda: `Library\bin` or `lib`).
    pub library_dirs: Vec<String>,
    /// CUDA runtime library file names found in `library_dirs` (cudart, cublas, cufft, nvrtc...).
    pub libraries: Vec<String>,
    pub cupti: Option<Cupti>,
    pub ptxas: Option<ToolInfo>,
    pub nvcc: Option<ToolInfo>,
    /// `nvvm/libdevice/libdevice.10.bc` (XLA needs it), when present.
    pub libdevice: Option<String>,
}

/// CUPTI inside a toolkit (`extras/CUPTI/lib64`, or `libx64` up to CUDA 10.0 on Windows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cupti {
    pub dir: String,
    /// The pre-10.1 Windows `libx64` folder rather than `lib64`.
    pub legacy_libx64: bool,
    pub libraries: Vec<String>,
}

/// An executable such as ptxas or nvcc.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub path: String,
    /// Full version, e.g. `12.4.131`.
    pub version: Option<String>,
    /// `binary` (read from the embedded version string), `--version` (run live), or absent.
    pub version_source: Option<ToolVersionSource>,
}

/// A compiler a framework would run, and what chose it (`NVCC`, `CUDA_PATH`, `PATH`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChosenTool {
    pub how: NvccChoice,
    pub tool: ToolInfo,
}

/// A ptxas Triton would run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TritonPtxas {
    /// The Triton release (`3.1.0`).
    pub triton: String,
    /// `TRITON_PTXAS_PATH` or `bundled with Triton`.
    pub how: TritonPtxasChoice,
    pub tool: ToolInfo,
}

/// How a cuDNN copy got where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CudnnSource {
    /// NVIDIA's installer/zip or a distribution package (`C:\Program Files\NVIDIA\CUDNN\v8.9`, `/usr/lib/x86_64-linux-gnu`).
    Standalone,
    /// Copied into a CUDA toolkit folder.
    InsideToolkit { toolkit: String },
    /// pip `nvidia-cudnn-cu*` in an environment's `site-packages/nvidia/cudnn`.
    Pip { env: String },
    /// conda `cudnn` in an environment.
    Conda { env: String },
    /// Bundled inside a framework (`torch\lib\cudnn64_8.dll`).
    Bundled { env: String, framework: String },
}

/// One cuDNN copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CudnnInstall {
    pub root: String,
    pub source: CudnnSource,
    /// `8.9.7` from the header, `9.1.0.70` from a wheel, or just `8` from a library name.
    pub version: Option<String>,
    pub version_evidence: Vec<VersionEvidence>,
    /// Folders holding the cuDNN libraries.
    pub library_dirs: Vec<String>,
    /// cuDNN library file names (`cudnn64_8.dll`, `cudnn_cnn_infer64_8.dll`, `libcudnn.so.9`...).
    pub libraries: Vec<String>,
    /// `zlibwapi.dll` found next to the libraries (Windows cuDNN 8 needs one somewhere).
    pub zlibwapi: Option<ZlibWapi>,
}

/// A `zlibwapi.dll` and the machine type in its PE header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZlibWapi {
    pub path: String,
    /// `x64`, `x86`, `arm64`, or `None` when the header could not be read.
    pub machine: Option<String>,
    /// 64 or 32; `None` when unknown.
    pub bits: Option<u8>,
}

/// Driver and GPUs: NVML facts from the context, plus the driver libraries seen on disk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DriverInventory {
    /// Driver version: NVML, else the version in a `libcuda.so.<version>` file name.
    pub version: Option<String>,
    /// Newest CUDA the driver supports (NVML only).
    pub cuda: Option<String>,
    /// `nvml`, `machine file`, `report` or `libcuda file name`.
    pub version_source: Option<String>,
    pub gpus: Vec<GpuFacts>,
    /// Driver libraries present (`C:\Windows\System32\nvcuda.dll`, `/usr/lib/x86_64-linux-gnu/libcuda.so.1`).
    pub libraries: Vec<String>,
    /// `/usr/lib/wsl/lib` when this is WSL and the folder exists.
    pub wsl_lib_dir: Option<String>,
    /// Why the driver facts are missing, when known.
    pub note: Option<String>,
}

impl DriverInventory {
    /// Whether anything says a driver is installed (NVML, or its libraries on disk).
    pub fn present(&self) -> bool {
        self.version.is_some() || !self.libraries.is_empty()
    }
}

/// A variable, registry value or PATH entry that names a toolkit folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolkitReference {
    /// `CUDA_PATH`, `CUDA_HOME`, `PATH`, `XLA_FLAGS`, `registry HKLM\...`.
    pub source: String,
    /// The folder as written (normalised).
    pub path: String,
    pub exists: bool,
}

/// What sort of Python install an environment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PythonKind {
    CondaBase,
    CondaEnv,
    Venv,
    Pyenv,
    /// python.org installer (`...\Programs\Python\Python311`, `C:\Python311`).
    PythonOrg,
    /// Microsoft Store Python: sandboxed, known to break CUDA DLL loading (tensorflow/tensorflow#43030, #61437).
    MicrosoftStore,
    /// The distribution's Python (`/usr/lib/python3*`).
    System,
    Other,
}

impl PythonKind {
    /// The JSON spelling (`conda-env`), also shown in the versions table.
    pub fn as_str(self) -> &'static str {
        match self {
            PythonKind::CondaBase => "conda-base",
            PythonKind::CondaEnv => "conda-env",
            PythonKind::Venv => "venv",
            PythonKind::Pyenv => "pyenv",
            PythonKind::PythonOrg => "python-org",
            PythonKind::MicrosoftStore => "microsoft-store",
            PythonKind::System => "system",
            PythonKind::Other => "other",
        }
    }
}

/// One Python environment and the GPU software installed in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PythonEnv {
    pub root: String,
    pub kind: PythonKind,
    /// `3.10.12`, or `3.10` when only the folder name tells.
    pub python_version: Option<String>,
    pub version_source: Option<String>,
    /// The interpreter, when found.
    pub python_exe: Option<String>,
    /// venv: the `home` of pyvenv.cfg (the base interpreter's folder).
    pub base_home: Option<String>,
    pub site_packages: Vec<String>,
    pub frameworks: Vec<Framework>,
    /// pip `nvidia-*` wheels with versions.
    pub nvidia_wheels: Vec<Package>,
    /// `site-packages/nvidia/<component>/{lib,bin}` folders and their libraries.
    pub nvidia_lib_dirs: Vec<NvidiaLibDir>,
    /// conda packages that matter (python, cuda*, cudnn, pytorch, tensorflow, jax, cupy, ...).
    pub conda_packages: Vec<Package>,
    /// ptxas from the pip `nvidia-cuda-nvcc-cu*` wheel (`nvidia/cuda_nvcc/bin/ptxas`), which XLA searches.
    pub pip_ptxas: Option<ToolInfo>,
    /// The ptxas binaries Triton (torch.compile) would run, in its order: `TRITON_PTXAS_PATH`,
    /// then its bundled copy; the first one wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triton_ptxas: Vec<TritonPtxas>,
    /// The ptxas binaries XLA may run besides the pip wheel's, with their versions: `CUDA_ROOT`/bin
    /// (JAX's data folder), then each PATH folder's, in order (read where the env holds
    /// TensorFlow or JAX).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub xla_ptxas: Vec<ToolInfo>,
    /// The nvcc CuPy runs for `backend='nvcc'` kernels and cuFFT callbacks, found in CuPy's own
    /// order (`NVCC`, else `<CUDA path>/bin/nvcc`; read where the env holds CuPy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cupy_nvcc: Option<ChosenTool>,
    /// Notes the scan attaches (e.g. "Microsoft Store Python").
    pub notes: Vec<String>,
    /// Result of the optional import probe, one per framework module tried.
    #[serde(default)]
    pub import_probes: Vec<ImportProbe>,
}

/// A package name and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    pub version: Option<String>,
}

/// A folder of CUDA libraries installed by pip wheels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvidiaLibDir {
    /// `cublas`, `cuda_runtime`, `cudnn`, `cu13`, ...
    pub component: String,
    pub dir: String,
    pub libraries: Vec<String>,
}

/// Which framework. Its descriptor (name, module, Windows loading, reader) and the list of all of
/// them are in `scan/frameworks/specs.rs` ([`FrameworkKind::spec`], [`FrameworkKind::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrameworkKind {
    TensorFlow,
    PyTorch,
    Jax,
    CuPy,
    OnnxRuntime,
}

/// A GPU framework installed in an environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Framework {
    pub kind: FrameworkKind,
    /// The distribution name (`tensorflow`, `tensorflow-gpu`, `torch`, `jaxlib`, `onnxruntime-gpu`, `cupy-cuda12x`).
    pub package: String,
    pub version: Option<String>,
    /// The package folder (`site-packages/torch`).
    pub location: String,
    /// Built with CUDA: `Some(false)` for a CPU-only build, `None` when the files do not say.
    pub cuda_build: Option<bool>,
    pub expects: Expects,
    /// CUDA-related libraries shipped inside the package (`torch\lib\cudnn64_8.dll`, ...).
    pub bundled_libraries: Vec<String>,
    /// The folder those bundled libraries are in.
    pub bundled_dir: Option<String>,
    /// Linux: the framework's own library whose RPATH/RUNPATH its CUDA loads search from (the
    /// ELF in its folders with the longest one), e.g. `torch/lib/libtorch_cuda.so`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_library: Option<String>,
    /// Extra pieces (JAX CUDA plugins, ONNX Runtime's CUDA provider).
    pub plugins: Vec<Package>,
    /// A `libdevice.10.bc` shipped inside the package for its XLA (jax-cuda12-plugin 0.4.26:
    /// `jax_cuda12_plugin/nvvm/libdevice/libdevice.10.bc`), so no toolkit's is needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libdevice: Option<String>,
    /// Windows: folders the framework adds with `os.add_dll_directory` when imported, as its own
    /// files say (CuPy's `_environment._setup_win32_dll_directory`: `<CUDA path>\bin`, then the
    /// wheel's `cupy\.data\lib`). Python ≥ 3.8 searches them for its extensions' DLLs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dll_directories: Vec<String>,
    /// What the framework's own import code raises on this machine under Python ≥ 3.8, as its
    /// files say (CuPy 7 on Windows: `RuntimeError: CUDA path could not be detected.` when neither
    /// CUDA_PATH nor an nvcc on PATH gives it a CUDA folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_error: Option<String>,
    /// Files the facts were read from.
    pub evidence: Vec<String>,
}

impl Framework {
    /// A framework found at `location`, before its build facts are read.
    pub fn new(
        kind: FrameworkKind,
        package: &str,
        version: Option<String>,
        location: &str,
    ) -> Framework {
        Framework {
            kind,
            package: package.to_string(),
            version,
            location: location.to_string(),
            cuda_build: None,
            expects: Expects::default(),
            bundled_libraries: Vec::new(),
            bundled_dir: None,
            search_library: None,
            plugins: Vec::new(),
            libdevice: None,
            dll_directories: Vec::new(),
            import_error: None,
            evidence: Vec::new(),
        }
    }
}

/// What a framework build expects to find at run time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Expects {
    /// CUDA version or family it was built against (`11.2`, `12.1`, `12`, `12.x`).
    pub cuda: Option<String>,
    /// cuDNN version or major (`8`, `8.9`, `9.1.0.70`).
    pub cudnn: Option<String>,
    /// Library names the package *declares* (TensorFlow build_info's `cudart_dll_name`,
    /// `cudnn_dll_name`, `nvcuda_dll_name`, `msvcp_dll_names`), verbatim. Beware: TF 2.10's
    /// build_info says `cudart64_112.dll`, a file that never existed; its loader asks for
    /// `cudart64_110.dll` (tensorflow 2.10.1 win_amd64 wheel). Derive load names from the CUDA family instead.
    pub dll_names: Vec<String>,
    /// GPU architectures in the build (`sm_80`, `compute_86`), when recorded.
    pub compute_capabilities: Vec<String>,
    /// `nvidia-*` wheels the package's metadata requires (name and version spec).
    pub wheels: Vec<Package>,
    /// Where `cuda`/`cudnn` were read: `build_info.py`, `torch/version.py`, `_wheel.json`,
    /// `version_info.py`, a plugin's name, or `tensorflow_builds.toml (2.10 row)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<String>,
    /// Set when no file and no documented row covers this release, so `cuda`/`cudnn` were taken
    /// from the nearest documented release: says which. Findings built on them say "inferred".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_from: Option<String>,
    /// The CUPTI names the framework asks for when profiling starts, in its order
    /// (TensorFlow ≤ 2.10 on Windows: `cupti64_112.dll`, then `cupti.dll`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cupti: Vec<String>,
    /// Libraries loaded only when a feature asks for them (CuPy's cuDNN/NCCL/cuTENSOR preload
    /// from `cupy/.data/_wheel.json`), with the version the wheel names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub optional: Vec<Package>,
    /// What could not be read, and why (shown on the Scan card instead of an OK).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

impl Expects {
    /// `11.2`, `12.5 (inferred from TensorFlow 2.21)` or `?` — for finding texts.
    pub fn cuda_label(&self) -> String {
        match (&self.cuda, &self.inferred_from) {
            (Some(c), Some(from)) => format!("{c} (inferred from {from})"),
            (Some(c), None) => c.clone(),
            (None, _) => "?".into(),
        }
    }
}

/// The outcome of `python -c "import X"` (live machine only, opt-in).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportProbe {
    pub module: String,
    pub outcome: ProbeOutcome,
    pub exit_code: Option<i32>,
    /// The tail of the error output (the real error text).
    pub stderr_tail: String,
    /// Linux: the shared objects the real process had mapped after the import
    /// (`/proc/self/maps`, symbolic links resolved), to lay beside the emulation's prediction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mapped: Vec<String>,
}

/// How an import probe ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeOutcome {
    /// The import succeeded.
    Ok,
    /// The interpreter exited with an error (the real error text is in `stderr_tail`).
    Failed,
    /// Killed after the time limit.
    TimedOut,
    /// The interpreter could not be started.
    NotRun,
}

impl ProbeOutcome {
    /// The JSON spelling: `ok`, `failed`, `timed-out`, `not-run`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeOutcome::Ok => "ok",
            ProbeOutcome::Failed => "failed",
            ProbeOutcome::TimedOut => "timed-out",
            ProbeOutcome::NotRun => "not-run",
        }
    }
}

impl std::fmt::Display for ProbeOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::{ProbeOutcome, PythonKind};

    #[test]
    fn a_python_kind_reads_as_its_json_spelling() {
        let names = "conda-base conda-env venv pyenv python-org microsoft-store system other";
        for name in names.split(' ') {
            let kind: PythonKind = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(kind.as_str(), name);
        }
    }

    #[test]
    fn a_probe_outcome_reads_and_writes_as_its_json_spelling() {
        for name in ["ok", "failed", "timed-out", "not-run"] {
            let outcome: ProbeOutcome = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(outcome.as_str(), name);
            assert_eq!(serde_json::to_value(outcome).unwrap(), name);
        }
    }
}
