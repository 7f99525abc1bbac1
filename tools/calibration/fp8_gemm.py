#!/usr/bin/env python3
"""FP8 GEMM throughput over shapes on one Hopper or Blackwell GPU, in the two accumulation modes
Transformer Engine uses (fast for the forward, split, i.e. promoted, for dgrad and wgrad).

Shapes: training GEMMs (M 4096-16384), skinny ones (M 64-2048, down to decode), and MoE expert
shapes (128-2048 rows per expert, 4 or 8 experts batched back to back). torch._scaled_mm with
per-tensor scales, random operands, CUDA-event medians after warm-ups. Writes
$OUT/<device>-fp8-gemm.json (or ./), which tools/calibration/fit_gemm.py reads beside the bf16 runs:
copy it into tools/calibration/ as e.g. h200-2026-12-01-fp8.json. Needs an NVIDIA GPU.
Usage: python3 tools/calibration/fp8_gemm.py
"""

import torch

from hopper_op_classes import timed, write_result  # timed: CUDA-event median after warm-ups

PEAK_FP8 = {"NVIDIA H200": 1979e12, "NVIDIA H100 80GB HBM3": 1979e12, "NVIDIA B200": 4500e12}

SHAPES = [(8192, 8192, 8192), (4096, 28672, 8192), (4096, 8192, 28672), (4096, 7168, 4096), (16384, 7168, 2048),
          (8192, 8192, 1024), (8192, 8192, 2048), (8192, 8192, 4096), (8192, 8192, 16384)] + \
         [(m, 8192, 8192) for m in (64, 128, 256, 512, 1024, 2048, 4096)] + \
         [(m, 4096, 7168) for m in (128, 256, 512, 1024, 2048)] + [(m, 7168, 2048) for m in (128, 512, 2048)]


def gemm(m, n, k, fast, peak):
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()  # column-major: the TN layout
    one = torch.ones((), device="cuda")
    s = timed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                       use_fast_accum=fast))
    flops = 2.0 * m * n * k
    return {"m": m, "n": n, "k": k, "count": 1, "time_us": s * 1e6, "tflops": flops / s / 1e12,
            "efficiency": flops / s / peak}


def main():
    dev = torch.cuda.get_device_name()
    peak = PEAK_FP8.get(dev, 1979e12)
    out = {"device": dev, "torch": torch.__version__, "precision": "fp8", "peak_fp8": peak,
           "fast": [gemm(m, n, k, True, peak) for m, n, k in SHAPES],
           "split": [gemm(m, n, k, False, peak) for m, n, k in SHAPES]}
    write_result(dev.replace(" ", "-").lower() + "-fp8-gemm.json", out)
    for f_, s_ in zip(out["fast"], out["split"]):
        print(f"{f_['m']:6d} {f_['n']:6d} {f_['k']:6d}  fast {f_['efficiency']:.3f}  split {s_['efficiency']:.3f}")


if __name__ == "__main__":
    main()
