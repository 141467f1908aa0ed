//! Copy bandwidth: host→device and device→host from pageable (`Vec`) and pinned
//! (`cuMemAllocHost`) memory, and device→device. D2D counts every byte twice (read + write), as
//! NVIDIA's bandwidthTest does, so it compares with the DRAM peak; H2D/D2H compare with the PCIe
//! link's theoretical rate. A byte pattern makes two round trips (pageable → device → device →
//! pinned, then pinned → device → pageable), so every copy kind is checked at sampled offsets.

use super::{Run, fits, measure};
use crate::engine::gpu::ffi::cuda_driver_api::{Cuda, DeviceBuffer, check};
use crate::engine::gpu::ffi::errors::CallError;
use crate::engine::gpu::maths::{self, Reference};
use crate::engine::gpu::peaks;
use crate::engine::gpu::results::{WorkloadKind, WorkloadResult};

/// Number of copy workloads (progress steps).
pub const KINDS: usize = 5;

/// Peaks for the fractions: PCIe one-direction GB/s and DRAM GB/s.
#[derive(Debug, Clone, Copy, Default)]
pub struct CopyPeaks {
    pub pcie_gbps: Option<f64>,
    pub memory_gbps: Option<f64>,
}

fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 11)) as u8
}

pub fn run_all(run: &mut Run<'_>, cuda: &Cuda<'_>, peaks_: CopyPeaks) {
    let bytes = run.plan.copy_bytes;
    if !fits(2 * bytes, cuda.free_memory()) {
        run.stage("Copies");
        run.done += KINDS - 1;
        run.skipped
            .push("copies: not enough free GPU memory".into());
        return;
    }
    let outcome = all(run, cuda, bytes, peaks_);
    if let Err(e) = outcome {
        run.errors.push(("copy bandwidth".into(), e));
    }
}

fn all(run: &mut Run<'_>, cuda: &Cuda<'_>, bytes: usize, pk: CopyPeaks) -> Result<(), CallError> {
    let d1 = cuda.alloc(bytes)?;
    let d2 = cuda.alloc(bytes)?;
    let mut pageable: Vec<u8> = (0..bytes).map(pattern).collect();
    let mut pinned = cuda.alloc_pinned(bytes)?;
    pinned.as_mut_slice().fill(0);

    // Correctness first: pageable → d1 → d2 → pinned must reproduce the pattern.
    cuda.upload(&d1, &pageable)?;
    dtod(cuda, &d2, &d1)?;
    let pinned_ptr = pinned.ptr;
    check("cuMemcpyDtoH_v2", unsafe {
        (cuda.api.cuMemcpyDtoH_v2)(pinned_ptr, d2.ptr, bytes)
    })?;
    let through_pinned_d2h = verify(run, pinned.as_mut_slice());
    // And back through the two paths that trip did not take: pinned → d2 → pageable.
    pageable.fill(0);
    check("cuMemcpyHtoD_v2", unsafe {
        (cuda.api.cuMemcpyHtoD_v2)(d2.ptr, pinned_ptr, bytes)
    })?;
    check("cuMemcpyDtoH_v2", unsafe {
        (cuda.api.cuMemcpyDtoH_v2)(pageable.as_mut_ptr().cast(), d2.ptr, bytes)
    })?;
    let through_pinned_h2d = verify(run, &pageable);
    let size = format!("{} MiB", bytes >> 20);
    let api = &cuda.api;

    let push = |run: &mut Run<'_>,
                name: &str,
                counted: f64,
                peak: Option<f64>,
                correctness: &maths::Correctness,
                r: Result<(f64, usize), CallError>| {
        match r {
            Ok((ms, repeats)) => {
                let gbps = maths::gbps(counted, ms);
                run.results.push(WorkloadResult {
                    name: name.to_string(),
                    kind: WorkloadKind::Copy,
                    dtype: None,
                    size: size.clone(),
                    median_ms: ms,
                    repeats,
                    tflops: None,
                    gbps: Some(gbps),
                    fraction_of_peak: peaks::fraction(gbps, peak),
                    algorithm: None,
                    correctness: correctness.clone(),
                });
            }
            Err(e) => run.errors.push((name.to_string(), e)),
        }
    };
    let (w, n) = (run.plan.warmup, run.plan.repeats);
    let b = bytes as f64;
    let src = pageable.as_ptr();
    run.stage("H2D pageable");
    let r = measure(cuda, w, n, || {
        check("cuMemcpyHtoD_v2", unsafe {
            (api.cuMemcpyHtoD_v2)(d1.ptr, src.cast(), bytes)
        })
    });
    push(run, "H2D pageable", b, pk.pcie_gbps, &through_pinned_d2h, r);
    let dst = pageable.as_mut_ptr();
    run.stage("D2H pageable");
    let r = measure(cuda, w, n, || {
        check("cuMemcpyDtoH_v2", unsafe {
            (api.cuMemcpyDtoH_v2)(dst.cast(), d1.ptr, bytes)
        })
    });
    push(run, "D2H pageable", b, pk.pcie_gbps, &through_pinned_h2d, r);
    run.stage("H2D pinned");
    let r = measure(cuda, w, n, || {
        check("cuMemcpyHtoD_v2", unsafe {
            (api.cuMemcpyHtoD_v2)(d1.ptr, pinned_ptr, bytes)
        })
    });
    push(run, "H2D pinned", b, pk.pcie_gbps, &through_pinned_h2d, r);
    run.stage("D2H pinned");
    let r = measure(cuda, w, n, || {
        check("cuMemcpyDtoH_v2", unsafe {
            (api.cuMemcpyDtoH_v2)(pinned_ptr, d1.ptr, bytes)
        })
    });
    push(run, "D2H pinned", b, pk.pcie_gbps, &through_pinned_d2h, r);
    run.stage("D2D");
    let r = measure(cuda, w, n, || dtod(cuda, &d2, &d1));
    push(run, "D2D", 2.0 * b, pk.memory_gbps, &through_pinned_d2h, r);
    Ok(())
}

fn dtod(cuda: &Cuda<'_>, dst: &DeviceBuffer<'_>, src: &DeviceBuffer<'_>) -> Result<(), CallError> {
    let bytes = dst.bytes.min(src.bytes);
    check("cuMemcpyDtoD_v2", unsafe {
        (cuda.api.cuMemcpyDtoD_v2)(dst.ptr, src.ptr, bytes)
    })
}

/// Compares sampled bytes (and the first and last) with the pattern.
fn verify(run: &mut Run<'_>, data: &[u8]) -> maths::Correctness {
    let n = data.len();
    let mut offsets = vec![0, n.saturating_sub(1)];
    while offsets.len() < run.plan.samples {
        offsets.push(run.rng.below(n));
    }
    let got: Vec<f64> = offsets
        .iter()
        .map(|&i| data.get(i).map_or(f64::NAN, |b| *b as f64))
        .collect();
    let refs: Vec<Reference> = offsets
        .iter()
        .map(|&i| Reference {
            value: pattern(i) as f64,
            abs_sum: 255.0,
        })
        .collect();
    maths::check(&got, &refs, 0.0)
}
