//! The CUDA runtime's own messages (`cudaGetErrorString`'s texts from the generated status
//! table) found in a line, also as programs reword them ("The PTX was compiled with an
//! unsupported toolchain"), with the C library's strerror texts the runtime repeats counted only
//! on a line about CUDA.

use crate::engine::knowledge::generated::{StatusCode, generated};
use aho_corasick::AhoCorasick;
use regex::Regex;
use std::sync::OnceLock;

/// A matcher over the message texts, and the code row and text of each of its patterns.
type MessageMatcher = (Option<AhoCorasick>, Vec<(&'static StatusCode, String)>);

/// The CUDA runtime's own messages (from `cudaGetErrorString`), matched case-insensitively, and
/// the driver API's enumerators spelled as words ("No binary for GPU" is
/// `CUDA_ERROR_NO_BINARY_FOR_GPU`, as mumax3 prints it) where they have three words or more and
/// one of them names something only CUDA has (a GPU, PTX, a kernel, a context):
/// (matcher, the code row and the text of each pattern). A message of fewer than three words
/// only counts on a line that says "CUDA" (see [`runtime_messages_on`]).
fn runtime_messages() -> &'static MessageMatcher {
    static M: OnceLock<MessageMatcher> = OnceLock::new();
    M.get_or_init(|| {
        let codes = &generated().status.code;
        let messages = codes
            .iter()
            .filter(|c| c.number != 0)
            .filter_map(|c| Some((c, message_core(c.text.as_deref()?).to_string())))
            .filter(|(_, t)| t.len() >= 8);
        let enumerators = codes
            .iter()
            .filter(|c| c.number != 0 && c.type_name == "CUresult")
            .filter_map(|c| {
                let bare = c.name.strip_prefix("CUDA_ERROR_")?;
                let words = bare.replace('_', " ");
                (words.split_whitespace().count() >= 3
                    && super::status::names_cuda_only_thing(bare))
                .then_some((c, words.to_lowercase()))
            });
        let mut rows: Vec<(&'static StatusCode, String)> = Vec::new();
        for (row, text) in messages.chain(enumerators) {
            if !rows.iter().any(|(_, t)| t.eq_ignore_ascii_case(&text)) {
                rows.push((row, text));
            }
        }
        rows.extend(cut_short(&rows));
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(rows.iter().map(|(_, t)| t.as_str()))
            .ok();
        (ac, rows)
    })
}

/// Long messages without their last word, as a paste or a program cut them short or
/// misspelled the end (Nanoflow's "peer access is not supported between these two device":
/// https://github.com/efeslab/Nanoflow/issues/22): for messages of six words or more, where no
/// other message starts with the same words.
fn cut_short(rows: &[(&'static StatusCode, String)]) -> Vec<(&'static StatusCode, String)> {
    let lowered: Vec<(i64, String)> = rows
        .iter()
        .map(|(row, t)| (row.number, t.to_ascii_lowercase()))
        .collect();
    rows.iter()
        .filter(|(_, t)| t.split_whitespace().count() >= 6)
        .filter_map(|(row, t)| Some((*row, t.rsplit_once(' ')?.0.to_string())))
        .filter(|(row, short)| {
            let short = short.to_ascii_lowercase();
            lowered
                .iter()
                .all(|(number, t)| *number == row.number || !t.starts_with(&short))
        })
        .collect()
}

/// The words of a runtime message that programs keep when they reword it: without the final
/// full stop and without leading articles ("the provided PTX was compiled with an unsupported
/// toolchain." is printed by miners as "The PTX was compiled with an unsupported toolchain"),
/// as long as three words stay.
fn message_core(text: &str) -> &str {
    let mut core = text.trim().trim_end_matches('.');
    while let Some((first, rest)) = core.split_once(' ') {
        let droppable = ["the", "a", "an", "provided"]
            .iter()
            .any(|w| first.eq_ignore_ascii_case(w));
        if !droppable || rest.split_whitespace().count() < 3 {
            break;
        }
        core = rest;
    }
    core
}

/// The C library's `strerror` texts that CUDA runtime messages repeat word for word (glibc
/// string/_strerror.c; POSIX errno names EPERM, ENOMEM, EINVAL, ENOENT, EBUSY, ENOTSUP).
const STRERROR_TEXTS: &[&str] = &[
    "operation not permitted",
    "out of memory",
    "invalid argument",
    "no such file or directory",
    "device or resource busy",
    "operation not supported",
    // Not strerror's, but what any program says of a missing file (cudaErrorFileNotFound's text).
    "file not found",
];

/// Whether a line is about CUDA: it says "CUDA" (`CUDART`, `cudaMalloc`) or names a driver API
/// function (`cuInit failed: initialization error`, `cuCtxCreate returned ...`).
fn says_cuda(line: &str) -> bool {
    static DRIVER_CALL: OnceLock<Regex> = OnceLock::new();
    line.to_ascii_lowercase().contains("cuda")
        || DRIVER_CALL
            .get_or_init(|| {
                crate::engine::static_regex::compile(r"\bcu(?:Init|Ctx|Device|Mem|Module|Launch|Stream|Event|Graph|Link|Func|Library)[A-Za-z0-9_]*\b")
            })
            .is_match(line)
}

/// CUDA runtime messages found on a line.
pub fn runtime_messages_on(line: &str) -> Vec<&'static StatusCode> {
    let (Some(ac), rows) = runtime_messages() else {
        return Vec::new();
    };
    let says_cuda = says_cuda(line);
    let mut out: Vec<&'static StatusCode> = Vec::new();
    for m in ac.find_iter(line) {
        let (row, text) = &rows[m.pattern().as_usize()];
        let row: &'static StatusCode = row;
        let words = text.split_whitespace().count();
        // The CUDA runtime reuses a few of the C library's strerror texts ("operation not
        // permitted"): on a line that does not say CUDA they are the system's errno.
        let errno_text = STRERROR_TEXTS.iter().any(|e| text.eq_ignore_ascii_case(e));
        // "Runtime Error(801) operation not supported" (PyTorch's Windows build): the number
        // the line gives is the message's own code, so the two confirm each other.
        let agreeing_number = says_number(line, row.number);
        if ((words >= 3 && !errno_text) || says_cuda || agreeing_number)
            && !out.iter().any(|r| r.number == row.number)
        {
            out.push(row);
        }
    }
    if out.is_empty() {
        out.extend(spelled_enumerator_on(line));
    }
    out
}

/// The driver API's shorter enumerators spelled as words, as cuew-based programs print them
/// (`cuewErrorString`: Blender's Cycles prints "CUDA error: Launch failed in
/// cuCtxSynchronize()", "Illegal address in CUDA queue copy_from_device (...)" and "Failed to
/// create CUDA context (Illegal address)"). Words this short ("Launch failed", "Not found") are
/// a status only where the line puts them where cuew's callers do: after "CUDA error:", before
/// " in cuXxx" or " in CUDA queue", or in parentheses on a line about CUDA.
fn spelled_enumerator_on(line: &str) -> Option<&'static StatusCode> {
    static ROWS: OnceLock<Vec<(&'static StatusCode, String)>> = OnceLock::new();
    let rows = ROWS.get_or_init(|| {
        let mut rows: Vec<(&'static StatusCode, String)> = generated()
            .status
            .code
            .iter()
            .filter(|c| c.number != 0 && c.type_name == "CUresult")
            .filter_map(|c| {
                let words = c.name.strip_prefix("CUDA_ERROR_")?.replace('_', " ");
                (words.contains(' ')).then(|| (c, words.to_ascii_lowercase()))
            })
            .collect();
        // The longest first, so "launch out of resources" wins over a shorter overlap.
        rows.sort_by_key(|(_, w)| std::cmp::Reverse(w.len()));
        rows
    });
    // cuew's older table printed the bare enumerator ("ILLEGAL_ADDRESS in cuMemAlloc(...)").
    let lower = line.to_ascii_lowercase().replace('_', " ");
    let says_cuda = says_cuda(line);
    rows.iter()
        .find(|(_, words)| {
            lower.match_indices(words.as_str()).any(|(at, _)| {
                let before = lower[..at].trim_end();
                let after = &line[at + words.len()..];
                let after_cuew_error = before.ends_with("cuda error:");
                let before_driver_call = after.starts_with(" in cu")
                    && after[4..]
                        .chars()
                        .nth(2)
                        .is_some_and(|c| c.is_ascii_uppercase())
                    || after.starts_with(" in CUDA queue");
                let in_parentheses = before.ends_with('(') && after.starts_with(')') && says_cuda;
                after_cuew_error || before_driver_call || in_parentheses
            })
        })
        .map(|(row, _)| *row)
}

/// Whether the line gives `number` as a number of its own (not part of a longer one or a
/// version).
fn says_number(line: &str, number: i64) -> bool {
    let wanted = number.to_string();
    line.match_indices(wanted.as_str()).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + wanted.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
    })
}
