//! Redaction keeps a report readable, or fails: a user, host or domain may share its name with an
//! enum value of the report (`error`, `info`, `linux`, `conda`, `dir`), so a tag-like string that
//! redaction changed is put back where a typed part of the report (`machine`, `findings`,
//! `inventory`, `snapshot`, `gpu`) reads it as a tag — there it is this tool's word, not the
//! user's. Every typed part that read back before redaction must read back after it, value for
//! value; when one does not, redaction is an error and nothing is written — never the document
//! unredacted instead.

use super::capture::ContextSnapshot;
use super::redact::Changed;
use crate::engine::context::MachineSummary;
use crate::engine::findings::Finding;
use crate::engine::gpu::results::GpuReport;
use crate::engine::inventory::Inventory;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;

/// Redaction could not give a readable report; nothing unredacted is handed out instead.
#[derive(Debug, thiserror::Error)]
pub enum RedactError {
    #[error("cannot redact the report: it does not serialize ({0})")]
    Serialize(serde_json::Error),
    #[error(
        "cannot redact the report: its \"{part}\" no longer reads back after redaction \
         ({error}); nothing was written (--no-redact writes it unredacted)"
    )]
    Unreadable {
        part: String,
        error: serde_json::Error,
    },
}

/// Reads a part as its type and writes it back as JSON.
type ReadBack = fn(&Value) -> Result<Value, serde_json::Error>;

fn read_back<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, serde_json::Error> {
    serde_json::to_value(T::deserialize(value)?)
}

/// The top-level keys something reads back as a type (reopen, the GPU step).
fn typed_parts() -> [(&'static str, ReadBack); 5] {
    [
        ("machine", read_back::<MachineSummary>),
        ("findings", read_back::<Vec<Finding>>),
        ("inventory", read_back::<Inventory>),
        ("snapshot", read_back::<ContextSnapshot>),
        ("gpu", read_back::<GpuReport>),
    ]
}

/// Puts back the changed strings that a typed part reads as enum tags, then checks that every
/// typed part that read back in `original` still does in `redacted`.
pub fn keep_readable(
    original: &Value,
    redacted: &mut Value,
    changed: &[Changed],
) -> Result<(), RedactError> {
    for (part, read) in typed_parts() {
        let Some(before) = original.get(part) else {
            continue;
        };
        // A part that did not read back before redaction is not made worse by it.
        if read(before).is_err() {
            continue;
        }
        let Some(value) = redacted.get_mut(part) else {
            continue;
        };
        let prefix = format!("/{part}/");
        let mine: Vec<Changed> = changed
            .iter()
            .filter_map(|c| {
                Some(Changed {
                    pointer: format!("/{}", c.pointer.strip_prefix(&prefix)?),
                    original: c.original.clone(),
                })
            })
            .collect();
        restore_tags(part, value, read, &mine)?;
    }
    Ok(())
}

/// Whether a part reads back and holds each of `pointers` as it is now (a field its type does
/// not have reads back as nothing, and is no tag).
fn faithful(value: &Value, read: ReadBack, pointers: &[&str]) -> bool {
    let Ok(back) = read(value) else {
        return false;
    };
    pointers
        .iter()
        .all(|p| back.pointer(p).is_none_or(|b| Some(b) == value.pointer(p)))
}

fn set(value: &mut Value, pointer: &str, text: &str) {
    if let Some(Value::String(s)) = value.pointer_mut(pointer) {
        *s = text.to_string();
    }
}

/// Keeps every change the part holds; puts back, by field name and text, those it does not.
fn restore_tags(
    part: &str,
    value: &mut Value,
    read: ReadBack,
    changed: &[Changed],
) -> Result<(), RedactError> {
    let all: Vec<&str> = changed.iter().map(|c| c.pointer.as_str()).collect();
    if faithful(value, read, &all) {
        return Ok(());
    }
    // Grouped by field name and original text: a tag is one field of one type, and testing each
    // of thousands of `"kind": "dir"` alone would read the part thousands of times.
    let mut groups: BTreeMap<(&str, &str), Vec<(&str, String)>> = BTreeMap::new();
    for c in changed {
        let field = c.pointer.rsplit('/').next().unwrap_or("");
        let now = value
            .pointer(&c.pointer)
            .and_then(Value::as_str)
            .unwrap_or(&c.original)
            .to_string();
        groups
            .entry((field, c.original.as_str()))
            .or_default()
            .push((c.pointer.as_str(), now));
        set(value, &c.pointer, &c.original);
    }
    read(value).map_err(|error| RedactError::Unreadable {
        part: part.to_string(),
        error,
    })?;
    for ((_, original), members) in groups {
        for (pointer, redacted) in &members {
            set(value, pointer, redacted);
        }
        let pointers: Vec<&str> = members.iter().map(|(p, _)| *p).collect();
        if !faithful(value, read, &pointers) {
            for pointer in &pointers {
                set(value, pointer, original);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::report::redact::{Identity, Redactor};

    fn redacted(doc: &Value, user: &str) -> Value {
        let mut value = doc.clone();
        let changed =
            Redactor::new(&Identity::from_env([("USER", user)])).redact_document(&mut value);
        keep_readable(doc, &mut value, &changed).unwrap();
        value
    }

    fn finding(severity: &str, text: &str) -> Value {
        serde_json::json!({"code": "c", "severity": severity, "summary": text, "detail": text,
            "evidence": [{"kind": "env", "text": text}],
            "fixes": [{"id": "f", "kind": "manual", "summary": text}]})
    }

    #[test]
    fn an_enum_value_that_is_the_user_name_is_put_back_and_the_rest_redacted() {
        let doc = serde_json::json!({"findings": [finding("error", "error")],
            "extra": {"severity": "error"}});
        let v = redacted(&doc, "error");
        assert_eq!(v["findings"][0]["severity"], "error");
        assert_eq!(v["findings"][0]["summary"], "<user>");
        assert_eq!(v["findings"][0]["evidence"][0]["text"], "<user>");
        assert_eq!(v["extra"]["severity"], "<user>", "no type reads it");
    }

    #[test]
    fn a_tag_with_a_catch_all_variant_is_put_back_too() {
        // `FixKind` has `#[serde(other)]`: "<user>" would read back as another kind of fix.
        let doc = serde_json::json!({"findings": [finding("info", "manual")]});
        let v = redacted(&doc, "manual");
        assert_eq!(v["findings"][0]["fixes"][0]["kind"], "manual");
        assert_eq!(v["findings"][0]["summary"], "<user>");
    }

    #[test]
    fn a_part_unreadable_after_redaction_is_an_error() {
        let doc = serde_json::json!({"findings": [finding("info", "x")]});
        let mut value = doc.clone();
        value["findings"][0]["severity"] = "<user> info".into();
        let err = keep_readable(&doc, &mut value, &[]).unwrap_err();
        assert!(err.to_string().contains("\"findings\""), "{err}");
    }
}
