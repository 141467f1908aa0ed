//! Missing symbols in pasted error text: ld.so's `undefined symbol: X` (with the library before it
//! and glibc's version node after it), Windows' "entry point X could not be located in the dynamic
//! link library Y" (also cut short after an MSVC-decorated name), .NET's P/Invoke entry points,
//! versioned-symbol errors, the linker's `undefined reference` to a CUDA API entry point, and
//! programs' own "could not load symbol X".

use super::{clip, patterns as library_patterns};
use regex::Regex;
use serde::Serialize;
use std::sync::OnceLock;

/// A symbol the loader could not find.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct MissingSymbol {
    pub symbol: String,
    /// The library it was looked up in, when the message says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// The line it came from.
    pub line: String,
    /// Missing when the program was linked (`undefined reference to X`), not when it ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_link: bool,
    /// `library` is the one the function was looked up in, not the caller (.NET's "Unable to
    /// find an entry point named 'X' in DLL 'Y'", 'Cannot find the entry point "X" in the "Y" DLL').
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub looked_in: bool,
}

struct Patterns {
    undefined: Regex,
    undefined_version_node: Regex,
    undefined_reference: Regex,
    entry_point: Regex,
    entry_point_alt: Regex,
    entry_point_cut: Regex,
    /// .NET's P/Invoke: "Unable to find an entry point named 'X' in DLL 'Y'", and a program's
    /// own 'Cannot find the entry point "X" in the "Y" DLL': Y is the library looked in.
    dotnet_entry_point: Regex,
    versioned: Regex,
    cannot_load_symbol: Regex,
}

/// ld.so's "undefined symbol: X" (the symbol captured).
const UNDEFINED_SYMBOL: &str = r"undefined symbol:?\s*([A-Za-z_][A-Za-z0-9_@.$]*)";

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            undefined: re(UNDEFINED_SYMBOL),
            undefined_version_node: re(&format!(
                r"{UNDEFINED_SYMBOL},\s*version\s+(lib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*)"
            )),
            undefined_reference: re(r#"undefined references? to [`'"‘“]?([A-Za-z_][A-Za-z0-9_]*)"#),
            entry_point: re(
                r"(?i)(?:procedure )?entry point\s+([A-Za-z_?@][A-Za-z0-9_?@$.]*)\s+could not be located in the dynamic link library\s+([^\r\n]+?\.dll)",
            ),
            entry_point_alt: re(
                r"(?i)entry point for the procedure\s+(\S+)\s+in the dynamic link library\s+([^\r\n]+?\.dll)",
            ),
            // The same dialog cut short after a C++ (MSVC-decorated) name, as people retype it
            // from the pop-up: "The procedure entry point ?destroyTensorDescriptor@ops@cudnn@@ya?AW4...".
            entry_point_cut: re(r"(?i)procedure entry point\s+(\?[A-Za-z0-9_]+@[A-Za-z0-9_?@$]*)"),
            dotnet_entry_point: re(
                r#"(?:Unable to find an entry point named '([A-Za-z_][A-Za-z0-9_@]*)' in (?:DLL|shared library) '([^']+)'|[Cc]annot find the entry point "([A-Za-z_][A-Za-z0-9_@]*)" in the "([^"]+)" DLL)"#,
            ),
            versioned: re(
                r"symbol ([A-Za-z_][A-Za-z0-9_]*),? version (\S+?) not defined in file (\S+?)(?: with link time reference|$|\s)",
            ),
            cannot_load_symbol: re(
                r"(?i)(?:(?:Cannot load|could not (?:find|get|load)|failed to (?:find|get|load)) (?:the )?symbol\s+['`\x22]?([A-Za-z_][A-Za-z0-9_]*)|function ['`\x22]([A-Za-z_][A-Za-z0-9_]*)['`\x22] not found|function\s+((?:cu|cuda|nvml|nvrtc|cublas|cudnn|cufft|curand|cusparse|cusolver)[A-Z][A-Za-z0-9_]*)\s+not found)",
            ),
        }
    })
}

