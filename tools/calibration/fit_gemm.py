#!/usr/bin/env python3
"""Fits stepsim's GEMM efficiency curve to every recorded and published GEMM measurement.

The curve (topology/gpu.hpp GemmCurve) is

    eff(M, N, K) = peak / (1 + mn_half * (1/M + 1/N) + k_half / K)

so 1/eff = a0 + a1 (1/M + 1/N) + a2 / K is linear in (a0, a1, a2): an ordinary least-squares fit on
relative errors (each row divided by the measured 1/eff) gives them, and peak = 1/a0,
mn_half = a1/a0, k_half = a2/a0. M and N share a coefficient: cuBLAS picks its tile orientation,
so neither output dimension is special.

Inputs (this folder): h200-*.json (tools/calibration/hopper_op_classes.py runs: bf16 GEMMs on one
H200) and public-gemm.json (published tables with their sources). Fits:

  hopper bf16      every GEMM of every H200 run (large, skinny and grouped expert shapes)
  hopper fp8       forward GEMMs (fast accumulation): the tilelang FP8 K sweep, mn_half held at the bf16
                   fit's, because an FP8 GEMM runs twice the FLOPs per second on operands of half the
                   bytes, so the operand-streaming cost per FLOP (the 1/M, 1/N terms) does not change;
                   dgrad and wgrad (split accumulation): the same curve scaled so that MAMF's FP8 / BF16
                   best shapes on H100 keep their ratio (one harness, random data, one power limit)
  blockwise ratio  DeepGEMM's block-scaled FP8 kernels over the tensor-scaled curve (median, M >= 4096),
                   printed for comparison: the catalog's fp8_blockwise comes from the GEMMs of a real
                   training step (DeepSeek's profile, fit_profile.py)
  blackwell bf16   B200 and GB200: aiconfigurator's power-limited BF16 GEMM timings
                   (aiconfigurator-gemm-bf16-sustained.csv: one harness and vLLM 0.22.0 on H200, B200 and
                   GB200, about 1 s per shape; the shapes both GPUs ran at 97% of their power limit or
                   more, at_power_limit): each shape's Hopper curve value
                   times that shape's Blackwell / H200 efficiency ratio, fitted like the Hopper runs (the
                   harness's own bias cancels in the ratio; the H200 runs sit at the power-limited level,
                   so the ratio is taken there)
  blackwell fp8    the Blackwell BF16 shape terms (k_half scaled as Hopper's FP8 / BF16 k_half) and the
                   FP8 / BF16 peak ratio of the MAMF figures below (aiconfigurator's FP8 timings include
                   TensorRT-LLM's dynamic activation quantisation, so they do not give a GEMM alone)
  decode kernels   decode-sized GEMMs and cuDNN decode attention from CUDA graphs: HBM efficiency and
                   fixed time per kernel (gemm_hbm, gemm_fixed_us, attention_hbm, attention_fixed_us);
                   the GEMM curves are fitted to the times less that fixed time
  grouped experts  grouped expert GEMMs over batched GEMMs of the same shapes (grouped_m_half)
  comm beside     a GEMM's slowdown beyond the SM share beside a copy kernel standing for NCCL's
                   (overlap_interference.py), per GPU at the CTA count of its comm_sm_fraction
  sustained check  the H200 runs against aiconfigurator's power-limited H200 timings, and the Blackwell
                   curves refitted from the burst ratios of TensorRT-LLM 1.3.0rc10's short CUDA-graph runs
                   (aiconfigurator-gemm-bf16.csv; printed, not used)
  blackwell attn   attention: the H200's measured cuDNN figure (0.49, docs/simulation.md section 6) x the
                   median Blackwell / H200 efficiency ratio of aiconfigurator's causal context attention
                   (aiconfigurator-attention-bf16.csv: forward only; the backward is taken to scale alike)
  other GPUs       only a best-shape MAMF figure each: the Hopper shape terms, and the Hopper peak
                   scaled by the GPU's MAMF efficiency over H100's (a brute-force search's best shape
                   beats any smooth curve by a bias that the ratio cancels)

Prints the fitted figures (the catalog's gemm_bf16 / gemm_fp8) and per-shape residual tables in
Markdown (docs/simulation.md section 6 carries them). Needs only the standard library.
Usage: python3 tools/calibration/fit_gemm.py
"""
import functools
import glob
import json
import os
import statistics

from fit_kernels import (KERNEL_GAP_US, MEASURED_TAKERS, clock_at, comm_interference, decode_fits, line_fit,
                         print_aiconfigurator_decode_fits, print_decode_fits, print_grouped_fit)

HERE = os.path.dirname(os.path.abspath(__file__))


def solve3(a, b):
    """Solves the 3x3 system a x = b (Gaussian elimination with partial pivoting)."""
    m = [row[:] + [v] for row, v in zip(a, b)]
    for c in range(3):
        p = max(range(c, 3), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(3):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][3] / m[i][i] for i in range(3)]


def features(s):
    return [1.0, 1.0 / s["m"] + 1.0 / s["n"], 1.0 / s["k"]]


def fit(shapes, fixed_a1_ratio=None):
    """Least squares on relative error of 1/eff. fixed_a1_ratio: hold mn_half (= a1/a0) at a value."""
    rows, rhs = [], []
    for s in shapes:
        y = 1.0 / s["eff"]
        x = features(s)
        if fixed_a1_ratio is not None:  # 1/eff = a0 (1 + r u) + a2 v: two unknowns
            x = [1.0 + fixed_a1_ratio * x[1], 0.0, x[2]]
        rows.append([v / y for v in x])
        rhs.append(1.0)
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]
    atb = [sum(r[i] * v for r, v in zip(rows, rhs)) for i in range(3)]
    if fixed_a1_ratio is not None:
        ata[1] = [0.0, 1.0, 0.0]
        atb[1] = 0.0
    a0, a1, a2 = solve3(ata, atb)
    if fixed_a1_ratio is not None:
        a1 = fixed_a1_ratio * a0
    return {"peak": 1.0 / a0, "mn_half": a1 / a0, "k_half": a2 / a0}


def curve(c, s):
    return c["peak"] / (1.0 + c["mn_half"] * (1.0 / s["m"] + 1.0 / s["n"]) + c["k_half"] / s["k"])


def priced(c, s):
    """The efficiency stepsim gives a shape: its kernel time is the larger of the curve's compute time and
    the operands' HBM time (topology/compute_model.cpp), so the curve, capped where a shape carries the
    efficiency at which the two meet (`cap`)."""
    return min(curve(c, s), s.get("cap", float("inf")))


