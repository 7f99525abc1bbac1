#!/usr/bin/env python3
"""Kernel table of a PyTorch profiler (Kineto) trace, by DualPipe phase and stepsim kernel class.

Reads DeepSeek's published training profile (deepseek-ai/profile-data `train.json`: DeepSeek-V3 on
H800, EP64, TP1, one 4,096-token micro-batch, a forward and a backward chunk of 4 MoE layers
overlapped as DualPipe runs them) and writes one row per GPU kernel:

    phase,class,stream,dur_us,grid,kernel

`phase` is the innermost `record_function` range (attn(F), dispatch(F), mlp(F), combine(F), attn(B),
mlp(B), mlp(W), attn(W), dispatch(B), combine(B)) enclosing the kernel's launch (the launch is found
through the runtime call with the kernel's correlation id); kernels launched outside any range get
`-`. `class` is the stepsim kernel class the comparison uses (tests/workloads/step/profile_compare_test.cpp,
docs/model.md), by kernel name and phase:

    gemm_expert   grouped expert GEMMs (m_grouped, forward and data gradient) and the routed
                  experts' weight gradients (mlp(W) after the shared expert's first two)
    gemm_dense    every other GEMM: MLA projections, the shared expert, the router (bf16)
    attention     FlashAttention forward and backward (with its pre/post-processing)
    quantize      FP8 casts and transposes (per-token, per-channel, cast-back, transposes)
    norm          RMSNorm forward and backward (DeepSeek fuses the residual add into it)
    activation    SwiGLU forward and backward (some fused with the following FP8 cast)
    moe_routing   top-k, auxiliary-loss statistics, permute/unpermute (expand/reduce fused), layouts
    elementwise   everything else on the compute stream: rotary, copies, adds, fills, reductions
    ep_comm       DeepEP dispatch, combine and notify kernels (their time includes waiting for peers)

Usage: profile_kernels.py TRACE.json > tools/calibration/profiles/deepseek-v3-ep64-h800-kernels.csv
"""
import csv
import json
import re
import sys

CLASS_RULES = [
    ("ep_comm", r"dpsk::ep::internode::|dpsk::ep::intranode::"),
    ("attention", r"flash::"),
    ("norm", r"layer_norm::"),
    ("activation", r"swiglu"),
    ("quantize", r"per_token_cast|per_channel_cast|cast_back|batched_transpose|grouped_gemm::cuda::utils::transpose"),
    ("moe_routing", r"sbtopk|topk_sum|aux_fi|unique_group|get_fused_mapping|clean_and_count|expand_to_fused|"
                    r"reduce_fused|get_dispatch_layout|_scatter_gather"),
    ("gemm", r"grouped_gemm::cuda::(m_grouped_)?fp8|sm90_xmma_gemm"),
]


def classify(name, phase, mlp_w_index):
    for cls, pattern in CLASS_RULES:
        if re.search(pattern, name):
            if cls != "gemm":
                return cls
            if "m_grouped" in name:
                return "gemm_expert"
            # Weight gradients of the MLP: the shared expert's two come first, then the routed
            # experts' (4 local experts x up and down).
            if phase == "mlp(W)" and mlp_w_index >= 2:
                return "gemm_expert"
            return "gemm_dense"
    return "elementwise"


def main(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    launches = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime"}
    ranges = [e for e in events
              if e.get("cat") == "user_annotation" and e["name"] not in ("1F1B",) and not e["name"].startswith("ProfilerStep")]
    kernels = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])

    def phase_of(kernel):
        launch = launches.get(kernel["args"].get("correlation"))
        if launch is None:
            return None
        best = None
        for r in ranges:
            if r["ts"] <= launch["ts"] <= r["ts"] + r["dur"] and (best is None or r["dur"] < best["dur"]):
                best = r
        return best

    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["phase", "class", "stream", "dur_us", "grid", "kernel"])
    gemm_index = {}  # mlp(W) range -> GEMMs seen in it
    for k in kernels:
        r = phase_of(k)
        phase = r["name"] if r else "-"
        index = 0
        if phase == "mlp(W)" and re.search(CLASS_RULES[-1][1], k["name"]):
            key = (r["ts"], r["tid"])
            index = gemm_index.get(key, 0)
            gemm_index[key] = index + 1
        grid = "x".join(str(g) for g in k["args"].get("grid", []))
        name = re.sub(r"\s+", " ", k["name"])[:120]
        out.writerow([phase, classify(k["name"], phase, index), k["args"].get("stream", k["tid"]),
                      f"{k['dur']:.0f}", grid, name])


if __name__ == "__main__":
    main(sys.argv[1])
