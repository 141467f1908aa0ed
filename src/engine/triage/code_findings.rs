//! One finding per error code or status found in a text: NVIDIA's own words for it (the
//! header's comment and, for the CUDA runtime, `cudaGetErrorString`'s message, both from the
//! generated tables, with the releases that have it), and, for the codes people meet most, the
//! curated cause and fix of the error catalog's `[[code]]` rows.

use super::extract::ErrorCode;
use super::status;
use crate::engine::findings::{Evidence, Finding, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::generated::StatusCode;

fn label(c: &ErrorCode, row: Option<&StatusCode>, catalog_name: Option<&str>) -> String {
    match (&c.kind[..], c.number, &c.name) {
        ("win32", Some(n), _) => format!(
            "Windows error {n}{}",
            catalog_name.map(|r| format!(" ({r})")).unwrap_or_default()
        ),
        (_, _, Some(name)) => match c.number.or(row.map(|r| r.number)) {
            Some(n) => format!("{name} (error {n})"),
            None => name.clone(),
        },
        (_, Some(n), None) => match row {
            Some(r) => format!("{} (error {n})", r.name),
            None => format!("{} error {n}", c.kind.to_uppercase()),
        },
        (kind, None, None) => format!("{kind} error"),
    }
}

fn finding_code(c: &ErrorCode, row: Option<&StatusCode>) -> String {
    let slug = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    match (&c.kind[..], c.number.or(row.map(|r| r.number)), &c.name) {
        ("win32", Some(n), _) => format!("win32-error-{n}"),
        ("cudnn", _, Some(name)) => {
            format!(
                "cudnn-status-{}",
                slug(name.trim_start_matches("CUDNN_STATUS_"))
            )
        }
        ("cuda", Some(n), _) => format!("cuda-error-{n}"),
        (kind, _, Some(name)) => format!("{kind}-status-{}", slug(name)),
        (kind, Some(n), None) => format!("{kind}-error-{n}"),
        (kind, None, None) => format!("{kind}-error-unknown"),
    }
}

/// NVIDIA's words for a code: the message, the comment, and where the name is declared.
fn nvidia_words(r: &StatusCode) -> String {
    let mut d = format!("{} {} = {} ({}).", r.library, r.type_name, r.number, r.name);
    if let Some(t) = &r.text {
        d.push_str(&format!(
            " The CUDA runtime's message: \"{}\".",
            t.trim_end_matches('.')
        ));
    }
    if !r.comment.is_empty() {
        d.push_str(&format!(" NVIDIA's header: {}", r.comment));
        if !r.comment.ends_with('.') {
            d.push('.');
        }
    }
    if r.first == r.last {
        d.push_str(&format!(" Declared in {}.", r.first));
    } else {
        d.push_str(&format!(
            " Declared from {} to {} (the releases read).",
            r.first, r.last
        ));
    }
    d
}

pub fn code_findings(codes: &[ErrorCode], k: &Knowledge) -> Vec<Finding> {
    codes
        .iter()
        .map(|c| {
            let curated = c
                .number
                .and_then(|n| k.catalog.code(&c.kind, n))
                .or_else(|| c.name.as_deref().and_then(|n| k.catalog.code_named(n)));
            let row = if c.kind == "win32" {
                None
            } else {
                status::row_for(&c.kind, c.number, c.name.as_deref())
            };
            let label = label(c, row, curated.map(|r| r.names[0].as_str()));
            let success = row.is_some_and(|r| r.number == 0);
            let (severity, summary, detail) = match (curated, row) {
                (None, None) => (
                    Severity::Info,
                    format!("Unrecognised code: {label}"),
                    "This code is not in CUDA Triage's tables; look it up in the documentation of the library that printed it.".to_string(),
                ),
                (Some(r), nvidia) => {
                    let mut d = r.meaning.clone();
                    if !r.verified && nvidia.is_none() {
                        d.push_str(" (Standard meaning, not re-checked against the vendor's documentation.)");
                    }
                    if let Some(n) = nvidia {
                        d.push_str(&format!(" {}", nvidia_words(n)));
                    }
                    (Severity::Error, format!("What {label} means"), d)
                }
                (None, Some(n)) => (
                    if success { Severity::Info } else { Severity::Error },
                    format!("What {label} means"),
                    nvidia_words(n),
                ),
            };
            let mut f = Finding::new(&finding_code(c, row), severity, summary, detail)
                .with_evidence(Evidence::new("log", c.line.clone()));
            if let Some(r) = curated {
                f = f.with_evidence(Evidence::new("source", r.source.clone()));
                if let Some(fix) = &r.fix {
                    f = f.with_fix(FixRef {
                        id: format!("advice-{}", finding_code(c, row)),
                        kind: "manual".into(),
                        summary: fix.clone(),
                    });
                }
            }
            if let Some(n) = row {
                f = f.with_evidence(Evidence::new("source", n.source.clone()));
            }
            f
        })
        .collect()
}
