//! One finding per error code or status found in a text: NVIDIA's own words for it (the
//! header's comment and, for the CUDA runtime, `cudaGetErrorString`'s message, both from the
//! generated tables, with the releases that have it), and, for the codes people meet most, the
//! curated cause and fix of the error catalog's `[[code]]` rows.

use super::extract::ErrorCode;
use super::status;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::catalog::CodeRow;
use crate::engine::knowledge::generated::StatusCode;

fn label(c: &ErrorCode, row: Option<&StatusCode>, catalog_name: Option<&str>) -> String {
    match (&c.kind[..], c.number, &c.name) {
        ("ntstatus", _, _) if row.is_some() => row.map(super::nt_status::label).unwrap_or_default(),
        ("win32", Some(n), _) => format!(
            "Windows error {n}{}",
            catalog_name.map(|r| format!(" ({r})")).unwrap_or_default()
        ),
        (_, _, Some(name)) => match c.number.or(row.map(|r| r.number)) {
            Some(n) => format!("{name} (error {n})"),
            None => name.clone(),
        },
        (_, Some(n), None) => match (row, catalog_name) {
            (Some(r), _) => format!("{} (error {n})", r.name),
            (None, Some(name)) => format!("{name} ({} error {n})", kind_label(&c.kind)),
            (None, None) => format!("{} error {n}", kind_label(&c.kind)),
        },
        (kind, None, None) => format!("{kind} error"),
    }
}

/// How a code family is written in a label ("TensorRT", "CUPTI", ...).
fn kind_label(kind: &str) -> String {
    match kind {
        "tensorrt" => "TensorRT".to_string(),
        other => other.to_uppercase(),
    }
}

