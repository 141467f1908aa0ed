//! Diagnosis rules: each file holds one family of findings, computed from a `SystemContext`
//! and the scan's `Inventory` (and the processes of [`crate::engine::graph::process`]). Rules never touch the host.

pub mod builds;
pub mod closure;
mod closure_own;
mod closure_probe;
pub mod container_require;
pub mod containers;
pub mod cudnn_zlib;
pub mod cupti;
pub mod cupy_nvcc;
pub mod driver;
pub mod driver_versions;
pub mod env_paths;
pub mod framework_libs;
pub mod framework_versions;
pub mod import_errors;
pub mod jax_plugins;
pub mod ptxas_arch;
pub mod triton;
pub mod wheels;
pub mod wsl;
pub mod xla;

use super::context::SystemContext;
use super::findings::Finding;
use super::inventory::Inventory;

/// Runs every rule family over a context and what the scan found on it.
pub fn run_all(ctx: &SystemContext, inventory: &Inventory) -> Vec<Finding> {
    let mut findings = Vec::new();
    findings.extend(driver::check(ctx));
    findings.extend(containers::check(ctx, inventory));
    findings.extend(driver_versions::check(ctx));
    findings.extend(container_require::check(ctx));
    findings.extend(wsl::check(ctx));
    findings.extend(env_paths::check(ctx));
    findings.extend(framework_libs::check(ctx, inventory));
    findings.extend(framework_versions::check(ctx, inventory));
    findings.extend(import_errors::check(inventory));
    findings.extend(jax_plugins::check(ctx, inventory));
    findings.extend(cudnn_zlib::check(ctx, inventory));
    findings.extend(cupti::check(ctx, inventory));
    findings.extend(cupti::asked_names(ctx, inventory));
    findings.extend(xla::check(ctx, inventory));
    findings.extend(ptxas_arch::check(ctx, inventory));
    findings.extend(triton::check(ctx, inventory));
    findings.extend(cupy_nvcc::check(ctx, inventory));
    findings.extend(builds::check(ctx, inventory));
    findings.extend(wheels::check(ctx, inventory));
    let closure = closure::check(ctx, inventory, &findings);
    findings.extend(closure);
    findings
}

#[cfg(test)]
mod tests;
