//! `fleet DIR...`: many machines' saved reports as one matrix (the engine's fleet model) —
//! text on standard output, JSON with `--json`, Markdown or HTML with `-o FILE` / `--format`.
//! Exit codes: 1 when any machine has an error finding or a report could not be read, 0
//! otherwise, 2 when no report was found at all or the output could not be written.

use super::args::{Common, FleetArgs};
use super::output::{EXIT_CLEAN, EXIT_PROBLEMS, asked_format, print_or_write};
use crate::engine::api::report::fleet;
use crate::engine::api::{ReportFormat, SCHEMA};

pub fn fleet_command(common: &Common, args: &FleetArgs) -> anyhow::Result<i32> {
    let options = fleet::ReadOptions {
        rediagnose: args.rediagnose,
    };
    let view = fleet::fleet_of(&args.inputs, options);
    if view.machines == 0 && view.unreadable.is_empty() {
        anyhow::bail!(
            "no report found in {}",
            args.inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let text = match asked_format(args.format, args.output.as_deref(), common.json) {
        Some(ReportFormat::Json) => {
            let doc = serde_json::json!({"schema": SCHEMA, "fleet": &view});
            serde_json::to_string_pretty(&doc)? + "\n"
        }
        Some(ReportFormat::Markdown) => fleet::render_markdown(&view),
        Some(ReportFormat::Html) => fleet::render_html(&view),
        None => fleet::render_text(&view),
    };
    print_or_write(&text, args.output.as_deref(), "fleet view", common.json)?;
    Ok(if view.has_error() || !view.unreadable.is_empty() {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    })
}