/// Missing symbols: `undefined symbol: X` (Linux), `entry point X could not be located in
/// the dynamic link library Y` (Windows), and a CUDA API function the linker did not find.
pub fn symbols(text: &str) -> Vec<MissingSymbol> {
    let p = patterns();
    let mut out: Vec<MissingSymbol> = Vec::new();
    for line in text.lines() {
        for c in p.undefined.captures_iter(line) {
            let symbol = c[1].trim_end_matches(['.', ',']).to_string();
            let library = library_patterns()
                .soname
                .captures_iter(line)
                .filter_map(|m| m.get(1))
                .filter(|m| m.start() < c.get(0).map(|x| x.start()).unwrap_or(0))
                .last()
                .map(|m| super::soname_as_meant(m.as_str()));
            push_symbol(&mut out, symbol, library, line);
        }
        for c in p
            .entry_point
            .captures_iter(line)
            .chain(p.entry_point_alt.captures_iter(line))
        {
            let library = crate::engine::knowledge::libraries::file_name(&c[2]).to_string();
            push_symbol(&mut out, c[1].to_string(), Some(library), line);
        }
        for c in p.entry_point_cut.captures_iter(line) {
            if !out.iter().any(|s| c[1].starts_with(s.symbol.as_str())) {
                push_symbol(&mut out, c[1].to_string(), None, line);
            }
        }
        for c in p.dotnet_entry_point.captures_iter(line) {
            let (Some(symbol), Some(dll)) = (c.get(1).or(c.get(3)), c.get(2).or(c.get(4))) else {
                continue;
            };
            let library = crate::engine::knowledge::libraries::file_name(dll.as_str()).to_string();
            if let Some(pushed) =
                push_symbol(&mut out, symbol.as_str().to_string(), Some(library), line)
            {
                pushed.looked_in = true;
            }
        }
        for c in p.versioned.captures_iter(line) {
            let library = crate::engine::knowledge::libraries::file_name(&c[3]).to_string();
            push_symbol(&mut out, c[1].to_string(), Some(library), line);
        }
        // The linker's "undefined reference to `cudaGraphExecUpdate'": read only for CUDA API
        // entry points (the generated table), whose release says how old the toolkit is.
        for c in p.undefined_reference.captures_iter(line) {
            if crate::engine::knowledge::generated::generated()
                .entry_point(&c[1])
                .is_some()
                && !out.iter().any(|s| s.symbol == c[1])
            {
                out.push(MissingSymbol {
                    symbol: c[1].to_string(),
                    library: None,
                    line: clip(line),
                    at_link: true,
                    looked_in: false,
                });
            }
        }
        // PyTorch's (and torch for R's) "Invalid handle. Cannot load symbol cudnnCreate": the
        // library itself did not load, so no symbol of it is missing.
        if line.to_ascii_lowercase().contains("invalid handle") {
            continue;
        }
        for c in p.cannot_load_symbol.captures_iter(line) {
            if let Some(m) = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)) {
                push_symbol(&mut out, m.as_str().to_string(), None, line);
            }
        }
    }
    out
}

/// The version node glibc prints after a missing symbol ("undefined symbol: X, version
/// libcudart.so.12"): CUDA's libraries name their exports' version after their soname, so it is
/// the library that should have defined X.
pub fn version_node(line: &str, symbol: &str) -> Option<String> {
    patterns()
        .undefined_version_node
        .captures_iter(line)
        .find(|c| &c[1] == symbol)
        .map(|c| c[2].to_string())
}

/// Adds a symbol unless the same symbol and library are already there; the one added, if any.
fn push_symbol<'a>(
    out: &'a mut Vec<MissingSymbol>,
    symbol: String,
    library: Option<String>,
    line: &str,
) -> Option<&'a mut MissingSymbol> {
    if out
        .iter()
        .any(|s| s.symbol == symbol && s.library == library)
    {
        return None;
    }
    out.push(MissingSymbol {
        symbol,
        library,
        line: clip(line),
        at_link: false,
        looked_in: false,
    });
    out.last_mut()
}
