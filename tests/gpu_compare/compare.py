#!/usr/bin/env python3
"""Side-by-side comparison of `cuda-triage gpu-test` with PyTorch on the same GPU.

Not run by CI (it needs an NVIDIA GPU, PyTorch with CUDA and a built cuda-triage). It runs the
same workloads with the same sizes and dtypes as the test's full (or --quick) plan:

* GEMM m=n=k in {1024, 2048, 4096, 8192} ({1024, 2048} with --quick) for fp32 (TF32 off),
  tf32, fp16 and bf16 (fp32 accumulation), via torch.matmul;
* convolution N=32 (8 with --quick), C=256, H=W=56, K=256, 3x3, padding 1, fp32 with TF32
  allowed, NCHW and channels_last, torch.backends.cudnn.benchmark = True;
* copies of 256 MiB (32 MiB with --quick): H2D/D2H from pageable and pinned memory, and D2D
  (D2D counts read + write, 2x bytes, like cuda-triage and NVIDIA's bandwidthTest);

timed with CUDA events after warm-up, median of repeats (ops under 1 ms several to a window, as
cuda-triage does); then runs
`cuda-triage gpu-test --json` and prints one table: torch, cuda-triage and their ratio, against
the issue's goals (GEMM >= 0.95x, conv >= 0.90x, copies >= 0.95x torch).

Usage: python3 tests/gpu_compare/compare.py [--quick] [--exe target/release/cuda-triage]
       [--framework torch (gpu-test tests the files torch's process loads) | --dir DIR]
"""

import argparse
import json
import math
import statistics
import subprocess
import sys
import time

GOALS = {"gemm": 0.95, "conv": 0.90, "copy": 0.95}


def ops_per_window(one_op_ms):
    """Like cuda-triage's maths::ops_per_window: about 1 ms of work per event pair, at most 64."""
    if not one_op_ms > 0 or one_op_ms >= 1.0:
        return 1
    return max(1, min(64, math.ceil(1.0 / one_op_ms)))


def window_ms(torch, fn, count):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(count):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop)


