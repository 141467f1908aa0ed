//! `why <LIBRARY-OR-ERROR-TEXT | LOG-FILE | ->`: explains a library name, a pasted error text or
//! a saved log. Text
//! output lists what was identified and the findings; `--json` is the standard document plus
//! `"identified"` (and `"unrecognized"`, `"symbols"`, `"codes"`). Exit codes: 0 no error finding,
//! 1 at least one, 2 the tool failed (e.g. standard input unreadable). `why --corpus FILE`
//! measures the error catalog over a corpus of real reported errors instead.

use super::args::Common;
use super::load::load_context;
use super::output::{emit, exit_code, render_findings, use_colour};
use crate::engine::api::{Report, explain as triage};
use std::io::Read;

/// Reads the query: standard input for `-`; the text of a log file the argument names (a
/// saved error log, not a library: a file that starts as an ELF or PE binary is explained by
/// its name, as any library name is); otherwise the argument itself.
fn read_query(query: &str) -> anyhow::Result<String> {
    if query != "-" {
        return Ok(log_file_text(query).unwrap_or_else(|| query.to_string()));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(triage::MAX_TEXT as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The text of the file `query` names, when it is a readable file that is not a binary.
fn log_file_text(query: &str) -> Option<String> {
    let path = std::path::Path::new(query);
    if query.contains('\n') || !path.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(triage::MAX_TEXT as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    let binary = bytes.starts_with(b"\x7fELF") || bytes.starts_with(b"MZ") || bytes.contains(&0);
    (!binary).then(|| String::from_utf8_lossy(&bytes).into_owned())
}

pub fn why_command(common: &Common, query: &str) -> anyhow::Result<i32> {
    let text = read_query(query)?;
    if text.trim().is_empty() {
        anyhow::bail!(
            "nothing to explain: give a library name or error text (\"-\" reads standard input)"
        );
    }
    let ctx = load_context(common)?;
    let crate::engine::api::Explained {
        triage: result,
        report: doc,
    } = crate::engine::api::explain(&ctx, &text);
    if common.json {
        return Ok(emit(&doc, true));
    }
    print!("{}", render_why(&result, &doc));
    Ok(exit_code(&doc))
}

/// The text form: what was identified, then the findings.
fn render_why(result: &triage::Triage, doc: &Report) -> String {
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

/// `why --corpus FILE`: triages every corpus entry and reports hits/total and the misses.
/// Exit codes: 0 every entry met, 1 at least one miss, 2 the corpus could not be read.
pub fn why_corpus_command(common: &Common, path: &std::path::Path) -> anyhow::Result<i32> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
    };
    let entries = match triage::corpus::parse(&text) {
        Ok(e) => e,
        Err(e) => anyhow::bail!("{}: {e}", path.display()),
    };
    let report = triage::corpus::run(&entries);
    let out = if common.json {
        let doc = serde_json::json!({
            "schema": crate::engine::api::SCHEMA,
            "corpus": path.display().to_string(),
            "total": report.total,
            "hits": report.hits,
            "hit_rate": report.hit_rate,
            "misses": report.misses,
        });
        format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )
    } else {
        let mut text = format!(
            "Corpus {}: {}/{} entries met ({:.1} %)\n",
            path.display(),
            report.hits,
            report.total,
            report.hit_rate
        );
        for miss in &report.misses {
            text.push_str(&format!(
                "  miss #{} ({}): {}\n",
                miss.index,
                miss.source,
                miss.missing.join("; ")
            ));
        }
        text
    };
    // A closed pipe (`| head`) is not a failure of the measurement.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
    Ok(if report.misses.is_empty() { 0 } else { 1 })
}
