//! The pure maths of the GPU test, kept away from any driver call so it is unit-tested on every
//! machine: a seeded random source, the float64 reference GEMM and convolution evaluated at
//! sampled output indices, per-dtype error bounds, the median, and the throughput formulas.

use serde::{Deserialize, Serialize};

/// The element type a workload computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// IEEE float32 inputs and arithmetic (cuBLAS default math, no tensor-core rounding).
    Fp32,
    /// float32 storage, inputs rounded to TF32 (10-bit mantissa) on tensor cores.
    Tf32,
    /// IEEE half inputs and output, float32 accumulation.
    Fp16,
    /// bfloat16 inputs and output, float32 accumulation.
    Bf16,
}

impl Dtype {
    pub const ALL: [Dtype; 4] = [Dtype::Fp32, Dtype::Tf32, Dtype::Fp16, Dtype::Bf16];

    pub fn as_str(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Tf32 => "tf32",
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
        }
    }

    /// Bytes per stored element.
    pub fn size(self) -> usize {
        match self {
            Dtype::Fp32 | Dtype::Tf32 => 4,
            Dtype::Fp16 | Dtype::Bf16 => 2,
        }
    }

    /// Largest accepted relative error, measured against the sum of absolute products (so a
    /// cancelling sum cannot make an honest result look wrong), in unit roundoffs u: fp32
    /// u=2^-24, tf32 u=2^-11, fp16 u=2^-11, bf16 u=2^-8.
    /// - fp32: 64u, room for a long accumulation chain (k up to 8192 ~ 2^13).
    /// - tf32: 8u; both inputs are rounded to tf32 inside the GEMM (2u), plus accumulation and
    ///   split-k partial sums.
    /// - fp16/bf16: 2u; the inputs are already exact in the dtype (the test rounds them), products
    ///   are exact in the fp32 accumulator, so what is left is the output's rounding and, with
    ///   cuBLAS's default reduced-precision split-k, partial sums rounded to the dtype (at most
    ///   u of the sum of absolute products). A looser bound would let an all-zero bf16 output pass
    ///   at k = 8192, where |C| is ~1/68 of that sum; the magnitude check in [`check`] adds to it.
    pub fn error_bound(self) -> f64 {
        let (unit_roundoff, growth) = match self {
            Dtype::Fp32 => (2f64.powi(-24), 64.0),
            Dtype::Tf32 => (2f64.powi(-11), 8.0),
            Dtype::Fp16 => (2f64.powi(-11), 2.0),
            Dtype::Bf16 => (2f64.powi(-8), 2.0),
        };
        unit_roundoff * growth
    }

    /// Rounds a float32 value to what this dtype stores (tf32 stays float32 in memory).
    pub fn store(self, x: f32) -> f32 {
        match self {
            Dtype::Fp32 | Dtype::Tf32 => x,
            Dtype::Fp16 => half::f16::from_f32(x).to_f32(),
            Dtype::Bf16 => half::bf16::from_f32(x).to_f32(),
        }
    }
}

/// SplitMix64: small, seeded and reproducible; fresh inputs come from a fresh seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A seed that differs from run to run (clock and process id).
    pub fn fresh_seed() -> u64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9);
        nanos ^ (u64::from(std::process::id()) << 32)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn uniform(&mut self) -> f32 {
        let bits = (self.next_u64() >> 40) as u32; // 24 random bits
        (bits as f32 / (1u32 << 23) as f32) - 1.0
    }

    /// Uniform integer in [0, n); 0 when n is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// `n` values uniform in [-1, 1), rounded to what `dtype` stores.
    pub fn fill(&mut self, n: usize, dtype: Dtype) -> Vec<f32> {
        (0..n).map(|_| dtype.store(self.uniform())).collect()
    }
}

/// A GEMM problem: C (m×n) = A (m×k) · B (k×n), all column-major with leading dimensions
/// m, k and m (cuBLAS's convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GemmShape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl GemmShape {
    pub fn cube(size: usize) -> GemmShape {
        GemmShape {
            m: size,
            n: size,
            k: size,
        }
    }

    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

/// A reference value and the sum of absolute products that scales its error bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reference {
    pub value: f64,
    pub abs_sum: f64,
}