def roofline_fit(shapes):
    """The curve fitted to the shapes stepsim prices by it: those whose curve value is at or below their
    HBM cap (compute-bound in the model). A shape the roofline's memory term prices says nothing about
    the compute curve; fitting the curve to it anyway bends the curve's shape terms to carry HBM time
    (a skinny GEMM on the H100, 3.35 TB/s, streams its weight longer than its FLOPs take). Starts from
    every shape and refits on the compute-bound set until the set stops changing."""
    chosen = list(shapes)
    for _ in range(50):
        c = fit(chosen)
        bound = [s for s in shapes if curve(c, s) <= s.get("cap", float("inf"))]
        if bound == chosen:
            break
        chosen = bound
    return dict(c, fitted=len(chosen))


def h200_shapes():
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "h200-*.json"))):
        run = json.load(open(path))
        label = os.path.basename(path).replace(".json", "")
        for group in ("large_gemm", "small_gemm", "expert_gemm"):
            for g in run.get(group, []):
                out.append({"m": g["m"], "n": g["n"], "k": g["k"], "count": g.get("count", 1),
                            "eff": g["efficiency"], "set": label})
    return out


HOPPER_RUNS = tuple(sorted(MEASURED_TAKERS))  # the Hopper GPUs measured (same die and 700 W, not the same HBM)
PEAK_FLOPS = {"bf16": 989e12, "fp8": 1979e12}  # H100 / H200 SXM dense datasheet figures
OPERAND_BYTES = {"bf16": 2, "fp8": 1}


def state_rows(gpus=HOPPER_RUNS):
    """Rows of the gemm_states.py runs: each shape short-run (after 1.5 s idle) and at the power limit,
    timed from CUDA graphs (no launch cost); `gpu` is the GPU a row was measured on."""
    out = []
    for gpu in gpus:
        for path in sorted(glob.glob(os.path.join(HERE, f"{gpu}-*-gemm-states.json"))):
            label = os.path.basename(path).replace(".json", "")
            out += [dict(r, set=label, gpu=gpu) for r in json.load(open(path))["rows"]]
    return out


def hbm_cap(m, n, k, count, precision, gpu):
    """The efficiency at which a GEMM's compute time meets its HBM time on a measured Hopper GPU (h100
    or h200; the H800 has the H100's HBM3): A and B read once in the operand precision, C
    written in bf16, at the GPU's measured weight-streaming efficiency (gemm_hbm), as stepsim's roofline
    prices a GEMM's bytes."""
    nbytes = count * ((m * k + k * n) * OPERAND_BYTES[precision] + 2 * m * n)
    decode = decode_fits(gpu)  # the GPU's datasheet HBM bandwidth and its measured streaming fraction
    memory_s = nbytes / (decode["peak_hbm"] * decode["gemm_hbm"])
    return 2.0 * m * n * k * count / memory_s / PEAK_FLOPS[precision]


def with_cap(s, precision, gpu):
    return dict(s, cap=hbm_cap(s["m"], s["n"], s["k"], s.get("count", 1), precision, gpu))


def state_shapes(precision, accumulation=None, state="short"):
    """Efficiency of the rate term alone: each graph-timed call less the GEMM's fixed cost and the
    kernel gap (decode_fits of the GPU it ran on), which stepsim adds to every GEMM kernel on its own."""
    out = []
    for r in state_rows():
        if r["precision"] != precision or (accumulation is not None and r["accumulation"] != accumulation):
            continue
        fixed = decode_fits(r["gpu"])["gemm_fixed_us"] + KERNEL_GAP_US
        t = r[state + "_us"]
        out.append({"m": r["m"], "n": r["n"], "k": r["k"], "count": r["count"], "set": r["set"],
                    "eff": r[state + "_efficiency"] * t / (t - fixed),
                    "cap": hbm_cap(r["m"], r["n"], r["k"], r["count"], precision, r["gpu"])})
    return out


LLAMA3_MFU = 0.405  # Llama 3 paper (Dubey et al. 2024, table 4): 38-43% BF16 MFU on 8K-16K H100, midpoint


def power_limited():
    """The power-limited / short-run ratio at full tensor-core duty (median over the H200's gemm_states
    shapes, the runs the earlier checks below were made against), and per measured GPU the clock by
    tensor-core duty (clock_duty): the power_mix ratio at each measured duty, the mean of its fillers
    (HBM-bound copies and a spinning kernel, as a step's other kernels and its waits). The two GPUs share
    a die and a 700 W limit, but not their memory: the H200's HBM3e at 4.8 TB/s leaves the SMs less of it."""
    rows = state_rows(("h200",))
    full = statistics.median(r["ratio"] for r in rows)
    big = [r["sustained_efficiency"] for r in rows if r["precision"] == "bf16" and min(r["m"], r["n"]) >= 4096]
    duty = LLAMA3_MFU / statistics.median(big)
    print("**Power limit: GEMM throughput at the 700 W limit over the short-run speed, seconds 4-8 of each mix**\n")
    print("| GPU | tensor-core duty | filler | GEMM ratio | SM clock MHz | board W |")
    print("|---|---|---|---|---|---|")
    points = {}
    for gpu in MEASURED_TAKERS:
        mix = {}
        for path in sorted(glob.glob(os.path.join(HERE, f"{gpu}-*-power-mix.json"))):
            for r in json.load(open(path))["duty"]:
                mix.setdefault(r["duty"], []).append(r["ratio"])
                print(f"| {gpu} | {r['duty']:.2f} | {r['filler']} | {r['ratio']:.3f} | {r['sm_mhz']:.0f} | "
                      f"{r['power_w']:.0f} |")
        points[gpu] = sorted((d, statistics.mean(v)) for d, v in mix.items())
    clock = clock_at([d for d, _ in points["h200"]], [c for _, c in points["h200"]], duty)
    print()
    for gpu in HOPPER_RUNS:
        ratios = [r["ratio"] for r in state_rows((gpu,))]
        print(f"full duty, every shape, 0.6-1.2 s into its loop ({gpu} gemm_states): median "
              f"{statistics.median(ratios):.3f} over {len(ratios)} shapes (range {min(ratios):.3f}-{max(ratios):.3f})")
    print(f"the single clock of earlier versions: a training step's duty taken as MFU {LLAMA3_MFU} / sustained "
          f"GEMM efficiency {statistics.median(big):.3f} = {duty:.2f}, where the H200's curve gives {clock:.3f}; "
          f"each step now takes the curve at its own duty\n")
    return full, points


def public_sets():
    return json.load(open(os.path.join(HERE, "public-gemm.json")))["sets"]


def with_eff(s, peak):
    r = dict(s)
    r["eff"] = s["tflops"] / s.get("peak_tflops", peak)
    return r


