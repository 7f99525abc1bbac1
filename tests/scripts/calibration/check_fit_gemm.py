#!/usr/bin/env python3
"""Checks that scenarios/catalog/gpus.toml holds the figures tools/calibration/fit_gemm.py derives.

fit_gemm.py prints, for Hopper, B200 and GB200, the gemm_bf16 and gemm_fp8 curves it fits to the
committed measurements (the H200 runs, the published tables, aiconfigurator's timings), Hopper's split
accumulation factor, the clock curve by tensor-core duty from the H200's power-limit runs, every GPU's
comm_interference (a GEMM beside a communication stand-in), the decode-kernel figures, the Hopper
attention figure and a table of the Blackwell ones, and the attention shape terms. Each must equal the catalog's to the printed
precision; the catalog's source text for each Blackwell figure must name the file it comes from.
Usage: check_fit_gemm.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys


def catalog(source):
    """The catalog's GPU entries, those with `preset` merged over their base as stepsim reads them."""
    sys.path.insert(0, os.path.join(source, "tools/calibration"))
    from fit_kernels import catalog_gpus
    return catalog_gpus()


def fitted(source):
    out = subprocess.run([sys.executable, os.path.join(source, "tools/calibration/fit_gemm.py")],
                         check=True, capture_output=True, text=True).stdout
    curves = {}
    for block in re.finditer(r"catalog \(([\w-]+)\):\n((?:  .*\n)+)", out):
        name = block.group(1).lower()
        for m in re.finditer(r"(gemm_bf16|gemm_fp8) = \{ peak = ([\d.]+), mn_half = (\d+), k_half = (\d+) \}",
                             block.group(2)):
            curves[(name, m.group(1))] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
    attention = {m.group(1): float(m.group(2))
                 for m in re.finditer(r"^\| (b200|gb200) \| \d+ \| [\d., ]+ \| ([\d.]+) \|$", out, re.M)}
    hopper = re.search(r"^Hopper attention \(catalog\): .* = ([\d.]+)$", out, re.M)
    attention.update({gpu: float(hopper.group(1)) for gpu in HOPPER} if hopper else {})
    scalars = {}
    m = re.search(r"^  fp8_split_accumulation = ([\d.]+)$", out, re.M)
    if m:
        for gpu in HOPPER:
            scalars[(gpu, "fp8_split_accumulation")] = float(m.group(1))
    # Each measured GPU's clock curve, with the catalog GPUs that take it (the H800 the H100's; Blackwell
    # the H200's, as its GEMM curves stand at the H200's short-run level).
    for m in re.finditer(r"^  clock_duty \((\w+); ([\w\- ]+)\) = \{ duty = \[([\d., ]+)\], clock = \[([\d., ]+)\] \}$",
                         out, re.M):
        for gpu in m.group(2).split():
            for axis, text in (("duty", m.group(3)), ("clock", m.group(4))):
                for i, v in enumerate(text.split(", ")):
                    scalars[(gpu, f"clock_duty.{axis}[{i}]")] = float(v)
    # Each measured GPU's decode-kernel figures, with the catalog GPUs that take them; the H200's also
    # go, in part, to GPUs with no measurement of their own (DECODE_EXTRA).
    for m in re.finditer(r"^catalog decode \((\w+); ([\w\- ]+)\): (.*)$", out, re.M):
        for item in m.group(3).split(", "):
            key, value = item.split(" = ")
            for gpu in m.group(2).split() + list(DECODE_EXTRA.get(m.group(1), {}).get(key, ())):
                scalars[(gpu, key)] = float(value)
    # The GPUs whose decode figures are aiconfigurator's ratios to the H200: the A100's GEMMs, B200's
    # and GB200's; B200 and GB200 take the H200's own decode attention.
    for m in re.finditer(r"^catalog decode (?:attention )?\(([\w\-]+)(?:; ([\w\- ]+))?\): (.*)$", out, re.M):
        if m.group(2) is not None and not m.group(0).startswith("catalog decode attention"):
            continue  # the measured GPUs' lines, above
        for item in m.group(3).split(", "):
            key, value = item.split(" = ")
            for gpu in (m.group(2).split() if m.group(2) else [m.group(1)]):
                scalars[(gpu, key)] = float(value)
    # The attention kernels' figures: "hopper" for the three Hopper GPUs, else the GPUs named.
    for m in re.finditer(r"^catalog attention kernels \(([\w\- ]+)\): (.*)$", out, re.M):
        for item in m.group(2).split(", "):
            key, value = item.split(" = ")
            for gpu in (HOPPER if m.group(1) == "hopper" else m.group(1).split()):
                scalars[(gpu, key)] = float(value)
    for m in re.finditer(r"^catalog attention shape \((\w+); ([\w\- ]+)\): (.*)$", out, re.M):
        for item in m.group(3).split(", "):
            key, value = item.split(" = ")
            for gpu in m.group(2).split():
                scalars[(gpu, key)] = float(value)
    m = re.search(r"^catalog grouped: grouped_m_half = ([\d.]+)$", out, re.M)
    if m:
        for gpu in catalog(source):
            scalars[(gpu, "grouped_m_half")] = float(m.group(1))
    m = re.search(r"^catalog comm_interference: (.*)$", out, re.M)
    for item in (m.group(1).split(", ") if m else []):
        gpu, value = item.split(" ")
        scalars[(gpu, "comm_interference")] = float(value)
    return curves, attention, scalars


