//! `why <LIBRARY-OR-ERROR-TEXT | ->`: explains a library name or a pasted error text. Text
//! output lists what was identified and the findings; `--json` is the standard document plus
//! `"identified"` (and `"unrecognized"`, `"symbols"`, `"codes"`). Exit codes: 0 no error finding,
//! 1 at least one, 2 the tool failed (e.g. standard input unreadable).

use super::args::Common;
use super::commands::load_context;
use super::output::{emit, exit_code, fail, render_findings, use_colour};
use crate::engine::report::Document;
use crate::engine::triage;
use std::io::Read;

/// Reads the query: the argument itself, or standard input for `-`.
fn read_query(query: &str) -> Result<String, String> {
    if query != "-" {
        return Ok(query.to_string());
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(triage::MAX_TEXT as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub fn why_command(common: &Common, query: &str) -> i32 {
    let text = match read_query(query) {
        Ok(t) => t,
        Err(e) => return fail(&e, common.json),
    };
    if text.trim().is_empty() {
        return fail(
            "nothing to explain: give a library name or error text (\"-\" reads standard input)",
            common.json,
        );
    }
    let ctx = match load_context(common) {
        Ok(ctx) => ctx,
        Err(e) => return fail(&e, common.json),
    };
    let result = triage::triage(&text);
    let doc = Document::new(&ctx, triage::all_findings(&ctx, &result))
        .with("identified", &result.identified)
        .with("unrecognized", &result.unrecognized)
        .with("symbols", &result.symbols)
        .with("codes", &result.codes);
    if common.json {
        return emit(&doc, true);
    }
    print!("{}", render_why(&result, &doc));
    exit_code(&doc)
}

/// The text form: what was identified, then the findings.
fn render_why(result: &triage::Triage, doc: &Document) -> String {
    let mut out = String::new();
    if result.identified.is_empty() && result.unrecognized.is_empty() {
        out.push_str("No library names recognised in the text.\n");
    } else {
        out.push_str("Identified:\n");
        for (i, id) in result.identified.iter().zip(&result.identities) {
            let toolkits = if id.toolkits.is_empty() {
                String::new()
            } else {
                format!("  (CUDA {})", id.toolkits.join(", "))
            };
            out.push_str(&format!(
                "  {:<32} {:<16} {}{toolkits}\n",
                i.file, i.component, i.version
            ));
        }
        for name in &result.unrecognized {
            out.push_str(&format!("  {name:<32} (not a library CUDA Triage knows)\n"));
        }
    }
    for s in &result.symbols {
        let lib = s
            .library
            .as_deref()
            .map(|l| format!(" in {l}"))
            .unwrap_or_default();
        out.push_str(&format!("Missing symbol: {}{lib}\n", s.symbol));
    }
    out.push('\n');
    out.push_str(&render_findings(&doc.findings, use_colour()));
    out
}