AIC_PEAK_TFLOPS = {"h200": 989.0, "b200": 2250.0, "gb200": 2500.0}
AIC_MIN_MS = 0.02  # H200 time below 20 us: a few us of fixed kernel cost dominate both GPUs' times


@functools.lru_cache(maxsize=None)
def read_table(name):
    """A CSV of this folder written by aiconfigurator.mjs: '#' comment lines, a header, numbers."""
    lines = [x for x in open(os.path.join(HERE, name)) if not x.startswith("#")]
    head = lines[0].strip().split(",")
    return [dict(zip(head, (float(v) for v in x.strip().split(",")))) for x in lines[1:]]


def aiconfigurator_rows():
    """The BF16 GEMMs timed by aiconfigurator on H200, B200 and GB200 (aiconfigurator.mjs)."""
    return [r for r in read_table("aiconfigurator-gemm-bf16.csv") if r["h200_ms"] >= AIC_MIN_MS]


def blackwell_shapes(hopper, gpu, rows):
    """Per shape: the Hopper curve x (the GPU's efficiency / H200's), both from the same harness. The
    curve uncapped: a shape's ratio is taken as the ratio of compute speeds. (Capping both sides by HBM
    and fitting with roofline_fit was tried: residuals rose from 8.0% to 8.2-8.5% mean and B200's
    mn_half went negative, so the ratio rule stays as it was.)"""
    out = []
    for r in rows:
        s = {"m": int(r["m"]), "n": int(r["n"]), "k": int(r["k"]), "set": f"aiconfigurator-{gpu}"}
        ratio = (r["h200_ms"] / r[gpu + "_ms"]) * (AIC_PEAK_TFLOPS["h200"] / AIC_PEAK_TFLOPS[gpu])
        s["eff"] = curve(hopper, s) * ratio
        out.append(s)
    return out


def sustained_rows():
    """aiconfigurator's power-limited BF16 GEMMs (vLLM 0.22.0) on H200, B200 and GB200."""
    return [r for r in read_table("aiconfigurator-gemm-bf16-sustained.csv") if r["h200_ms"] >= AIC_MIN_MS]


AT_LIMIT = 0.97  # the harness's GEMMs that fill the GPU draw 97-99% of the board's power limit


def board_limit_w(rows, gpu):
    """The GPU's power limit as the harness saw it: the median board power of its GEMMs of 0.5 ms or more."""
    return statistics.median(r[gpu + "_w"] for r in rows if r[gpu + "_ms"] >= 0.5)


def at_power_limit(rows, gpu):
    """The shapes both H200 and `gpu` ran at their power limit (board power >= AT_LIMIT x the limit).
    Below it a shape's clock had not fallen: 56 of GB200's and 82 of H200's long GEMMs drew under
    97% and ran 19-24% (GB200) and 13% (H200) more efficiently than those at the limit (median, M, N
    >= 4,096), and a ratio with one GPU at its limit and the other not is neither GPU's."""
    limit = {g: board_limit_w(rows, g) for g in ("h200", gpu)}
    return [r for r in rows if all(r[g + "_w"] >= AT_LIMIT * limit[g] for g in limit)]


def print_sustained_check(hopper, h200_runs, blackwell):
    """Do the calibration's curves hold at the power limit? Printed as two tables."""
    rows = sustained_rows()
    by_shape = {(int(r["m"]), int(r["n"]), int(r["k"])): r for r in rows}
    burst = aiconfigurator_rows()
    print("| M x N x K | H200 runs (mean) | H200 at its power limit (aiconfigurator) | runs / power-limited |")
    print("|---|---|---|---|")
    ratios = []
    shapes = sorted({(s["m"], s["n"], s["k"]) for s in h200_runs})
    for m, n, k in shapes:
        r = by_shape.get((m, n, k))
        if r is None:
            continue
        ours = statistics.mean(s["eff"] for s in h200_runs if (s["m"], s["n"], s["k"]) == (m, n, k))
        limited = 2.0 * m * n * k / (r["h200_ms"] * 1e-3) / (AIC_PEAK_TFLOPS["h200"] * 1e12)
        if m >= 2048:
            ratios.append(ours / limited)
        print(f"| {m} x {n} x {k} | {ours:.3f} | {limited:.3f} | {ours / limited:.3f} |")
    print(f"\nM >= 2,048 (training GEMMs): median runs / power-limited {statistics.median(ratios):.3f} over {len(ratios)} shapes")
    watts = {g: board_limit_w(rows, g) for g in ("h200", "b200", "gb200")}
    print("median board power of the GEMMs of 0.5 ms or more: " +
          ", ".join(f"{g} {w:.0f} W" for g, w in watts.items()) + "\n")
    print("| GPU | curve from power-limited ratios (catalog) | curve from burst ratios | 8192^3 | 4096 x 16384 x 4096 | 512 x 4096 x 7168 |")
    print("|---|---|---|---|---|---|")
    for gpu, (b16, _) in blackwell.items():
        c = fit(blackwell_shapes(hopper, gpu, burst))
        cells = []
        for m, n, k in ((8192, 8192, 8192), (4096, 16384, 4096), (512, 4096, 7168)):
            s = {"m": m, "n": n, "k": k}
            cells.append(f"{curve(b16, s):.3f} / {curve(c, s):.3f}")
        print(f"| {gpu} | {b16['peak']:.3f}, {b16['mn_half']:.0f}, {b16['k_half']:.0f} | "
              f"{c['peak']:.3f}, {c['mn_half']:.0f}, {c['k_half']:.0f} | " + " | ".join(cells) + " |")
    print()


AIC_FP8_PEAK_TFLOPS = {"h200": 1979.0, "b200": 4500.0, "gb200": 5000.0}


def fp8_rows():
    """aiconfigurator's per-tensor FP8 GEMMs with their input quantisation, and that quantisation alone."""
    return {(int(r["m"]), int(r["n"]), int(r["k"])): r for r in read_table("aiconfigurator-gemm-fp8.csv")}


def fp8_alone_ms(r, gpu):
    """The GEMM's own time, or None where the quantisation is half of the measured time or more."""
    alone = r[gpu + "_fp8_ms"] - r[gpu + "_quant_ms"]
    return alone if alone >= 0.5 * r[gpu + "_fp8_ms"] else None


