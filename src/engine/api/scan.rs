//! The scan entry point: inventory and rule findings of a machine as one report, with the
//! binaries the Dependencies step suggests; and the library sets the GPU test takes from it.

use crate::engine::context::SystemContext;
use crate::engine::gpu::sets::{self, LibrarySet};
use crate::engine::inventory::Inventory;
use crate::engine::progress::Progress;
use crate::engine::report::Report;
use crate::engine::scan::ScanOptions;
use crate::engine::suggest::{self, BinarySuggestion};

/// Scans `ctx` into a report (machine, findings and `inventory`); `None` when `progress` was
/// cancelled before every stage ran.
pub fn scan(ctx: &SystemContext, opts: &ScanOptions, progress: &Progress) -> Option<Report> {
    let result = crate::engine::diagnosis::run_with(ctx, progress, opts);
    if result.cancelled {
        return None;
    }
    let mut report = Report::new(ctx, result.findings);
    report.inventory = Some(result.inventory);
    Some(report)
}

/// The binaries that matter on a scanned machine (each CUDA framework's key library, each
/// toolkit's cuBLAS/cuDNN), each with the process that loads it: the Dependencies step's list.
pub fn suggestions(ctx: &SystemContext, inventory: &Inventory) -> Vec<BinarySuggestion> {
    suggest::binaries(ctx, inventory)
}

/// The library sets the GPU test can take from a scan of `ctx`: each CUDA framework's files as
/// its process resolves them, then each toolkit's.
pub fn gpu_sets(ctx: &SystemContext, inventory: &Inventory) -> Vec<LibrarySet> {
    sets::from_inventory(ctx, inventory)
}
