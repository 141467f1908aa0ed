//! cuBLAS GEMM: SGEMM (fp32, default math: no TF32), and `cublasGemmEx` for TF32
//! (`CUBLAS_COMPUTE_32F_FAST_TF32`), fp16 and bf16 (fp32 accumulation, like torch.matmul).
//! Column-major C = A·B, m = n = k.

use super::{Run, fits, gemm_bytes, gemm_label, measure};
use crate::engine::gpu::ffi::blas::{self, CublasApi, CublasHandle};
use crate::engine::gpu::ffi::cuda_driver_api::{Cuda, DeviceBuffer, Poison};
use crate::engine::gpu::ffi::errors::CallError;
use crate::engine::gpu::maths::{self, Dtype, GemmShape};
use crate::engine::gpu::peaks::{self, GpuPeak};
use crate::engine::gpu::results::{WorkloadKind, WorkloadResult};
use std::ffi::c_void;

/// A cuBLAS handle, destroyed on drop.
pub struct Blas<'a> {
    pub api: &'a CublasApi,
    pub handle: CublasHandle,
}

impl<'a> Blas<'a> {
    pub fn create(api: &'a CublasApi) -> Result<Blas<'a>, CallError> {
        let mut handle: CublasHandle = std::ptr::null_mut();
        status("cublasCreate_v2", unsafe {
            (api.cublasCreate_v2)(&mut handle)
        })?;
        let blas = Blas { api, handle };
        status("cublasSetMathMode", unsafe {
            (api.cublasSetMathMode)(handle, blas::DEFAULT_MATH)
        })?;
        Ok(blas)
    }

    /// `cublasGetVersion_v2`, e.g. 120405 for 12.4.5.
    pub fn version(&self) -> Option<i32> {
        let mut v = 0;
        (unsafe { (self.api.cublasGetVersion_v2)(self.handle, &mut v) } == 0).then_some(v)
    }
}

impl Drop for Blas<'_> {
    fn drop(&mut self) {
        unsafe { (self.api.cublasDestroy_v2)(self.handle) };
    }
}

fn status(call: &str, s: i32) -> Result<(), CallError> {
    if s == 0 {
        Ok(())
    } else {
        Err(CallError::cublas(call, s))
    }
}

/// Runs every dtype × size of the plan that fits in memory.
pub fn run_all(run: &mut Run<'_>, cuda: &Cuda<'_>, blas: &Blas<'_>, peak: Option<&GpuPeak>) {
    let plan = run.plan;
    for &dtype in &plan.dtypes {
        for &size in &plan.gemm_sizes {
            let shape = GemmShape::cube(size);
            let label = gemm_label(dtype, shape);
            run.stage(&label);
            if !fits(gemm_bytes(size, dtype), cuda.free_memory()) {
                run.skipped
                    .push(format!("{label}: not enough free GPU memory"));
                continue;
            }
            let outcome = one(run, cuda, blas, dtype, shape, peak);
            run.record(&label, outcome);
        }
    }
}

/// Host data in the dtype's storage format.
enum Host {
    F32(Vec<f32>),
    U16(Vec<u16>),
}

fn to_storage(values: &[f32], dtype: Dtype) -> Host {
    match dtype {
        Dtype::Fp32 | Dtype::Tf32 => Host::F32(values.to_vec()),
        Dtype::Fp16 => Host::U16(
            values
                .iter()
                .map(|v| half::f16::from_f32(*v).to_bits())
                .collect(),
        ),
        Dtype::Bf16 => Host::U16(
            values
                .iter()
                .map(|v| half::bf16::from_f32(*v).to_bits())
                .collect(),
        ),
    }
}

fn upload(cuda: &Cuda<'_>, buf: &DeviceBuffer<'_>, host: &Host) -> Result<(), CallError> {
    match host {
        Host::F32(v) => cuda.upload(buf, v),
        Host::U16(v) => cuda.upload(buf, v),
    }
}

/// Reads output element `index` as f64.
fn read_element(
    cuda: &Cuda<'_>,
    buf: &DeviceBuffer<'_>,
    dtype: Dtype,
    index: usize,
) -> Result<f64, CallError> {
    match dtype {
        Dtype::Fp32 | Dtype::Tf32 => {
            let mut v = [0f32; 1];
            cuda.download_at(buf, index, &mut v)?;
            Ok(v[0] as f64)
        }
        Dtype::Fp16 | Dtype::Bf16 => {
            let mut v = [0u16; 1];
            cuda.download_at(buf, index, &mut v)?;
            Ok(if dtype == Dtype::Fp16 {
                half::f16::from_bits(v[0]).to_f64()
            } else {
                half::bf16::from_bits(v[0]).to_f64()
            })
        }
    }
}