def hopper_fp8_shapes(c16):
    """Per shape: the BF16 curve x (H200 FP8 GEMM efficiency / H200 BF16 efficiency), one harness."""
    fp8 = fp8_rows()
    out = []
    for r in aiconfigurator_rows():
        key = (int(r["m"]), int(r["n"]), int(r["k"]))
        alone = fp8_alone_ms(fp8[key], "h200") if key in fp8 else None
        if alone is None:
            continue
        s = {"m": key[0], "n": key[1], "k": key[2], "set": "aiconfigurator-h200-fp8"}
        s["eff"] = curve(c16, s) * (r["h200_ms"] / alone) * (AIC_PEAK_TFLOPS["h200"] / AIC_FP8_PEAK_TFLOPS["h200"])
        out.append(s)
    return out


AIC_HBM_TBPS = {"h200": 4.8, "b200": 8.0, "gb200": 8.0}


def print_blackwell_hbm():
    """Streaming kernels on Blackwell against the H200: TensorRT-LLM's dynamic per-tensor FP8
    quantisation alone (aiconfigurator-gemm-fp8.csv _quant_ms: the amax pass, then the cast: 2 + 2 + 1
    bytes an element), one harness on every GPU, at 32 M elements and more. The fraction of HBM
    bandwidth each reaches, and Blackwell's over the H200's: printed, the catalog's Blackwell `hbm`
    and `hbm_quantize` keep the Hopper figures this supports."""
    seen = {}
    for (m, _n, k), r in sorted(fp8_rows().items()):
        if m * k >= 32e6 and (m, k) not in seen:
            seen[(m, k)] = {g: m * k * 5 / (r[g + "_quant_ms"] * 1e-3) / (AIC_HBM_TBPS[g] * 1e12)
                            for g in AIC_HBM_TBPS}
    print("**Streaming kernels: FP8 quantisation's fraction of HBM bandwidth (aiconfigurator, TensorRT-LLM "
          f"1.3.0rc10, {len(seen)} sizes of 32 M elements and more)**\n")
    print("| GPU | median fraction | median over the H200's, per size |")
    print("|---|---|---|")
    for g in AIC_HBM_TBPS:
        frac = statistics.median(v[g] for v in seen.values())
        ratio = statistics.median(v[g] / v["h200"] for v in seen.values())
        print(f"| {g} | {frac:.3f} | {ratio:.3f} |")
    print()


def print_hopper_check():
    """The H100 against the H200, the GPU whose figures it took before its own round (2026-12-05: the two
    agree within 1-2% short-run at compute-bound shapes, gemm_states.py). aiconfigurator times both in
    one harness (TensorRT-LLM 1.3.0rc10, BF16 and per-tensor FP8 less its input quantisation; CUDA-graph
    replays, short bursts): the H100 / H200 efficiency ratio per shape, by band of the smaller output
    dimension, over shapes the H200 runs in 20 us or more. Both have 989 / 1,979 TFLOP/s dense, so the
    ratio of efficiencies is the ratio of speeds, H200 time / H100 time."""
    bands = [("128-1023", 128, 1024), ("1024-4095", 1024, 4096), ("4096-", 4096, 1 << 30), ("all", 128, 1 << 30)]
    print("**H100 against H200 in one harness (aiconfigurator, TensorRT-LLM 1.3.0rc10; "
          "aiconfigurator-gemm-hopper-{bf16,fp8}.csv)**\n")
    print("| precision | min(M, N) | shapes | H100 / H200 efficiency: 25th, median, 75th percentile |")
    print("|---|---|---|---|")
    sets = {
        "bf16": [(r, r["h200_ms"] / r["h100_ms"]) for r in read_table("aiconfigurator-gemm-hopper-bf16.csv")
                 if r["h200_ms"] >= AIC_MIN_MS],
        "fp8": [],
    }
    for r in read_table("aiconfigurator-gemm-hopper-fp8.csv"):
        h100, h200 = fp8_alone_ms(r, "h100"), fp8_alone_ms(r, "h200")
        if h100 is not None and h200 is not None and r["h200_fp8_ms"] >= AIC_MIN_MS:
            sets["fp8"].append((r, h200 / h100))
    for precision, rows in sets.items():
        for label, lo, hi in bands:
            ratios = sorted(x for r, x in rows if lo <= min(r["m"], r["n"]) < hi)
            q = statistics.quantiles(ratios, n=4)
            print(f"| {precision} | {label} | {len(ratios)} | {q[0]:.3f}, {q[1]:.3f}, {q[2]:.3f} |")
    print()


def blackwell_fp8_shapes(c8, gpu):
    """Per shape: the Hopper fast FP8 curve x (the GPU's FP8 GEMM efficiency / H200's), one harness."""
    out = []
    for key, r in fp8_rows().items():
        h, g = fp8_alone_ms(r, "h200"), fp8_alone_ms(r, gpu)
        if h is None or g is None or r["h200_fp8_ms"] < AIC_MIN_MS:
            continue
        s = {"m": key[0], "n": key[1], "k": key[2], "set": f"aiconfigurator-{gpu}-fp8"}
        s["eff"] = curve(c8, s) * (h / g) * (AIC_FP8_PEAK_TFLOPS["h200"] / AIC_FP8_PEAK_TFLOPS[gpu])
        out.append(s)
    return out


ATTENTION_TILE = 128  # query rows per tile of the fused attention kernels (their kBlockM)
AIC_ATTENTION_PEAK = {"a100": 312.0, "h100": 989.0, "h200": 989.0, "b200": 2250.0, "gb200": 2500.0}
AIC_SHAPE_MIN_SEQ = 1024  # shorter rows: the engines' per-token work around the kernel (RoPE, the KV-cache write) weighs in


def fit_inverse(points):
    """Relative least squares of eff = E / (1 + h_1 x_1 + h_2 x_2) over points ((x_1, x_2), eff), as `fit`
    fits the GEMM curve: linear in 1 / eff = 1 / E + (h_1 / E) x_1 + (h_2 / E) x_2, each residual relative.
    Returns E, [h_1, h_2]."""
    rows = [[eff, eff * x[0], eff * x[1]] for x, eff in points]  # [1, x_1, x_2] / (1 / eff)
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]
    atb = [sum(r[i] for r in rows) for i in range(3)]
    c = solve3(ata, atb)
    return 1.0 / c[0], [c[1] / c[0], c[2] / c[0]]


