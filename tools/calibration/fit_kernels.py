#!/usr/bin/env python3
"""The device rounds' kernel figures beside the GEMM curves (fit_gemm.py imports and prints them):
decode-sized GEMMs and attention (decode_kernels.py, on the H200 and the H100), grouped expert GEMMs
(grouped_gemm.py --graph) and a GEMM beside a communication stand-in (overlap_interference.py), on
the H200. Standard library only."""
import functools
import glob
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


KERNEL_GAP_US = 1.24  # the catalog's kernel_gap_us: a tiny kernel replayed from a CUDA graph (H200)


def clock_at(duties, clocks, duty):
    """A clock_duty curve at `duty`: linear between its points (duties rising), flat beyond its ends,
    as topo::ClockCurve::at."""
    if duty <= duties[0]:
        return clocks[0]
    for i in range(1, len(duties)):
        if duty <= duties[i]:
            return clocks[i - 1] + (clocks[i] - clocks[i - 1]) * (duty - duties[i - 1]) / (duties[i] - duties[i - 1])
    return clocks[-1]


def line_fit(xs, ts):
    """(slope, intercept) minimising sum(((slope x + intercept) / t - 1)^2): relative errors."""
    w = [1.0 / t for t in ts]
    sxx = sum((x * wi) ** 2 for x, wi in zip(xs, w))
    sx1 = sum(x * wi * wi for x, wi in zip(xs, w))
    s11 = sum(wi * wi for wi in w)
    sxt = sum(x * wi for x, wi in zip(xs, w))
    s1t = sum(w)
    det = sxx * s11 - sx1 * sx1
    return (sxt * s11 - s1t * sx1) / det, (sxx * s1t - sx1 * sxt) / det


# The Hopper GPUs measured on a device, and the catalog GPUs that take each one's own figures (decode
# kernels here, the clock by duty in fit_gemm.py): the H800 is the H100 with fewer NVLinks (same HBM3 at
# 3.35 TB/s, same 700 W); B200 and GB200 keep the H200's, as their GEMM curves and HBM figures were
# calibrated against it (fit_gemm.py print_blackwell, print_blackwell_hbm).
MEASURED_TAKERS = {"h200": ("h200", "b200", "gb200"), "h100": ("h100-sxm", "h800")}
# The decode GEMM figures (gemm_hbm, gemm_fixed_us) of B200 and GB200 are their own: aiconfigurator's
# harness ratios to the H200 (aiconfigurator_decode_fits); they keep the H200's decode attention.
DECODE_GEMM_OWN = ("b200", "gb200")


@functools.cache
def decode_fits(gpu="h200"):
    """Decode-sized kernels from CUDA graphs (decode_kernels.py) on one GPU: time = bytes / (HBM x eff)
    + fixed. GEMMs (bf16, weights of Llama-70B's TP-8 shards and its unsharded MLP) per row count m in
    the memory-bound range 1-32: the medians of the fitted efficiencies and intercepts; attention
    (cuDNN, one query token against the KV cache) over every batch and context. The intercepts hold
    the graph's kernel gap, which the catalog's fixed costs leave out (the H200's 1.24 us; the H100,
    the same die, was not timed for it)."""
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(HERE, f"{gpu}-*-decode-kernels.json")))]
    peak = runs[0]["peak_hbm"]
    gemm = []
    for m in (1, 8, 16, 32):
        rows = [r for run in runs for r in run["gemm"] if r.get("kind") == "bf16" and r.get("m") == m]
        a, t0 = line_fit([r["weight_bytes"] / peak * 1e6 for r in rows], [r["time_us"] for r in rows])
        gemm.append((m, 1.0 / a, t0))
    rows = [r for run in runs for r in run["attention"] if r.get("backend") == "cudnn" and "error" not in r]
    a, t0 = line_fit([r["kv_bytes"] / peak * 1e6 for r in rows], [r["time_us"] for r in rows])
    res = [abs((r["kv_bytes"] / peak * 1e6 * a + t0) / r["time_us"] - 1.0) for r in rows]
    return {"peak_hbm": peak, "gemm_rows": gemm, "gemm_hbm": statistics.median(e for _, e, _ in gemm),
            "gemm_fixed_us": statistics.median(t for _, _, t in gemm) - KERNEL_GAP_US,
            "attention_hbm": 1.0 / a, "attention_fixed_us": t0 - KERNEL_GAP_US,
            "attention_residual": (statistics.mean(res), max(res), len(rows))}


