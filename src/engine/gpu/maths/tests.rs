//! Unit tests of the GPU test's pure maths: references, bounds, median and formulas.

use super::*;

fn naive_gemm(a: &[f32], b: &[f32], s: GemmShape) -> Vec<f64> {
    let mut c = vec![0.0; s.m * s.n];
    for j in 0..s.n {
        for i in 0..s.m {
            for p in 0..s.k {
                c[i + j * s.m] += a[i + p * s.m] as f64 * b[p + j * s.k] as f64;
            }
        }
    }
    c
}

#[test]
fn gemm_reference_matches_a_full_naive_product_on_a_rectangular_problem() {
    let s = GemmShape { m: 5, n: 3, k: 7 };
    let mut rng = Rng::new(1);
    let a = rng.fill(s.m * s.k, Dtype::Fp32);
    let b = rng.fill(s.k * s.n, Dtype::Fp32);
    let full = naive_gemm(&a, &b, s);
    for j in 0..s.n {
        for i in 0..s.m {
            let r = gemm_reference_at(&a, &b, s, i, j);
            assert!((r.value - full[i + j * s.m]).abs() < 1e-12);
            assert!(r.abs_sum >= r.value.abs());
        }
    }
}

#[test]
fn gemm_reference_of_a_known_product() {
    // A = [[1, 2], [3, 4]] and B = identity, column-major.
    let a = [1.0, 3.0, 2.0, 4.0];
    let b = [1.0, 0.0, 0.0, 1.0];
    let s = GemmShape::cube(2);
    assert_eq!(gemm_reference_at(&a, &b, s, 1, 0).value, 3.0);
    assert_eq!(gemm_reference_at(&a, &b, s, 0, 1).value, 2.0);
    assert_eq!(s.flops(), 16.0);
}

#[test]
fn gemm_reference_out_of_range_is_nan_not_a_panic() {
    let r = gemm_reference_at(&[1.0], &[1.0], GemmShape::cube(4), 3, 3);
    assert!(r.value.is_nan());
}

#[test]
fn conv_reference_matches_a_direct_loop_in_both_layouts() {
    let shape = ConvShape {
        n: 2,
        c: 3,
        h: 5,
        w: 4,
        k: 2,
        r: 3,
        s: 3,
        pad: 1,
    };
    assert_eq!(shape.output_hw(), (5, 4));
    let mut rng = Rng::new(7);
    let x_nchw = rng.fill(shape.input_len(), Dtype::Fp32);
    let f_kcrs = rng.fill(shape.filter_len(), Dtype::Fp32);
    // The same tensors re-laid out as NHWC / KRSC.
    let mut x_nhwc = vec![0.0; x_nchw.len()];
    let mut f_krsc = vec![0.0; f_kcrs.len()];
    for n in 0..shape.n {
        for c in 0..shape.c {
            for h in 0..shape.h {
                for w in 0..shape.w {
                    x_nhwc[shape.input_index(Layout::Nhwc, n, c, h, w)] =
                        x_nchw[shape.input_index(Layout::Nchw, n, c, h, w)];
                }
            }
        }
    }
    for k in 0..shape.k {
        for c in 0..shape.c {
            for r in 0..shape.r {
                for s in 0..shape.s {
                    f_krsc[shape.filter_index(Layout::Nhwc, k, c, r, s)] =
                        f_kcrs[shape.filter_index(Layout::Nchw, k, c, r, s)];
                }
            }
        }
    }
    for (n, k, p, q) in [(0, 0, 0, 0), (1, 1, 4, 3), (0, 1, 2, 1), (1, 0, 0, 3)] {
        let mut direct = 0.0f64;
        for c in 0..shape.c {
            for r in 0..3 {
                for s in 0..3 {
                    let (h, w) = (p as i64 + r as i64 - 1, q as i64 + s as i64 - 1);
                    if h < 0 || w < 0 || h >= shape.h as i64 || w >= shape.w as i64 {
                        continue;
                    }
                    let xi = shape.input_index(Layout::Nchw, n, c, h as usize, w as usize);
                    let fi = shape.filter_index(Layout::Nchw, k, c, r, s);
                    direct += x_nchw[xi] as f64 * f_kcrs[fi] as f64;
                }
            }
        }
        let a = conv_reference_at(&x_nchw, &f_kcrs, &shape, Layout::Nchw, (n, k, p, q));
        let b = conv_reference_at(&x_nhwc, &f_krsc, &shape, Layout::Nhwc, (n, k, p, q));
        assert!((a.value - direct).abs() < 1e-12);
        assert!((b.value - direct).abs() < 1e-12);
    }
}

