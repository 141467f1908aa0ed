//! Command-line arguments (clap). Every subcommand takes `--machine FILE` and `--json`.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Finds out why NVIDIA GPU libraries will not load, and fixes it.
/// Without a subcommand it opens the wizard (or prints a text scan when there is no display).
#[derive(Debug, Parser)]
#[command(name = "cuda-triage", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: Option<CliCommand>,
}

/// Options shared by every subcommand.
#[derive(Debug, Clone, Default, Args)]
pub struct Common {
    /// Diagnose the machine described by this machine file instead of this computer.
    #[arg(long, value_name = "FILE", global = true)]
    pub machine: Option<PathBuf>,
    /// Print the result as JSON (schema "cuda-triage/1").
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Scan installs, driver and GPUs and report findings.
    Scan(ScanArgs),
    /// Explain a library name, a pasted error message or a saved log ("-" reads standard input).
    Why {
        /// A library name such as cublas64_11.dll, error text, or the path of a saved log file.
        /// Pasted text may begin with a hyphen (an IPython traceback's "----> 2 torch.fft…",
        /// a "--- stderr" banner): it is taken as the text, not as an unknown option.
        #[arg(
            value_name = "LIBRARY-OR-ERROR-TEXT",
            required_unless_present = "corpus",
            allow_hyphen_values = true
        )]
        query: Option<String>,
        /// Measure the catalog instead: triage every entry of an error corpus (TOML) and report
        /// the hit rate and the misses.
        #[arg(long, value_name = "FILE", conflicts_with = "query")]
        corpus: Option<std::path::PathBuf>,
    },
    /// Show the dependency tree of a DLL, .so or executable, and why each piece resolved where it did.
    Tree(TreeArgs),
    /// Run a live GPU test (cuBLAS matmul, cuDNN convolution, bandwidth) in a child process.
    GpuTest(GpuTestArgs),
    /// List, preview, apply or undo fixes.
    Fix {
        #[command(subcommand)]
        action: FixAction,
    },
    /// Write a report (JSON, Markdown or HTML; redacted by default), or compare saved reports.
    Report(ReportArgs),
    /// Many machines' saved reports as one matrix: what differs, and where (folders of
    /// `*.json` or report files; text, --json, or -o/--format for Markdown or HTML).
    Fleet(FleetArgs),
    /// Open a saved report (in the wizard when there is a display, else as text).
    Open {
        /// A saved JSON report, or a folder of them (the fleet view).
        #[arg(value_name = "REPORT.json")]
        report: PathBuf,
    },
}

/// Options of `scan`.
#[derive(Debug, Clone, Default, Args)]
pub struct ScanArgs {
    /// Also run `python -c "import X"` for each framework found and `ptxas --version`
    /// (this computer only; each with a timeout).
    #[arg(long)]
    pub probe: bool,
}

/// `tree`: the binary and the loading context (the Windows flags mirror LoadLibraryExW).
#[derive(Debug, Clone, Default, Args)]
pub struct TreeArgs {
    /// The DLL, .so or executable: a machine path with --machine, else a path on this computer;
    /// a bare name (cublas64_11.dll, libcudnn.so.8) is searched for as the process would.
    #[arg(value_name = "BINARY")]
    pub binary: String,
    /// List dependencies down to this depth (1 = direct dependencies only).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Windows: the directory of the .exe that loads the binary (python.exe for --context python).
    #[arg(long, value_name = "DIR")]
    pub app_dir: Option<String>,
    /// Windows: a directory added with AddDllDirectory / os.add_dll_directory (repeatable).
    #[arg(long = "dll-dir", value_name = "DIR")]
    pub dll_dir: Vec<String>,
    /// Windows: the directory given to SetDllDirectory.
    #[arg(long, value_name = "DIR")]
    pub set_dll_dir: Option<String>,
    /// Windows: LoadLibraryExW flags, e.g. 0x1100 (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | DLL_LOAD_DIR).
    #[arg(long, value_name = "HEX")]
    pub load_flags: Option<String>,
    /// Linux: the library that opens a bare-name BINARY with dlopen (its RPATH/RUNPATH apply).
    #[arg(long, value_name = "LIB")]
    pub from: Option<String>,
    /// The current directory of the process (Windows: part of the search; with --machine, where a
    /// relative BINARY is opened from on Linux and by Python's ctypes on Windows).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Windows: a loading context preset.
    #[arg(long, value_enum)]
    pub context: Option<TreeContext>,
    /// Do not follow libraries opened at run time (LoadLibrary/dlopen).
    #[arg(long)]
    pub no_runtime: bool,
    /// Time N full tree builds and print the statistics to standard error (benchmarking).
    #[arg(long, value_name = "N", hide = true)]
    pub bench: Option<u32>,
}

/// Windows loading contexts (`--context`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TreeContext {
    /// An application loading the DLL (standard search order, PATH included).
    App,
    /// Python >= 3.8 (os.add_dll_directory; PATH ignored).
    Python,
    /// conda's Python (adds the prefix's Library\bin and friends).
    CondaPython,
    /// torch/__init__.py (LoadLibraryExW with 0x1100).
    Torch,
}

#[derive(Debug, Subcommand)]
pub enum FixAction {
    /// List the fixes the findings offer.
    List,
    /// Show one fix's plan: what it changes, as a diff, registry before/after or exact command.
    Show {
        id: String,
        #[command(flatten)]
        choice: FixChoice,
    },
    /// Apply one fix (journaled for undo), then re-check that its finding is gone.
    Apply {
        id: String,
        #[command(flatten)]
        choice: FixChoice,
        /// Run the same code with writes off and say what would change.
        #[arg(long)]
        dry_run: bool,
        /// Do not ask for confirmation.
        #[arg(long)]
        yes: bool,
    },
    /// Undo the last applied fix, or the one with this journal id (see `fix history`).
    Undo {
        #[arg(value_name = "JOURNAL-ID")]
        journal: Option<String>,
    },
    /// List the applied, undone and rolled-back fixes.
    History,
}

