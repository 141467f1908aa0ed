//! Where the diagnosed process ran, as report lines: the container and what says so, the
//! `NVIDIA_*` variables the toolkit reads, the host driver files mounted in, the kernel module,
//! WSL and its driver folder. Shared by the text, Markdown and HTML renderers and the wizard.

use crate::engine::context::MachineSummary;
use crate::engine::context::runs_in::{RunsIn, condensed_requirement};

/// One line per fact about where the machine's process ran; empty on a plain host.
pub fn runs_in_lines(m: &MachineSummary) -> Vec<String> {
    lines(&m.runs_in, m.driver.is_some())
}

/// `driver_found` says whether the scan found a driver library at all: one found without a bind
/// mount came in a folder of the image or a folder mounted whole (an H100 machine's
/// `/usr/local/nvidia/lib64`), not "no driver".
fn lines(r: &RunsIn, driver_found: bool) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = &r.container {
        out.push(format!(
            "Runs in {}: {}",
            c.describe(),
            c.evidence.join("; ")
        ));
        if !c.nvidia_env.is_empty() {
            let vars: Vec<String> = c
                .nvidia_env
                .iter()
                .map(|(k, v)| format!("{k}={}", condensed_requirement(v)))
                .collect();
            out.push(format!("Container variables: {}", vars.join(" ")));
        }
        if c.driver_mounts.is_empty() && driver_found {
            out.push(
                "No driver file is bind-mounted on its own: the driver below is in a folder of the \
                 image or of a folder mount"
                    .into(),
            );
        } else if c.driver_mounts.is_empty() {
            out.push("No driver library is mounted from the host".into());
        } else {
            out.push(format!(
                "Driver mounted from the host: {}",
                c.driver_mounts.join(", ")
            ));
        }
    }
    if let Some(w) = &r.wsl {
        out.push(format!(
            "WSL {}{}: the driver comes from Windows ({})",
            w.version,
            w.kernel
                .as_ref()
                .map(|k| format!(" (kernel {k})"))
                .unwrap_or_default(),
            if w.lib_dir {
                "/usr/lib/wsl/lib is there"
            } else {
                "/usr/lib/wsl/lib is missing"
            }
        ));
    }
    if let Some(k) = &r.kernel_module {
        let whose = if r.container.is_some() {
            " (the host's)"
        } else {
            ""
        };
        out.push(format!("NVIDIA kernel module{whose}: {k}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::context::runs_in::Container;

    fn docker_without_mounts() -> RunsIn {
        RunsIn {
            container: Some(Container {
                engine: "docker".into(),
                evidence: vec!["/.dockerenv exists (Docker)".into()],
                nvidia_env: Default::default(),
                driver_mounts: Vec::new(),
            }),
            wsl: None,
            kernel_module: None,
        }
    }

    /// No bind mount and no driver: the driver is missing. No bind mount but a driver found (the
    /// H100 machine's folder mount): the line must not say the driver is missing.
    #[test]
    fn the_mount_line_agrees_with_the_driver_found() {
        let r = docker_without_mounts();
        let without = lines(&r, false);
        assert!(
            without
                .iter()
                .any(|l| l == "No driver library is mounted from the host")
        );
        let with = lines(&r, true);
        assert!(
            !with.iter().any(|l| l.contains("No driver library")),
            "{with:?}"
        );
        assert!(
            with.iter().any(|l| l.contains("bind-mounted on its own")),
            "{with:?}"
        );
    }
}
