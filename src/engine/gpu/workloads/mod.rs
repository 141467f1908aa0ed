//! The workloads the child runs on the device: cuBLAS GEMMs ([`gemm`]), cuDNN convolutions
//! ([`conv`]) and copy bandwidth ([`copy`]). Each one uploads fresh random inputs, poisons its
//! output with NaN, runs once and checks sampled outputs against a float64 CPU reference, then
//! times warm-up + repeats with CUDA events and keeps the median.

pub mod conv;
pub mod copy;
pub mod gemm;

use super::ffi::cuda_driver_api::Cuda;
use super::ffi::errors::CallError;
use super::maths::{self, ConvShape, Dtype, GemmShape};
use super::results::WorkloadResult;

/// What to run and how often.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub gemm_sizes: Vec<usize>,
    pub dtypes: Vec<Dtype>,
    pub conv: ConvShape,
    pub copy_bytes: usize,
    pub warmup: usize,
    pub repeats: usize,
    /// Output elements checked against the CPU reference per workload.
    pub samples: usize,
}

/// The convolution of the issue: N=32, C=256, H=W=56, K=256, 3×3, padding 1.
pub const RESNET_CONV: ConvShape = ConvShape {
    n: 32,
    c: 256,
    h: 56,
    w: 56,
    k: 256,
    r: 3,
    s: 3,
    pad: 1,
};

impl Plan {
    /// Sizes up to 8192³, the full convolution, 256 MiB copies.
    pub fn full() -> Plan {
        Plan {
            gemm_sizes: vec![1024, 2048, 4096, 8192],
            dtypes: Dtype::ALL.to_vec(),
            conv: RESNET_CONV,
            copy_bytes: 256 << 20,
            warmup: 3,
            repeats: 10,
            samples: 64,
        }
    }

    /// Small sizes for a check in a few seconds.
    pub fn quick() -> Plan {
        Plan {
            gemm_sizes: vec![1024, 2048],
            conv: ConvShape {
                n: 8,
                ..RESNET_CONV
            },
            copy_bytes: 32 << 20,
            warmup: 1,
            repeats: 5,
            ..Plan::full()
        }
    }

    /// Steps for the progress bar: each GEMM, two convolutions, five copies.
    pub fn steps(&self) -> usize {
        self.gemm_sizes.len() * self.dtypes.len() + 2 + copy::KINDS
    }
}

/// Device memory a GEMM of this size and dtype needs (A, B and C).
pub fn gemm_bytes(size: usize, dtype: Dtype) -> usize {
    3usize
        .saturating_mul(size)
        .saturating_mul(size)
        .saturating_mul(dtype.size())
}

/// Whether `bytes` fits in `free` with a 10 % (at least 256 MiB) margin for library workspaces.
pub fn fits(bytes: usize, free: Option<usize>) -> bool {
    match free {
        None => true,
        Some(free) => {
            let margin = (free / 10).max(256 << 20);
            bytes.saturating_add(margin) <= free
        }
    }
}

/// Runs `op` `warmup` times, then times `repeats` windows with CUDA events; the median time of
/// one op in milliseconds. An op much shorter than a millisecond (a 1024³ fp16 GEMM on an H100)
/// is run several times per window, so the host's submission time between two events does not
/// count as GPU time ([`maths::ops_per_window`]).
pub fn measure(
    cuda: &Cuda<'_>,
    warmup: usize,
    repeats: usize,
    mut op: impl FnMut() -> Result<(), CallError>,
) -> Result<(f64, usize), CallError> {
    for _ in 0..warmup {
        op()?;
    }
    cuda.synchronize()?;
    let per_window = maths::ops_per_window(cuda.time_ms(&mut op)?);
    let mut times = Vec::with_capacity(repeats.max(1));
    for _ in 0..repeats.max(1) {
        let window = cuda.time_ms(|| {
            for _ in 0..per_window {
                op()?;
            }
            Ok(())
        })?;
        times.push(window / per_window as f64);
    }
    let median =
        maths::median(&times).ok_or_else(|| CallError::other("timing", "no valid event time"))?;
    Ok((median, times.len()))
}

/// Reports stages to the parent and collects results and problems.
pub struct Run<'a> {
    pub plan: &'a Plan,
    pub done: usize,
    pub results: Vec<WorkloadResult>,
    /// Problems that stopped a workload, with the workload's name.
    pub errors: Vec<(String, CallError)>,
    pub skipped: Vec<String>,
    pub rng: maths::Rng,
}

impl<'a> Run<'a> {
    pub fn new(plan: &'a Plan) -> Run<'a> {
        Run {
            plan,
            done: 0,
            results: Vec::new(),
            errors: Vec::new(),
            skipped: Vec::new(),
            rng: maths::Rng::new(maths::Rng::fresh_seed()),
        }
    }

    /// Announces the next step.
    pub fn stage(&mut self, name: &str) {
        super::protocol::progress(name, self.done, self.plan.steps());
        self.done += 1;
    }

    pub fn record(&mut self, name: &str, outcome: Result<WorkloadResult, CallError>) {
        match outcome {
            Ok(r) => self.results.push(r),
            Err(e) => self.errors.push((name.to_string(), e)),
        }
    }
}

/// A GEMM label like `GEMM fp16 4096³`.
pub fn gemm_label(dtype: Dtype, shape: GemmShape) -> String {
    if shape.m == shape.n && shape.n == shape.k {
        format!("GEMM {} {}^3", dtype.as_str(), shape.m)
    } else {
        format!(
            "GEMM {} {}x{}x{}",
            dtype.as_str(),
            shape.m,
            shape.n,
            shape.k
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_reach_8192_and_quick_stays_small() {
        let full = Plan::full();
        assert_eq!(full.gemm_sizes.last(), Some(&8192));
        assert_eq!(full.conv, RESNET_CONV);
        assert_eq!(full.steps(), 16 + 2 + copy::KINDS);
        let quick = Plan::quick();
        assert!(quick.gemm_sizes.iter().all(|s| *s <= 2048));
        assert!(quick.copy_bytes < full.copy_bytes);
        assert_eq!(quick.dtypes.len(), 4);
    }

    #[test]
    fn memory_checks() {
        assert_eq!(gemm_bytes(8192, Dtype::Fp32), 3 * 8192 * 8192 * 4);
        assert!(fits(gemm_bytes(8192, Dtype::Fp32), Some(80 << 30)));
        assert!(!fits(gemm_bytes(8192, Dtype::Fp32), Some(900 << 20)));
        assert!(fits(1, None));
        assert_eq!(gemm_bytes(usize::MAX, Dtype::Fp32), usize::MAX);
    }

    #[test]
    fn labels() {
        assert_eq!(
            gemm_label(Dtype::Bf16, GemmShape::cube(4096)),
            "GEMM bf16 4096^3"
        );
        assert_eq!(
            gemm_label(Dtype::Fp32, GemmShape { m: 1, n: 2, k: 3 }),
            "GEMM fp32 1x2x3"
        );
    }
}
