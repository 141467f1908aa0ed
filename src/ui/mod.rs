//! The desktop wizard (eframe/egui): a step list on the left, one step on the right,
//! Back/Next and a status bar below. App state is plain data (`app::TriageApp`); step
//! functions draw and emit `UiCommand`s that the app applies after drawing. The window is
//! opened by [`renderer`], which tries each renderer in turn until one draws it.

pub mod app;
pub mod first_frame;
pub mod fleet_view;
pub mod glossary;
pub mod paste;
pub mod prefs;
pub mod renderer;
pub mod report_export;
pub mod steps;
pub mod theme;
pub mod tree_rows;
pub mod worker;

pub use app::TriageApp;

/// The name eframe keeps the wizard's storage under (and the window's title).
pub const APP_NAME: &str = "CUDA Triage";

/// Whether a graphical display is there to open a window on.
pub fn display_available() -> bool {
    if cfg!(any(windows, target_os = "macos")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Opens the wizard window and runs until it is closed, with the first renderer that can draw
/// it (`renderer`). A fix that an earlier run left half applied is rolled back by a worker job
/// started here (the window opens at once); the status bar and the Fix step's history say what
/// it did.
pub fn run(mut app: TriageApp) -> Result<(), renderer::WindowError> {
    app.start_fix_recovery();
    renderer::open_window(app, native_options)
}

/// The window's options before a renderer is chosen.
fn native_options() -> eframe::NativeOptions {
    let mut viewport = egui::ViewportBuilder::default();
    // The same picture as the Windows .exe's icon (src/build.rs).
    if let Ok(icon) =
        eframe::icon_data::from_png_bytes(include_bytes!("../../assets/icon/cuda-triage-256.png"))
    {
        viewport = viewport.with_icon(icon);
    }
    eframe::NativeOptions {
        viewport: viewport
            .with_title(APP_NAME)
            .with_inner_size([1100.0, 720.0])
            .with_min_inner_size([760.0, 480.0])
            .with_drag_and_drop(true),
        ..Default::default()
    }
}