HOPPER = ("h100-sxm", "h800", "h200")
# The GPUs with decode-kernel figures from the measured GPUs' lines or the A100's ratios.
DECODE_GPUS = ("a100-sxm-80gb", "h100-sxm", "h800", "h200", "b200", "gb200")
# GPUs with no decode measurement of their own that take some of the H200's figures: the A100 its
# attention (its GEMM figures are aiconfigurator's A100 / H200 ratios x the H200's: "catalog decode
# (a100-sxm-80gb)"); L4 and MI300X the fixed times (they derive gemm_hbm from their own hbm figure).
DECODE_EXTRA = {"h200": {"gemm_fixed_us": ("l4", "mi300x"), "attention_hbm": ("a100-sxm-80gb",),
                         "attention_fixed_us": ("a100-sxm-80gb", "l4", "mi300x")}}
TOP_LEVEL = ("comm_interference", "gemm_fixed_us", "attention_fixed_us")


def main():
    source = sys.argv[1]
    gpus = catalog(source)
    curves, attention, scalars = fitted(source)
    failures = []
    expect = {"hopper": HOPPER, "b200": ("b200",), "gb200": ("gb200",)}
    seen = 0
    for (fit_name, key), (peak, mn_half, k_half) in curves.items():
        for gpu in expect[fit_name]:
            c = gpus[gpu]["efficiency"][key]
            got = (c["peak"], c["mn_half"], c["k_half"])
            seen += 1
            if abs(got[0] - peak) > 5e-4 or abs(got[1] - mn_half) > 0.5 or abs(got[2] - k_half) > 0.5:
                failures.append(f"{gpu} {key}: catalog {got}, fit_gemm.py {(peak, mn_half, k_half)}")
    for gpu, value in attention.items():
        seen += 1
        if abs(gpus[gpu]["efficiency"]["attention"] - value) > 5e-4:
            failures.append(f"{gpu} attention: catalog {gpus[gpu]['efficiency']['attention']}, fit_gemm.py {value}")
    for (gpu, key), value in scalars.items():
        seen += 1
        if key.startswith("clock_duty."):
            axis, i = key[len("clock_duty."):-1].split("[")
            got = gpus[gpu]["clock_duty"][axis][int(i)]
        else:
            got = gpus[gpu][key] if key in TOP_LEVEL else gpus[gpu]["efficiency"][key]
        if abs(got - value) > 5e-4:
            failures.append(f"{gpu} {key}: catalog {got}, fit_gemm.py {value}")
    for gpu, data in (("b200", "aiconfigurator-gemm-bf16-sustained.csv"), ("gb200", "aiconfigurator-gemm-bf16-sustained.csv")):
        if data not in gpus[gpu]["source"]["efficiency.gemm_bf16"]:
            failures.append(f"{gpu}: efficiency.gemm_bf16's source does not name {data}")
        if "aiconfigurator-attention-bf16.csv" not in gpus[gpu]["source"]["efficiency.attention"]:
            failures.append(f"{gpu}: efficiency.attention's source does not name aiconfigurator-attention-bf16.csv")
    for gpu in HOPPER:
        for key, data in (("efficiency.attention", "attention-states.json"),
                          ("efficiency.attention_fa2", "attention-states.json"),
                          ("efficiency.attention_fa3", "fa3-paper-attention.csv"),
                          ("efficiency.attention_flex", "flexattention-published.csv")):
            if data not in gpus[gpu]["source"][key]:
                failures.append(f"{gpu}: {key}'s source does not name {data}")
    if "flexattention-published.csv" not in gpus["a100-sxm-80gb"]["source"]["efficiency.attention_flex"]:
        failures.append("a100-sxm-80gb: efficiency.attention_flex's source does not name flexattention-published.csv")
    if "fa2-paper-triton-a100.csv" not in gpus["a100-sxm-80gb"]["source"]["efficiency.attention_triton"]:
        failures.append("a100-sxm-80gb: efficiency.attention_triton's source does not name fa2-paper-triton-a100.csv")
    for key in ("efficiency.gemm_hbm", "gemm_fixed_us"):
        if "aiconfigurator-gemm-decode.csv" not in gpus["a100-sxm-80gb"]["source"][key]:
            failures.append(f"a100-sxm-80gb: {key}'s source does not name aiconfigurator-gemm-decode.csv")
    # Hopper's two curves on three GPUs, B200's and GB200's two each, five attention figures, split
    # accumulation on the three Hopper GPUs, the clock curve's four points (duty and clock) on five,
    # comm_interference on every GPU, the two decode efficiencies on six (the A100's GEMM figures from
    # aiconfigurator's ratios), the two fixed kernel times on eight, grouped_m_half on every GPU and the
    # FlashAttention-2, -3 and FlexAttention figures on the three Hopper GPUs, the A100's FlashAttention-2
    # figure and the FlexAttention and Triton FlashAttention ones derived from it,
    # and the attention shape terms on the six GPUs with timings of attention by shape (the A100, the Hopper
    # GPUs, B200, GB200).
    expected = (2 * 3 + 2 * 2 + 5 + 3 + 5 * 8 + 2 * len(gpus) + 2 * len(DECODE_GPUS) + 2 * (len(DECODE_GPUS) + 2) +
                3 * 3 + 3 + 2 * len(DECODE_GPUS))
    if seen != expected:
        failures.append(f"expected {expected} figures from fit_gemm.py's output, found {seen}")
    for line in failures:
        print("FAIL", line)
    print(f"{seen} fitted figures compared with the catalog, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
