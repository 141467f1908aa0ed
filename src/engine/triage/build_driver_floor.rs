//! A build named for a CUDA release (`+cu121`, `libcudnn8 8.9.3.28-1+cuda12.1`) and a driver the
//! same text shows (nvidia-smi's table, a "driver version" line) that is older than the oldest
//! driver any build of that CUDA major runs on: the build cannot run on that driver. From CUDA
//! 11 on a driver of the major's first release runs every minor of it (minor version
//! compatibility), so the floor is that release's minimum, the lower of Linux's and Windows'.

use super::build_tags::BuildTag;
use crate::engine::context::Platform;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::version::compare;
use std::cmp::Ordering;

/// One error per build tag of the text (`build_tags`) whose CUDA needs a newer driver than one
/// of the drivers the text shows (`chains::driver_versions`).
pub fn driver_below_build_findings(
    tags: &[BuildTag],
    drivers: &[(String, String)],
    k: &Knowledge,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for tag in tags {
        let Some(floor) = floor_of(tag, k) else {
            continue;
        };
        let Some((driver, line)) = drivers
            .iter()
            .find(|(d, _)| compare(d, &floor) == Some(Ordering::Less))
        else {
            continue;
        };
        let supports = k
            .drivers
            .newest_cuda_for_linux_driver(driver)
            .map(|c| format!(" (it supports CUDA up to {c})"))
            .unwrap_or_default();
        out.push(
            Finding::new(
                codes::DRIVER_TOO_OLD,
                Severity::Error,
                format!(
                    "{} is built for CUDA {}, which needs NVIDIA driver {floor} or newer; the driver the text shows is {driver}",
                    tag.tag, tag.cuda
                ),
                format!(
                    "The text names a build for CUDA {cuda} ({}) and shows NVIDIA driver \
                     {driver}{supports}. A build for CUDA {cuda} runs only on a driver of at least \
                     {floor} (the oldest driver of its CUDA major; from CUDA 11 on, one driver runs \
                     every minor release of its major): on this driver it fails to load or to \
                     initialise (cuDNN or cuBLAS not initialised, 'driver version is insufficient', \
                     'no CUDA-capable device'), unless the CUDA forward-compatibility package \
                     (cuda-compat, data-center GPUs only) is installed.",
                    tag.tag,
                    cuda = tag.cuda
                ),
            )
            .with_evidence(Evidence::new("log", tag.line.clone()))
            .with_evidence(Evidence::new("log", line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html (CUDA Toolkit \
                 and minimum driver versions; minor version compatibility)",
            ))
            .with_fix(FixRef {
                id: "advice-driver-or-build".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Update the NVIDIA driver to {floor} or newer, or install the build of that \
                     package made for a CUDA release the driver supports{supports}."
                ),
            }),
        );
    }
    out
}

/// The oldest driver that runs a build for the tag's CUDA release: for CUDA 11 and newer the
/// minimum of the major's first release, before that of the release itself; the lower of the
/// Linux and Windows minimums.
fn floor_of(tag: &BuildTag, k: &Knowledge) -> Option<String> {
    let (major, _) = tag.cuda.split_once('.')?;
    let major_number: u32 = major.parse().ok()?;
    let release = if major_number >= 11 {
        format!("{major}.0")
    } else {
        tag.cuda.clone()
    };
    [Platform::Linux, Platform::Windows]
        .into_iter()
        .filter_map(|p| k.drivers.min_driver(&release, p))
        .map(|d| d.min_driver)
        .min_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal))
}
