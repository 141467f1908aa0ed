//! Import checks on a resolved tree: a PE import the resolved DLL does not export (Windows
//! error 127, ERROR_PROC_NOT_FOUND — the classic sign of mixed versions), and an ELF symbol
//! version the resolved library does not define (ld.so: "version `GLIBC_2.38' not found").
//! ELF imports carry no per-library symbol list, so for ELF the check uses version needs against
//! the version names the library defines (they appear as absolute dynamic symbols).

use crate::engine::binfmt::{BinaryInfo, Format};
use crate::engine::findings::{Evidence, Finding, Severity};
use crate::engine::graph::DependencyGraph;

/// Most missing symbols listed in one finding.
const MAX_LISTED: usize = 20;

pub(super) fn check(graph: &DependencyGraph) -> Vec<Finding> {
    let p = graph.platform;
    let mut out = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for node in &graph.nodes {
        let (Some(path), Some(parent)) = (node.path.as_deref(), graph.info(&node.parent)) else {
            continue;
        };
        let Some(child) = graph.info(path) else {
            continue;
        };
        let pair = (node.parent.clone(), path.to_string());
        if seen.contains(&pair) {
            continue;
        }
        seen.push(pair);
        let parent_name = p.file_name(&node.parent).to_string();
        let child_name = p.file_name(path).to_string();
        let (missing, code, what) = match parent.format {
            Format::Pe => (
                missing_exports(parent, child, &node.name),
                "missing-export",
                "Windows error 127 (ERROR_PROC_NOT_FOUND, \"The specified procedure could not be found\")",
            ),
            Format::Elf => (
                missing_versions(parent, child, &node.name),
                "missing-symbol-version",
                "ld.so: \"version ... not found (required by ...)\"",
            ),
        };
        if missing.is_empty() {
            continue;
        }
        let listed: Vec<&str> = missing
            .iter()
            .take(MAX_LISTED)
            .map(|s| s.as_str())
            .collect();
        let more = missing.len().saturating_sub(MAX_LISTED);
        let severity = if node.delay {
            Severity::Warning
        } else {
            Severity::Error
        };
        let f = Finding::new(
            code,
            severity,
            format!(
                "{child_name} lacks {} {} that {parent_name} needs",
                missing.len(),
                if missing.len() == 1 { "symbol" } else { "symbols" }
            ),
            format!(
                "{parent_name} was built against a different version of {} than the one that \
                 resolved ({path}); loading fails with {what}. Use the matching version, or put the \
                 right copy first on the search path.",
                node.name
            ),
        )
        .with_libraries([node.name.clone(), parent_name.clone()])
        .with_evidence(Evidence::at(
            "missing",
            format!(
                "{}{}",
                listed.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            ),
            path.to_string(),
        ));
        out.push(f);
    }
    out
}

/// Symbols `parent` imports from `dll_name` that `child` does not export (by name or `#ordinal`).
pub(super) fn missing_exports(
    parent: &BinaryInfo,
    child: &BinaryInfo,
    dll_name: &str,
) -> Vec<String> {
    let Some(import) = parent
        .imports
        .iter()
        .find(|i| i.name.eq_ignore_ascii_case(dll_name))
    else {
        return Vec::new();
    };
    if child.exports.is_empty() && import.symbols.is_empty() {
        return Vec::new();
    }
    let names: std::collections::HashSet<&str> = child
        .exports
        .iter()
        .filter_map(|e| e.name.as_deref())
        .collect();
    import
        .symbols
        .iter()
        .filter(
            |s| match s.strip_prefix('#').and_then(|n| n.parse::<u32>().ok()) {
                Some(ordinal) => !child.exports.iter().any(|e| e.ordinal == ordinal),
                None => !names.contains(s.as_str()),
            },
        )
        .cloned()
        .collect()
}

/// Version names `parent` needs from `lib_name` that `child` does not define. A library that
/// defines no versions at all is unversioned: ld.so only warns ("no version information
/// available"), so nothing is reported.
pub(super) fn missing_versions(
    parent: &BinaryInfo,
    child: &BinaryInfo,
    lib_name: &str,
) -> Vec<String> {
    if child.version_definitions.is_empty() {
        return Vec::new();
    }
    parent
        .version_needs
        .iter()
        .filter(|n| n.library == lib_name)
        .flat_map(|need| &need.versions)
        .filter(|v| !child.version_definitions.contains(v))
        .cloned()
        .collect()
}
