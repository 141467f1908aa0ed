//! The package whose code raised a GPU-architecture error, from a path on the error's own line:
//! a Python package's folder (`site-packages/xformers/...`) or a source build's folder named
//! `<package>-<version>` (`/tmp/build-via-sdist-x/flashinfer-0.1.4+cu121torch2.4/include/...`).
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

/// The package (and version, when the folder says it) whose path is on `line`: a Python
/// package's folder (the one the traceback reader finds), else a source build's folder.
pub fn source_package(line: &str) -> Option<(String, String)> {
    super::requester::site_package_on(line)
        .map(|name| (name, String::new()))
        .or_else(|| {
            let c = build_folder().captures(line)?;
            Some((c[1].to_string(), c[2].to_string()))
        })
}

/// Names the package on a no-kernel-image finding's own log line in its detail and fixes.
pub fn name_source_packages(findings: &mut [Finding]) {
    for f in findings
        .iter_mut()
        .filter(|f| NO_KERNEL_CODES.contains(&f.code.as_str()))
    {
        let Some((name, version)) = f
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
            " The line names the code that raised it: {named} (from its path), so it is {name}'s \
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
