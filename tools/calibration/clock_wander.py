#!/usr/bin/env python3
"""How a power-limited GPU's speed wanders over time: the figures `[variability] clock_wander_cv` and
`clock_wander_ms` stand for (docs/model.md section 18).

power_mix.py measures the mean clock a step holds at its tensor-core duty. A synchronous step also
pays for how that speed moves: every all-reduce waits for the slowest GPU of its group, so what
matters is how much a GPU's speed differs from its mean over the length of the work between two
synchronisations, and for how long a deviation lasts. This script times every kernel of a long run
at the power limit and reports both:

  steady  back-to-back bf16 GEMMs (4096 x 8192 x 4096, about 0.3 ms each on an H100) for
          --seconds after --warm seconds of the same work: the GPU at its power limit
  mix     the same GEMMs in blocks of --block-ms alternating with an HBM-bound copy of about the
          same length (a step's element-wise kernels and waits): duty about 0.5

For each, from the per-kernel speeds (FLOPs over event-timed duration, each kernel timed by the
events recorded between back-to-back launches): the autocorrelation of the speed at lags of 1 to
500 ms, its correlation time (the first lag where it falls below 1/e), and for windows of 1 to 200 ms
the coefficient of variation of the window means. The rule the catalog would take (not applied by
this script): clock_wander_ms = the correlation time, clock_wander_cv = the cv of window means at
that window, from the mix (a training step is not at full duty). SM clock, power and temperature
are sampled through NVML every 100 ms beside it.

Writes $OUT/clock_wander.json (or ./). Needs an NVIDIA GPU and PyTorch.
Usage: python3 tools/calibration/clock_wander.py [--seconds 20] [--warm 5]
"""
import argparse
import math
import threading
import time

import torch

from hopper_op_classes import write_result
from sustained_clock import sampler

M, N, K = 4096, 8192, 4096
WINDOWS_MS = [1, 2, 5, 10, 20, 50, 100, 200]
LAGS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500]


def rand(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def timed_kernels(seconds, block_ms, copy):
    """Runs GEMMs (and, with `copy`, a copy after each block of block_ms) for `seconds`; returns
    (start_s, duration_s) of every GEMM, from events recorded between launches."""
    a, b = rand(M, K), rand(K, N)
    src, dst = rand(64 << 20), rand(64 << 20)  # 128 MiB each: an HBM-bound copy of ~0.1 ms
    per_block = max(1, int(block_ms / 0.3))
    copies = max(1, int(block_ms / 0.1)) if copy else 0
    records = []
    t_end = time.time() + seconds
    while time.time() < t_end:
        events = [torch.cuda.Event(enable_timing=True) for _ in range(per_block + 1)]
        events[0].record()
        for i in range(per_block):
            torch.mm(a, b)
            events[i + 1].record()
        for _ in range(copies):
            dst.copy_(src)
        records.append(events)
    torch.cuda.synchronize()
    origin = records[0][0]
    out = []
    for events in records:
        base = origin.elapsed_time(events[0]) / 1e3
        for i in range(1, len(events)):
            start = base + events[0].elapsed_time(events[i - 1]) / 1e3
            out.append((start, events[i - 1].elapsed_time(events[i]) / 1e3))
    return out


def analyse(kernels):
    flops = 2.0 * M * N * K
    speeds = [(t, flops / d / 1e12) for t, d in kernels if d > 0]
    mean = sum(s for _, s in speeds) / len(speeds)
    # Speeds on a 1 ms grid (the mean of the kernels starting in each millisecond).
    grid = {}
    for t, s in speeds:
        grid.setdefault(int(t * 1e3), []).append(s)
    series = [sum(v) / len(v) / mean for _, v in sorted(grid.items())]
    n = len(series)
    mu = sum(series) / n
    var = sum((x - mu) ** 2 for x in series) / n
    acf = {}
    for lag in LAGS_MS:
        if lag < n and var > 0:
            acf[lag] = sum((series[i] - mu) * (series[i + lag] - mu) for i in range(n - lag)) / ((n - lag) * var)
    corr_ms = next((lag for lag in LAGS_MS if lag in acf and acf[lag] < 1.0 / math.e), None)
    window_cv = {}
    for w in WINDOWS_MS:
        means = [sum(series[i:i + w]) / w for i in range(0, n - w + 1, w)]
        if len(means) > 1:
            m = sum(means) / len(means)
            window_cv[w] = math.sqrt(sum((x - m) ** 2 for x in means) / (len(means) - 1)) / m
    return {"kernels": len(speeds), "mean_tflops": mean, "autocorrelation": acf, "correlation_ms": corr_ms,
            "window_cv": window_cv, "series_1ms": [round(x, 5) for x in series]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--warm", type=float, default=5.0)
    ap.add_argument("--block-ms", type=float, default=5.0)
    args = ap.parse_args()
    timed_kernels(args.warm, args.block_ms, copy=False)  # to the power limit
    stop, samples = threading.Event(), []
    th = threading.Thread(target=sampler, args=(stop, samples))
    th.start()
    steady = analyse(timed_kernels(args.seconds, args.block_ms, copy=False))
    mix = analyse(timed_kernels(args.seconds, args.block_ms, copy=True))
    stop.set()
    th.join()
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "shape": [M, N, K],
              "seconds": args.seconds, "warm_s": args.warm, "block_ms": args.block_ms,
              "steady": steady, "mix": mix, "samples": samples}
    write_result("clock_wander.json", result)
    for name, r in (("steady", steady), ("mix", mix)):
        cvs = ", ".join(f"{w} ms {cv:.4f}" for w, cv in r["window_cv"].items())
        print(f"{result['device']} {name}: {r['kernels']} GEMMs at {r['mean_tflops']:.0f} TFLOP/s; "
              f"correlation time {r['correlation_ms']} ms; cv of window means: {cvs}")


if __name__ == "__main__":
    main()
