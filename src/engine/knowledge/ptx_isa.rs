//! Which CUDA release a PTX ISA version belongs to: from CUDA 11.8 on, the generated table of each
//! release's own `ptxas` (the newest ISA it accepts); before it, the typed `[[ptx_isa]]` rows of
//! compute_capability.toml (NVIDIA's PTX ISA release history), for the releases no wheel ships.

use super::cudnn::ComputeTables;
use super::generated::generated;
use super::version::compare;
use std::cmp::Ordering;

/// Every (PTX ISA, CUDA release) pair known, oldest first: the typed rows older than the first
/// generated release, then the generated releases.
fn releases(compute: &ComputeTables) -> Vec<(String, String)> {
    let read = generated().ptxas_releases();
    let first_read = read.first().map(|r| r.cuda.clone());
    let older = compute
        .ptx_isas
        .iter()
        .filter(|r| {
            first_read
                .as_deref()
                .is_none_or(|f| compare(&r.cuda, f) == Some(Ordering::Less))
        })
        .map(|r| (r.isa.clone(), r.cuda.clone()));
    let mut all: Vec<(String, String)> = older
        .chain(read.iter().map(|r| (r.ptx_isa.clone(), r.cuda.clone())))
        .collect();
    all.sort_by(|a, b| compare(&a.1, &b.1).unwrap_or(Ordering::Equal));
    all
}

/// The oldest CUDA release whose compiler accepts PTX ISA `isa` ("7.1" → 11.1, "8.5" → 12.5);
/// `None` for an ISA newer than every release known, or older than every one (an earlier
/// release, not in the tables, may be the first).
pub fn first_cuda_for_ptx_isa(isa: &str, compute: &ComputeTables) -> Option<String> {
    let all = releases(compute);
    let oldest = all.first()?;
    if compare(isa, &oldest.0) == Some(Ordering::Less) {
        return None;
    }
    all.into_iter()
        .find(|(i, _)| compare(i, isa).is_some_and(|o| o != Ordering::Less))
        .map(|(_, cuda)| cuda)
}

/// The CUDA releases whose newest PTX ISA is exactly `isa` ("7.0" → ["11.0"]).
pub fn cuda_releases_of_ptx_isa(isa: &str, compute: &ComputeTables) -> Vec<String> {
    releases(compute)
        .into_iter()
        .filter(|(i, _)| compare(i, isa) == Some(Ordering::Equal))
        .map(|(_, cuda)| cuda)
        .collect()
}
