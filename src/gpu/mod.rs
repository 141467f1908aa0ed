//! GPU access: device facts from NVML. The live GPU test (child-process runner and cudarc
//! workloads) lands here with its own issue.

pub mod nvml;
