//! The mouse wheel as the wizard's tests and its render benchmark turn it: the pointer over a
//! point, then one turn, both in the next frame's input (one frame, not one per event).

use cuda_triage::ui::TriageApp;
use egui_kittest::Harness;

/// Scrolls the content under `at` down by `amount` lines or pages.
pub fn wheel(
    h: &mut Harness<'_, TriageApp>,
    at: egui::Pos2,
    unit: egui::MouseWheelUnit,
    amount: f32,
) {
    let events = &mut h.input_mut().events;
    events.push(egui::Event::PointerMoved(at));
    events.push(egui::Event::MouseWheel {
        unit,
        delta: egui::vec2(0.0, -amount),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
}