fn finding_code(c: &ErrorCode, row: Option<&StatusCode>) -> String {
    let slug = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    match (&c.kind[..], c.number.or(row.map(|r| r.number)), &c.name) {
        ("win32", Some(n), _) => format!("win32-error-{n}"),
        ("ntstatus", Some(n), _) => format!("ntstatus-0x{n:08x}"),
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
    if r.type_name == "NTSTATUS" {
        return super::nt_status::words(r);
    }
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

/// " The oldest compute capability each CUDA release builds for: 10.2 on: 3.0; ...", from the
/// compute-capability table's `[[toolkit]]` rows (NVIDIA's release notes).
fn oldest_capabilities(k: &Knowledge) -> String {
    let rows: Vec<String> = k
        .compute
        .toolkits
        .iter()
        .map(|t| {
            let generation = k
                .compute
                .generation(&t.min_cc)
                .map(|g| format!(" ({g})"))
                .unwrap_or_default();
            format!("CUDA {} on: {}{generation}", t.cuda, t.min_cc)
        })
        .collect();
    format!(
        " The oldest compute capability the CUDA libraries of each release support: {}.",
        rows.join("; ")
    )
}

/// " The first CUDA release for each recent GPU generation: Ada Lovelace (8.9): 11.8; ...", from
/// the generated ptxas table (the sourced rows before 11.8).
fn newest_generations(k: &Knowledge, text: &str) -> String {
    let rows: Vec<String> = k
        .compute
        .generations
        .iter()
        .rev()
        .take(6)
        .rev()
        .filter_map(|g| {
            let cc = g.cc.first()?;
            let arch = format!("sm_{}", cc.replace('.', ""));
            let (first, _) = super::arch_findings::arch_support(&arch, k)?;
            Some(format!("{} ({cc}): CUDA {first}", g.name))
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        " The first CUDA release whose libraries support each recent GPU generation: {}.{}",
        rows.join("; "),
        super::gpu_generation::gpu_support_sentence(text, k).unwrap_or_default()
    )
}

/// A bare number that a name on the same line already stands for ("initialization of CUDA
/// failed (code 203, CURAND_STATUS_INITIALIZATION_FAILED)"): the name's finding says it all.
fn named_on_its_line(c: &ErrorCode, codes: &[ErrorCode]) -> bool {
    c.name.is_none()
        && c.kind != "win32"
        && c.number.is_some_and(|n| {
            codes.iter().any(|o| {
                o.line == c.line
                    && o.name.is_some()
                    && o.number.or_else(|| {
                        status::row_for(&o.kind, None, o.name.as_deref()).map(|r| r.number)
                    }) == Some(n)
            })
        })
}

/// For a bare CUDA number: the driver API's `CUresult` of the same number, when the runtime's
/// row was taken (a number alone does not say which API printed it; Numba's `CudaAPIError: [34]`
/// and `cuInit` failures are driver API codes).
fn driver_twin(c: &ErrorCode, row: Option<&StatusCode>) -> String {
    let (Some(n), None) = (c.number, &c.name) else {
        return String::new();
    };
    if c.kind != "cuda" || row.is_some_and(|r| r.type_name == "CUresult") {
        return String::new();
    }
    match crate::engine::knowledge::generated::generated().status_numbered("CUresult", n) {
        Some(d) => format!(
            " If a driver API call printed it (cuInit, cuCtxCreate, Numba's CudaAPIError), {n} is CUresult {}{}",
            d.name,
            if d.comment.is_empty() {
                ".".to_string()
            } else {
                format!(": {}", d.comment)
            }
        ),
        None => String::new(),
    }
}

/// The row of a bare CUDA number in the numbering of CUDA 10.0 and older, when the current
/// enums lack the number or the line's own message names the old meaning ("cuda runtime error
/// (30) : unknown error"); the code then stands for the current row of that name.
fn legacy<'k>(c: &ErrorCode, codes: &[ErrorCode], k: &'k Knowledge) -> Option<&'k CodeRow> {
    let n = c.number.filter(|_| c.kind == "cuda" && c.name.is_none())?;
    let old = k.catalog.code("cuda-legacy", n)?;
    let name = old.names.first()?;
    let on_line = codes.iter().any(|o| {
        o.line == c.line
            && o.name
                .as_deref()
                .is_some_and(|m| m.eq_ignore_ascii_case(name))
    });
    (on_line || status::row_for("cuda", Some(n), None).is_none()).then_some(old)
}

pub fn code_findings(codes: &[ErrorCode], text: &str, k: &Knowledge) -> Vec<Finding> {
    // An old number whose message on the same line already gave its code says nothing more.
    let renamed: Vec<ErrorCode> = codes
        .iter()
        .map(|c| match legacy(c, codes, k) {
            Some(old) => ErrorCode {
                name: old.names.first().cloned(),
                number: None,
                ..c.clone()
            },
            None => c.clone(),
        })
        .collect();
    let mut seen: Vec<(String, String)> = Vec::new();
    let codes: Vec<ErrorCode> = renamed
        .into_iter()
        .filter(|c| {
            let key = (c.line.clone(), c.name.clone().unwrap_or_default());
            c.name.is_none() || {
                let fresh = !seen.contains(&key);
                seen.push(key);
                fresh
            }
        })
        .collect();
    let codes = &codes[..];
    codes
        .iter()
        .filter(|c| !named_on_its_line(c, codes))
        .map(|c| {
            let family = c.name.as_deref().and_then(|n| k.catalog.code_family(&c.kind, n));
            let parent = c.name.as_deref().and_then(|n| k.catalog.code_parent(n));
            let own = c
                .number
                .and_then(|n| k.catalog.code(&c.kind, n))
                .or_else(|| c.name.as_deref().and_then(|n| k.catalog.code_named(n)));
            // A grouped status that no row names reads its group's row.
            let group = parent.filter(|_| own.is_none());
            let curated = own.or(group.map(|(_, row)| row)).or(family);
            let row = if c.kind == "win32" {
                None
            } else {
                status::row_for(&c.kind, c.number, c.name.as_deref())
            };
            let label = label(c, row, curated.and_then(|r| r.names.first()).map(String::as_str));
            let success = row.is_some_and(|r| r.number == 0);
            let (severity, summary, detail) = match (curated, row) {
                (None, None) => (
                    Severity::Info,
                    format!("Unrecognised code: {label}"),
                    "This code is not in CUDA Triage's tables; look it up in the documentation of the library that printed it.".to_string(),
                ),
                (Some(r), nvidia) => {
                    let mut d = crate::engine::knowledge::catalog::context_cause(&r.cases, text).unwrap_or_default();
                    if let (Some((group, _)), Some(name)) = (group, &c.name) {
                        d.push_str(&format!("{name} is one of the statuses grouped under {group}, which means: "));
                    }
                    d.push_str(&r.meaning);
                    // The family's table, whether or not a row names the code itself.
                    match r.appendix.as_deref().or(family.and_then(|f| f.appendix.as_deref())) {
                        Some("oldest-capabilities") => d.push_str(&oldest_capabilities(k)),
                        Some("first-cuda-per-generation") => d.push_str(&newest_generations(k, text)),
                        Some("driver-minimums") => d.push_str(&format!(
                            " The minimum Linux driver of each CUDA release: {}.",
                            crate::engine::knowledge::drivers::minor_minimums(&k.drivers)
                        )),
                        _ => {}
                    }
                    if !r.verified && nvidia.is_none() {
                        d.push_str(" (Standard meaning, not re-checked against the vendor's documentation.)");
                    }
                    if let Some(n) = nvidia {
                        d.push_str(&format!(" {}", nvidia_words(n)));
                    }
                    let severity = if r.benign { Severity::Info } else { Severity::Error };
                    (severity, format!("What {label} means"), d)
                }
                (None, Some(n)) => (
                    if success { Severity::Info } else { Severity::Error },
                    format!("What {label} means"),
                    nvidia_words(n),
                ),
            };
            // The framework or host program whose line carries the code ("onnxruntime::CudaCall
            // ... CUBLAS failure 3", UCX's "cuda_copy_iface.c ... UCX ERROR ... cuda failed with
            // 2"), named beside what the code means.
            let reporter = super::requester::reporter_named(&c.line)
                .map(|f| format!(" Reported by {f}."))
                .unwrap_or_default();
            let detail = detail + &driver_twin(c, row) + &reporter + &python_importer(c, text);
            let mut f = Finding::new(&finding_code(c, row), severity, summary, detail)
                .with_evidence(Evidence::new("log", c.line.clone()));
            if let Some(r) = curated {
                f = f.with_evidence(Evidence::new("source", r.source.clone()));
                // A named row without a fix takes its status family's.
                let family_fix = family.and_then(|f| f.fix.as_ref());
                if let Some(fix) = r.fix.as_ref().or(family_fix) {
                    f = f.with_fix(FixRef {
                        id: format!("advice-{}", finding_code(c, row)),
                        kind: FixKind::Manual,
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

/// For a Windows code on Python's "DLL load failed" line, the module whose import failed, from
/// the traceback above it (`from torch._C import *`): the DLL is that module's compiled
/// extension or one it imports.
fn python_importer(c: &ErrorCode, text: &str) -> String {
    if c.kind != "win32" || !c.line.contains("DLL load failed") {
        return String::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines.iter().position(|l| l.trim() == c.line.trim()) else {
        return String::new();
    };
    match super::requester::importer(&lines, at) {
        Some(module) => format!(
            " Here the import that failed is {module} (from the traceback): the DLL is {module}'s \
             compiled extension or one it imports."
        ),
        None => String::new(),
    }
}
