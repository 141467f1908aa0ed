//! The package whose code raised a GPU-architecture error, from a path on the error's own line:
//! a Python package's folder (`site-packages/xformers/...`), a source build's folder named
//! `<package>-<version>` (`/tmp/build-via-sdist-x/flashinfer-0.1.4+cu121torch2.4/include/...`),
//! or the C++ namespace of the function that failed (`faiss::gpu::runL2Norm`).
//! "No kernel image" then names the package whose build lacks the GPU's architecture (FlashInfer
//! 0.1.4 had no sm_75 kernels: https://github.com/sgl-project/sglang/issues/1058), not only the
//! framework.

use crate::engine::finding_codes as codes;
use crate::engine::findings::{Finding, FixKind, FixRef};
use regex::Regex;
use std::sync::OnceLock;

/// Codes whose finding says a build has no code for the GPU's architecture.
const NO_KERNEL_CODES: [&str; 3] = [
    "log-no-kernel-image",
    "cuda-error-209",
    codes::GPU_ARCH_MISSING,
];

/// A source build's folder named `<package>-<version>`.
fn build_folder() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"[/\\]([a-z][a-z0-9_]*)-([0-9]+(?:\.[0-9]+)+)[^/\\\s]*[/\\]",
        )
    })
}

/// Namespaces of the C++ standard library and of generic helpers (and PyTorch's own, which the
/// framework reading already covers): a function in them does not say whose code failed.
const GENERIC_NAMESPACES: [&str; 14] = [
    "std",
    "__cxx11",
    "__gnu_cxx",
    "boost",
    "absl",
    "thrust",
    "cub",
    "detail",
    "internal",
    "impl",
    "c10",
    "at",
    "torch",
    "caffe2",
];

/// The outermost C++ namespace of a function on the line (`faiss::gpu::runL2Norm(...)` in a
/// FAISS assertion: https://github.com/CannyLab/tsne-cuda/issues/116), by its library's name
/// where the namespace is a known one.
fn cpp_namespace_on(line: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?:^|[^A-Za-z0-9_:])([a-z][a-z0-9_]{1,30})::[A-Za-z_]",
        )
    });
    let namespace = re
        .captures_iter(line)
        .map(|c| c.get(1).map_or("", |m| m.as_str()))
        .find(|n| !GENERIC_NAMESPACES.contains(n))?;
    Some(
        super::symbol_owner::cpp_library_of(namespace)
            .unwrap_or(namespace)
            .to_string(),
    )
}

/// The package (and version, when the folder says it) whose path is on `line`: a Python
/// package's folder (the one the traceback reader finds), else a source build's folder, else
/// the C++ library whose function the line names.
pub fn source_package(line: &str) -> Option<SourcePackage> {
    let from_path = |name: String, version: String| SourcePackage {
        name,
        version,
        read_from: "its path",
    };
    super::requester::site_package_on(line)
        .map(|name| from_path(name, String::new()))
        .or_else(|| {
            let c = build_folder().captures(line)?;
            Some(from_path(c[1].to_string(), c[2].to_string()))
        })
        .or_else(|| {
            cpp_namespace_on(line).map(|name| SourcePackage {
                name,
                version: String::new(),
                read_from: "the C++ namespace of the function that failed",
            })
        })
}

/// The package a line names as the code that raised it.
#[derive(Debug, PartialEq, Eq)]
pub struct SourcePackage {
    pub name: String,
    /// Empty when the line does not say it.
    pub version: String,
    /// What on the line named it.
    pub read_from: &'static str,
}

/// Names the package on a no-kernel-image finding's own log line in its detail and fixes.
pub fn name_source_packages(findings: &mut [Finding]) {
    for f in findings
        .iter_mut()
        .filter(|f| NO_KERNEL_CODES.contains(&f.code.as_str()))
    {
        let Some(SourcePackage {
            name,
            version,
            read_from,
        }) = f
            .evidence
            .iter()
            .filter(|e| e.kind == "log")
            .find_map(|e| source_package(&e.text))
        else {
            continue;
        };
        let named = if version.is_empty() {
            name.clone()
        } else {
            format!("{name} {version}")
        };
        f.detail.push_str(&format!(
            " The line names the code that raised it: {named} (from {read_from}), so it is {name}'s \
             build that has no kernel for this GPU's architecture: a release of {name} that does not \
             support the GPU, or a build of it made for other architectures."
        ));
        f.fixes.insert(
            0,
            FixRef {
                id: "advice-package-build-for-gpu".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Install a release of {name} built for this GPU's architecture (its release notes \
                     or README list the GPUs each release supports; newer releases add older \
                     architectures too), or build {name} from source for it; where the program lets \
                     you, turn {name} off or choose another backend."
                ),
            },
        );
    }
}