/// C(i, j) in float64 from column-major A and B.
pub fn gemm_reference_at(a: &[f32], b: &[f32], shape: GemmShape, i: usize, j: usize) -> Reference {
    let (mut value, mut abs_sum) = (0.0f64, 0.0f64);
    for p in 0..shape.k {
        let x = a.get(i + p * shape.m).copied().unwrap_or(f32::NAN) as f64;
        let y = b.get(p + j * shape.k).copied().unwrap_or(f32::NAN) as f64;
        value += x * y;
        abs_sum += (x * y).abs();
    }
    Reference { value, abs_sum }
}

/// `count` distinct-enough (row, column) positions of an m×n output, always including the corners.
pub fn sample_positions(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    count: usize,
) -> Vec<(usize, usize)> {
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    let mut out = vec![(0, 0), (rows - 1, cols - 1)];
    while out.len() < count {
        out.push((rng.below(rows), rng.below(cols)));
    }
    out.truncate(count.max(1));
    out
}

/// Memory layout of a 4-D activation tensor (and of the filter, which follows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    Nchw,
    Nhwc,
}

impl Layout {
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Nchw => "NCHW",
            Layout::Nhwc => "NHWC",
        }
    }
}

/// A stride-1, dilation-1 2-D cross-correlation (what cuDNN and PyTorch call convolution).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvShape {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub k: usize,
    pub r: usize,
    pub s: usize,
    pub pad: usize,
}

impl ConvShape {
    /// Output height and width; zero when the filter does not fit.
    pub fn output_hw(&self) -> (usize, usize) {
        let p = (self.h + 2 * self.pad + 1).saturating_sub(self.r);
        let q = (self.w + 2 * self.pad + 1).saturating_sub(self.s);
        (p, q)
    }

    pub fn input_len(&self) -> usize {
        self.n * self.c * self.h * self.w
    }

    pub fn filter_len(&self) -> usize {
        self.k * self.c * self.r * self.s
    }

    pub fn output_len(&self) -> usize {
        let (p, q) = self.output_hw();
        self.n * self.k * p * q
    }

    pub fn flops(&self) -> f64 {
        let (p, q) = self.output_hw();
        2.0 * (self.n * self.k * p * q) as f64 * (self.c * self.r * self.s) as f64
    }

    /// Offset of x[n, c, h, w] in the layout.
    pub fn input_index(&self, layout: Layout, n: usize, c: usize, h: usize, w: usize) -> usize {
        match layout {
            Layout::Nchw => ((n * self.c + c) * self.h + h) * self.w + w,
            Layout::Nhwc => ((n * self.h + h) * self.w + w) * self.c + c,
        }
    }

    /// Offset of filter[k, c, r, s] (KCRS for NCHW, KRSC for NHWC).
    pub fn filter_index(&self, layout: Layout, k: usize, c: usize, r: usize, s: usize) -> usize {
        match layout {
            Layout::Nchw => ((k * self.c + c) * self.r + r) * self.s + s,
            Layout::Nhwc => ((k * self.r + r) * self.s + s) * self.c + c,
        }
    }

    /// Offset of y[n, k, p, q] in the layout.
    pub fn output_index(&self, layout: Layout, n: usize, k: usize, p: usize, q: usize) -> usize {
        let (ph, qw) = self.output_hw();
        match layout {
            Layout::Nchw => ((n * self.k + k) * ph + p) * qw + q,
            Layout::Nhwc => ((n * ph + p) * qw + q) * self.k + k,
        }
    }
}

/// y[n, k, p, q] in float64, with zero padding.
pub fn conv_reference_at(
    x: &[f32],
    filter: &[f32],
    shape: &ConvShape,
    layout: Layout,
    (n, k, p, q): (usize, usize, usize, usize),
) -> Reference {
    let (mut value, mut abs_sum) = (0.0f64, 0.0f64);
    for c in 0..shape.c {
        for r in 0..shape.r {
            let Some(h) = (p + r).checked_sub(shape.pad).filter(|h| *h < shape.h) else {
                continue;
            };
            for s in 0..shape.s {
                let Some(w) = (q + s).checked_sub(shape.pad).filter(|w| *w < shape.w) else {
                    continue;
                };
                let xv = x
                    .get(shape.input_index(layout, n, c, h, w))
                    .copied()
                    .unwrap_or(f32::NAN) as f64;
                let fv = filter
                    .get(shape.filter_index(layout, k, c, r, s))
                    .copied()
                    .unwrap_or(f32::NAN) as f64;
                value += xv * fv;
                abs_sum += (xv * fv).abs();
            }
        }
    }
    Reference { value, abs_sum }
}