#[test]
fn conv_shape_of_the_issue_counts_flops_and_lengths() {
    let s = crate::engine::gpu::workloads::RESNET_CONV;
    assert_eq!(s.output_hw(), (56, 56));
    assert_eq!(s.output_len(), 32 * 256 * 56 * 56);
    assert_eq!(s.flops(), 2.0 * 32.0 * 256.0 * 56.0 * 56.0 * 256.0 * 9.0);
    // The last element of each layout is the last index.
    assert_eq!(
        s.output_index(Layout::Nhwc, 31, 255, 55, 55),
        s.output_len() - 1
    );
    assert_eq!(
        s.output_index(Layout::Nchw, 31, 255, 55, 55),
        s.output_len() - 1
    );
}

#[test]
fn a_filter_larger_than_the_padded_input_gives_no_output() {
    let s = ConvShape {
        n: 1,
        c: 1,
        h: 1,
        w: 1,
        k: 1,
        r: 5,
        s: 5,
        pad: 0,
    };
    assert_eq!(s.output_hw(), (0, 0));
    assert_eq!(s.flops(), 0.0);
}

#[test]
fn an_exact_result_passes_a_perturbed_one_fails_and_nan_is_caught() {
    let refs = vec![
        Reference {
            value: 10.0,
            abs_sum: 100.0
        };
        4
    ];
    let exact = check(&[10.0; 4], &refs, Dtype::Fp16.error_bound());
    assert!(exact.passed);
    assert_eq!(exact.max_relative_error, 0.0);
    let off = 10.0 + 100.0 * Dtype::Fp16.error_bound() * 10.0;
    let wrong = check(&[10.0, 10.0, off, 10.0], &refs, Dtype::Fp16.error_bound());
    assert!(!wrong.passed);
    let poisoned = check(&[10.0, f64::NAN, 10.0, 10.0], &refs, 1.0);
    assert!(!poisoned.passed);
    assert_eq!(poisoned.non_finite, 1);
    assert!(!check(&[], &[], 1.0).passed, "no sample is no proof");
    // Within the per-element bound but the wrong size: bf16 at k = 8192, where |C| is ~1/68 of
    // the sum of absolute products, an all-zero output must still fail.
    let big_k = vec![
        Reference {
            value: 30.0,
            abs_sum: 2048.0
        };
        8
    ];
    let zeros = check(&[0.0; 8], &big_k, Dtype::Bf16.error_bound());
    assert!(!zeros.passed, "{zeros:?}");
    assert_eq!(zeros.magnitude_ratio, Some(0.0));
    let honest = check(&[30.1; 8], &big_k, Dtype::Bf16.error_bound());
    assert!(honest.passed, "{honest:?}");
    assert!(!check(&[10.0], &refs, 1.0).passed, "missing samples fail");
}

#[test]
fn bounds_are_ordered_by_precision() {
    let b: Vec<f64> = Dtype::ALL.iter().map(|d| d.error_bound()).collect();
    let [fp32, tf32, fp16, bf16] = [b[0], b[1], b[2], b[3]];
    // fp16 inputs are exact; tf32 rounds its inputs inside the GEMM: a looser bound.
    assert!(fp32 < fp16 && fp16 < tf32 && tf32 < bf16, "{b:?}");
    assert!(Dtype::Fp32.error_bound() < 1e-5);
    assert!(Dtype::Bf16.error_bound() < 0.05);
}

