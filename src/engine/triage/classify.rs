//! Classification: turns what extraction found into findings — catalog messages (root cause and
//! fix, with the matched lines as evidence), error codes with their plain-language meaning,
//! and what each named library is and which toolkits ship it (missing symbols: in
//! [`super::symbol_findings`]).

use super::extract::clip;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::catalog::MessageRow;
use crate::engine::knowledge::drivers::DriverTables;
use crate::engine::knowledge::version::Version;
use crate::engine::knowledge::{Knowledge, LibraryIdentity, decode_cudnn_version};
use std::collections::BTreeMap;

/// One catalog message found in the text.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MessageMatch {
    pub id: String,
    pub line: String,
    /// The pattern's capture groups (empty string for a group that did not take part).
    pub groups: Vec<String>,
}

/// The rows that are not fallbacks (a program's own message, not a family reading) that read
/// `line` among `messages`.
pub fn specific_rows_on<'a>(
    messages: &'a [MessageMatch],
    k: &'a Knowledge,
    line: &'a str,
) -> impl Iterator<Item = &'a MessageRow> + 'a {
    messages
        .iter()
        .filter(move |m| m.line == line)
        .filter_map(|m| k.catalog.message(&m.id))
        .filter(|row| !row.fallback)
}

/// Matches every line against the catalog; a specific message drops the ones it overrides, and
/// any row that is not a fallback drops the fallbacks (general family readings) of its line.
/// A message a paste broke over two lines (a terminal or an issue form wrapping it, mid-word or
/// at a space, or with a blank line between its parts) is read across the break as well, when
/// no single line holds it: the two lines joined directly, with a space and with a line break
/// (for a pattern that spells the break); read so, it drops what it overrides on either of the
/// two lines (the generic reading of its first half).
pub fn match_messages(text: &str, k: &Knowledge) -> Vec<MessageMatch> {
    let lines: Vec<&str> = text.lines().collect();
    // Rows whose context the text lacks: one program's words that other programs print too,
    // where the text names it not; or a reading another line of the message contradicts.
    let out_of_context: Vec<bool> = (0..k.catalog.messages.len())
        .map(|i| !k.catalog.reads_in_context(i, text))
        .collect();
    let line_matches = |line: &str, seams: &[usize]| line_matches(line, k, seams, &out_of_context);
    let mut out: Vec<(usize, MessageMatch)> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        out.extend(line_matches(line, &[]).into_iter().map(|m| (at, m)));
    }
    let written: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(at, l)| (at, *l))
        .collect();
    if written.len() <= MAX_REJOINED_LINES {
        // Two lines, then three (a message wrapped twice); a match must span every seam, so
        // that what fewer lines hold is not read again.
        for width in [2, 3] {
            for group in written.windows(width) {
                for glue in ["", " ", "\n"] {
                    let mut joined = group[0].1.trim_end().to_string();
                    let mut seams = Vec::new();
                    for (_, next) in &group[1..] {
                        joined.push_str(glue);
                        seams.push(joined.len() - glue.len());
                        joined.push_str(without_log_prefix(next).trim());
                    }
                    for m in line_matches(&joined, &seams) {
                        // A row that a reading of one of the lines overrides stays dropped.
                        let overridden = out.iter().any(|(line, o)| {
                            group.iter().any(|(at, _)| at == line)
                                && overrides_of(&o.id, k).contains(&m.id)
                        });
                        if overridden {
                            continue;
                        }
                        let overrides = overrides_of(&m.id, k);
                        out.retain(|(line, o)| {
                            !(group.iter().any(|(at, _)| at == line) && overrides.contains(&o.id))
                        });
                        if !out.iter().any(|(_, o)| o.id == m.id) {
                            out.push((group[0].0, m));
                        }
                    }
                }
            }
        }
    }
    out.into_iter().map(|(_, m)| m).collect()
}

/// The less specific messages `id` drops when it matches.
fn overrides_of<'k>(id: &str, k: &'k Knowledge) -> &'k [String] {
    k.catalog
        .messages
        .iter()
        .find(|m| m.id == id)
        .map(|m| m.overrides.as_slice())
        .unwrap_or_default()
}

/// A continuation line without the prefix a logger puts before every line: journald's and
/// syslog's "Aug 12 10:38:34 host program[pid]: " (Unsloth Studio's xFormers warning as
/// journalctl printed it: https://github.com/unslothai/unsloth/issues/8580) and Docker
/// Compose's "service-1  | ". The message a program wrapped continues after it.
fn without_log_prefix(line: &str) -> &str {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"^(?:[A-Z][a-z]{2} +[0-9]{1,2} [0-9]{2}:[0-9]{2}:[0-9]{2} \S+ [^\s:\[]+(?:\[[0-9]+\])?: |[A-Za-z0-9_.-]+-[0-9]+ +\| )",
        )
    });
    re.find(line).map_or(line, |m| &line[m.end()..])
}

