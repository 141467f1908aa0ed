//! Where the diagnosed process ran, as report lines: the container and what says so, the
//! `NVIDIA_*` variables the toolkit reads, the host driver files mounted in, the kernel module,
//! WSL and its driver folder. Shared by the text, Markdown and HTML renderers and the wizard.

use crate::engine::context::runs_in::RunsIn;

/// One line per fact; empty on a plain host.
pub fn runs_in_lines(r: &RunsIn) -> Vec<String> {
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
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            out.push(format!("Container variables: {}", vars.join(" ")));
        }
        if c.driver_mounts.is_empty() {
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
