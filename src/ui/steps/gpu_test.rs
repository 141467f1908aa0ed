//! GPU test step: a live cuBLAS/cuDNN/bandwidth test in a child process (lands with the GPU-test issue).

use super::UiCommand;
use crate::ui::app::TriageApp;

pub fn gpu_test_ui(ui: &mut egui::Ui, _app: &TriageApp, _commands: &mut Vec<UiCommand>) {
    ui.heading("GPU test");
    super::coming_ui(
        ui,
        "Here you will run a live test on your own libraries: a cuBLAS matrix multiply, a cuDNN \
         convolution and memory bandwidth, checked for correctness and measured against the GPU's peak.",
    );
}