/// Longer texts are read line by line only (a log, not a wrapped paste).
const MAX_REJOINED_LINES: usize = 400;

/// The catalog messages on one line; with `seams`, only those whose match spans each of those
/// byte offsets (the joins of pasted lines); none of the rows `out_of_context` marks.
fn line_matches(
    line: &str,
    k: &Knowledge,
    seams: &[usize],
    out_of_context: &[bool],
) -> Vec<MessageMatch> {
    let mut hits: Vec<(usize, Vec<String>)> = Vec::new();
    // A line as pasted and, for a whole line, in plain spacing and punctuation (a space before
    // a colon, runs of spaces, typographic quotes and dashes, as issue forms and some programs
    // print them): a row matches either.
    let plain = (seams.is_empty())
        .then(|| plain_punctuation(line))
        .filter(|p| p != line);
    for (i, re) in k.catalog.patterns.iter().enumerate() {
        if out_of_context.get(i).copied().unwrap_or(false) {
            continue;
        }
        let plain_caps = plain
            .as_deref()
            .filter(|_| !re.is_match(line))
            .into_iter()
            .flat_map(|p| re.captures_iter(p));
        for caps in re.captures_iter(line).chain(plain_caps) {
            let whole = caps.get(0).map(|m| m.range()).unwrap_or_default();
            if seams.iter().any(|&s| !(whole.start < s && s < whole.end)) {
                continue;
            }
            let groups = (1..caps.len())
                .map(|g| {
                    caps.get(g)
                        .map(|m| m.as_str().to_string())
                        .unwrap_or_default()
                })
                .collect();
            hits.push((i, groups));
        }
    }
    let overridden: Vec<&str> = hits
        .iter()
        .flat_map(|(i, _)| k.catalog.messages[*i].overrides.iter().map(String::as_str))
        .collect();
    let specific = hits.iter().any(|(i, _)| !k.catalog.messages[*i].fallback);
    // A line that only says what to do if an error comes ("If you encounter CUDA out of
    // memory, try ...") is no report of it: no family reading takes it.
    let advice = super::extract::is_conditional_hint(line);
    hits.into_iter()
        .filter(|(i, _)| !overridden.contains(&k.catalog.messages[*i].id.as_str()))
        .filter(|(i, _)| !((specific || advice) && k.catalog.messages[*i].fallback))
        .map(|(i, groups)| MessageMatch {
            id: k.catalog.messages[i].id.clone(),
            line: clip(line),
            groups,
        })
        .collect()
}

/// `line` with typographic quotes and dashes made plain, no space before a colon and no runs
/// of spaces ("Call to posix_fallocate failed : No space left" reads as "failed: No space").
fn plain_punctuation(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' => '"',
            '\u{2013}' | '\u{2014}' | '\u{2212}' => '-',
            '\u{00A0}' | '\t' => ' ',
            other => other,
        };
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        if c == ':' && out.ends_with(' ') {
            out.pop();
        }
        out.push(c);
    }
    out
}

/// The template with the pattern's groups filled in; a group the message left out (an optional
/// part, or another alternative of the pattern) leaves no empty brackets or quotes behind.
fn fill(template: &str, groups: &[String]) -> String {
    let mut s = template.to_string();
    for (i, g) in groups.iter().enumerate() {
        let placeholder = format!("{{{}}}", i + 1);
        if g.is_empty() {
            for wrapped in [" ({p})", "({p})", " '{p}'", " \"{p}\""] {
                s = s.replace(&wrapped.replace("{p}", &placeholder), "");
            }
        }
        s = s.replace(&placeholder, g);
    }
    s
}

/// PyTorch's wheel index of a CUDA build ("11.7" → https://download.pytorch.org/whl/cu117): the
/// `cuXYZ` tag is the version's digits.
fn pytorch_index(cuda: &str) -> Option<String> {
    let v = Version::parse(cuda)?;
    let mm = v.major_minor();
    let tag: String = mm.chars().filter(char::is_ascii_digit).collect();
    Some(format!(
        "cu{tag}: pip install torchvision --index-url https://download.pytorch.org/whl/cu{tag} (with the torchvision release paired with the installed torch)"
    ))
}

