#!/usr/bin/env python3
"""The GEMM calibration shapes timed in the two states a GPU runs them in, without host overhead.

hopper_op_classes.py and fp8_gemm.py time one call at a time and wait for each, so a call of
tens of microseconds also pays its Python launch (10-20 us), and their shapes run one after
another, so the first ones see the short-run clock and the later ones the power-limited one
(power_mix.py: the SM clock falls ~60 ms into a dense GEMM loop). Here every shape is captured
in a CUDA graph of back-to-back calls (as a training step issues them) and timed twice:

  short      after 1.5 s idle, the median of the first 3 graph replays (well under 60 ms of work)
  sustained  the shape's own graph replayed for 1.2 s at the power limit, mean of the last 0.6 s

bf16 through torch.mm / torch.bmm (expert shapes), FP8 per-tensor through torch._scaled_mm with
fast (forward) and split (dgrad/wgrad) accumulation. Random operands, rotated over 3 sets.
Writes $OUT/gemm_states.json (or ./); tools/calibration/fit_gemm.py fits the curves to it.
Needs an NVIDIA GPU and PyTorch. Usage: python3 tools/calibration/gemm_states.py
"""
import time

import torch

from hopper_op_classes import event_seconds, mean_seconds_after, write_result

PEAK = {"bf16": 989e12, "fp8": 1979e12}
BF16 = [(8192, 8192, 8192, 1), (4096, 28672, 8192, 1), (4096, 8192, 28672, 1), (4096, 7168, 4096, 1),
        (16384, 7168, 2048, 1), (8192, 8192, 1024, 1), (8192, 8192, 2048, 1)] + \
       [(m, 8192, 8192, 1) for m in (128, 256, 512, 1024, 2048, 3072)] + \
       [(4096, 4096, 7168, 4), (4096, 7168, 2048, 4), (512, 4096, 7168, 4), (512, 7168, 2048, 4)]
FP8_FAST = [(8192, 8192, 8192), (4096, 28672, 8192), (4096, 7168, 4096), (16384, 7168, 2048), (8192, 8192, 1024),
            (8192, 8192, 2048)] + [(m, 8192, 8192) for m in (256, 512, 1024, 2048)] + [(128, 4096, 7168),
                                                                                    (512, 4096, 7168)]
FP8_SPLIT = [(8192, 8192, 8192), (4096, 7168, 4096), (8192, 8192, 2048), (1024, 8192, 8192)]


def call_for(m, n, k, count, precision, fast):
    if precision == "bf16":
        sets = [(torch.randn(count, m, k, device="cuda", dtype=torch.bfloat16),
                 torch.randn(count, k, n, device="cuda", dtype=torch.bfloat16)) for _ in range(3)]
        if count == 1:
            sets = [(a[0], b[0]) for a, b in sets]
        op = torch.bmm if count > 1 else torch.mm
        return [lambda a=a, b=b: op(a, b) for a, b in sets]
    one = torch.ones((), device="cuda")
    sets = [(torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn),
             torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()) for _ in range(3)]
    return [lambda a=a, b=b: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                              use_fast_accum=fast) for a, b in sets]


def measure(m, n, k, count, precision, fast=True):
    calls = call_for(m, n, k, count, precision, fast)
    flops = 2.0 * m * n * k * count
    est = flops / (0.7 * PEAK[precision])
    reps = max(3, min(60, round(2e-3 / est)))  # about 2 ms of work per replay
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        calls[0]()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(reps):
            calls[i % 3]()
    graph.replay()  # the first replay uploads the graph
    torch.cuda.synchronize()
    time.sleep(1.5)
    short = [event_seconds(graph.replay) / reps for _ in range(3)]

    def five():
        for _ in range(5):
            graph.replay()

    s_short, s_sus = sorted(short)[1], mean_seconds_after(five, 1.2, 0.6) / (5 * reps)
    row = {"m": m, "n": n, "k": k, "count": count, "precision": precision,
           "accumulation": ("fast" if fast else "split") if precision == "fp8" else None,
           "short_us": s_short * 1e6, "sustained_us": s_sus * 1e6,
           "short_efficiency": flops / s_short / PEAK[precision],
           "sustained_efficiency": flops / s_sus / PEAK[precision], "ratio": s_short / s_sus}
    del graph, calls
    torch.cuda.empty_cache()
    return row


def main():
    torch.manual_seed(0)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "peak": PEAK, "rows": []}
    cases = [(m, n, k, c, "bf16", True) for m, n, k, c in BF16] + \
            [(m, n, k, 1, "fp8", True) for m, n, k in FP8_FAST] + [(m, n, k, 1, "fp8", False) for m, n, k in FP8_SPLIT]
    for m, n, k, c, p, fast in cases:
        r = measure(m, n, k, c, p, fast)
        result["rows"].append(r)
        print(f"{p:4s} {r['accumulation'] or '':5s} {c}x{m}x{n}x{k}: short {r['short_efficiency']:.3f} "
              f"sustained {r['sustained_efficiency']:.3f} ratio {r['ratio']:.3f}")
    write_result("gemm_states.json", result)


if __name__ == "__main__":
    main()
