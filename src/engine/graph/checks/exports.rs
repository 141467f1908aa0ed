//! Import checks on a resolved tree: a PE import the resolved DLL does not export (Windows
//! error 127, ERROR_PROC_NOT_FOUND — the classic sign of mixed versions), and an ELF symbol
//! version the resolved library does not define (ld.so: "version `GLIBC_2.38' not found").
//! ELF imports carry no per-library symbol list; for ELF the check uses version needs against
//! the version names the library defines, then each versioned undefined symbol against the
//! symbols the resolved library defines at that version (ld.so: "undefined symbol:
//! __nvJitLinkComplete_12_4, version libnvJitLink.so.12" — an older build of the same soname
//! first on the search path), read from the files only for ELF edges.

use crate::engine::binfmt::{BinaryInfo, Format, SymbolNeed, SymbolTable};
use crate::engine::context::Platform;
use crate::engine::context::SystemContext;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::graph::{DependencyGraph, Node};
use crate::engine::loader::How;
use crate::engine::loader::runtime::is_os_library;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

/// Most missing symbols listed in one finding.
const MAX_LISTED: usize = 20;

pub(super) fn check(ctx: &SystemContext, graph: &DependencyGraph) -> Vec<Finding> {
    let p = graph.platform;
    let mut out = Vec::new();
    let mut symbols = SymbolCache::new(ctx);
    let mut seen: HashSet<(&str, &str)> = HashSet::default();
    for node in &graph.nodes {
        let (Some(path), Some(parent)) = (node.path.as_deref(), graph.info(&node.parent)) else {
            continue;
        };
        let Some(child) = graph.info(path) else {
            continue;
        };
        if !seen.insert((node.parent.as_str(), path)) {
            continue;
        }
        let parent_name = p.file_name(&node.parent).to_string();
        let child_name = p.file_name(path).to_string();
        let (missing, code, what) = match parent.format {
            Format::Pe => (
                missing_exports(parent, child, &node.name),
                codes::MISSING_EXPORT,
                "Windows error 127 (ERROR_PROC_NOT_FOUND, \"The specified procedure could not be found\")",
            ),
            Format::Elf => (
                missing_versions(parent, child, &node.name),
                codes::MISSING_SYMBOL_VERSION,
                "ld.so: \"version ... not found (required by ...)\"",
            ),
        };
        if missing.is_empty() {
            if parent.format == Format::Elf {
                out.extend(symbols.missing_symbols(graph, node, path));
            }
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
        let explanation = if parent.format == Format::Pe && is_windows_component(ctx, p, path) {
            format!(
                "{child_name} is part of Windows ({path}), and this Windows's copy lacks functions \
                 {parent_name} imports: {parent_name} was built for a newer Windows than this one, \
                 and loading fails with {what}. Update Windows, or use a build of {parent_name} \
                 made for this Windows version (for a Python DLL, a Python release that still \
                 supports it)."
            )
        } else {
            format!(
                "{parent_name} was built against a different version of {} than the one that \
                 resolved ({path}); loading fails with {what}. Use the matching version, or put the \
                 right copy first on the search path.",
                node.name
            )
        };
        let f = Finding::new(
            code,
            severity,
            format!(
                "{child_name} lacks {} {} that {parent_name} needs",
                missing.len(),
                if missing.len() == 1 {
                    "symbol"
                } else {
                    "symbols"
                }
            ),
            explanation,
        )
        .with_libraries([node.name.clone(), parent_name.clone()])
        .with_evidence(Evidence::at(
            "missing",
            format!(
                "{}{}",
                listed.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ),
            path.to_string(),
        ))
        .with_evidence(super::edge_evidence(p, node));
        out.push(f);
    }
    out
}

/// Whether the DLL that resolved to `path` is Windows' own: in the Windows folder, System32 or
/// SysWOW64 and not a library the knowledge tables know (an NVIDIA DLL copied into System32 is
/// still a mixed-versions case, not an old Windows).
fn is_windows_component(ctx: &SystemContext, p: Platform, path: &str) -> bool {
    let system_root = ctx.env.get("SystemRoot").unwrap_or(r"C:\Windows");
    is_os_library(p, path, system_root)
        && crate::engine::knowledge::identify_library(p.file_name(path)).is_none()
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

/// The fix for an older copy that a variable put first: unset `LD_PRELOAD`, or take its folder
/// out of `LD_LIBRARY_PATH` (none when the copy came from anywhere else).
fn first_copy_fix(preloaded: bool, how: How, path: &str) -> Vec<FixRef> {
    let dir = crate::engine::context::Platform::Linux
        .parent(path)
        .unwrap_or_default();
    if preloaded {
        vec![FixRef {
            id: "env-unset:LD_PRELOAD".into(),
            kind: FixKind::env("LD_PRELOAD", None),
            summary: format!("Unset LD_PRELOAD (or take {path} out of it) for this process"),
        }]
    } else if how == How::LdLibraryPath {
        vec![FixRef {
            id: format!("ld-library-path-remove:{dir}"),
            kind: FixKind::ld_library_path_remove(&dir),
            summary: format!("Remove {dir} from LD_LIBRARY_PATH for this process"),
        }]
    } else {
        Vec::new()
    }
}

/// Symbol tables, opened once per file and only for ELF edges whose versions matched; shared,
/// never copied.
struct SymbolCache<'a> {
    ctx: &'a SystemContext,
    read: HashMap<String, Option<Arc<SymbolTable>>>,
    /// Every resolved object of the tree (sorted, once), for needs the provider lacks.
    objects: Option<Vec<&'a str>>,
    /// The object that defined the last symbol its provider lacked.
    last_definer: Option<&'a str>,
}

impl<'a> SymbolCache<'a> {
    fn new(ctx: &'a SystemContext) -> Self {
        SymbolCache {
            ctx,
            read: HashMap::default(),
            objects: None,
            last_definer: None,
        }
    }

    /// The file's table; `None` when it cannot be read here (a reopened report has no bytes).
    fn of(&mut self, path: &str) -> Option<Arc<SymbolTable>> {
        if let Some(table) = self.read.get(path) {
            return table.clone();
        }
        let fs = &self.ctx.fs;
        let table = fs
            .file(path)
            .ok()
            .and_then(|host| fs.binaries().symbols(&host));
        self.read.insert(path.to_string(), table.clone());
        table
    }

    /// Whether another resolved object of the tree defines `need` (at its version).
    fn defined_elsewhere(
        &mut self,
        graph: &'a DependencyGraph,
        provider: &str,
        need: &SymbolNeed<'_>,
    ) -> bool {
        let objects = self.objects.get_or_insert_with(|| {
            let mut all: Vec<&str> = graph
                .nodes
                .iter()
                .filter_map(|n| n.path.as_deref())
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        });
        // The object that defined the last such symbol first: glibc 2.34's libc.so.6 answers
        // for every libpthread, libdl and librt symbol in turn.
        let others: Vec<&'a str> = self
            .last_definer
            .into_iter()
            .chain(objects.iter().copied())
            .filter(|p| *p != provider)
            .collect();
        let definer = others.into_iter().find(|other| {
            self.of(other)
                .is_some_and(|t| t.defines(need.symbol, need.version))
        });
        if definer.is_some() {
            self.last_definer = definer;
        }
        definer.is_some()
    }

    /// A finding when the library that resolved for `node` lacks versioned symbols its parent
    /// binds to (ld.so fails the load with `undefined symbol: NAME, version VERSION`).
    fn missing_symbols(
        &mut self,
        graph: &'a DependencyGraph,
        node: &Node,
        path: &str,
    ) -> Option<Finding> {
        let p = graph.platform;
        let provider = self.of(path)?;
        let consumer = self.of(&node.parent)?;
        // ld.so binds NAME@VERSION from any object in scope that defines it (glibc 2.34 moved
        // libpthread's symbols into libc.so.6 under the same versions): only a symbol no loaded
        // object defines is missing.
        let mut missing: Vec<String> = Vec::new();
        for need in consumer.missing_from(&node.name, &provider) {
            if !self.defined_elsewhere(graph, path, &need) {
                missing.push(format!("{}, version {}", need.symbol, need.version));
            }
        }
        if missing.is_empty() {
            return None;
        }
        let parent_name = p.file_name(&node.parent).to_string();
        let child_name = p.file_name(path).to_string();
        let version_of = |path: &str| {
            graph
                .info(path)
                .and_then(|i| i.version.version.clone())
                .filter(|v| v.contains('.'))
                .map(|v| format!(" {v}"))
                .unwrap_or_default()
        };
        let preloaded = node.how == How::Loaded
            && crate::engine::loader::linux::ld_preload(self.ctx)
                .iter()
                .any(|e| e == path || p.file_name(e) == node.name);
        let why_first = match node.how {
            _ if preloaded => {
                " LD_PRELOAD loaded this copy before anything else, so every need of its soname binds to it.".to_string()
            }
            How::LdLibraryPath => " LD_LIBRARY_PATH put this copy first.".to_string(),
            How::Path => " PATH put this copy first.".to_string(),
            other => format!(" It was found through {}.", other.as_str()),
        };
        let listed: Vec<&str> = missing
            .iter()
            .take(MAX_LISTED)
            .map(String::as_str)
            .collect();
        let more = missing.len().saturating_sub(MAX_LISTED);
        let first = missing.first().cloned().unwrap_or_default();
        let mut finding = Finding::new(
                codes::MISSING_SYMBOL,
                if node.delay {
                    Severity::Warning
                } else {
                    Severity::Error
                },
                format!(
                    "{child_name} at {path} is older than {parent_name} needs: {} missing",
                    if missing.len() == 1 {
                        "1 symbol".to_string()
                    } else {
                        format!("{} symbols", missing.len())
                    }
                ),
                format!(
                    "{parent_name}{} binds to symbols that this {child_name}{} does not define, so \
                     loading fails with \"undefined symbol: {first}\".{why_first} Remove the older \
                     copy from the search path, or install the {} that {parent_name} was built against.",
                    version_of(&node.parent),
                    version_of(path),
                    node.name,
                ),
            )
            .with_libraries([node.name.clone(), parent_name.clone()])
            .with_evidence(Evidence::at(
                "resolved",
                format!("{} ({})", node.name, node.how.as_str()),
                path.to_string(),
            ))
            .with_evidence(super::edge_evidence(p, node))
            .with_evidence(Evidence::new(
                "missing",
                format!(
                    "{}{}",
                    listed.join("; "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ),
            ));
        finding
            .fixes
            .extend(first_copy_fix(preloaded, node.how, path));
        Some(finding)
    }
}
