//! Which renderer draws the wizard's window, and what happens when one cannot. The people who
//! double-click CUDA Triage often have a broken graphics stack (no driver or a half-installed
//! one, Microsoft Basic Display Adapter, a remote desktop, a VM), so the window is tried with
//! each renderer in turn until one paints a frame: wgpu on the platform's native backends
//! (Direct3D 12, Vulkan, OpenGL on Windows; Vulkan, OpenGL on Linux; Metal on macOS), then wgpu
//! on a software adapter (WARP, lavapipe, llvmpipe), then eframe's own OpenGL renderer (glow).
//!
//! The one that worked is remembered ([`memory`]) and tried first at the next start, so a machine
//! that needs a fallback pays for the failed attempts once. `CUDA_TRIAGE_RENDERER` (one of the
//! [`Choice`] names) or wgpu's own `WGPU_BACKEND` force a choice ([`Forced`]); a forced choice is
//! not remembered. [`plan::Plan`] is the order and its bookkeeping, plain data; [`options`] turns
//! a choice into eframe's options; [`attempt`] wraps the app to see the first frame painted;
//! [`run`] ties them together.

pub mod attempt;
pub mod memory;
pub mod options;
pub mod plan;
pub mod run;

pub use plan::{Failure, Plan, Remembered};
pub use run::{WindowError, open_window};

use serde::{Deserialize, Serialize};

/// The variable that forces a renderer by its [`Choice::name`].
pub const RENDERER_VARIABLE: &str = "CUDA_TRIAGE_RENDERER";
/// wgpu's own variable: a comma-separated list of backends (`vulkan`, `dx12`, `metal`, `gl`).
pub const WGPU_BACKEND_VARIABLE: &str = "WGPU_BACKEND";

/// One way to draw the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    /// wgpu on Direct3D 12 (Windows).
    Dx12,
    /// wgpu on Vulkan.
    Vulkan,
    /// wgpu on Metal (macOS).
    Metal,
    /// wgpu on OpenGL (EGL on Linux, WGL on Windows).
    Gl,
    /// wgpu on whichever backend offers a software (CPU) adapter: WARP, lavapipe, llvmpipe.
    Software,
    /// eframe's OpenGL renderer (glutin: GLX or EGL on Linux, WGL on Windows).
    Glow,
}

impl Choice {
    pub const ALL: [Choice; 6] = [
        Choice::Dx12,
        Choice::Vulkan,
        Choice::Metal,
        Choice::Gl,
        Choice::Software,
        Choice::Glow,
    ];

    /// The name `CUDA_TRIAGE_RENDERER` takes, the remembered file and reports use.
    pub fn name(self) -> &'static str {
        match self {
            Choice::Dx12 => "dx12",
            Choice::Vulkan => "vulkan",
            Choice::Metal => "metal",
            Choice::Gl => "gl",
            Choice::Software => "software",
            Choice::Glow => "glow",
        }
    }

    /// In words, for the log, the tooltip and the report.
    pub fn label(self) -> &'static str {
        match self {
            Choice::Dx12 => "wgpu on Direct3D 12",
            Choice::Vulkan => "wgpu on Vulkan",
            Choice::Metal => "wgpu on Metal",
            Choice::Gl => "wgpu on OpenGL",
            Choice::Software => "wgpu on a software adapter",
            Choice::Glow => "OpenGL through glow",
        }
    }

    /// A choice by its name (any case, surrounding blanks ignored).
    pub fn parse(text: &str) -> Option<Choice> {
        let text = text.trim();
        Choice::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(text))
    }

    /// The wgpu backend a name of `WGPU_BACKEND` stands for (wgpu's own spellings).
    fn from_wgpu_name(text: &str) -> Option<Choice> {
        match text.trim().to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => Some(Choice::Vulkan),
            "dx12" | "d3d12" => Some(Choice::Dx12),
            "metal" | "mtl" => Some(Choice::Metal),
            "opengl" | "gles" | "gl" => Some(Choice::Gl),
            _ => None,
        }
    }

    /// The order tried on this platform, most capable first, software last.
    pub fn platform_order() -> &'static [Choice] {
        if cfg!(windows) {
            &[
                Choice::Dx12,
                Choice::Vulkan,
                Choice::Gl,
                Choice::Software,
                Choice::Glow,
            ]
        } else if cfg!(target_os = "macos") {
            &[Choice::Metal, Choice::Glow]
        } else {
            &[Choice::Vulkan, Choice::Gl, Choice::Software, Choice::Glow]
        }
    }
}

