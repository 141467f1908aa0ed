//! Diagnosis rules: each file holds one family of findings, computed from a `SystemContext`
//! and the scan's `Inventory` (and the processes of [`crate::engine::graph::process`]). Rules
//! never touch the host. Every rule is a `check(&RuleInput) -> Vec<Finding>` with its row in
//! [`RULES`], which [`run_all`] runs in order.

pub mod builds;
pub mod closure;
mod closure_own;
mod closure_probe;
pub mod container_require;
pub mod containers;
pub mod cudnn_zlib;
pub mod cupti;
pub mod cupy_nvcc;
pub mod driver_presence;
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

/// What every rule reads: the machine, what the scan found on it, and the findings of the rules
/// before it in [`RULES`] (so a later rule, as `closure`, does not report a library twice).
pub struct RuleInput<'a> {
    pub ctx: &'a SystemContext,
    pub inventory: &'a Inventory,
    pub earlier: &'a [Finding],
}

impl<'a> RuleInput<'a> {
    /// The input of a rule run on its own (no earlier findings).
    pub fn new(ctx: &'a SystemContext, inventory: &'a Inventory) -> RuleInput<'a> {
        RuleInput {
            ctx,
            inventory,
            earlier: &[],
        }
    }
}

/// A rule: one family of findings, the `check` of its file.
pub type Rule = fn(&RuleInput) -> Vec<Finding>;

/// Every rule, in the order they run (and their findings are listed). `closure` comes last: it
/// reads the findings of all the others.
pub const RULES: &[Rule] = &[
    driver_presence::check,
    containers::check,
    driver_versions::check,
    container_require::check,
    wsl::check,
    env_paths::check,
    framework_libs::check,
    framework_versions::check,
    import_errors::check,
    jax_plugins::check,
    cudnn_zlib::check,
    cupti::check,
    xla::check,
    ptxas_arch::check,
    triton::check,
    cupy_nvcc::check,
    builds::check,
    wheels::check,
    closure::check,
];

/// Runs every rule of [`RULES`] over a context and what the scan found on it.
pub fn run_all(ctx: &SystemContext, inventory: &Inventory) -> Vec<Finding> {
    let mut findings = Vec::new();
    for rule in RULES {
        let found = rule(&RuleInput {
            ctx,
            inventory,
            earlier: &findings,
        });
        findings.extend(found);
    }
    findings
}

#[cfg(test)]
mod tests;