def timed(torch, fn, warmup, repeats):
    """Median time of one op, measured as cuda-triage does (short ops several per window)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    count = ops_per_window(window_ms(torch, fn, 1))
    return statistics.median(window_ms(torch, fn, count) / count for _ in range(repeats))


def set_tf32(torch, matmul, conv):
    """TF32 for matmul/conv: the fp32_precision API where PyTorch has it (allow_tf32 is
    deprecated after 2.9), else the allow_tf32 flags."""
    matmul_backend = torch.backends.cuda.matmul
    if hasattr(matmul_backend, "fp32_precision"):
        matmul_backend.fp32_precision = "tf32" if matmul else "ieee"
        torch.backends.cudnn.conv.fp32_precision = "tf32" if conv else "ieee"
    else:
        matmul_backend.allow_tf32 = matmul
        torch.backends.cudnn.allow_tf32 = conv


def torch_results(quick):
    import torch

    warmup, repeats = (1, 5) if quick else (3, 10)
    sizes = [1024, 2048] if quick else [1024, 2048, 4096, 8192]
    results = {}
    dtypes = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
    for name, dtype in dtypes.items():
        set_tf32(torch, matmul=name == "tf32", conv=True)
        for n in sizes:
            a = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
            b = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
            ms = timed(torch, lambda: torch.matmul(a, b), warmup, repeats)
            results[f"GEMM {name} {n}^3"] = ("gemm", 2 * n**3 / (ms * 1e-3) / 1e12)
            del a, b
    set_tf32(torch, matmul=False, conv=True)
    torch.backends.cudnn.benchmark = True
    batch = 8 if quick else 32
    flops = 2 * batch * 256 * 56 * 56 * 256 * 9
    for layout, fmt in (("NCHW", torch.contiguous_format), ("NHWC", torch.channels_last)):
        x = torch.randn(batch, 256, 56, 56, device="cuda").to(memory_format=fmt)
        w = torch.randn(256, 256, 3, 3, device="cuda").to(memory_format=fmt)
        conv = lambda: torch.nn.functional.conv2d(x, w, padding=1)
        ms = timed(torch, conv, warmup + 2, repeats)  # the first call runs cudnn's search
        results[f"Conv fp32 {layout} 3x3"] = ("conv", flops / (ms * 1e-3) / 1e12)
    nbytes = (32 if quick else 256) << 20
    dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dev2 = torch.empty_like(dev)
    # Filled, as cuda-triage fills its buffers: an untouched torch.empty() reads as the kernel's
    # shared zero page, always in cache, which makes pageable H2D look twice as fast as it is.
    pageable = torch.randint(0, 256, (nbytes,), dtype=torch.uint8)
    pinned = torch.randint(0, 256, (nbytes,), dtype=torch.uint8).pin_memory()
    copies = {
        "H2D pageable": (lambda: dev.copy_(pageable), 1),
        "D2H pageable": (lambda: pageable.copy_(dev), 1),
        "H2D pinned": (lambda: dev.copy_(pinned), 1),
        "D2H pinned": (lambda: pinned.copy_(dev), 1),
        "D2D": (lambda: dev2.copy_(dev), 2),
    }
    for name, (fn, factor) in copies.items():
        ms = timed(torch, fn, warmup, repeats)
        results[name] = ("copy", factor * nbytes / (ms * 1e-3) / 1e9)
    return results


def triage_results(exe, quick, extra):
    cmd = [exe, "gpu-test", "--json"] + (["--quick"] if quick else []) + extra
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    doc = json.loads(proc.stdout)
    gpu = doc.get("gpu", {})
    out = {}
    for w in gpu.get("workloads", []):
        rate = w.get("tflops") if w.get("tflops") is not None else w.get("gbps")
        out[w["name"]] = (w["kind"], rate, w["correctness"]["passed"], w.get("fraction_of_peak"))
    return out, gpu, doc.get("findings", []), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--exe", default="target/release/cuda-triage")
    ap.add_argument("--dir", help="folder of libraries for gpu-test --dir")
    ap.add_argument("--framework", help="gpu-test --framework (torch: the files torch loads)")
    args = ap.parse_args()
    extra = ["--dir", args.dir] if args.dir else []
    extra += ["--framework", args.framework] if args.framework else []

    triage, gpu, findings, wall = triage_results(args.exe, args.quick, extra)
    torch_r = torch_results(args.quick)
    print(f"device: {(gpu.get('device') or {}).get('name', '?')}; cuda-triage verdict: "
          f"{gpu.get('verdict')} ({gpu.get('summary')}); wall {wall:.2f} s (process), "
          f"{gpu.get('wall_s', 0):.2f} s (reported)")
    for lib in gpu.get("libraries", []):
        print(f"  {lib['role']:<7} {lib.get('version', '?'):<10} {lib.get('mapped') or lib['requested']}")
    for f in findings:
        print(f"  finding {f['severity']}: {f['summary']}")
    print(f"device peak row: {(gpu.get('device') or {}).get('peak_model')}")
    print(f"\n{'workload':<24} {'torch':>12} {'cuda-triage':>12} {'ratio':>7} {'goal':>6}  ok  of peak")
    failures = 0
    for name, (kind, t_rate) in torch_r.items():
        unit = "GB/s" if kind == "copy" else "TFLOPS"
        mine = triage.get(name)
        if mine is None:
            print(f"{name:<24} {t_rate:>8.2f} {unit:<4} {'missing':>12}")
            failures += 1
            continue
        ratio = mine[1] / t_rate if t_rate else float("nan")
        ok = ratio >= GOALS[kind] and mine[2]
        failures += not ok
        peak = f"{mine[3]:.0%}" if mine[3] is not None else "-"
        print(f"{name:<24} {t_rate:>8.2f} {unit:<4}{mine[1]:>8.2f} {unit:<4}{ratio:>6.2f}x "
              f"{GOALS[kind]:>5.2f}x  {'yes' if ok else 'NO ':<3} {peak:>7}")
    if args.quick:
        print(f"\n--quick wall time {wall:.2f} s (goal < 5 s): {'yes' if wall < 5 else 'NO'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
