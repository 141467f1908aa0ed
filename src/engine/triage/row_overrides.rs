//! A row's `overrides` naming a general finding's code: the general reading (a library not
//! found, a driver library not loaded) is dropped where every log line it rests on is a line
//! that row reads in its own way.

use super::classify::MessageMatch;
use super::extract::clip;
use crate::engine::findings::Finding;
use crate::engine::knowledge::Knowledge;

/// A general finding (a library not found, a driver library not loaded) that a row reading its
/// log line says it replaces (`overrides = ["library-not-found"]`: "libcuda.so: wrong ELF class"
/// is a copy of the wrong word size, not a missing library). Every log line of the finding must be
/// such a line; a finding with other evidence stays.
pub fn overridden_on_its_line(f: &Finding, messages: &[MessageMatch], k: &Knowledge) -> bool {
    let lines: Vec<&str> = f
        .evidence
        .iter()
        .filter(|e| e.kind == "log")
        .map(|e| e.text.as_str())
        .collect();
    !lines.is_empty()
        && lines.iter().all(|line| {
            messages
                .iter()
                .filter(|m| clip(&m.line) == *line)
                .filter_map(|m| k.catalog.message(&m.id))
                .any(|row| row.overrides.contains(&f.code))
        })
}
