//! The live GPU test and device facts.
//!
//! * [`nvml`] — device facts and live temperature/power from NVML (nvml-wrapper).
//! * [`runner`] — the parent side: spawns `cuda-triage gpu-test --child` under a timeout and turns
//!   a crash, a hang or a bad answer into findings; never runs GPU code in its own process.
//! * [`child`] — the child side: loads the chosen libraries by absolute path, reports what the OS
//!   mapped and the versions they report, runs the workloads, prints one JSON result.
//! * [`child_libraries`] — the child's loading and identification of cudart, cuBLAS and cuDNN.
//! * [`ffi`] — the C APIs of the driver, cudart, cuBLAS and cuDNN as libloading function tables
//!   with enum values from cudarc's bindings (its loader searches by name, so it cannot test a
//!   user-chosen file).
//! * [`workloads`] — cuBLAS GEMM, cuDNN convolution and copy bandwidth on the device.
//! * [`sets`] — the files each scanned framework's process (or toolkit) would give the test.
//! * [`maths`], [`peaks`], [`select`], [`protocol`], [`results`] — the pure parts, unit-tested.

pub mod child;
pub mod child_libraries;
pub mod ffi;
pub mod maths;
pub mod nvml;
pub mod peaks;
pub mod protocol;
pub mod results;
pub mod runner;
pub mod select;
pub mod sets;
pub mod test_findings;
pub mod workloads;
