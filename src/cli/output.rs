//! Shared CLI output: printing a report as JSON or text (rendered by `engine::report::text`),
//! whether to colour, and exit codes (0 no error-severity finding, 1 at least one, 2 the tool
//! itself failed).

use crate::engine::api::has_errors;
pub use crate::engine::api::report::{render_findings, render_text};
use crate::engine::api::{Report, SCHEMA};
use std::io::IsTerminal;

pub const EXIT_CLEAN: i32 = 0;
pub const EXIT_PROBLEMS: i32 = 1;
pub const EXIT_FAILED: i32 = 2;

/// Whether to colour standard output (a terminal, and NO_COLOR unset).
pub fn use_colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Prints a document as JSON or text and returns the exit code its findings call for.
pub fn emit(doc: &Report, json: bool) -> i32 {
    if json {
        println!("{}", doc.to_json_pretty());
    } else {
        print!("{}", render_text(doc, use_colour()));
    }
    exit_code(doc)
}

pub fn exit_code(doc: &Report) -> i32 {
    if has_errors(&doc.findings) {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    }
}

/// The format a writing command was asked for: `--format`, else the output file's extension,
/// else JSON with `--json`; `None` means text on standard output.
pub fn asked_format(
    format: Option<crate::engine::api::ReportFormat>,
    output: Option<&std::path::Path>,
    json: bool,
) -> Option<crate::engine::api::ReportFormat> {
    use crate::engine::api::ReportFormat;
    match (format, output) {
        (Some(asked), _) => Some(asked),
        (None, Some(path)) => Some(ReportFormat::from_path(path)),
        (None, None) if json => Some(ReportFormat::Json),
        (None, None) => None,
    }
}

/// Prints `text`, or writes it atomically to `output` and says so on standard error (unless
/// `quiet`: with `--json` only the document is printed). `what` names it in both messages.
pub fn print_or_write(
    text: &str,
    output: Option<&std::path::Path>,
    what: &str,
    quiet: bool,
) -> anyhow::Result<()> {
    match output {
        None => print!("{text}"),
        Some(path) => {
            if let Err(e) = crate::engine::api::write_atomically(path, text.as_bytes()) {
                anyhow::bail!("{}: cannot write the {what}: {e}", path.display());
            }
            if !quiet {
                eprintln!("{what} written to {}", path.display());
            }
        }
    }
    Ok(())
}

/// Reports a failure of the tool itself (exit code 2): as JSON on stdout with `--json`, always on stderr.
pub fn fail(message: &str, json: bool) -> i32 {
    if json {
        println!(
            "{}",
            serde_json::json!({ "schema": SCHEMA, "error": { "message": message } })
        );
    }
    eprintln!("cuda-triage: {message}");
    EXIT_FAILED
}