def query_tiles(b, heads, seq):
    return b * heads * -(-seq // ATTENTION_TILE)


@functools.cache
def attention_shape_fits():
    """aiconfigurator's context attention (aiconfigurator-attention-shape.csv: forward, causal, head dim 128,
    batch x heads x sequence from 1 x 1 x 512 to 256 x 64 x 16,384), per GPU and engine: efficiency (FLOPs
    2 b h s^2 d, the causal half) fitted as E / (1 + seq_half / s + tiles_half / tiles) over sequences of
    AIC_SHAPE_MIN_SEQ and more. Returns {(gpu, engine): (E, seq_half, tiles_half, mean |residual|, rows)}."""
    lines = [x for x in open(os.path.join(HERE, "aiconfigurator-attention-shape.csv")) if not x.startswith("#")]
    head = lines[0].strip().split(",")
    groups = {}
    for line in lines[1:]:
        r = dict(zip(head, line.strip().split(",")))
        b, seq, heads = int(r["batch"]), int(r["seq"]), int(r["heads"])
        if seq < AIC_SHAPE_MIN_SEQ:
            continue
        eff = 2.0 * b * heads * seq * seq * 128 / (float(r["ms"]) * 1e-3) / (AIC_ATTENTION_PEAK[r["gpu"]] * 1e12)
        groups.setdefault((r["gpu"], r["engine"]), []).append(((1.0 / seq, 1.0 / query_tiles(b, heads, seq)), eff))
    out = {}
    for key, points in groups.items():
        e, (sh, th) = fit_inverse(points)
        res = statistics.mean(abs(e / (1 + sh * x[0] + th * x[1]) / eff - 1) for x, eff in points)
        out[key] = (e, sh, th, res, len(points))
    return out


def paper_seq_half(kernel="cudnn"):
    """The FlashAttention-3 paper's H100 figures (fa3-paper-attention.csv; batch x sequence = 16k tokens,
    16 heads, so the query tiles are the same at every length): a training step's attention weighs the
    forward 1 and the backward 2.5, 3.5 / (1 / forward + 2.5 / backward) per length, fitted as
    E / (1 + seq_half / s). The kernel alone: no engine work around it."""
    rows = read_table("fa3-paper-attention.csv")
    xs, inverse = [], []
    for seq in sorted({r["seq"] for r in rows}):
        f, b = ({row["backward"]: row[kernel] for row in rows if row["seq"] == seq}[k] for k in (0.0, 1.0))
        xs.append(1.0 / seq)
        inverse.append(989.0 * (1.0 / f + 2.5 / b) / 3.5)  # 1 / eff = 1 / E + (h / E) / s
    slope, intercept = line_fit(xs, inverse)
    return slope / intercept


# The catalog GPUs that take a measured GPU's attention shape terms, and the engines each GPU's ratio to
# the H100 comes from (the same engine and version timed on both).
SHAPE_ENGINES = {"a100": ("vllm/0.14.0", "sglang/0.5.10"), "h200": ("trtllm/1.3.0rc10",),
                 "b200": ("trtllm/1.3.0rc10",), "gb200": ("trtllm/1.3.0rc10",)}
SHAPE_TAKERS = {"a100": ("a100-sxm-80gb",), "h100": ("h100-sxm", "h800"), "h200": ("h200",), "b200": ("b200",),
                "gb200": ("gb200",)}


@functools.cache
def attention_shapes():
    """Each measured GPU's (seq_half, tiles_half): seq_half the FlashAttention-3 paper's cuDNN figure on the
    H100 (the kernel alone) x the GPU's aiconfigurator seq_half over the H100's in the same engine (the
    median over engines: per-tile cost in time, so faster SMs need longer rows); tiles_half the median of
    the GPU's aiconfigurator fits (how many query tiles fill its SMs)."""
    fits = attention_shape_fits()
    h100 = paper_seq_half()
    out = {"h100": (h100, statistics.median(v[2] for (g, _), v in fits.items() if g == "h100"))}
    for gpu, engines in SHAPE_ENGINES.items():
        ratio = statistics.median(fits[(gpu, e)][1] / fits[("h100", e)][1] for e in engines)
        out[gpu] = (h100 * ratio, statistics.median(v[2] for (g, _), v in fits.items() if g == gpu))
    return out


def shape_factor(gpu, b, heads, seq):
    """1 / (1 + seq_half / s + tiles_half / tiles): the fraction of its long-row, many-tile figure."""
    sh, th = attention_shapes()[gpu]
    return 1.0 / (1.0 + sh / seq + th / query_tiles(b, heads, seq))


def print_attention_shapes():
    print("**Attention by shape** (aiconfigurator-attention-shape.csv: context attention, forward, causal, head "
          "dim 128; efficiency = E / (1 + seq_half / s + tiles_half / tiles), tiles = b x heads x ceil(s / 128), "
          f"fitted over s >= {AIC_SHAPE_MIN_SEQ})\n")
    print("| GPU | engine | rows | E | seq_half | tiles_half | mean residual |")
    print("|---|---|---|---|---|---|---|")
    for (gpu, engine), (e, sh, th, res, n) in sorted(attention_shape_fits().items()):
        print(f"| {gpu} | {engine} | {n} | {e:.3f} | {sh:.0f} | {th:.0f} | {res:.3f} |")
    print(f"\nThe kernel alone (FlashAttention-3 paper, H100, training-weighted): seq_half cuDNN "
          f"{paper_seq_half('cudnn'):.0f}, FlashAttention-2 {paper_seq_half('fa2'):.0f}, FlashAttention-3 "
          f"{paper_seq_half('fa3'):.0f}; the engines' larger figures include their per-token work around the kernel")
    for gpu, (sh, th) in attention_shapes().items():
        print(f"catalog attention shape ({gpu}; {' '.join(SHAPE_TAKERS[gpu])}): attention_seq_half = {sh:.0f}, "
              f"attention_tiles_half = {th:.0f}")
    print()


HOPPER_ATTENTION_RUN = 0.49  # cuDNN fused forward + backward on one H200, timed after >0.3 s of GEMMs


@functools.cache
def hopper_attention():
    """Hopper's short-run training attention, measured on the H100 (attention_states.py): causal
    self-attention through torch SDPA at four training shapes, each timed after 1.5 s idle (the state the
    GEMM curves are fitted in; a step's clock_duty scales both) and looped at the power limit. Returns
    (cuDNN: the mean of its forward + backward short-run efficiencies over the shapes, FlashAttention-2 /
    cuDNN: the mean of the per-shape ratios of the shapes both kernels ran, the rows)."""
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, "h100-*-attention-states.json"))):
        rows += [r for r in json.load(open(path))["rows"] if "error" not in r]
    key = lambda r: (r["b"], r["heads"], r["seq"], r["head_dim"], r["v_head_dim"])
    cudnn = {key(r): r for r in rows if r["backend"] == "cudnn" and r["backward"]}
    flash = {key(r): r for r in rows if r["backend"] == "flash" and r["backward"]}
    # Each shape's efficiency over its shape factor (the H100's shape terms): the long-row, many-tile figure.
    eff = statistics.mean(r["short_efficiency"] / shape_factor("h100", r["b"], r["heads"], r["seq"])
                          for r in cudnn.values())
    fa2 = statistics.mean(flash[k]["short_efficiency"] / cudnn[k]["short_efficiency"] for k in flash if k in cudnn)
    return eff, fa2, rows