/// Where a fix applies and what it uses.
#[derive(Debug, Clone, Default, Args)]
pub struct FixChoice {
    /// user (default: your login profile or HKCU), machine (every user; needs administrator
    /// rights) or env (the activated conda environment or venv).
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
    /// For a copy fix: the file to copy (its bitness is checked).
    #[arg(long, value_name = "FILE")]
    pub from: Option<String>,
    /// For a version pin: an option for every pip command, e.g. `--pip-arg=--no-index
    /// --pip-arg=--find-links=DIR` (repeat it).
    #[arg(long = "pip-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub pip_args: Vec<String>,
    /// For a version pin: write the requirements into this requirements/constraints file
    /// instead of installing them.
    #[arg(long, value_name = "FILE")]
    pub to_file: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    User,
    Machine,
    Env,
}

/// `gpu-test --framework` takes the frameworks of [`FrameworkKind::ALL`] by their module name
/// (`torch`, `tensorflow`, …).
impl ValueEnum for FrameworkKind {
    fn value_variants<'a>() -> &'a [Self] {
        &FrameworkKind::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.module()))
    }
}

use crate::engine::api::{FrameworkKind, ReportFormat};

/// `--format` takes the formats of [`ReportFormat::ALL`] by their first extension (`json`, `md`,
/// `html`), the others as hidden aliases (`markdown`, `htm`).
impl ValueEnum for ReportFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &ReportFormat::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let (name, aliases) = self.spec().extensions.split_first()?;
        Some(clap::builder::PossibleValue::new(*name).aliases(aliases.iter().copied()))
    }
}

/// Options of `report`.
#[derive(Debug, Clone, Default, Args)]
pub struct ReportArgs {
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The format; by default the output file's extension decides (.md, .html, else JSON).
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
    /// Keep the user name, home folder, host name, GPU UUIDs and every environment value
    /// (a report is redacted by default; this says on standard error what it adds).
    #[arg(long)]
    pub no_redact: bool,
    /// Also put the dependency tree of this binary into the report (repeatable).
    #[arg(long = "tree", value_name = "BINARY")]
    pub trees: Vec<String>,
    /// Also run the quick GPU test (this computer) on the libraries the first scanned framework
    /// loads, and put its results into the report.
    #[arg(long)]
    pub gpu_test: bool,
    /// The machine's name in the report (host or node name, chosen by you): the one identity
    /// a redacted report carries; the fleet view shows it.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// Compare saved JSON reports instead: two show what differs, more are grouped by what
    /// their machines have (text; JSON with --json; -o/--format write JSON or Markdown).
    #[arg(long, num_args = 2.., value_name = "REPORT.json")]
    pub compare: Vec<PathBuf>,
}

/// Options of `fleet`.
#[derive(Debug, Clone, Default, Args)]
pub struct FleetArgs {
    /// Folders of saved JSON reports (each `*.json` in them) or report files.
    #[arg(value_name = "DIR-OR-REPORT", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The format; by default the output file's extension decides (.md, .html, else JSON),
    /// and standard output gets text (JSON with --json).
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
    /// Run this build's rules again on each report's snapshot (as `open` does) instead of
    /// taking the findings saved in it; slower (each report is read whole).
    #[arg(long)]
    pub rediagnose: bool,
}

/// Which libraries the GPU test loads, and how long it may take.
#[derive(Debug, Clone, Default, Args)]
pub struct GpuTestArgs {
    /// The CUDA driver library to test (default: libcuda.so.1 / nvcuda.dll as the OS finds it).
    #[arg(long, value_name = "PATH")]
    pub driver: Option<PathBuf>,
    /// The CUDA runtime library (libcudart.so.N / cudart64_N.dll).
    #[arg(long, value_name = "PATH")]
    pub cudart: Option<PathBuf>,
    /// The cuBLAS library (libcublas.so.N / cublas64_N.dll).
    #[arg(long, value_name = "PATH")]
    pub cublas: Option<PathBuf>,
    /// The cuDNN library (libcudnn.so.N / cudnn64_N.dll).
    #[arg(long, value_name = "PATH")]
    pub cudnn: Option<PathBuf>,
    /// Pick the libraries not given above from this folder (toolkit bin or lib64, pip
    /// site-packages/nvidia, torch/lib, a conda env's lib or Library/bin).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Test what this framework's process loads, as the scan resolves it (the first Python
    /// environment that has it); flags and --dir above still win for their libraries.
    #[arg(long, value_enum, value_name = "FRAMEWORK")]
    pub framework: Option<FrameworkKind>,
    /// List the library sets the scan finds (each framework's files as its process would load
    /// them, each toolkit's) and exit without testing; works with --machine.
    #[arg(long)]
    pub sets: bool,
    /// Small sizes only: a check in seconds rather than a benchmark.
    #[arg(long)]
    pub quick: bool,
    /// The CUDA device index to test.
    #[arg(long, value_name = "INDEX", default_value_t = 0)]
    pub device: u32,
    /// Stop the test after this many seconds (default 600, or 120 with --quick).
    #[arg(long, value_name = "SECONDS")]
    pub timeout_secs: Option<u64>,
    /// Internal: run as the test's child process (prints one JSON result).
    #[arg(long, hide = true)]
    pub child: bool,
}