def print_decode_fits():
    print("**Decode-sized kernels** (CUDA graphs; time = bytes / (HBM x eff) + intercept, relative least "
          "squares against the GPU's datasheet HBM bandwidth; the intercept holds the graph's 1.24 us kernel gap)\n")
    print("| GPU | kernel | rows m | HBM efficiency | intercept us |")
    print("|---|---|---|---|---|")
    for gpu in MEASURED_TAKERS:
        d = decode_fits(gpu)
        for m, e, t0 in d["gemm_rows"]:
            print(f"| {gpu} | bf16 GEMM (5 weight shapes, 17-940 MB) | {m} | {e:.3f} | {t0:.2f} |")
        mean, worst, n = d["attention_residual"]
        print(f"| {gpu} | cuDNN decode attention ({n} batches x contexts, mean residual {100 * mean:.1f}%, max "
              f"{100 * worst:.1f}%) | 1 | {d['attention_hbm']:.3f} | {d['attention_fixed_us'] + KERNEL_GAP_US:.2f} |")
    print()
    for gpu, takers in MEASURED_TAKERS.items():
        d = decode_fits(gpu)
        gemm_takers = [t for t in takers if t not in DECODE_GEMM_OWN]
        print(f"catalog decode ({gpu}; {' '.join(gemm_takers)}): gemm_hbm = {d['gemm_hbm']:.3f}, gemm_fixed_us = "
              f"{d['gemm_fixed_us']:.2f}, attention_hbm = {d['attention_hbm']:.3f}, attention_fixed_us = "
              f"{d['attention_fixed_us']:.2f}")
        if len(gemm_takers) < len(takers):
            print(f"catalog decode attention ({gpu}; {' '.join(t for t in takers if t in DECODE_GEMM_OWN)}): "
                  f"attention_hbm = {d['attention_hbm']:.3f}, attention_fixed_us = {d['attention_fixed_us']:.2f}")
    print()


# aiconfigurator-gemm-decode.csv's GPU names -> the catalog's ids.
DECODE_TABLE_GPUS = {"a100": "a100-sxm-80gb", "h100": "h100-sxm", "h200": "h200", "b200": "b200", "gb200": "gb200"}
# The GPUs with no decode measurement of ours whose figures are their harness ratios to the H200.
DECODE_RATIO_GPUS = ("a100", "b200", "gb200")