#[test]
fn half_precision_rounding_is_within_the_bound_of_a_real_sum() {
    // A k=4096 dot product of fp16-rounded inputs, accumulated in f32 as a GPU would.
    let mut rng = Rng::new(42);
    let k = 4096;
    let a = rng.fill(k, Dtype::Fp16);
    let b = rng.fill(k, Dtype::Fp16);
    let s = GemmShape { m: 1, n: 1, k };
    let r = gemm_reference_at(&a, &b, s, 0, 0);
    let acc: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let stored = Dtype::Fp16.store(acc) as f64;
    assert!(relative_error(stored, r) <= Dtype::Fp16.error_bound());
    let acc_bf = Dtype::Bf16.store(acc) as f64;
    assert!(relative_error(acc_bf, r) <= Dtype::Bf16.error_bound());
}

#[test]
fn stored_values_are_representable() {
    for d in Dtype::ALL {
        let v = d.store(0.1);
        assert_eq!(d.store(v), v, "{d:?} rounding is idempotent");
    }
    assert_eq!(Dtype::Bf16.store(1.0 + 1.0 / 512.0), 1.0);
    assert_eq!(Dtype::Fp16.store(1.0 + 1.0 / 4096.0), 1.0);
}

#[test]
fn rng_is_reproducible_uniform_and_bounded() {
    let mut a = Rng::new(5);
    let mut b = Rng::new(5);
    assert_eq!(a.next_u64(), b.next_u64());
    let v = Rng::new(9).fill(10_000, Dtype::Fp32);
    assert!(v.iter().all(|x| (-1.0..1.0).contains(x)));
    let mean: f32 = v.iter().sum::<f32>() / v.len() as f32;
    assert!(mean.abs() < 0.05);
    assert_eq!(Rng::new(1).below(0), 0);
}

#[test]
fn samples_include_the_corners_and_stay_in_range() {
    let mut rng = Rng::new(3);
    let s = sample_positions(&mut rng, 7, 5, 64);
    assert_eq!(s.len(), 64);
    assert_eq!(s[0], (0, 0));
    assert_eq!(s[1], (6, 4));
    assert!(s.iter().all(|(i, j)| *i < 7 && *j < 5));
    assert!(sample_positions(&mut rng, 0, 5, 64).is_empty());
}

#[test]
fn median_handles_odd_even_empty_and_nan() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[1.0, f64::NAN]), None);
}

#[test]
fn throughput_formulas() {
    // 8192^3 GEMM in 55 ms is 20 TFLOPS.
    let t = tflops(GemmShape::cube(8192).flops(), 55.0);
    assert!((t - 19.99).abs() < 0.01, "{t}");
    assert_eq!(gbps(1e9, 1000.0), 1.0);
    assert_eq!(tflops(1.0, 0.0), 0.0);
    assert_eq!(gbps(1.0, -1.0), 0.0);
}

#[test]
fn pcie_link_bandwidths() {
    let g3 = pcie_gbps(3, 16).unwrap();
    assert!((g3 - 15.75).abs() < 0.01, "{g3}");
    let g4 = pcie_gbps(4, 16).unwrap();
    assert!((g4 - 31.5).abs() < 0.02, "{g4}");
    assert_eq!(pcie_gbps(1, 1), Some(0.25));
    assert_eq!(pcie_gbps(9, 16), None);
    assert_eq!(pcie_gbps(4, 0), None);
}

#[test]
fn short_ops_are_timed_several_to_a_window() {
    assert_eq!(ops_per_window(2.0), 1);
    assert_eq!(ops_per_window(1.0), 1);
    assert_eq!(ops_per_window(0.25), 4);
    assert_eq!(ops_per_window(0.3), 4);
    assert_eq!(ops_per_window(0.001), 64);
    assert_eq!(ops_per_window(0.0), 1);
    assert_eq!(ops_per_window(f64::NAN), 1);
    assert_eq!(ops_per_window(-1.0), 1);
}
