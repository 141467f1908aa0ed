//! eframe's options for one renderer choice: wgpu limited to one backend (picking its adapter
//! as wgpu does), wgpu on whichever backend has a software adapter, or the glow renderer; and
//! the adapter a running renderer drew with, in words.

use super::Choice;
use eframe::egui_wgpu::WgpuSetupCreateNew;
use eframe::wgpu;
use std::sync::Arc;

/// `base` set up to draw with `choice`.
pub fn native_options(choice: Choice, base: eframe::NativeOptions) -> eframe::NativeOptions {
    let mut options = base;
    let backends = match choice {
        Choice::Dx12 => wgpu::Backends::DX12,
        Choice::Vulkan => wgpu::Backends::VULKAN,
        Choice::Metal => wgpu::Backends::METAL,
        Choice::Gl => wgpu::Backends::GL,
        Choice::Software => wgpu::Backends::DX12 | wgpu::Backends::VULKAN | wgpu::Backends::GL,
        Choice::Glow => {
            options.renderer = eframe::Renderer::Glow;
            return options;
        }
    };
    options.renderer = eframe::Renderer::Wgpu;
    // The defaults (and the variables wgpu reads: WGPU_POWER_PREF, WGPU_DEBUG...), with the
    // backend set here rather than by WGPU_BACKEND (the plan has read that).
    let mut setup = WgpuSetupCreateNew::without_display_handle();
    setup.instance_descriptor.backends = backends;
    if choice == Choice::Software {
        setup.native_adapter_selector = Some(Arc::new(software_adapter));
    }
    options.wgpu_options.wgpu_setup = setup.into();
    options
}

/// The first software (CPU) adapter that can present to the window: WARP on Windows, lavapipe
/// or llvmpipe on Linux.
fn software_adapter(
    adapters: &[wgpu::Adapter],
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter, String> {
    adapters
        .iter()
        .find(|a| {
            a.get_info().device_type == wgpu::DeviceType::Cpu
                && surface.is_none_or(|s| a.is_surface_supported(s))
        })
        .cloned()
        .ok_or_else(|| {
            let seen: Vec<String> = adapters.iter().map(|a| adapter_text(&a.get_info())).collect();
            format!(
                "no software adapter (WARP, lavapipe, llvmpipe) that can draw the window; adapters: {}",
                if seen.is_empty() {
                    "none".to_string()
                } else {
                    seen.join("; ")
                }
            )
        })
}

/// A wgpu adapter in words: "llvmpipe (LLVM 15.0.6, 256 bits), cpu, Vulkan, Mesa 22.3.6".
pub fn adapter_text(info: &wgpu::AdapterInfo) -> String {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "integrated GPU",
        wgpu::DeviceType::VirtualGpu => "virtual GPU",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    };
    let mut text = format!("{}, {kind}, {:?}", info.name, info.backend);
    let driver = [info.driver.as_str(), info.driver_info.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    if !driver.is_empty() {
        text.push_str(&format!(", {driver}"));
    }
    text
}

/// The adapter the window was drawn with, from what eframe hands the app.
pub fn drawn_with(cc: &eframe::CreationContext<'_>) -> Option<String> {
    if let Some(state) = &cc.wgpu_render_state {
        return Some(adapter_text(&state.adapter.get_info()));
    }
    cc.gl.as_ref().map(|gl| gl_text(gl))
}

/// An OpenGL context in words: "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa".
fn gl_text(gl: &eframe::glow::Context) -> String {
    use eframe::glow::HasContext as _;
    // SAFETY: glGetString on the current context, as eframe made it current for app creation;
    // RENDERER and VERSION are always valid names.
    let (renderer, version) = unsafe {
        (
            gl.get_parameter_string(eframe::glow::RENDERER),
            gl.get_parameter_string(eframe::glow::VERSION),
        )
    };
    format!("{renderer}, OpenGL {version}")
}