@functools.cache
def aiconfigurator_decode_fits():
    """Decode-sized BF16 GEMMs from aiconfigurator's tables (aiconfigurator-gemm-decode.csv: three
    engines' harnesses per GPU, CUDA graphs, weights of 16 MB and more), fitted as decode_fits fits the
    H200's own runs: time = weight bytes / (HBM x eff) + intercept, relative least squares, one fit
    per engine and row count m (1, 8, 16, 32). Per GPU: the fits and the medians over them. The H100
    and H200 rows check the harness against the H200's own measurement; the A100, which has no
    measurement of ours, takes its figures from them as ratios to the H200 (see below)."""
    import csv
    rows = {}
    with open(os.path.join(HERE, "aiconfigurator-gemm-decode.csv")) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows.setdefault((r["gpu"], r["engine"], int(r["m"])), []).append(
                (2 * int(r["n"]) * int(r["k"]), float(r["ms"]) * 1e3))
    catalog = catalog_gpus()
    out = {}
    for (gpu, engine, m), pts in sorted(rows.items()):
        peak = catalog[DECODE_TABLE_GPUS[gpu]]["hbm_tb_s"] * 1e12
        a, t0 = line_fit([b / peak * 1e6 for b, _ in pts], [t for _, t in pts])
        res = statistics.mean(abs((b / peak * 1e6 * a + t0) / t - 1.0) for b, t in pts)
        out.setdefault(gpu, {"fits": []})["fits"].append((engine, m, 1.0 / a, t0, res, len(pts)))
    for d in out.values():
        d["gemm_hbm"] = statistics.median(f[2] for f in d["fits"])
        d["intercept_us"] = statistics.median(f[3] for f in d["fits"])
    # The harness runs below the H200's own measurement (its H200 median against decode_fits'), so, as
    # for the Blackwell curves, only its ratios are used: per engine and row count, the A100's fit over
    # the H200's, the median ratio x the H200's own figure.
    own = decode_fits()
    h200 = {(e.split("/")[0], m): (eff, t0) for e, m, eff, t0, _, _ in out["h200"]["fits"]}
    h100 = {(e.split("/")[0], m): eff for e, m, eff, _, _, _ in out["h100"]["fits"]}
    out["h100"]["eff_ratio"] = statistics.median(h100[k] / h200[k][0] for k in h100)
    for gpu in DECODE_RATIO_GPUS:
        d = out[gpu]
        pairs = [(eff / h200[(e.split("/")[0], m)][0], t0 / h200[(e.split("/")[0], m)][1])
                 for e, m, eff, t0, _, _ in d["fits"]]
        d["pairs"] = len(pairs)
        d["eff_ratio"] = statistics.median(r for r, _ in pairs)
        d["intercept_ratio"] = statistics.median(r for _, r in pairs)
        d["catalog_gemm_hbm"] = d["eff_ratio"] * own["gemm_hbm"]
        d["catalog_gemm_fixed_us"] = d["intercept_ratio"] * (own["gemm_fixed_us"] + KERNEL_GAP_US) - KERNEL_GAP_US
    return out


def print_aiconfigurator_decode_fits():
    fits = aiconfigurator_decode_fits()
    own = decode_fits()
    print("**Decode-sized BF16 GEMMs in aiconfigurator's tables** (aiconfigurator-gemm-decode.csv; the same fit "
          "per engine and row count, weights of 16 MB and more; medians over the 12 fits of each GPU)\n")
    print("| GPU | engine | rows m | shapes | HBM efficiency | intercept us | mean residual |")
    print("|---|---|---|---|---|---|---|")
    for gpu, d in fits.items():
        for engine, m, e, t0, res, n in d["fits"]:
            print(f"| {gpu} | {engine} | {m} | {n} | {e:.3f} | {t0:.2f} | {100 * res:.1f}% |")
    print()
    print("| GPU | median HBM efficiency | median intercept us | the GPU's own runs (decode_kernels.py) |")
    print("|---|---|---|---|")
    for gpu, d in fits.items():
        mine = (f"{decode_fits(gpu)['gemm_hbm']:.3f}, {decode_fits(gpu)['gemm_fixed_us'] + KERNEL_GAP_US:.2f} us"
                if gpu in MEASURED_TAKERS else "none")
        print(f"| {gpu} | {d['gemm_hbm']:.3f} | {d['intercept_us']:.2f} | {mine} |")
    for gpu in DECODE_RATIO_GPUS:
        d = fits[gpu]
        print(f"\n{gpu.upper()} over H200 in the same engine's harness, median over the {d['pairs']} pairs: HBM "
              f"efficiency x {d['eff_ratio']:.3f}, intercept x {d['intercept_ratio']:.3f}; x the H200's own "
              f"{own['gemm_hbm']:.3f} and {own['gemm_fixed_us'] + KERNEL_GAP_US:.2f} us (less the kernel gap for the "
              f"catalog's fixed time)")
    print(f"The H100 over the H200, the same way: HBM efficiency x "
          f"{fits['h100']['eff_ratio']:.3f}; our own runs on the two GPUs give x "
          f"{decode_fits('h100')['gemm_hbm'] / own['gemm_hbm']:.3f}\n")
    for gpu in DECODE_RATIO_GPUS:
        d = fits[gpu]
        print(f"catalog decode ({DECODE_TABLE_GPUS[gpu]}): gemm_hbm = {d['catalog_gemm_hbm']:.3f}, "
              f"gemm_fixed_us = {d['catalog_gemm_fixed_us']:.2f}")
    print()


