//! A load error whose line shows the library with a folder (`/usr/lib/x86_64-linux-gnu/
//! libnvidia-ml.so.1: cannot open shared object file`): the program asked the loader for that
//! exact path, so no search took place, and the file is not at that path. A driver library
//! opened by a Debian-style path is the common case: Fedora, RHEL, openSUSE and Arch keep the
//! driver's libraries in other folders, and the program finds none there.

use crate::engine::findings::{Finding, FixKind, FixRef, Severity};
use regex::Regex;
use std::sync::OnceLock;

/// Adds, to each load error whose log line names the library by a full path, that the path
/// itself was asked for, and how to make the library be there.
pub fn name_full_path_loads(findings: &mut [Finding]) {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?:^|[\s'\x22(])(/[^\s:'\x22]*/)(lib[^\s/:'\x22]+\.so(?:\.[0-9]+)*): cannot open shared object file",
        )
    });
    for f in findings
        .iter_mut()
        .filter(|f| f.severity == Severity::Error)
    {
        let Some((folder, name)) = f
            .evidence
            .iter()
            .filter(|e| e.kind == "log")
            .find_map(|e| re.captures(&e.text))
            .map(|c| (c[1].to_string(), c[2].to_string()))
        else {
            continue;
        };
        if !f.summary.contains(&name) || f.detail.contains("by its full path") {
            continue;
        }
        let driver = name.starts_with("libnvidia-") || name.starts_with("libcuda.");
        let layouts = if driver {
            " The NVIDIA driver's libraries are in /usr/lib/x86_64-linux-gnu on Debian and \
             Ubuntu, in /usr/lib64 on Fedora, RHEL and openSUSE, in /usr/lib on Arch, and in \
             /usr/lib/wsl/lib under WSL 2: a program that opens one by a Debian path finds \
             nothing elsewhere, even with a working driver."
        } else {
            ""
        };
        f.detail = format!(
            "The program asked for {folder}{name} by its full path, so the loader looked in no \
             other folder: the file is not at that path.{layouts} {}",
            f.detail
        );
        f.fixes.insert(
            0,
            FixRef {
                id: "advice-provide-full-path".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Find where {name} is (ldconfig -p | grep {stem}; find / -name '{stem}*' \
                     2>/dev/null) and link it at the path the program asks for (sudo ln -s \
                     <that file> {folder}{name}), or configure the program to load it by name or \
                     from that folder; report the fixed path to the program's authors.",
                    stem = name.split(".so").next().unwrap_or(&name)
                ),
            },
        );
    }
}
