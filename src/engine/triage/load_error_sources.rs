//! What installs a library that a load error names, said in that error: a toolkit library comes
//! with the CUDA toolkit or its `nvidia-*` pip wheel and never with the driver (the wheels' file
//! lists, generated); an unversioned name (`libnvidia-ml.so`, `libcudart.so`) is a development
//! link that the runtime packages do not install, so a program that opens the bare name needs the
//! development package or a link to the versioned file; a Windows error 126 for a library whose
//! note names the dependency that error usually stands for (zlibwapi.dll) says so.

use super::library_failure::failed_libraries;
use crate::engine::findings::{Finding, FixKind, FixRef};
use crate::engine::knowledge::generated::{LibraryFile, generated};
use crate::engine::knowledge::{LibraryIdentity, knowledge};

/// Adds, to each load error that names one identified library which its log line says did not
/// load, what installs that library (and for an unversioned name, how the bare name is provided).
pub fn name_sources_in_load_errors(findings: &mut [Finding], identities: &[LibraryIdentity]) {
    for (f, id) in failed_libraries(findings, identities) {
        if let Some(words) = dependency_note(id, f) {
            f.detail.push_str(&words);
        }
        if id.version_family == "unversioned" {
            if let Some((words, fix)) = unversioned_link(id)
                && !f.detail.contains(words.trim())
            {
                f.detail.push_str(&words);
                f.fixes.push(fix);
            }
        } else if let Some(words) = installed_by(id)
            && !f.detail.contains(words.trim())
        {
            f.detail.push_str(&words);
        }
    }
}

/// What the library's own note says a Windows "module not found" (error 126, "or one of its
/// dependencies") for it can mean (the cuDNN 8.3+ DLLs' zlibwapi.dll), for a load error that
/// is one and does not say it yet.
fn dependency_note(id: &LibraryIdentity, f: &Finding) -> Option<String> {
    let log_says_126 = f.evidence.iter().any(|e| {
        let lower = e.text.to_ascii_lowercase();
        e.kind == "log" && (lower.contains("126") || lower.contains("one of its dependencies"))
    });
    if !log_says_126 {
        return None;
    }
    let sentences: Vec<&str> = id
        .note
        .as_deref()?
        .split(". ")
        .filter(|s| s.contains("error 126"))
        .collect();
    let words = format!(" {}", sentences.join(". ").trim_end_matches('.'));
    (!sentences.is_empty() && !f.detail.contains(words.trim())).then(|| format!("{words}."))
}

/// The wheels' row for a name, as asked or (a soname) with trailing version numbers taken off
/// one by one (`libnccl.so.2.21.5` → `libnccl.so.2`).
fn shipped_row(name: &str) -> Option<&'static LibraryFile> {
    let mut candidate = name.to_string();
    loop {
        if let Some(row) = generated().files_named(&candidate).into_iter().next() {
            return Some(row);
        }
        let idx = candidate.rfind('.')?;
        let tail = &candidate[idx + 1..];
        if !candidate[..idx].contains(".so") || !tail.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        candidate.truncate(idx);
    }
}

/// " libnvrtc.so.11.2 is installed by the CUDA toolkit (CUDA 11.2-11.8) or the pip wheel
/// nvidia-cuda-nvrtc-cu11, not by the NVIDIA driver." Nothing for a driver library or a name
/// no wheel ships.
pub(super) fn installed_by(id: &LibraryIdentity) -> Option<String> {
    if id.version_family == "driver" || id.component == "driver" {
        return None;
    }
    let row = shipped_row(&id.file)?;
    let wheels = wheel_names(row);
    let toolkits = if id.toolkits.is_empty() {
        &row.toolkits
    } else {
        &id.toolkits
    };
    let by = match (toolkits.first(), toolkits.last()) {
        (Some(first), Some(last)) if first == last => {
            format!("the CUDA toolkit (CUDA {first}) or the pip wheel {wheels}")
        }
        (Some(first), Some(last)) => {
            format!("the CUDA toolkit (CUDA {first} to {last}) or the pip wheel {wheels}")
        }
        _ => format!(
            "NVIDIA's own {} package (not part of the CUDA toolkit) or its pip wheels ({wheels})",
            row.component
        ),
    };
    Some(format!(
        " {} is installed by {by}, not by the NVIDIA driver.",
        id.file
    ))
}

/// The distribution names of a row's wheels, without their version ranges.
fn wheel_names(row: &LibraryFile) -> String {
    let names: Vec<&str> = row
        .wheels
        .iter()
        .filter_map(|w| w.split_whitespace().next())
        .collect();
    names.join(" / ")
}

/// The versioned files an unversioned Linux name stands for: the driver's `.so.1`, or the
/// sonames the wheels ship under that name (`libcudart.so.11.0`, `libcudart.so.12`).
fn versioned_names(id: &LibraryIdentity) -> Vec<String> {
    let k = knowledge();
    let driver_name = format!("{}.1", id.file);
    if k.libraries
        .identify(&driver_name)
        .is_some_and(|d| d.version_family == "driver" && d.component == id.component)
    {
        return vec![driver_name];
    }
    let prefix = format!("{}.", id.file);
    let mut names: Vec<String> = generated()
        .libraries
        .file
        .iter()
        .filter_map(|f| f.name.strip_prefix(&prefix))
        .filter(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(|v| format!("{prefix}{v}"))
        .collect();
    // The shortest name per major version: the soname (`libcudart.so.11.0`), not a full version.
    names.sort_by_key(|n| n.len());
    let mut sonames: Vec<String> = Vec::new();
    for name in names {
        let major = |n: &str| n[prefix.len()..].split('.').next().map(str::to_string);
        if !sonames.iter().any(|s| major(s) == major(&name)) {
            sonames.push(name);
        }
    }
    sonames.sort();
    sonames
}

/// The words and the fix for an unversioned Linux name a program opened: nothing for a name
/// that is not a Linux shared object or whose versioned files are not known.
fn unversioned_link(id: &LibraryIdentity) -> Option<(String, FixRef)> {
    if !id.file.ends_with(".so") {
        return None;
    }
    let versioned = versioned_names(id);
    let target = match versioned.as_slice() {
        [] => return None,
        [one] => one.clone(),
        _ => format!("{}.N", id.file),
    };
    let words = format!(
        " {file} carries no version: it is the development link that build tools use, and the \
         runtime packages (the NVIDIA driver, the CUDA runtime packages, the pip wheels) install \
         only the versioned file ({list}). A program that opens the bare name finds it only where \
         a development package or a symbolic link provides it.",
        file = id.file,
        list = versioned.join(", ")
    );
    let fix = FixRef {
        id: "advice-link-unversioned".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Install the development package that provides {file} (Debian/Ubuntu: the library's \
             -dev package, such as libnvidia-ml-dev for NVML or cuda-cudart-dev-12-x for the CUDA \
             runtime), or create the link next to the versioned file that is installed: sudo ln -s \
             {target} {file} in the folder that holds {target}, then sudo ldconfig. Do not point it \
             at the toolkit's lib64/stubs copy: stubs are link-time placeholders that fail at run \
             time.",
            file = id.file
        ),
    };
    Some((words, fix))
}
