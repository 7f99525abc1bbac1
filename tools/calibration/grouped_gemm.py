#!/usr/bin/env python3
"""MoE expert GEMMs as frameworks run them, on one Hopper GPU: grouped GEMMs over a rank's local
experts at the token counts expert parallelism gives each (64-4,096 rows per expert).

For each configuration (E local experts, m rows per expert, [m x k] x [k x n] per expert) it times,
with CUDA-event medians after warm-ups on random data:

  grouped     torch._grouped_mm: one CUTLASS grouped kernel over all experts (the kernel class of
              Megatron-Core's TEGroupedMLP / GroupedMLP and torchtitan's grouped experts), bf16
  bmm         the same work as one batched GEMM (uniform m only): the dense-GEMM reference
  loop        one torch.mm per expert back to back (Megatron-Core's SequentialMLP), bf16
  grouped_fp8 torch._scaled_grouped_mm with row-wise scales (FP8 e4m3, fast accumulation), where the
              installed PyTorch has it
  skewed      grouped bf16 with the same total rows dealt unevenly (the busiest expert 2x the mean):
              does a grouped kernel take the time of its total work or of its largest group?

Efficiency = 2 E m n k / time / datasheet peak (989 TFLOP/s bf16, 1,979 fp8 on H100/H200).
tools/calibration/fit_gemm.py compares them with the GEMM curve at the per-expert shape.
With --graph, each kind is 20 calls captured in a CUDA graph and timed per replay (no Python launch
cost in the time: it matters below ~200 us), for up to 1,024 rows per expert; writes
grouped_gemm_graph.json. Writes $OUT/grouped_gemm.json (or ./). Needs an NVIDIA GPU and PyTorch.
Usage: python3 tools/calibration/grouped_gemm.py [--graph]
"""
import sys

import torch

import hopper_op_classes
from decode_kernels import graph_timed

GRAPH = "--graph" in sys.argv
timed = graph_timed if GRAPH else hopper_op_classes.timed

PEAK = {"bf16": 989e12, "fp8": 1979e12}

# (label, E local experts, k, n): DeepSeek-V3 experts (h 7168, f_e 2048; up is gate + up, 4096 wide),
# Mixtral 8x7B (h 4096, f 14336), Llama 4 Maverick / Qwen3-235B-like (h 5120 / 4096, f_e 8192 / 1536).
LAYERS = [("dsv3_up", 8, 7168, 4096), ("dsv3_down", 8, 2048, 7168), ("dsv3_up_e32", 32, 7168, 4096),
          ("mixtral_up", 2, 4096, 28672), ("mixtral_down", 2, 14336, 4096),
          ("maverick_up", 16, 5120, 16384), ("qwen3_up", 16, 4096, 3072), ("qwen3_down", 16, 1536, 4096)]
ROWS = (64, 128, 256, 512, 1024, 2048, 4096)


def rand(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def offsets(counts):
    return torch.tensor(counts, device="cuda", dtype=torch.int32).cumsum(0).to(torch.int32)


def row(label, e, m, k, n, kind, seconds, precision="bf16"):
    flops = 2.0 * e * m * n * k
    return {"layer": label, "experts": e, "m": m, "k": k, "n": n, "kind": kind, "time_us": seconds * 1e6,
            "tflops": flops / seconds / 1e12, "efficiency": flops / seconds / PEAK[precision]}


def bf16_cases(label, e, m, k, n):
    a, w = rand(e * m, k), rand(e, n, k).transpose(-2, -1)  # weights [E, out, in], as torchtitan holds them
    offs = offsets([m] * e)
    out = [row(label, e, m, k, n, "grouped", timed(lambda: torch._grouped_mm(a, w, offs=offs)))]
    a3 = a.view(e, m, k)
    out.append(row(label, e, m, k, n, "bmm", timed(lambda: torch.bmm(a3, w))))
    chunks = list(a.split(m))

    def loop():
        for i in range(e):
            torch.mm(chunks[i], w[i])

    out.append(row(label, e, m, k, n, "loop", timed(loop)))
    if e >= 2 and m >= 128:  # same total rows, busiest expert twice the mean, the rest share the remainder
        rest = (e * m - 2 * m) // (e - 1)
        counts = [2 * m] + [rest] * (e - 2) + [e * m - 2 * m - rest * (e - 2)]
        so = offsets(counts)
        out.append(row(label, e, m, k, n, "skewed", timed(lambda: torch._grouped_mm(a, w, offs=so))))
    return out


def fp8_case(label, e, m, k, n):
    if not hasattr(torch, "_scaled_grouped_mm"):
        return []
    a = rand(e * m, k).to(torch.float8_e4m3fn)
    w = rand(e, n, k).to(torch.float8_e4m3fn).transpose(-2, -1)  # column-major per expert
    sa = torch.ones(e * m, device="cuda", dtype=torch.float32)
    sb = torch.ones(e, n, device="cuda", dtype=torch.float32)
    offs = offsets([m] * e)
    try:
        s = timed(lambda: torch._scaled_grouped_mm(a, w, sa, sb, offs=offs, out_dtype=torch.bfloat16,
                                                   use_fast_accum=True))
    except (RuntimeError, TypeError) as err:
        return [{"layer": label, "experts": e, "m": m, "kind": "grouped_fp8", "error": str(err)[:200]}]
    return [row(label, e, m, k, n, "grouped_fp8", s, "fp8")]


def main():
    torch.manual_seed(0)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "peak": PEAK, "rows": []}
    for label, e, k, n in LAYERS:
        for m in ROWS:
            if GRAPH and m > 1024:
                continue
            if e * m * max(k, n) * 2 > 4 << 30:  # keep any one operand under 4 GiB
                continue
            try:
                rows = bf16_cases(label, e, m, k, n) + fp8_case(label, e, m, k, n)
            except (RuntimeError, TypeError) as err:
                rows = [{"layer": label, "experts": e, "m": m, "kind": "bf16", "error": str(err)[:200]}]
            torch.cuda.empty_cache()
            for r in rows:
                result["rows"].append(r)
                if "error" in r:
                    print(f"{label:13s} E{e:<3d} m{m:<5d} {r['kind']:11s} failed: {r['error'][:90]}")
                else:
                    print(f"{label:13s} E{e:<3d} m{m:<5d} {r['kind']:11s} {r['time_us']:9.1f} us "
                          f"{r['tflops']:7.1f} TFLOP/s eff {r['efficiency']:.3f}")
    hopper_op_classes.write_result("grouped_gemm_graph.json" if GRAPH else "grouped_gemm.json", result)


if __name__ == "__main__":
    main()
