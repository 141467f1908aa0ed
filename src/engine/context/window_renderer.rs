//! How the wizard drew its window on the computer it ran on: the renderer (a wgpu backend, wgpu's
//! software adapter, or OpenGL through glow), the adapter, and the renderers that failed before it
//! there. It says something about that machine's graphics stack (a missing or broken driver, a
//! VM, a remote desktop), so the wizard's reports of this computer carry it as `machine.renderer`.
//! The engine only carries and prints it: the wizard fills it (`ui::renderer`).

use serde::{Deserialize, Serialize};

/// The `"renderer"` object of a report's machine section (absent from every report but the
/// wizard's of the computer it ran on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRenderer {
    /// The renderer as `CUDA_TRIAGE_RENDERER` names it: `dx12`, `vulkan`, `metal`, `gl`,
    /// `software` or `glow`.
    pub name: String,
    /// The same in words ("wgpu on Vulkan").
    pub label: String,
    /// The adapter it drew with, as its driver names it, and its kind (a software one is `cpu`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
    /// The renderers that failed on this machine before it was chosen, in the order tried.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<RendererFailure>,
    /// The variable that forced it (`CUDA_TRIAGE_RENDERER` or `WGPU_BACKEND`), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_by: Option<String>,
}

/// A renderer that could not draw the window, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RendererFailure {
    /// As in [`WindowRenderer::name`].
    pub name: String,
    pub error: String,
}

impl WindowRenderer {
    /// One line: "wgpu on Vulkan (llvmpipe …, cpu), after wgpu on Direct3D 12 failed: …".
    pub fn summary(&self) -> String {
        let mut out = self.label.clone();
        if let Some(adapter) = &self.adapter {
            out.push_str(&format!(" ({adapter})"));
        }
        if let Some(by) = &self.forced_by {
            out.push_str(&format!(", forced by {by}"));
        }
        if !self.failed.is_empty() {
            let failed: Vec<String> = self
                .failed
                .iter()
                .map(|f| format!("{}: {}", f.name, f.error))
                .collect();
            out.push_str(&format!("; failed first: {}", failed.join("; ")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::report::Report;

    #[test]
    fn a_report_keeps_and_shows_how_the_window_was_drawn() {
        let json = serde_json::json!({
            "schema": "cuda-triage/1",
            "machine": {
                "platform": "windows",
                "wsl": false,
                "source": {"kind": "live"},
                "renderer": {
                    "name": "vulkan",
                    "label": "wgpu on Vulkan",
                    "adapter": "llvmpipe (LLVM 15.0.6, 256 bits), cpu, Vulkan",
                    "failed": [{"name": "dx12", "error": "WGPU error: Parent device is lost"}]
                }
            },
            "findings": []
        });
        let doc: Report = serde_json::from_value(json.clone()).unwrap();
        let r = doc.machine.renderer.as_ref().expect("read back");
        assert_eq!(r.forced_by, None);
        let summary = "wgpu on Vulkan (llvmpipe (LLVM 15.0.6, 256 bits), cpu, Vulkan); \
                       failed first: dx12: WGPU error: Parent device is lost";
        assert_eq!(r.summary(), summary);
        // Written back as it was read (keys sorted, the absent ones left out).
        let back: serde_json::Value = serde_json::from_str(&doc.to_json_pretty()).unwrap();
        assert_eq!(back["machine"]["renderer"], json["machine"]["renderer"]);
        assert!(crate::engine::report::markdown::render(&doc).contains(summary));
        assert!(
            crate::engine::report::text::render_text(&doc, false)
                .contains(&format!("Window:  drawn with {summary}"))
        );

        // A report without it (every command line report) has no key.
        let mut plain = doc.clone();
        plain.machine.renderer = None;
        assert!(!plain.to_json_pretty().contains("\"renderer\""));
    }
}
