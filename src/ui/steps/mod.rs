//! The wizard's steps, one file each. Every step function draws into a `Ui`, reads what the
//! wizard shows ([`Shown`]) and its own state, and pushes `UiCommand`s; none of them mutates the
//! app or starts work itself — `app::commands` applies the commands after drawing and starts the
//! worker jobs.

use crate::engine::api::Report;
use crate::ui::worker::Source;

pub mod dependencies;
pub mod dependency_details;
pub mod findings;
pub mod fix;
pub mod fix_state;
pub mod gpu_results;
pub mod gpu_state;
pub mod gpu_test;
pub mod report;
pub mod scan;
pub mod scan_cards;
pub mod welcome;

/// The wizard's steps in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    Welcome,
    Scan,
    Findings,
    Dependencies,
    GpuTest,
    Fix,
    Report,
}

impl Step {
    pub const ALL: [Step; 7] = [
        Step::Welcome,
        Step::Scan,
        Step::Findings,
        Step::Dependencies,
        Step::GpuTest,
        Step::Fix,
        Step::Report,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Step::Welcome => "Welcome",
            Step::Scan => "Scan",
            Step::Findings => "Findings",
            Step::Dependencies => "Dependencies",
            Step::GpuTest => "GPU test",
            Step::Fix => "Fix",
            Step::Report => "Report",
        }
    }

    pub fn index(self) -> usize {
        Step::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }

    pub fn next(self) -> Option<Step> {
        Step::ALL.get(self.index() + 1).copied()
    }

    pub fn previous(self) -> Option<Step> {
        self.index().checked_sub(1).map(|i| Step::ALL[i])
    }
}

/// What every step may read of the wizard besides its own state: the target and the document
/// shown (from a scan, or a reopened report).
#[derive(Clone, Copy)]
pub struct Shown<'a> {
    pub target: &'a Source,
    pub document: Option<&'a Report>,
}

impl Shown<'_> {
    /// The machine the wizard shows, in words: a reopened report's, else the target's.
    pub fn target_description(&self) -> String {
        if let Some(doc) = self.document
            && let crate::engine::api::ContextSource::Report(_) = doc.machine.source
        {
            return doc.machine.source.describe();
        }
        self.target.describe()
    }
}

/// What a step asks the app to do, applied after the frame is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum UiCommand {
    GoTo(Step),
    StartScan,
    /// Scan again, importing each framework in a child process (this computer only).
    TryImports,
    CancelScan,
    SetDarkMode(bool),
    /// Save the report in a format (asks for the file).
    SaveReport(crate::engine::api::ReportFormat),
    /// Save the report to this file in this format (after the dialog; tests use it directly).
    SaveReportTo(std::path::PathBuf, crate::engine::api::ReportFormat),
    SetReportRedaction(bool),
    CopyReportMarkdown,
    /// Pick another report and compare it with this one.
    CompareReport,
    OpenReport,
    /// A file dropped onto the window (a saved report).
    OpenDropped(std::path::PathBuf),
    /// Pick a folder of reports and show the machines side by side.
    PickFleetFolder,
    /// Show these reports (folders and files) side by side: the fleet view.
    OpenFleet(Vec<std::path::PathBuf>),
    /// Leave the fleet view.
    CloseFleet,
    /// Reopen a report from the Welcome step's recent list.
    OpenRecent(std::path::PathBuf),
    /// Diagnose this computer (from a machine file or report, start over).
    ScanThisComputer,
    /// Pick a Python environment's folder, then diagnose it.
    PickPythonEnv,
    /// Diagnose this computer with the environment in this folder activated.
    DiagnosePythonEnv(std::path::PathBuf),
    /// Pick a program or library and show its dependencies.
    PickProgram,
    /// The Welcome step's paste box changed.
    SetPasteText(String),
    /// Explain the pasted text (triage + the machine).
    ExplainPaste,
    /// Pick a binary with the file dialog.
    BrowseBinary,
    /// Build the dependency tree of a binary (a machine path).
    AnalyzeBinary(String),
    /// Build the tree of the scan's suggestion at this index, in the process it names.
    AnalyzeSuggestion(usize),
    /// Stop building the dependency tree.
    CancelTree,
    SelectDependency(usize),
    ToggleDependency(usize),
    CopyText(String),
    /// Open a documentation page in the browser.
    OpenUrl(String),
    /// Open a host folder in the file manager.
    OpenFolder(std::path::PathBuf),
    /// Run, cancel or configure the live GPU test.
    Gpu(gpu_test::GpuCommand),
    /// Preview, apply or undo fixes.
    Fix(fix_state::FixCommand),
}
