//! Error-text triage: `why "<pasted error or log>"`. Extraction pulls out every library name,
//! missing symbol and error code; classification matches lines against the error catalog and
//! explains codes and names with the knowledge tables. The result is plain data: the
//! `identified` list of the JSON contract plus findings.
//!
//! This works from the text alone. Where each named library actually is on a machine, and how
//! each loading context would resolve it, comes through [`machine_findings`] — the seam the
//! scan/resolve work fills in.

mod api_rebound;
mod arch_findings;
pub mod architectures;
mod build_driver_floor;
mod build_links;
pub mod build_tags;
pub mod chains;
pub mod classify;
mod code_findings;
pub mod corpus;
mod driver_library;
mod driver_runtime;
mod driver_symbols;
mod extension_package;
pub mod extract;
mod folders;
mod full_path_loads;
mod ggml_arch_list;
mod glibc_split;
pub mod gpu_generation;
mod installed_majors;
mod large_tensors;
mod library_failure;
mod load_error_sources;
pub mod machine;
mod nt_status;
mod ptx_driver;
mod requester;
pub mod requirements;
mod row_overrides;
mod runtime_messages;
mod soname_links;
mod source_package;
pub mod status;
mod symbol_findings;
pub mod symbol_owner;
mod tagged_builds;
mod text_findings;
mod traceback_library;
mod unlisted_extension;
pub mod version_check;

#[cfg(test)]
mod tests;

use crate::engine::context::SystemContext;
use crate::engine::findings::{Finding, Severity};
use crate::engine::knowledge::{self, LibraryIdentity};
use serde::Serialize;

/// Text beyond this many bytes is not looked at (a pasted log, not a core dump).
pub const MAX_TEXT: usize = 4 * 1024 * 1024;

/// One library named in the text, as the JSON contract's `"identified"` entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Identified {
    pub file: String,
    pub component: String,
    /// The family the name implies: "11.x", "8", "10.0", ...
    pub version: String,
}

/// Everything triage found in a text.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Triage {
    pub identified: Vec<Identified>,
    /// Full identities (toolkits, notes, sources) of `identified`, same order.
    pub identities: Vec<LibraryIdentity>,
    /// Library-like names the tables do not know (e.g. `fbgemm.dll`).
    pub unrecognized: Vec<String>,
    pub symbols: Vec<extract::MissingSymbol>,
    pub codes: Vec<extract::ErrorCode>,
    pub messages: Vec<classify::MessageMatch>,
    /// Libraries that failed because another one is missing.
    pub chains: Vec<chains::Chain>,
    /// CUDA/cuDNN version integers, decoded.
    pub versions: Vec<chains::VersionInteger>,
    /// GPU architectures a compiler or framework refused.
    pub architectures: Vec<architectures::RefusedArch>,
    /// Library versions a program was built with and found at run time.
    pub version_pairs: Vec<chains::VersionPair>,
    pub findings: Vec<Finding>,
}