/// Extra plain-language detail some messages call for (decoded version numbers).
fn decoded(id: &str, groups: &[String], k: &Knowledge) -> Option<String> {
    let num = |i: usize| groups.get(i).and_then(|g| g.parse::<u64>().ok());
    match id {
        "torch-driver-too-old" => Some(format!(
            "The driver reports {}, which means it supports CUDA up to {}. The Linux driver the first \
             release of each CUDA major needs: {}.",
            groups.first()?,
            DriverTables::decode_cuda_number(num(0)?),
            super::super::knowledge::drivers::major_minimums(&k.drivers)
        )),
        // TensorRT prints the SM in hex: 0x809 is compute capability 8.9.
        "tensorrt-unsupported-sm" => {
            let digits = groups.first()?.strip_prefix("0x")?;
            let hex = u64::from_str_radix(digits, 16).ok()?;
            let cc = format!("{}.{}", hex >> 8, hex & 0xff);
            let generation = k
                .compute
                .generation(&cc)
                .map(|g| format!(", {g}"))
                .unwrap_or_default();
            Some(format!(
                "SM 0x{digits} is compute capability {cc} (sm_{}{}{generation}).",
                hex >> 8,
                hex & 0xff
            ))
        }
        "jax-found-older-version" if groups.first()? == "cuDNN" => Some(format!(
            "Decoded: cuDNN {} was loaded; JAX was built with cuDNN {}.",
            decode_cudnn_version(num(1)?),
            decode_cudnn_version(num(2)?)
        )),
        "jax-outdated-installation" if groups.first()? == "cuDNN" => Some(format!(
            "Decoded: installed cuDNN {}, minimum supported {}.",
            decode_cudnn_version(num(3)?),
            decode_cudnn_version(num(2)?)
        )),
        "cudnn-version-mismatch" => {
            let ok = crate::engine::knowledge::cudnn::cudnn_runtime_compatible(
                groups.first()?,
                groups.get(1)?,
            )?;
            (!ok).then(|| {
                format!(
                    "cuDNN {} does not satisfy the rule for a build with {}: same major, equal or higher minor.",
                    groups[0], groups[1]
                )
            })
        }
        "torch-winerror-loading-dll" | "torch-paging-file" | "ort-loadlibrary-failed" => {
            let path = if id == "torch-paging-file" {
                groups.first()?
            } else {
                groups.get(1)?
            };
            super::folders::framework_dll_detail(path, k)
        }
        "torchvision-cuda-mismatch" => Some(format!(
            "PyTorch's wheel index for CUDA {} is {}.",
            groups.first()?,
            pytorch_index(groups.first()?)?
        )),
        "container-cuda-requirement" => {
            super::super::knowledge::drivers::requirement_words(groups.first()?, &k.drivers)
        }
        "container-requirement-brand" => Some(format!(
            "The Linux driver the first release of each CUDA major needs: {}.",
            super::super::knowledge::drivers::major_minimums(&k.drivers)
        )),
        _ => None,
    }
}

/// One finding per catalog message that matched (all its lines as evidence).
pub fn message_findings(matches: &[MessageMatch], text: &str, k: &Knowledge) -> Vec<Finding> {
    let mut by_id: BTreeMap<&str, Vec<&MessageMatch>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for m in matches {
        if !by_id.contains_key(m.id.as_str()) {
            order.push(&m.id);
        }
        by_id.entry(&m.id).or_default().push(m);
    }
    let mut out = Vec::new();
    for id in order {
        let Some(row) = k.catalog.message(id) else {
            continue;
        };
        let hits = &by_id[id];
        let first = &hits[0].groups;
        let mut detail = format!(
            "{} (Message from {}.)",
            fill(&row.root_cause, first),
            row.tool
        );
        if let Some(extra) = decoded(id, first, k) {
            detail = format!("{extra} {detail}");
        }
        if let Some(cause) = crate::engine::knowledge::catalog::context_cause(&row.cases, text) {
            detail = format!("{cause}{detail}");
        }
        if let Some(note) = &row.note {
            detail.push_str(&format!(" Note: {note}"));
        }
        let mut summary = fill(&row.summary, first);
        if hits.len() > 1 {
            summary.push_str(&format!(" (and {} more like it)", hits.len() - 1));
        }
        let mut f = Finding::new(&format!("log-{id}"), row.severity, summary, detail);
        let mut libs: Vec<String> = Vec::new();
        for hit in hits.iter().take(20) {
            f = f.with_evidence(Evidence::new("log", hit.line.clone()));
            for g in &hit.groups {
                let name = crate::engine::knowledge::libraries::file_name(g);
                if k.libraries.identify(name).is_some()
                    && !libs.iter().any(|l| l.eq_ignore_ascii_case(name))
                {
                    libs.push(name.to_string());
                }
            }
        }
        f = f
            .with_libraries(libs)
            .with_evidence(Evidence::new("source", row.source.clone()))
            .with_fix(FixRef {
                id: format!("advice-{id}"),
                kind: FixKind::Manual,
                summary: fill(&row.fix, first),
            });
        out.push(f);
    }
    out
}

