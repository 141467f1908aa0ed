//! A compiled PyTorch extension built for another torch, named by its package. A line where an
//! extension module lacks a PyTorch C++ symbol (Linux: `undefined symbol: _ZN…c10…`/`at::`/
//! `torch::`) or a procedure (Windows error 127 while importing it) says the module was compiled
//! against a different torch; the module or folder name in the line (`fused_layer_norm_cuda`,
//! `torch_scatter/…`, `while importing exllamav2_ext`) identifies the package to reinstall or
//! rebuild, from `torch_extensions.toml`.

use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::torch_extensions::{TorchExtension, package_of};
use regex::Regex;
use std::sync::OnceLock;

struct Patterns {
    /// A mangled name in the c10, at, torch or caffe2 namespace reported missing.
    torch_symbol: Regex,
    /// The module Python was importing when Windows refused a DLL.
    importing: Regex,
}

fn patterns() -> &'static Patterns {
    static RE: OnceLock<Patterns> = OnceLock::new();
    RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            torch_symbol: re(r"undefined symbol:?\s*_ZN[KS]?[0-9]*(?:3c10|2at|5torch|6caffe2)"),
            importing: re(r"DLL load failed while importing ([A-Za-z0-9_]+)"),
        }
    })
}

/// Whether `line` carries Windows error 127 (ERROR_PROC_NOT_FOUND) in any spelling the error
/// catalog knows for it.
pub(super) fn says_procedure_not_found(line: &str, k: &Knowledge) -> bool {
    let lower = line.to_lowercase();
    if lower.contains("winerror 127") || lower.contains("error 127") {
        return true;
    }
    k.catalog
        .codes
        .iter()
        .filter(|c| c.kind == "win32" && c.number == Some(127))
        .flat_map(|c| c.names.iter())
        .any(|name| lower.contains(&name.to_lowercase()))
}

/// The module Python was importing when Windows refused its DLL ("DLL load failed while
/// importing X"), if the line says so.
pub(super) fn importing_module(line: &str) -> Option<&str> {
    patterns()
        .importing
        .captures(line)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str())
}

/// The first module or folder name in `line` that the table knows: the module being imported,
/// then each path component's stem (before its first dot).
pub(super) fn named_extension(line: &str) -> Option<(String, &'static TorchExtension)> {
    let importing = importing_module(line);
    let stems = line
        .split(|c: char| {
            c == '/'
                || c == '\\'
                || c.is_whitespace()
                || matches!(c, '"' | '\'' | ':' | ',' | '(' | ')')
        })
        .map(|part| part.split('.').next().unwrap_or(""))
        .filter(|stem| !stem.is_empty());
    importing
        .into_iter()
        .chain(stems)
        .find_map(|name| package_of(name).map(|row| (name.to_string(), row)))
}

/// "flash_attn_2_cuda (part of flash-attn)", or "pytorch3d's compiled extension" where the name
/// is the package's own.
fn subject(module: &str, row: &TorchExtension) -> String {
    let own_name = row
        .package
        .split(" / ")
        .any(|p| p.replace('-', "_") == module);
    if own_name {
        format!("{module}'s compiled extension")
    } else {
        format!("{module} (part of {})", row.package)
    }
}

/// How many lines above a Windows import failure may name the extension's package (a traceback's
/// `File "…\\site-packages\\<package>\\…"` and its source line).
pub(super) const LOOK_BACK: usize = 4;

/// One error per package whose extension a line says was built for another torch.
pub fn extension_package_findings(text: &str, k: &Knowledge) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let line = *line;
        let abi_break = patterns().torch_symbol.is_match(line)
            || ((patterns().importing.is_match(line) || line.contains("WinError 127"))
                && says_procedure_not_found(line, k));
        // Windows refused the module's DLL with another error (126: a DLL it needs was not
        // found) or none: the build does not fit what is installed next to it.
        let load_failed = !abi_break && patterns().importing.is_match(line);
        if !abi_break && !load_failed {
            continue;
        }
        // A traceback names the importing file on the lines above `… importing _C`.
        let Some((module, row)) = named_extension(line).or_else(|| {
            lines[i.saturating_sub(LOOK_BACK)..i]
                .iter()
                .rev()
                .find_map(|above| named_extension(above))
        }) else {
            continue;
        };
        if seen.contains(&row.package.as_str()) {
            continue;
        }
        seen.push(&row.package);
        let (summary, detail) = if load_failed {
            load_failure_words(&module, row)
        } else {
            abi_break_words(&module, row)
        };
        out.push(
            Finding::new(
                codes::TORCH_EXTENSION_OTHER_TORCH,
                Severity::Error,
                summary,
                detail,
            )
            .with_evidence(Evidence::new("log", super::extract::clip(line.trim())))
            .with_evidence(Evidence::new("source", row.source.clone()))
            .with_fix(FixRef {
                id: "advice-torch-extension-rebuild".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "{}: {}; or install the torch version it was built for.",
                    row.package, row.install
                ),
            }),
        );
    }
    out
}

/// A build whose PyTorch functions the loaded torch lacks (an undefined symbol, error 127).
fn abi_break_words(module: &str, row: &TorchExtension) -> (String, String) {
    (
        format!(
            "{} was built for another PyTorch than the installed one: reinstall or rebuild {} for this torch",
            subject(module, row),
            row.package
        ),
        format!(
            "{module} is a compiled extension of {}. It calls PyTorch's C++ functions (c10, ATen, \
                     torch), whose names and signatures change between torch releases, so a build is tied \
                     to the torch it was compiled against. The loaded torch lacks a function this build \
                     needs (Linux: an undefined c10/at/torch symbol; Windows: error 127, the specified \
                     procedure could not be found): torch was upgraded or downgraded after {} was \
                     installed, or a wheel for another torch (or CUDA, or C++ ABI) was installed. Updating \
                     CUDA or the driver does not help.",
            row.package, row.package
        ),
    )
}

/// A module Windows could not load at all (error 126, or no code): a DLL it was linked against
/// is not there.
fn load_failure_words(module: &str, row: &TorchExtension) -> (String, String) {
    (
        format!(
            "{} could not be loaded: a build of {} that does not fit the installed torch and CUDA",
            subject(module, row),
            row.package
        ),
        format!(
            "{module} is a compiled extension of {}. Windows could not load its DLL or one it was \
             linked against: torch's own DLLs of the torch it was built for (a wheel for another torch \
             version), the CUDA runtime DLLs of the CUDA version it was built with, or (error 127) a \
             function the installed torch lacks. A build is tied to the torch and CUDA it was \
             compiled against; the usual cause is a {} wheel for another torch or CUDA, or torch \
             upgraded after it was installed.",
            row.package, row.package
        ),
    )
}