/// Relative error of a GPU value against its reference; infinite for NaN or infinity (which
/// is how an output left at its poisoned NaN shows up).
pub fn relative_error(got: f64, reference: Reference) -> f64 {
    if !got.is_finite() {
        return f64::INFINITY;
    }
    let scale = reference.abs_sum.max(f64::MIN_POSITIVE);
    (got - reference.value).abs() / scale
}

/// The verdict on one workload's sampled outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Correctness {
    pub samples: usize,
    pub max_relative_error: f64,
    pub bound: f64,
    /// Sampled outputs that were still NaN (never written) or non-finite.
    pub non_finite: usize,
    /// Root-mean-square of the sampled results over that of the references: 1 for a right result.
    /// Catches an output of the right order of error but the wrong size (all zeros, a wrong
    /// scale) that per-element bounds against the sum of absolute products can miss.
    /// `None` when the references are all zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub magnitude_ratio: Option<f64>,
    pub passed: bool,
}

/// How far [`Correctness::magnitude_ratio`] may be from 1.
pub const MAGNITUDE_TOLERANCE: f64 = 0.05;

/// Checks GPU values against references with the dtype's bound.
pub fn check(got: &[f64], references: &[Reference], bound: f64) -> Correctness {
    let mut max_err = 0.0f64;
    let mut non_finite = 0;
    for (g, r) in got.iter().zip(references) {
        let e = relative_error(*g, *r);
        if !e.is_finite() {
            non_finite += 1;
        } else {
            max_err = max_err.max(e);
        }
    }
    let samples = got.len().min(references.len());
    let magnitude_ratio = rms_ratio(got, references);
    let magnitude_ok = magnitude_ratio.is_none_or(|r| (r - 1.0).abs() <= MAGNITUDE_TOLERANCE);
    Correctness {
        samples,
        max_relative_error: max_err,
        bound,
        non_finite,
        magnitude_ratio,
        passed: samples > 0
            && got.len() == references.len()
            && non_finite == 0
            && max_err <= bound
            && magnitude_ok,
    }
}

/// RMS(got) / RMS(reference values) over the finite pairs; `None` when the references are 0.
fn rms_ratio(got: &[f64], references: &[Reference]) -> Option<f64> {
    let (mut g2, mut r2) = (0.0f64, 0.0f64);
    for (g, r) in got.iter().zip(references).filter(|(g, _)| g.is_finite()) {
        g2 += g * g;
        r2 += r.value * r.value;
    }
    (r2 > 0.0).then(|| (g2 / r2).sqrt())
}

/// The median of the values (mean of the middle two for an even count); `None` when empty or
/// when any value is NaN.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    })
}

/// How many runs of an op one timing window holds, from one op's time: enough to fill about a
/// millisecond (at most 64), so launch and submission gaps between events are amortised; 1 for
/// ops of a millisecond or more, or an unusable time.
pub fn ops_per_window(one_op_ms: f64) -> usize {
    const WINDOW_MS: f64 = 1.0;
    if one_op_ms.is_nan() || one_op_ms <= 0.0 || one_op_ms >= WINDOW_MS {
        return 1;
    }
    ((WINDOW_MS / one_op_ms).ceil() as usize).clamp(1, 64)
}

/// TFLOPS from a FLOP count and milliseconds; 0 for a non-positive time.
pub fn tflops(flops: f64, ms: f64) -> f64 {
    if ms > 0.0 {
        flops / (ms * 1e-3) / 1e12
    } else {
        0.0
    }
}

/// GB/s (10^9 bytes per second) from bytes and milliseconds; 0 for a non-positive time.
pub fn gbps(bytes: f64, ms: f64) -> f64 {
    if ms > 0.0 {
        bytes / (ms * 1e-3) / 1e9
    } else {
        0.0
    }
}

/// Theoretical one-direction PCIe bandwidth in GB/s for a link generation and width:
/// transfer rate per lane times line-code efficiency (8b/10b up to gen 2, 128b/130b for gens
/// 3 to 5, FLIT mode 242/256 for gen 6), as the PCI-SIG base specifications define them.
pub fn pcie_gbps(generation: u32, width: u32) -> Option<f64> {
    let (gt_per_s, efficiency) = match generation {
        1 => (2.5, 0.8),
        2 => (5.0, 0.8),
        3 => (8.0, 128.0 / 130.0),
        4 => (16.0, 128.0 / 130.0),
        5 => (32.0, 128.0 / 130.0),
        6 => (64.0, 242.0 / 256.0),
        _ => return None,
    };
    (width > 0).then(|| gt_per_s * efficiency / 8.0 * width as f64)
}

#[cfg(test)]
mod tests;
