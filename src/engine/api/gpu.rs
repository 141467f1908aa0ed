//! The GPU test, for both front ends (`cuda-triage gpu-test` and the wizard's GPU step): the
//! library selection (chosen files, a folder, a scanned set), the test run in a child process
//! with its streamed updates and outcome, the child's own entry point, and the result types of
//! the `"gpu"` key. A finished test joins a document only through
//! [`with_gpu_test`](super::report::with_gpu_test).

pub use crate::engine::gpu::child::{ChildArgs, main as run_child};
pub use crate::engine::gpu::results::{
    GpuReport, Role, SensorSample, Verdict, WorkloadKind, WorkloadResult,
};
pub use crate::engine::gpu::runner::{FULL_TIMEOUT, Options, Outcome, QUICK_TIMEOUT, Update, run};
pub use crate::engine::gpu::select::{Selection, default_names, list_files};
pub use crate::engine::gpu::sets::LibrarySet;