def print_hopper_attention():
    eff, fa2, rows = hopper_attention()
    print("**Training attention on the H100** (attention_states.py: causal, torch SDPA, bf16; FLOPs 0.5 x 2 b h "
          "s^2 (d + d_v), backward 2.5x the forward; short-run after 1.5 s idle, sustained over 0.8-1.6 s of a loop)\n")
    print("| kernel | b x heads x seq | head dims | pass | short-run eff | sustained eff | sustained / short |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['backend']} | {r['b']} x {r['heads']} x {r['seq']} | {r['head_dim']}/{r['v_head_dim']} | "
              f"{'fwd+bwd' if r['backward'] else 'fwd'} | {r['short_efficiency']:.3f} | "
              f"{r['sustained_efficiency']:.3f} | {r['short_us'] / r['sustained_us']:.3f} |")
    ratios = [r["short_us"] / r["sustained_us"] for r in rows if r["backward"]]
    print(f"\nforward + backward at the power limit over short-run: median {statistics.median(ratios):.3f}: attention "
          "draws less power than a GEMM and keeps more of its clock, so the earlier rule (an H200 per-call figure "
          f"taken as power-limited and divided by the GEMMs' ratio: {HOPPER_ATTENTION_RUN} / 0.832 = "
          f"{HOPPER_ATTENTION_RUN / 0.832:.3f}) overstated the short-run speed")
    print(f"Hopper attention (catalog): mean of the {sum(1 for r in rows if r['backend'] == 'cudnn' and r['backward'])} "
          f"cuDNN forward + backward short-run efficiencies on the H100, each over its shape factor (attention by "
          f"shape, above) = {eff:.3f}\n")


def print_attention_kernels(hopper, fa2_measured):
    """FlashAttention-2 and -3 on Hopper as ratios to cuDNN's fused attention (the kernel the Hopper figure
    was measured with). FlashAttention-2: PyTorch SDPA's flash backend over cuDNN, measured on the H100 at
    the same shapes (hopper_attention). FlashAttention-3 (not in PyTorch): the FlashAttention-3 paper's
    figures, at the training lengths 4k and 8k: per length, a training step's attention weighs the forward
    1 and the backward 2.5 (its 5 matmuls to 2), so the step's ratio is 3.5 / (1 / forward ratio + 2.5 /
    backward ratio); the two lengths' mean. The paper's FlashAttention-2 ratio is printed beside ours."""
    rows = read_table("fa3-paper-attention.csv")
    out = {}
    for kernel in ("fa2", "fa3"):
        per_length = []
        for seq in (4096, 8192):
            r = {row["backward"]: row[kernel] / row["cudnn"] for row in rows if row["seq"] == seq}
            per_length.append(3.5 / (1.0 / r[0.0] + 2.5 / r[1.0]))
        out[kernel] = sum(per_length) / len(per_length)
    print(f"Hopper attention kernels over cuDNN: fa2 x {fa2_measured:.3f} (measured on the H100; the "
          f"FlashAttention-3 paper's figures give x {out['fa2']:.3f}), fa3 x {out['fa3']:.3f} (the paper)")
    flex = flex_over_fa2()
    print(f"FlexAttention over FlashAttention-2 (flexattention-published.csv; each pass at the middle of its "
          f"published range, weighed forward 1 : backward 2.5): Hopper x {flex['hopper']:.3f}, A100 x "
          f"{flex['a100']:.3f}")
    print(f"catalog attention kernels (hopper): attention_fa2 = {hopper * fa2_measured:.3f}, "
          f"attention_fa3 = {hopper * out['fa3']:.3f}, attention_flex = {hopper * fa2_measured * flex['hopper']:.3f}")
    triton = triton_over_fa2()
    print(f"Triton FlashAttention over FlashAttention-2 on the A100 (fa2-paper-triton-a100.csv, causal, forward + "
          f"backward, head dim 128; the median of its six lengths): x {triton:.3f}")
    print(f"catalog attention kernels (a100-sxm-80gb): attention_fa2 = {A100_FA2:.3f}, "
          f"attention_flex = {A100_FA2 * flex['a100']:.3f}, attention_triton = {A100_FA2 * triton:.3f}\n")


A100_FA2 = 0.6  # the A100 attention_fa2 the catalog assumes (FlashAttention-2 paper); printed, so checked against it


def flex_over_fa2():
    """FlexAttention's step-weighted speed over FlashAttention-2 per GPU family: the middle of each pass's
    published range (flexattention-published.csv), combined as a training step weighs them, forward 1 and
    backward 2.5 (the backward's 5 matmuls to the forward's 2): 3.5 / (1 / fwd + 2.5 / bwd)."""
    rows = read_table("flexattention-published.csv")
    out = {}
    for name, hopper in (("hopper", 1.0), ("a100", 0.0)):
        mid = {r["backward"]: (r["low"] + r["high"]) / 2.0 for r in rows if r["hopper"] == hopper}
        out[name] = 3.5 / (1.0 / mid[0.0] + 2.5 / mid[1.0])
    return out


def triton_over_fa2(head_dim=128.0):
    """Tri Dao's Triton FlashAttention over FlashAttention-2 on the A100: the median over the published
    lengths (512-16k) of the ratio of their forward + backward speeds (a combined timing weighs the passes as
    a training step does), at head dim 128, the width of the models that run it (MPT 760M-30B); at 64 the
    kernel runs relatively faster (0.47-0.67 of FlashAttention-2)."""
    rows = read_table("fa2-paper-triton-a100.csv")
    return statistics.median(r["triton"] / r["fa2"] for r in rows if r["head_dim"] == head_dim)


def print_blackwell_attention(hopper):
    """Blackwell attention = Hopper's short-run figure x the median per-shape efficiency ratio to H200."""
    rows = read_table("aiconfigurator-attention-bf16.csv")
    print("| GPU | shapes | efficiency / H200's: 25th, median, 75th percentile | attention (catalog) |")
    print("|---|---|---|---|")
    for gpu in ("b200", "gb200"):
        # Per shape, the efficiency ratio over the two GPUs' shape factors: the ratio of the limits.
        ratios = [(r["h200_ms"] / r[gpu + "_ms"]) * (AIC_PEAK_TFLOPS["h200"] / AIC_PEAK_TFLOPS[gpu]) *
                  shape_factor("h200", r["batch"], r["heads"], r["seq"]) /
                  shape_factor(gpu, r["batch"], r["heads"], r["seq"]) for r in rows]
        q = statistics.quantiles(ratios, n=4)
        print(f"| {gpu} | {len(ratios)} | {q[0]:.3f}, {q[1]:.3f}, {q[2]:.3f} | {hopper * q[1]:.3f} |")
    print()


