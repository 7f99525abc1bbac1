#!/usr/bin/python3
"""HDF5 round trip: `stepsim run --format json --hdf5` on the small test scenario, then h5py reads
the file back and every figure of the JSON summary must be in it with the same value; the op,
memory and link tables must be consistent with the summary.

Usage: check_hdf5.py STEPSIM SCENARIO WORKDIR   (exit 77 = skipped: h5py missing)
"""
import json
import math
import os
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # Debian's python3-h5py; CI installs it (.ci/setup)
    print(f"SKIP: {e}")
    sys.exit(77)

stepsim, scenario, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
h5_path = os.path.join(work, "run.h5")
out = subprocess.run([stepsim, "run", scenario, "--format", "json", "--hdf5", h5_path],
                     check=True, capture_output=True, text=True)
summary = json.loads(out.stdout)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def leaves(node, path=""):
    """Every leaf of the JSON document under its slash-separated path, as the writer flattens it."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, f"{path}/{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, f"{path}/{i}" if path else str(i))
    else:
        yield path, node


with h5py.File(h5_path, "r") as f:
    figures = {n.decode(): v for n, v in f["summary"][()]}
    texts = {n.decode(): v.decode() for n, v in f["summary_text"][()]}
    n_leaves = 0
    for path, value in leaves(summary):
        n_leaves += 1
        if isinstance(value, str):
            check(texts.get(path) == value, f"summary_text {path}: {texts.get(path)!r} != {value!r}")
        elif value is None:
            check(path in figures and math.isnan(figures[path]), f"summary {path}: null must be NaN")
        else:
            want = float(value)  # booleans as 0/1
            got = figures.get(path)
            check(got is not None and got == want, f"summary {path}: {got} != {want}")
    check(len(figures) + len(texts) == n_leaves, f"{len(figures) + len(texts)} stored leaves, JSON has {n_leaves}")
    check(json.loads(f["summary_json"][()].decode()) == summary, "summary_json differs from stdout")
    check(f["scenario_toml"][()].decode() == open(scenario, encoding="utf-8").read(), "scenario_toml differs")
    schema = f.attrs["schema"]
    schema = schema.decode() if isinstance(schema, bytes) else schema
    check(schema == "stepsim.run/2", f"schema attribute {schema!r}")

    ops = f["ops"][()]
    check(len(ops) == summary["engine"]["ops"], f"{len(ops)} ops, summary says {summary['engine']['ops']}")
    check(np.all(ops["end_ps"] >= ops["start_ps"]), "an op ends before it starts")
    step_ps = ops["end_ps"].max()
    check(abs(step_ps * 1e-12 - summary["step_time_s"]) <= 1e-12 * max(1.0, summary["step_time_s"]),
          f"latest op end {step_ps} ps != step_time_s {summary['step_time_s']}")
    bound = h5py.check_enum_dtype(f["ops"].dtype["bound"])
    check(bound is not None and bound["compute"] == 2 and bound["nic"] == 6, f"bound enum: {bound}")
    check(set(ops["gpu"]) == {r["rank"] for r in summary["ranks"]}, "ops cover other GPUs than the summary's ranks")

    ranks = f["ranks"][()]
    for r, s in zip(ranks, summary["ranks"]):
        b = s["breakdown"]
        check(r["compute_s"] == b["compute_s"] and r["bubble_s"] == b["bubble_s"], f"rank {s['rank']} breakdown")
        check(r["exposed_dp_s"] == b["exposed_comm_s"]["dp"], f"rank {s['rank']} exposed dp")
        check(r["peak_bytes"] == s["memory_peak_bytes"], f"rank {s['rank']} memory peak")

    memory = f["memory"][()]
    peak = summary["memory"]
    busiest = memory[memory["gpu"] == peak["rank"]]
    check(abs(busiest["bytes"].max() - peak["peak_bytes"]) <= 1e-9 * peak["peak_bytes"],
          f"memory table peak {busiest['bytes'].max()} != {peak['peak_bytes']}")

    links = f["links"][()]
    check(len(links) > 0 and np.all(links["peak_utilisation"] <= 1.0 + 1e-9), "a link above its line rate")
    check(np.all(links["mean_utilisation"] <= links["peak_utilisation"] + 1e-9), "mean above peak utilisation")
    check(np.all(links["busy_s"] <= summary["step_time_s"] * (1 + 1e-9)), "a link busy longer than the step")
    tiers = f["link_tiers"][()]
    kinds = h5py.check_enum_dtype(f["link_tiers"].dtype["tier"])
    present = {k for k, v in kinds.items() if np.any(tiers["tier"] == v)}
    check({"nvlink", "nic", "leaf-spine"} <= present, f"tiers with rows: {present}")
    loads = f["link_loads"][()]
    check(len(loads) > 0 and np.all(np.diff(loads["time_ps"]) >= 0), "link_loads not in time order")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures[:40]))
    sys.exit(1)
print(f"hdf5 round trip: {len(figures)} figures, {len(texts)} texts, {len(ops)} ops, {len(links)} links match")