fn one(
    run: &mut Run<'_>,
    cuda: &Cuda<'_>,
    blas: &Blas<'_>,
    dtype: Dtype,
    shape: GemmShape,
    peak: Option<&GpuPeak>,
) -> Result<WorkloadResult, CallError> {
    let plan = run.plan;
    let a = run.rng.fill(shape.m * shape.k, dtype);
    let b = run.rng.fill(shape.k * shape.n, dtype);
    let elem = dtype.size();
    let da = cuda.alloc(shape.m * shape.k * elem)?;
    let db = cuda.alloc(shape.k * shape.n * elem)?;
    let dc = cuda.alloc(shape.m * shape.n * elem)?;
    upload(cuda, &da, &to_storage(&a, dtype))?;
    upload(cuda, &db, &to_storage(&b, dtype))?;
    let gemm = || launch(blas, dtype, shape, &da, &db, &dc);

    let poison = match dtype {
        Dtype::Fp32 | Dtype::Tf32 => Poison::F32,
        Dtype::Fp16 => Poison::F16,
        Dtype::Bf16 => Poison::Bf16,
    };
    cuda.poison(&dc, poison)?;
    gemm()?;
    cuda.synchronize()?;
    let positions = maths::sample_positions(&mut run.rng, shape.m, shape.n, plan.samples);
    let mut got = Vec::with_capacity(positions.len());
    let mut refs = Vec::with_capacity(positions.len());
    for &(i, j) in &positions {
        got.push(read_element(cuda, &dc, dtype, i + j * shape.m)?);
        refs.push(maths::gemm_reference_at(&a, &b, shape, i, j));
    }
    let correctness = maths::check(&got, &refs, dtype.error_bound());

    let (median_ms, repeats) = measure(cuda, plan.warmup, plan.repeats, gemm)?;
    let tflops = maths::tflops(shape.flops(), median_ms);
    Ok(WorkloadResult {
        name: gemm_label(dtype, shape),
        kind: WorkloadKind::Gemm,
        dtype: Some(dtype),
        size: format!("m=n=k={}", shape.m),
        median_ms,
        repeats,
        tflops: Some(tflops),
        gbps: None,
        fraction_of_peak: peaks::fraction(tflops, peak.map(|p| p.peak_tflops(dtype))),
        algorithm: None,
        correctness,
    })
}

fn launch(
    blas: &Blas<'_>,
    dtype: Dtype,
    s: GemmShape,
    a: &DeviceBuffer<'_>,
    b: &DeviceBuffer<'_>,
    c: &DeviceBuffer<'_>,
) -> Result<(), CallError> {
    let (alpha, beta) = (1.0f32, 0.0f32);
    let (m, n, k) = (s.m as i32, s.n as i32, s.k as i32);
    let ptr = |d: &DeviceBuffer<'_>| d.ptr as usize as *mut c_void;
    let api = blas.api;
    if dtype == Dtype::Fp32 {
        return status("cublasSgemm_v2", unsafe {
            (api.cublasSgemm_v2)(
                blas.handle,
                blas::OP_N,
                blas::OP_N,
                m,
                n,
                k,
                &alpha,
                ptr(a),
                m,
                ptr(b),
                k,
                &beta,
                ptr(c),
                m,
            )
        });
    }
    let (data, compute) = match dtype {
        Dtype::Tf32 => (blas::CUDA_R_32F, blas::COMPUTE_32F_FAST_TF32),
        Dtype::Fp16 => (blas::CUDA_R_16F, blas::COMPUTE_32F),
        _ => (blas::CUDA_R_16BF, blas::COMPUTE_32F),
    };
    status("cublasGemmEx", unsafe {
        (api.cublasGemmEx)(
            blas.handle,
            blas::OP_N,
            blas::OP_N,
            m,
            n,
            k,
            (&alpha as *const f32).cast(),
            ptr(a),
            data,
            m,
            ptr(b),
            data,
            k,
            (&beta as *const f32).cast(),
            ptr(c),
            data,
            m,
            compute,
            blas::GEMM_DEFAULT,
        )
    })
}