def band_table(title, c, shapes):
    """Residuals summarised by the GEMM's smallest output dimension (thousands of shapes)."""
    bands = [(128, 511), (512, 1023), (1024, 2047), (2048, 4095), (4096, 1 << 20)]
    lines = [f"**{title}** (curve: peak {c['peak']:.3f}, mn_half {c['mn_half']:.0f}, k_half {c['k_half']:.0f})",
             "", "| min(M, N) | shapes | mean ratio-derived eff | mean |residual| | median residual |",
             "|---|---|---|---|---|"]
    for lo, hi in bands:
        sel = [s for s in shapes if lo <= min(s["m"], s["n"]) <= hi]
        if not sel:
            continue
        e = [curve(c, s) / s["eff"] - 1.0 for s in sel]
        lines.append(f"| {lo}-{hi if hi < (1 << 20) else ''} | {len(sel)} | {statistics.mean(s['eff'] for s in sel):.3f} | "
                     f"{100 * statistics.mean(abs(v) for v in e):.1f}% | {100 * statistics.median(e):+.1f}% |")
    e = [abs(curve(c, s) / s["eff"] - 1.0) for s in shapes]
    lines.append("")
    lines.append(f"{len(shapes)} shapes: mean |residual| {100 * statistics.mean(e):.1f}%, max {100 * max(e):.1f}%")
    return "\n".join(lines)


def residual_table(title, c, shapes):
    lines = [f"**{title}** (curve: peak {c['peak']:.3f}, mn_half {c['mn_half']:.0f}, k_half {c['k_half']:.0f})",
             "", "| set | M | N | K | count | measured | curve | curve / measured - 1 |", "|---|---|---|---|---|---|---|---|"]
    errs = []
    for s in shapes:
        p = priced(c, s)
        e = p / s["eff"] - 1.0
        errs.append(abs(e))
        hbm = " (HBM)" if p < curve(c, s) else ""
        lines.append(f"| {s['set']} | {s['m']} | {s['n']} | {s['k']} | {s.get('count', 1)} | {s['eff']:.3f} | "
                     f"{p:.3f}{hbm} | {100 * e:+.1f}% |")
    lines.append("")
    lines.append(f"{len(shapes)} shapes: mean |residual| {100 * statistics.mean(errs):.1f}%, "
                 f"max {100 * max(errs):.1f}%")
    return "\n".join(lines), errs


