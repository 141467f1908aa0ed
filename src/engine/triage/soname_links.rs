//! A load error for a soname (`libcudart.so.12`) where the text also shows the same library
//! under a longer version (`libcudart.so.12.0` in an `ls` of the folder): the file is there, the
//! link named after its SONAME is not. The loader opens only the exact name; the link is what
//! `ldconfig` (run on the folder) or the library's package creates, and a copy that lost it
//! (a bundle, an archive extracted without links) cannot be found by that name.

use super::library_failure::failed_libraries;
use crate::engine::findings::{Finding, FixKind, FixRef};
use crate::engine::knowledge::LibraryIdentity;
use regex::Regex;

/// Adds, to each load error for a Linux soname whose longer-versioned file the text shows on a
/// line of its own, that the soname link is what is missing, and how to make it.
pub fn name_missing_soname_links(
    findings: &mut [Finding],
    identities: &[LibraryIdentity],
    text: &str,
) {
    for (f, id) in failed_libraries(findings, identities) {
        let Some(longer) = longer_version_shown(text, &id.file) else {
            continue;
        };
        let words = format!(
            " The text shows {longer}, the same library with a longer version, but not {file}: the \
             file is there and the link named {file} (its SONAME, which the loader asks for) is \
             not. ldconfig or the library's package creates that link; a copied or bundled \
             folder, or an archive unpacked without its links, lacks it.",
            file = id.file
        );
        if f.detail.contains(words.trim()) {
            continue;
        }
        // Said first: it is what this text shows beyond the loader's generic reading.
        f.detail = format!("{} {}", words.trim(), f.detail);
        f.fixes.insert(
            0,
            FixRef {
                id: "advice-create-soname-link".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "In the folder that holds {longer}: ln -s {longer} {file} (or sudo ldconfig \
                     <that folder>, which creates the link from the file's SONAME); where a \
                     program unpacks the folder itself, update it to a release that ships the link.",
                    file = id.file
                ),
            },
        );
    }
}

/// A name `file.N[.M…]` on a line that is a folder listing: it names no failure and not `file`
/// itself (cuDNN's "Unable to load any of {libcudnn_ops.so.9.1.0, …, libcudnn_ops.so}" lists
/// the names it tried, none of which is there).
fn longer_version_shown(text: &str, file: &str) -> Option<String> {
    if !file.contains(".so") || file.contains('/') {
        return None;
    }
    let longer = Regex::new(&format!(
        r"(?:^|[\s/]){}((?:\.[0-9]+)+)\b",
        regex::escape(file)
    ))
    .ok()?;
    let names_file = |line: &str| {
        line.split(|c: char| c.is_whitespace() || ",:;{}()[]'\"/".contains(c))
            .any(|token| token == file)
    };
    let says_failure = |line: &str| {
        let lower = line.to_ascii_lowercase();
        super::driver_library::FAILURE_WORDS
            .iter()
            .any(|w| lower.contains(w))
    };
    text.lines()
        .filter(|line| !names_file(line) && !says_failure(line))
        .find_map(|line| longer.captures(line))
        .map(|c| format!("{file}{}", &c[1]))
}