/// " NVVM lives in {toolkit}/nvvm/lib64 on linux, ..." for a component the install-location
/// table gives its own folders (outside the toolkit's lib64/bin); for a file of one platform (a
/// `.so` or a `.dll`), that platform's folder only.
pub fn own_folders(component: &str, file: &str) -> String {
    let lower = file.to_ascii_lowercase();
    let platform = if lower.ends_with(".dll") {
        Some("windows")
    } else if lower.contains(".so") {
        Some("linux")
    } else {
        None
    };
    let rows: Vec<String> = crate::engine::knowledge::knowledge()
        .locations
        .locations
        .iter()
        .filter(|l| l.what == component)
        .filter(|l| platform.is_none_or(|p| l.platform == p))
        .map(|l| {
            let note = l
                .note
                .as_deref()
                .map(|n| format!(": {}", n.trim_end_matches('.')))
                .unwrap_or_default();
            format!("{} on {}{note}", l.path, l.platform)
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        " {component} lives in its own folder of the toolkit, {}.",
        rows.join("; ")
    )
}

/// The CUDA major a toolkit-library family names ("11.x" → 11, "10.0" → 10; ranges → none).
fn family_major(id: &LibraryIdentity) -> Option<u64> {
    let f = &id.version_family;
    if id.toolkits.is_empty() || f.contains('-') || f.starts_with(">=") {
        return None;
    }
    Version::parse(f).map(|v| v.major())
}

/// What each library is, and a warning when the names come from different CUDA majors.
pub fn library_findings(ids: &[LibraryIdentity]) -> Vec<Finding> {
    let mut out = Vec::new();
    for id in ids {
        let shipped = if id.toolkits.is_empty() {
            String::new()
        } else {
            format!(
                " The CUDA toolkit releases that ship it (the reference's list): CUDA {}.",
                id.toolkits.join(", ")
            )
        };
        let what = match id.version_family.as_str() {
            "driver" => format!(
                "{} is part of the NVIDIA driver ({}), not of a CUDA toolkit.",
                id.file, id.component
            ),
            "unversioned" | "unknown" | "any" => format!("{} is {}.", id.file, id.component),
            // cuDNN, TensorRT, NCCL... families are their own majors, not CUDA releases.
            fam if id.own_family() => {
                format!("{} is {} {fam}.", id.file, id.component)
            }
            fam => format!(
                "{} is {} from the CUDA {fam} family.",
                id.file, id.component
            ),
        };
        let mut detail = format!("{what}{shipped}");
        if let Some(note) = &id.note {
            detail.push_str(&format!(" {note}"));
        }
        detail.push_str(&own_folders(&id.component, &id.file));
        if !id.verified {
            detail.push_str(" (This identification is not confirmed by the reference.)");
        }
        let summary = format!("{}: {} {}", id.file, id.component, id.version_family);
        out.push(
            Finding::new(codes::LIBRARY_IDENTIFIED, Severity::Info, summary, detail)
                .with_libraries([id.file.clone()])
                .with_evidence(Evidence::new("source", id.source.clone())),
        );
    }
    let mut majors: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for id in ids {
        if let Some(m) = family_major(id) {
            majors.entry(m).or_default().push(&id.file);
        }
    }
    if majors.len() > 1 {
        let parts: Vec<String> = majors
            .iter()
            .map(|(m, files)| format!("CUDA {m}: {}", files.join(", ")))
            .collect();
        let files: Vec<String> = majors.values().flatten().map(|f| f.to_string()).collect();
        out.push(
            Finding::new(
                codes::MIXED_CUDA_FAMILIES,
                Severity::Warning,
                "The text names libraries from different CUDA major versions",
                format!(
                    "{}. Each framework build needs the names of one CUDA major version: a CUDA 12 install does not \
                     provide CUDA 11 file names (cublas64_12.dll is not cublas64_11.dll), and mixing majors in one \
                     process fails.",
                    parts.join("; ")
                ),
            )
            .with_libraries(files)
            .with_evidence(Evidence::new(
                "source",
                "one file name per CUDA major family: NVIDIA CUDA Compatibility, minor version compatibility \
                 (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html); NVIDIA's \
                 name lists (https://github.com/NVIDIA/cuda-python/blob/main/cuda_pathfinder/cuda/pathfinder/\
                 _dynamic_libs/supported_nvidia_libs.py); https://github.com/tensorflow/tensorflow/pull/43716 \
                 (the 11.x libcudart soname is versioned 11.0)",
            )),
        );
    }
    out
}