/// Choices an environment variable forces, and which variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forced {
    pub choices: Vec<Choice>,
    pub by: &'static str,
}

impl Forced {
    /// What the two variables force, given their values, and a warning for a value that names
    /// nothing (it is then ignored). `CUDA_TRIAGE_RENDERER` wins over `WGPU_BACKEND`, whose
    /// backends are tried in `order`'s order.
    pub fn from_values(
        renderer: Option<&str>,
        wgpu_backend: Option<&str>,
        order: &[Choice],
    ) -> (Option<Forced>, Option<String>) {
        let mut warning = None;
        if let Some(value) = renderer.filter(|v| !v.trim().is_empty()) {
            match Choice::parse(value) {
                Some(choice) => {
                    return (
                        Some(Forced {
                            choices: vec![choice],
                            by: RENDERER_VARIABLE,
                        }),
                        None,
                    );
                }
                None => {
                    let names: Vec<&str> = Choice::ALL.iter().map(|c| c.name()).collect();
                    warning = Some(format!(
                        "{RENDERER_VARIABLE}={value} is not one of {}; ignored",
                        names.join(", ")
                    ));
                }
            }
        }
        if let Some(value) = wgpu_backend.filter(|v| !v.trim().is_empty()) {
            let named: Vec<Choice> = value
                .split(',')
                .filter_map(Choice::from_wgpu_name)
                .collect();
            let choices: Vec<Choice> = order
                .iter()
                .copied()
                .filter(|c| named.contains(c))
                .collect();
            if choices.is_empty() {
                warning = Some(format!(
                    "{WGPU_BACKEND_VARIABLE}={value} names no backend this build has here; ignored"
                ));
            } else {
                return (
                    Some(Forced {
                        choices,
                        by: WGPU_BACKEND_VARIABLE,
                    }),
                    warning,
                );
            }
        }
        (None, warning)
    }

    /// What this process's environment forces (a warning is printed on stderr).
    pub fn from_env() -> Option<Forced> {
        let get = |name: &str| std::env::var(name).ok();
        let (forced, warning) = Forced::from_values(
            get(RENDERER_VARIABLE).as_deref(),
            get(WGPU_BACKEND_VARIABLE).as_deref(),
            Choice::platform_order(),
        );
        if let Some(w) = warning {
            eprintln!("cuda-triage: {w}");
        }
        forced
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINUX: &[Choice] = &[Choice::Vulkan, Choice::Gl, Choice::Software, Choice::Glow];

    #[test]
    fn names_read_back() {
        for c in Choice::ALL {
            assert_eq!(Choice::parse(&c.name().to_uppercase()), Some(c));
            let toml = toml::to_string(&plan::Remembered {
                renderer: c,
                failed: vec![],
            })
            .unwrap();
            assert!(toml.contains(&format!("\"{}\"", c.name())), "{toml}");
        }
        assert_eq!(Choice::parse("directx"), None);
    }

    #[test]
    fn the_app_variable_forces_one_renderer_and_wins_over_wgpu_backend() {
        let (forced, warning) = Forced::from_values(Some("glow"), Some("vulkan"), LINUX);
        assert_eq!(
            forced,
            Some(Forced {
                choices: vec![Choice::Glow],
                by: RENDERER_VARIABLE
            })
        );
        assert_eq!(warning, None);
    }

    #[test]
    fn wgpu_backend_forces_its_backends_in_the_platform_order() {
        let (forced, _) = Forced::from_values(None, Some("GL, vulkan"), LINUX);
        assert_eq!(forced.unwrap().choices, vec![Choice::Vulkan, Choice::Gl]);
        // DX12 is not a backend here: nothing is forced, and the warning says so.
        let (forced, warning) = Forced::from_values(None, Some("dx12"), LINUX);
        assert_eq!(forced, None);
        assert!(warning.unwrap().contains("WGPU_BACKEND=dx12"));
    }

    #[test]
    fn an_unknown_renderer_name_is_ignored_with_a_warning() {
        let (forced, warning) = Forced::from_values(Some("directx"), None, LINUX);
        assert_eq!(forced, None);
        let warning = warning.unwrap();
        assert!(
            warning.contains("CUDA_TRIAGE_RENDERER=directx"),
            "{warning}"
        );
        assert!(warning.contains("software, glow"), "{warning}");
    }
}