def main():
    sets = {s["id"]: s for s in public_sets()}
    bf16 = state_shapes("bf16")
    c16 = roofline_fit(bf16)
    t16, _ = residual_table(f"Hopper BF16: the H100's and H200's short-run GEMMs (gemm_states.py), the curve fitted to "
                            f"the {c16['fitted']} the model prices by it; (HBM): priced by the roofline's memory term",
                            c16, bf16)
    print(t16, "\n")
    full, clock_points = power_limited()
    old = [with_cap(x, "bf16", "h200") for x in h200_shapes()]
    t_old, _ = residual_table(f"Check: the per-call H200 runs of 2026-11-29 against that curve x {full:.3f} (most ran "
                              "at the power limit; the skinny ones also paid their launch)", dict(c16, peak=c16["peak"] * full),
                              old)
    print(t_old, "\n")

    # FP8 on Hopper runs two kinds of GEMM (Transformer Engine module/base.py: _2X_ACC_FPROP = False,
    # _2X_ACC_DGRAD = _2X_ACC_WGRAD = True): the forward with fast accumulation in the tensor cores,
    # the data and weight gradients with a split (promoted, precise) accumulator, which is slower.
    # Fast: the BF16 curve x cuBLASLt's FP8 / BF16 efficiency ratio per shape on one H200 in one harness
    # (aiconfigurator, TensorRT-LLM's fast-accumulating scaled GEMM less its input quantisation), the
    # same rule as the Blackwell curves; the tilelang K sweep (a plain WGMMA kernel on an H800) checks
    # it. Split: the same shape terms, peak from MAMF's FP8 and BF16 best shapes on one H100
    # (torch._scaled_mm, whose default use_fast_accum=False is the precise path; one harness, random
    # data, one power limit), so the FP8/BF16 ratio is that pair's.
    fast8 = state_shapes("fp8", "fast")
    c8 = roofline_fit(fast8)
    t8s, _ = residual_table("Hopper FP8, tensor scaling, fast accumulation (forward GEMMs): the H100's and H200's "
                            f"short-run torch._scaled_mm (gemm_states.py), the curve fitted to the {c8['fitted']} "
                            "the model prices by it", c8, fast8)
    print(t8s, "\n")
    hopper8 = hopper_fp8_shapes(c16)
    print(band_table("Check: the BF16 curve x aiconfigurator's H200 FP8 / BF16 efficiency, per shape, against the "
                     "measured fast curve", c8, hopper8), "\n")
    sweep = [with_cap(dict(with_eff(x, 1979), set="tilelang-h800-fp8"), "fp8", "h100")
             for x in sets["tilelang-h800-fp8"]["shapes"]]
    t8, _ = residual_table("Check: the tilelang FP8 K sweep (H800) against that fast curve", c8, sweep)
    print(t8, "\n")
    mamf16 = [dict(with_eff(x, 989), set="mamf-hopper-bf16") for x in sets["mamf-hopper-bf16"]["shapes"]][0]
    mamf8 = [dict(with_eff(x, 1979), set="mamf-hopper-fp8") for x in sets["mamf-hopper-fp8"]["shapes"]]
    h100_8 = [x for x in mamf8 if x.get("gpu") == "h100-sxm"][0]
    # Split accumulation: the measured split / fast ratio of the shapes timed both ways (gemm_states.py).
    split8 = state_shapes("fp8", "split")
    by_shape = {(r["m"], r["n"], r["k"]): r["eff"] for r in fast8}
    split = statistics.mean(r["eff"] / by_shape[(r["m"], r["n"], r["k"])] for r in split8)
    split_peak = c8["peak"] * split
    ts, _ = residual_table(f"Hopper FP8, split accumulation (dgrad, wgrad): the fast curve x {split:.3f} (measured "
                           "split / fast, mean of the shapes timed both ways), and at the power limit against MAMF's "
                           "best shapes (which beat a smooth curve: the BF16 pair shows by how much)",
                           dict(c8, peak=split_peak * full), split8 + mamf8 + [mamf16])
    print(ts.replace(f"| mamf-hopper-bf16 | 2048 | 2048 | 13312 | 1 | {mamf16['eff']:.3f} |",
                     f"| mamf-hopper-bf16 (bf16 curve at the power limit: {curve(c16, mamf16) * full:.3f}) | 2048 | "
                     f"2048 | 13312 | 1 | {mamf16['eff']:.3f} |"), "\n")

    block = [with_cap(dict(with_eff(x, 1979), set="deepgemm"), "fp8", "h100")
             for x in sets["deepgemm-h800-fp8-block"]["shapes"]]
    big = [x for x in block if x["m"] >= 4096]
    ratio = statistics.median(x["eff"] / curve(c8, x) for x in big)
    tb, _ = residual_table(f"DeepGEMM block-scaled FP8 (CUDA-core promotion in every GEMM) against the fast curve "
                           f"x {ratio:.3f} (ratio: median over M >= 4096)", dict(c8, peak=c8["peak"] * ratio), block)
    print(tb, "\n")

    # MAMF runs every shape for many iterations, so at the power limit, and so did most of the per-call
    # runs of 2026-11-29: the other GPUs (A100, MI300X; sustained_clock 1) keep the rule they were derived
    # with, the shape terms and peak of the curve fitted to those runs, scaled by the MAMF ratio.
    c_old = fit(old)
    print(f"Per-call runs of 2026-11-29 (at the power limit, launch-biased when skinny), fitted alone: peak "
          f"{c_old['peak']:.3f}, mn_half {c_old['mn_half']:.0f}, k_half {c_old['k_half']:.0f}\n")
    ref = {"bf16": (mamf16["eff"], c_old["peak"]), "fp8": (h100_8["eff"], split_peak * full)}
    blackwell = print_blackwell(c16, c8, sets)
    print_sustained_check(c16, bf16, blackwell)
    print_attention_shapes()
    print_hopper_attention()
    hopper_attn, fa2_ratio, _ = hopper_attention()
    print_blackwell_attention(hopper_attn)
    print_blackwell_hbm()
    print_hopper_check()
    print_attention_kernels(hopper_attn, fa2_ratio)
    comm_interference()
    print_decode_fits()
    print_aiconfigurator_decode_fits()
    print_grouped_fit()

    print("Other GPUs: the 2026-11-29 Hopper curve's shape terms, and peak = its peak x (the GPU's MAMF best-shape")
    print("efficiency / H100's in the same precision). B200 and GB200 take the curves above; their rows give")
    print("the FP8 / BF16 peak ratio.\n")
    print("| GPU | precision | MAMF best shape | MAMF eff | H100 MAMF eff | peak (catalog) |")
    print("|---|---|---|---|---|---|")
    for a in sets["mamf-other-gpus"]["shapes"]:
        eff = a["tflops"] / a["peak_tflops"]
        h100_eff, hopper_peak = ref[a["precision"]]
        print(f"| {a['gpu']} | {a['precision']} | {a['m']}x{a['n']}x{a['k']} | {eff:.3f} | {h100_eff:.3f} | "
              f"{hopper_peak * eff / h100_eff:.3f} |")
    print()
    print("catalog (Hopper):")
    print(f"  gemm_bf16 = {{ peak = {c16['peak']:.3f}, mn_half = {c16['mn_half']:.0f}, k_half = {c16['k_half']:.0f} }}")
    print(f"  gemm_fp8 = {{ peak = {c8['peak']:.3f}, mn_half = {c8['mn_half']:.0f}, k_half = {c8['k_half']:.0f} }}")
    print(f"  fp8_split_accumulation = {split:.3f}")
    for gpu, takers in MEASURED_TAKERS.items():
        print("  clock_duty (%s; %s) = { duty = [%s], clock = [%s] }" % (
            gpu, " ".join(takers), ", ".join(f"{d:.2f}" for d, _ in clock_points[gpu]),
            ", ".join(f"{c:.3f}" for _, c in clock_points[gpu])))
    print(f"  fp8_blockwise (DeepGEMM micro-benchmarks) = {ratio:.3f}; the catalog takes the in-training figure "
          "of DeepSeek's profile instead (fit_profile.py)")
    for gpu, (b16, b8) in blackwell.items():
        print(f"catalog ({gpu}):")
        print(f"  gemm_bf16 = {{ peak = {b16['peak']:.3f}, mn_half = {b16['mn_half']:.0f}, k_half = {b16['k_half']:.0f} }}")
        print(f"  gemm_fp8 = {{ peak = {b8['peak']:.3f}, mn_half = {b8['mn_half']:.0f}, k_half = {b8['k_half']:.0f} }}")
    print("Blackwell's FP8 peaks above come from MAMF's precise path; its tensor cores accumulate FP8 in FP32")
    print("either way, so fp8_split_accumulation = 1 there.")


def print_blackwell(c16, c8, sets):
    """B200 and GB200 curves from aiconfigurator's per-shape ratios to H200, BF16 and FP8."""
    rows = sustained_rows()
    mamf = {(a["gpu"], a["precision"]): a["tflops"] / a["peak_tflops"] for a in sets["mamf-other-gpus"]["shapes"]}
    out = {}
    for gpu in ("b200", "gb200"):
        shapes = blackwell_shapes(c16, gpu, at_power_limit(rows, gpu))
        b16 = fit(shapes)
        print(band_table(f"{gpu} BF16: the Hopper curve x aiconfigurator's {gpu} / H200 efficiency at the power "
                         "limit, per shape",
                         b16, shapes), "\n")
        best = [dict(m=a["m"], n=a["n"], k=a["k"]) for a in sets["mamf-other-gpus"]["shapes"]
                if a["gpu"] == gpu and a["precision"] == "bf16"][0]
        print(f"MAMF's {gpu} best shape {best['m']}x{best['n']}x{best['k']}: {mamf[(gpu, 'bf16')]:.3f} measured, "
              f"{curve(b16, best):.3f} on the curve (MAMF's search bias; Hopper's is 0.803 / 0.683)\n")
        # FP8: the Hopper fast curve x this GPU's FP8 / H200 FP8 GEMM efficiency per shape (TensorRT-LLM's
        # per-tensor FP8 Linear less its input quantisation, short bursts: no power-limited FP8 table
        # exists; BF16's burst and power-limited ratios differ by 0-4%, table below).
        shapes8 = blackwell_fp8_shapes(c8, gpu)
        b8 = fit(shapes8)
        print(band_table(f"{gpu} FP8: the Hopper fast curve x aiconfigurator's {gpu} / H200 FP8 efficiency, "
                         "per shape", b8, shapes8), "\n")
        out[gpu] = (b16, b8)
    return out


if __name__ == "__main__":
    main()