/// Cuts `text` to at most `max` bytes on a character boundary.
fn bounded(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Triage of a library name or a pasted error text, from the text and the knowledge tables.
pub fn triage(text: &str) -> Triage {
    let retyped = extract::retyped_sonames(bounded(text, MAX_TEXT));
    let joined = extract::joined_dialogs(&retyped);
    let rejoined = extract::rejoined_status_names(&joined);
    let text: &str = &rejoined;
    let k = knowledge::knowledge();
    let mut t = Triage::default();
    for name in extract::libraries(text) {
        match identify_name(k, &name) {
            Some(id) => {
                t.identified.push(Identified {
                    file: id.file.clone(),
                    component: id.component.clone(),
                    version: id.version_family.clone(),
                });
                t.identities.push(id);
            }
            None => t.unrecognized.push(name),
        }
    }
    for stem in extract::library_stems(text) {
        if let Some(id) = identify_stem(k, &stem)
            && !t.identities.iter().any(|o| o.component == id.component)
        {
            t.identified.push(Identified {
                file: id.file.clone(),
                component: id.component.clone(),
                version: id.version_family.clone(),
            });
            t.identities.push(id);
        }
    }
    if t.identified.is_empty()
        && t.unrecognized.is_empty()
        && let Some(id) = single_word(text).and_then(|w| k.libraries.identify(w))
    {
        t.identified.push(Identified {
            file: id.file.clone(),
            component: id.component.clone(),
            version: id.version_family.clone(),
        });
        t.identities.push(id);
    }
    t.symbols = extract::symbols(text);
    t.codes = extract::codes(text, &k.catalog);
    t.messages = classify::match_messages(text, k);
    // pynvml's exception class (`NVMLError_DriverNotLoaded`) is read as its NVML status only on
    // a line no catalog row reads: one reading of a line's words, never two.
    t.codes.retain(|c| {
        !(c.kind == "nvml"
            && c.line.contains("NVMLError_")
            && t.messages.iter().any(|m| m.line == c.line))
    });

    // A status or a chain a row reads as harmless on its line (PyTorch 2.3.0's "Plan failed
    // with a cudnnException: ... CUDNN_STATUS_NOT_SUPPORTED" warning, a GStreamer plugin scan
    // skipping a plugin whose library is absent) is that row's note, not an error.
    let read_as_harmless = |line: &str| {
        classify::specific_rows_on(&t.messages, k, line).any(|row| row.severity == Severity::Info)
    };
    t.codes.retain(|c| !read_as_harmless(&c.line));
    t.chains = chains::chains(text);
    t.chains.retain(|c| !read_as_harmless(&c.line));
    t.versions = chains::version_integers(text);
    // A line its program prints as a warning or a note ("TensorRT was linked against cuDNN
    // 8.9.0 but loaded cuDNN 8.8.0", which NVIDIA says to ignore; XLA's "ptxas does not support
    // CC 9.0" before it falls back to the driver) is read by its row: the version pair or the
    // refused architecture on it is not made an error beside it.
    let read_as_notice = |line: &str| {
        classify::specific_rows_on(&t.messages, k, line).any(|row| row.severity != Severity::Error)
    };
    t.architectures = architectures::refused_architectures(text);
    t.architectures.retain(|a| !read_as_notice(&a.line));
    t.version_pairs = chains::version_pairs(text);
    t.version_pairs.retain(|v| !read_as_notice(&v.line));
    // A chain names the library really missing: its finding comes first among the errors.
    let mut findings = text_findings::chain_findings(&t.chains, k);
    findings.extend(text_findings::pair_findings(&t.version_pairs));
    findings.extend(requester::importer_findings(text, k));
    findings.extend(requester::preloaded_findings(text, k));
    findings.extend(traceback_library::traceback_library_findings(text));
    findings.extend(large_tensors::large_tensor_findings(text));
    findings.extend(classify::message_findings(&t.messages, text, k));
    findings.extend(extension_package::extension_package_findings(text, k));
    findings.extend(unlisted_extension::unlisted_extension_findings(text, k));
    findings.extend(driver_library::driver_library_findings(text, &t.identities));
    let driver = driver_symbols::driver_symbol_findings(&t.symbols, k);
    let generic: Vec<extract::MissingSymbol> = t
        .symbols
        .iter()
        .filter(|s| {
            knowledge::generated::generated()
                .entry_point(&s.symbol)
                .is_none()
        })
        // A row that reads the symbol's line in its own way ("could not find X in cudnn DSO;
        // dlerror: <TensorFlow's own module>: undefined symbol") says `overrides =
        // ["missing-symbol"]`: the generic reading is dropped with the other overridden general
        // findings below (`row_overrides`).
        .cloned()
        .collect();
    findings.extend(driver);
    findings.extend(api_rebound::rebound_api_findings(text));
    findings.extend(symbol_findings::symbol_findings(&generic));
    findings.extend(code_findings::code_findings(&t.codes, text, k));
    findings.extend(arch_findings::arch_findings(&t.architectures, text, k));
    findings.extend(arch_findings::dropped_gpu_finding(
        &t.architectures,
        text,
        k,
    ));
    // A floor a specific row reads on its line ("SM80 kernel is not available. make sure you
    // GPUs with compute capability 8.0 or higher", which a wheel built for another torch
    // prints) is that row's reading, not a GPU-generation verdict beside it.
    let unread = |line: &str| {
        classify::specific_rows_on(&t.messages, k, line)
            .next()
            .is_none()
    };
    let floors: Vec<(String, String)> = architectures::generation_minimums(text)
        .into_iter()
        .filter(|(_, line)| unread(line))
        .collect();
    findings.extend(arch_findings::generation_minimum_findings(&floors, text, k));
    // A CUDA, cuDNN or driver floor, or a compiled extension that is not there, in the general words
    // any program prints: a line a specific row reads keeps that row's reading.
    let mut stated = requirements::stated_floors(text);
    stated.retain(|f| unread(&f.line));
    findings.extend(requirements::floor_findings(&stated, text, k));
    let mut modules = requirements::missing_extensions(text);
    modules.retain(|m| unread(&m.line));
    findings.extend(requirements::extension_findings(&modules));
    findings.extend(build_links::build_link_findings(text, k, unread));
    findings.extend(text_findings::ptx_isa_findings(
        &chains::ptx_isa_refusals(text),
        k,
    ));
    findings.extend(ptx_driver::ptx_driver_findings(text, k));
    findings.extend(text_findings::version_findings(&t.versions, k));
    let tags = build_tags::build_tags(text);
    findings.extend(build_tags::build_tag_findings(&tags, k));
    findings.extend(version_check::outdated_component_findings(text));
    findings.extend(driver_runtime::driver_runtime_findings(text, k));
    let drivers = chains::driver_versions(text);
    findings.extend(text_findings::driver_version_findings(&drivers, k));
    // A build the driver in the text cannot run, unless a line already says the driver is too old.
    let driver_said_old = findings.iter().any(|f| {
        f.code.contains("driver-too-old")
            || f.code.contains("insufficient-driver")
            || f.code == "cuda-error-35"
    });
    if !driver_said_old {
        findings.extend(build_driver_floor::driver_below_build_findings(
            &tags, &drivers, k,
        ));
    }
    // A library a harmless line names (the plugin the scan skipped) did not fail the program.
    let on_harmless_line = |f: &Finding| {
        f.evidence
            .iter()
            .any(|e| e.kind == "log" && read_as_harmless(&e.text))
    };
    let mut unnamed = library_failure::library_failure_findings(text, &t.identities, &findings);
    unnamed.retain(|f| !on_harmless_line(f));
    findings.extend(unnamed);
    let mut unknown =
        library_failure::unknown_library_failure_findings(text, &t.unrecognized, &findings);
    unknown.retain(|f| !on_harmless_line(f));
    findings.extend(unknown);
    library_failure::name_releases_in_load_errors(&mut findings, &t.identities);
    library_failure::name_own_folders_in_load_errors(&mut findings, &t.identities);
    load_error_sources::name_sources_in_load_errors(&mut findings, &t.identities);
    soname_links::name_missing_soname_links(&mut findings, &t.identities, text);
    installed_majors::name_other_majors_in_load_errors(&mut findings, &t.identities, text);
    full_path_loads::name_full_path_loads(&mut findings);
    tagged_builds::name_tagged_builds_in_load_errors(&mut findings, &tags, text);
    source_package::name_source_packages(&mut findings);
    findings.extend(classify::library_findings(&t.identities));
    findings.retain(|f| !row_overrides::overridden_on_its_line(f, &t.messages, k));
    // Two readers of one line can reach the same reading (a refusal stated twice in a sentence):
    // it is shown once.
    let mut seen = std::collections::HashSet::new();
    findings.retain(|f| seen.insert((f.code.clone(), f.summary.clone(), f.detail.clone())));
    // By severity; within one, a general family reading (a fallback row: "out of memory")
    // follows the specific readings of other lines of the same message (ggml's memory pool
    // reservation).
    let general = |f: &Finding| {
        f.code
            .strip_prefix("log-")
            .and_then(|id| k.catalog.message(id))
            .is_some_and(|row| row.fallback)
    };
    // The loader's generic reading of a library ("add the folder to LD_LIBRARY_PATH") follows
    // the reading that the library is the driver's own, which no folder of a toolkit holds.
    let driver_files: Vec<String> = findings
        .iter()
        .filter(|f| f.code == crate::engine::finding_codes::DRIVER_LIBRARY_NOT_LOADED)
        .flat_map(|f| f.libraries.iter().cloned())
        .collect();
    let loader_generic = |f: &Finding| {
        f.code == "log-dlopen-cannot-open" && f.libraries.iter().any(|l| driver_files.contains(l))
    };
    findings.sort_by_key(|f| (f.severity, general(f) || loader_generic(f)));
    t.findings = findings;
    t
}

/// Identifies a name from the text; a wildcard name (`nvJitLink*.dll`, `libnvJitLink.so*`, as
/// cuda.core prints them) is identified by the family it names, keeps its own spelling, and
/// stands for any version.
fn identify_name(k: &knowledge::Knowledge, name: &str) -> Option<LibraryIdentity> {
    if !name.contains('*') {
        return k.libraries.identify(name);
    }
    let mut id = k.libraries.identify(&name.replace('*', ""))?;
    id.file = name.to_string();
    id.version_family = "any".to_string();
    Some(id)
}

/// A library named without its extension (`libcuda`, `cuda`, `nvcuda`): identified by the first
/// platform file name the tables know (`libcuda.so`, `nvcuda.dll`), keeping the stem as written.
fn identify_stem(k: &knowledge::Knowledge, stem: &str) -> Option<LibraryIdentity> {
    let candidates = [
        stem.to_string(),
        format!("lib{stem}.so"),
        format!("{stem}.dll"),
        format!("{stem}.so"),
    ];
    let mut id = candidates.iter().find_map(|c| k.libraries.identify(c))?;
    id.file = stem.to_string();
    Some(id)
}

/// A bare name such as `cublas64_11` (no extension) typed on its own.
fn single_word(text: &str) -> Option<&str> {
    let w = text.trim();
    (!w.is_empty() && !w.contains(char::is_whitespace)).then_some(w)
}

/// Everything to say about a triaged text on `ctx`: the text's own errors and warnings first
/// (what the pasted lines say, which may come from another machine), then this machine's, then
/// the notes of both.
pub fn all_findings(ctx: &SystemContext, t: &Triage) -> Vec<Finding> {
    let text = t.findings.iter().cloned().map(|f| (false, f));
    let machine = machine_findings(ctx, t).into_iter().map(|f| (true, f));
    let mut all: Vec<(bool, Finding)> = text.chain(machine).collect();
    all.sort_by_key(|(from_machine, f)| (f.severity == Severity::Info, *from_machine, f.severity));
    all.into_iter().map(|(_, f)| f).collect()
}

/// Machine-aware triage: where each identified library is on `ctx`, how each loading context
/// resolves it, and the scan's findings that concern what the text names (see [`machine`]).
pub fn machine_findings(ctx: &SystemContext, t: &Triage) -> Vec<Finding> {
    machine::findings(ctx, t)
}
