//! Diagnosis rules: each file holds one family of findings, computed from a `SystemContext`
//! (and, as they land, the inventory and dependency graph). Rules never touch the host.

pub mod driver;
pub mod env_paths;
pub mod suggest;
pub mod tree;

use super::context::SystemContext;
use super::findings::Finding;

/// Runs every rule family over a context.
pub fn run_all(ctx: &SystemContext) -> Vec<Finding> {
    let mut findings = Vec::new();
    findings.extend(driver::check(ctx));
    findings.extend(env_paths::check(ctx));
    findings
}
