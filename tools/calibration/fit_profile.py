#!/usr/bin/env python3
"""Block-scaled FP8 GEMM efficiency on Hopper, from DeepSeek's training profile.

Input: profiles/deepseek-v3-ep64-h800-kernels.csv (profile_kernels.py's table of the published
DeepSeek-V3 training trace: H800, EP64, TP1, one 4,096-token micro-batch, a forward and a backward
chunk of 4 MoE layers). Every FP8 GEMM of that trace is identified by its DualPipe phase and its
place in the layer, so its shape follows from the model (hidden 7168, MLA q_lora 1536, kv_lora 512,
128 heads of 128 + 64 rope, 4 local experts of width 2048 receiving 4096 x 8 x 64 / 256 = 8192
tokens each under the capture's balanced routing, a shared expert of width 2048).

The capture's GEMMs run with 112 CTAs (their grids: 112, 1 x 112, 2 x 56) because DeepEP holds 20
of the 132 SMs for communication throughout (DeepSeek-V3 report section 3.2.2); stepsim models
that share as the GPU's comm_sm_fraction (20 / 132) while communication runs, so a measured time
is converted to the full GPU as t x 112 / 132 before it is compared with the curve.

Fits, as ratios of time summed over each set (so a long GEMM weighs as much as its time):

  fp8_blockwise        forward and data-gradient GEMMs (MLA projections, the shared expert, the
                       grouped expert GEMMs): the H800 FP8 curve's time / the measured time
  fp8_blockwise_wgrad  weight-gradient GEMMs (two operands scaled per 1 x 128 along the token
                       dimension, accumulated into the FP32 main gradient): the same ratio over
                       the curve x fp8_blockwise

Prints both figures and a table per set. Needs Python 3.11 (tomllib) and fit_kernels.py beside it.
Usage: python3 tools/calibration/fit_profile.py
"""
import collections
import csv
import os
import tomllib

from fit_kernels import clock_at

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SM_SHARE = 112.0 / 132.0

T, H, E, X = 4096, 7168, 8192, 4  # tokens, hidden, tokens per expert, local experts
MLA = [(T, 1536, H), (T, 576, H), (T, 128 * 192, 1536), (T, 128 * 256, 512), (T, H, 128 * 128)]
SHARED = [(T, 2 * 2048, H), (T, H, 2048)]
EXPERT = [(E, 2 * 2048, H), (E, H, 2048)]


def dgrad(s):
    m, n, k = s
    return (m, k, n)


def wgrad(s):
    m, n, k = s
    return (k, n, m)


# (set, pass) -> per-layer GEMMs (shape, count); the phases that hold them.
SETS = {
    "MLA projections forward": ("fwd", [(s, 1) for s in MLA], ("attn(F)", "gemm_dense")),
    "MLA dgrad + up-projection recompute": (
        "fwd", [(dgrad(s), 1) for s in MLA] + [(MLA[2], 1), (MLA[3], 1)], ("attn(B)", "gemm_dense")),
    "MLA projections wgrad": ("wgrad", [(wgrad(s), 1) for s in MLA], ("attn(W)", "gemm_dense")),
    "shared expert forward": ("fwd", [(s, 1) for s in SHARED], ("mlp(F)", "gemm_dense")),
    "shared expert dgrad": ("fwd", [(dgrad(s), 1) for s in SHARED], ("mlp(B)", "gemm_dense")),
    "shared expert wgrad": ("wgrad", [(wgrad(s), 1) for s in SHARED], ("mlp(W)", "gemm_dense")),
    "grouped experts forward": ("fwd", [(s, X) for s in EXPERT], ("mlp(F)", "gemm_expert")),
    "grouped experts dgrad": ("fwd", [(dgrad(s), X) for s in EXPERT], ("mlp(B)", "gemm_expert")),
    "experts wgrad": ("wgrad", [(wgrad(s), X) for s in EXPERT], ("mlp(W)", "gemm_expert")),
}
LAYERS = 4


def profile_clock(curve):
    """The clock the profiled step held: the GPU's clock_duty curve at the trace's own tensor-core duty,
    its GEMM and attention kernels' time over the time of every kernel but DeepEP's communication (the
    compute streams are never idle in DualPipe's overlapped chunks), as stepsim takes a step's duty."""
    tensor = other = 0.0
    with open(os.path.join(HERE, "profiles", "deepseek-v3-ep64-h800-kernels.csv")) as f:
        for r in csv.DictReader(f):
            if r["class"] == "ep_comm":
                continue
            if r["class"] in ("gemm_dense", "gemm_expert", "attention"):
                tensor += float(r["dur_us"])
            else:
                other += float(r["dur_us"])
    duty = tensor / (tensor + other)
    return clock_at(curve["duty"], curve["clock"], duty), duty


def main():
    with open(os.path.join(ROOT, "scenarios", "catalog", "gpus.toml"), "rb") as f:
        gpu = tomllib.load(f)["gpu"]["h800"]
    clock, duty = profile_clock(gpu["clock_duty"])
    peak = gpu["fp8_tflops"] * 1e12 * clock  # the step's GEMMs run at the power-limited clock of its duty
    c = gpu["efficiency"]["gemm_fp8"]

    def curve(m, n, k):
        lo = 64.0  # GemmCurve::kMinTile
        m, n, k = max(m, lo), max(n, lo), max(k, lo)
        return c["peak"] / (1 + c["mn_half"] * (1 / m + 1 / n) + c["k_half"] / k)

    measured = collections.defaultdict(float)
    with open(os.path.join(HERE, "profiles", "deepseek-v3-ep64-h800-kernels.csv")) as f:
        for r in csv.DictReader(f):
            if r["class"] in ("gemm_dense", "gemm_expert") and "xmma" not in r["kernel"]:  # xmma: bf16 router
                measured[(r["phase"], r["class"])] += float(r["dur_us"]) * 1e-6

    sums = {"fwd": [0.0, 0.0], "wgrad": [0.0, 0.0]}  # [curve time, full-GPU measured time]
    rows = []
    for name, (kind, gemms, key) in SETS.items():
        flops = LAYERS * sum(2 * m * n * k * cnt for (m, n, k), cnt in gemms)
        t_curve = LAYERS * sum(2 * m * n * k * cnt / (peak * curve(m, n, k)) for (m, n, k), cnt in gemms)
        t_meas = measured[key]
        t_full = t_meas * SM_SHARE
        sums[kind][0] += t_curve
        sums[kind][1] += t_full
        rows.append((name, kind, flops, t_meas, t_full, t_curve))
    blockwise = sums["fwd"][0] / sums["fwd"][1]
    wgrad_factor = sums["wgrad"][0] / (sums["wgrad"][1] * blockwise)

    print("| GEMMs (4 layers) | pass | TFLOP | measured ms | on 132 SMs ms | achieved of FP8 peak | curve ms | "
          "curve x fit ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, kind, flops, t_meas, t_full, t_curve in rows:
        fit = t_curve / blockwise / (wgrad_factor if kind == "wgrad" else 1.0)
        print(f"| {name} | {kind} | {flops / 1e12:.2f} | {t_meas * 1e3:.2f} | {t_full * 1e3:.2f} | "
              f"{flops / t_full / peak:.3f} | {t_curve * 1e3:.2f} | {fit * 1e3:.2f} |")
    print()
    print(f"the profiled step's tensor-core duty {duty:.3f}, clock {clock:.3f} (clock_duty)")
    print(f"  fp8_blockwise = {blockwise:.3f}")
    print(f"  fp8_blockwise_wgrad = {wgrad_factor:.3f}")


if __name__ == "__main__":
    main()
