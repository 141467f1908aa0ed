//! A load error for one major of a library (`libcudnn_ops_infer.so.8`, cuDNN 8) where the text
//! also shows a pip wheel of that library at another major (`nvidia-cudnn-cu12 9.1.0.70`, as
//! `pip list` or pip's "Requirement already satisfied" prints it): the library is installed, in
//! the wrong major for what asks for it, so adding a path does not help. Which wheel ships which
//! library comes from the wheels' generated file lists.

use super::library_failure::failed_libraries;
use crate::engine::findings::Finding;
use crate::engine::knowledge::LibraryIdentity;
use crate::engine::knowledge::generated::generated;
use regex::Regex;
use std::sync::OnceLock;

/// Adds, to each load error for a library whose wheel the text shows at another major, which
/// wheel and major the text shows and what follows.
pub fn name_other_majors_in_load_errors(
    findings: &mut [Finding],
    identities: &[LibraryIdentity],
    text: &str,
) {
    let wheels = wheels_shown(text);
    if wheels.is_empty() {
        return;
    }
    for (f, id) in failed_libraries(findings, identities) {
        let Some(asked) = asked_major(id) else {
            continue;
        };
        let Some((dist, version, shown)) = wheels.iter().find_map(|(dist, version)| {
            let shown = wheel_major(dist, version, &id.component)?;
            (shown != asked).then_some((dist, version, shown))
        }) else {
            continue;
        };
        let (asked_words, shown_words, built) = if id.own_family() {
            let c = &id.component;
            (
                format!("{c} {asked}"),
                format!("{c} {shown}"),
                format!("{c} {asked}"),
            )
        } else {
            let c = &id.component;
            (
                format!("the {c} of CUDA {asked}"),
                format!("the {c} of CUDA {shown}"),
                format!("CUDA {asked}"),
            )
        };
        let words = format!(
            " The text shows {dist} {version} installed: {shown_words}, while {file} is \
             {asked_words}. The library is there in another major, which does not satisfy a \
             program built for {built} (no path setting helps): install {asked_words} beside \
             it, or use a release of what asks for it that is built for {shown_words}.",
            file = id.file
        );
        if !f.detail.contains(words.trim()) {
            // Said first: the text's own fact outweighs the loader's general reading.
            f.detail = format!("{} {}", words.trim(), f.detail);
        }
    }
}

/// The major a failed library's name asks for: cuDNN 8's, or for a toolkit library its CUDA
/// major ("11.x", "10.0" → 11, 10); none for a range or an unversioned name.
fn asked_major(id: &LibraryIdentity) -> Option<u32> {
    let f = &id.version_family;
    if f.contains('-') || f.starts_with(">=") {
        return None;
    }
    f.split('.').next()?.parse().ok()
}

/// (distribution, version) of each NVIDIA wheel the text names with a version: `pip list`'s
/// "nvidia-cudnn-cu12 9.1.0.70", pip's "nvidia-cudnn-cu12==9.1.0.70".
fn wheels_shown(text: &str) -> Vec<(String, String)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)(?:^|[\s'\x22(])((?:nvidia-[a-z0-9-]+|cutensor-cu[0-9]+|tensorrt(?:-cu[0-9]+)?(?:-libs)?))(?:==|[ \t]+)v?([0-9]+(?:\.[0-9]+)+)\b",
        )
    });
    let mut out: Vec<(String, String)> = Vec::new();
    for c in re.captures_iter(text) {
        let pair = (c[1].to_ascii_lowercase(), c[2].to_string());
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

/// The major of `component` that wheel `dist` at `version` ships, where the generated file
/// lists say the wheel ships that component: a library with its own releases (cuDNN, NCCL)
/// by the wheel's version, a toolkit library by the CUDA major of the wheel (its -cuNN suffix,
/// else the family of the files it ships).
fn wheel_major(dist: &str, version: &str, component: &str) -> Option<u32> {
    let files: Vec<_> = generated()
        .libraries
        .file
        .iter()
        .filter(|f| f.component == component)
        .filter(|f| {
            f.wheels
                .iter()
                .any(|w| w.split_whitespace().next() == Some(dist))
        })
        .collect();
    let family = &files.first()?.family;
    if !family.starts_with("CUDA ") {
        return version.split('.').next()?.parse().ok();
    }
    if let Some((_, suffix)) = dist.rsplit_once("-cu")
        && let Ok(major) = suffix.parse()
    {
        return Some(major);
    }
    family
        .strip_prefix("CUDA ")?
        .split('-')
        .next()?
        .parse()
        .ok()
}