def print_grouped_fit():
    """Grouped expert GEMMs (torch._grouped_mm, CUTLASS) over a batched GEMM of the same shapes
    (grouped_gemm.py --graph: 8 expert layouts, 64-1,024 rows per expert): time ratio = 1 + m_half / m,
    least squares on the ratio."""
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, "h200-*-grouped-gemm.json"))):
        rows += [r for r in json.load(open(path))["rows"] if "error" not in r]
    by = {(r["layer"], r["m"], r["kind"]): r for r in rows}
    pairs = [(m, r["time_us"] / by[(layer, m, "bmm")]["time_us"]) for (layer, m, kind), r in by.items()
             if kind == "grouped" and (layer, m, "bmm") in by]
    m_half = sum((t - 1.0) / m for m, t in pairs) / sum(1.0 / m ** 2 for m, _ in pairs)
    print("**Grouped expert GEMMs over batched ones** (bf16, CUDA graphs, median over the layouts per row count)\n")
    print("| rows per expert | grouped / batched time | 1 + m_half / rows |")
    print("|---|---|---|")
    for m in sorted({m for m, _ in pairs}):
        print(f"| {m} | {statistics.median(t for mm, t in pairs if mm == m):.3f} | {1 + m_half / m:.3f} |")
    print(f"\ncatalog grouped: grouped_m_half = {m_half:.1f}\n")


def catalog_gpus():
    """The built-in catalog's GPU entries (scenarios/catalog/gpus.toml), by id; an entry with `preset`
    is its base's figures with its own on top, as stepsim reads it (scenarios/catalog.cpp)."""
    import tomllib
    with open(os.path.join(HERE, "..", "..", "scenarios", "catalog", "gpus.toml"), "rb") as f:
        raw = tomllib.load(f)["gpu"]
    out = {}
    for gpu, spec in raw.items():
        base = out.get(spec.get("preset"), {})
        merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items() if k != "aliases"}
        for k, v in spec.items():
            merged[k] = {**merged.get(k, {}), **v} if isinstance(v, dict) and k in merged else v
        out[gpu] = merged
    return out


def comm_interference():
    """GEMM slowdown beyond the SM share beside a stand-in for communication kernels (a copy of N CTAs:
    overlap_interference.py), the mean of its two shapes per N; each GPU's figure interpolates it at the
    CTA count its comm_sm_fraction stands for on the H200's 132 SMs (clamped to the measured range)."""
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, "h200-*-overlap-interference.json"))):
        rows += [r for r in json.load(open(path))["rows"] if r["ctas"] > 0]
    by_n = {}
    for r in rows:
        by_n.setdefault(r["ctas"], []).append(r["slowdown"] / r["sm_share_model"])
    points = sorted((n, statistics.mean(v)) for n, v in by_n.items())
    print("**Communication beside a GEMM: slowdown beyond the SM share** (GEMM time beside N copying CTAs / "
          "alone, over 1 / (1 - N / 132); mean of 8192^3 and 4096 x 7168 x 4096 at the power limit)\n")
    print("| CTAs | " + " | ".join(str(n) for n, _ in points) + " |")
    print("|---|" + "---|" * len(points))
    print("| excess | " + " | ".join(f"{v:.3f}" for _, v in points) + " |\n")
    out = {}
    for gpu, spec in catalog_gpus().items():
        n = min(max(spec["comm_sm_fraction"] * 132.0, points[0][0]), points[-1][0])
        lo = max(p for p in points if p[0] <= n)
        hi = min(p for p in points if p[0] >= n)
        out[gpu] = lo[1] if hi[0] == lo[0] else lo[1] + (hi[1] - lo[1]) * (n - lo[0]) / (hi[0] - lo[0])
    print("catalog comm_interference: " + ", ".join(f"{g} {v:.3f}" for g, v in out.items()) + "\n")
    return out
