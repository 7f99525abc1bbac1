#!/usr/bin/env python3
"""`stepsim profile` on DeepSeek's published training profile (deepseek-ai/profile-data train.json).

Usage: check_deepseek_profile.py STEPSIM SOURCE_DIR TRACE.json   (exit 77: the trace is absent)

Checks that every GPU activity of the trace is classed or listed as unclassified, and that the
measured time and count of each kernel class agree within 1% with the kernel table
tools/calibration/profile_kernels.py wrote from the same trace
(tools/calibration/profiles/deepseek-v3-ep64-h800-kernels.csv); and that --write-calibration's file,
applied, reproduces each fitted class within 10%; and that the window's kernels per simulated compute
op are the 2.80 the training host model uses (workloads/step/rank_sink.cpp), and the host's time per
launch and the window's simulated host time agree with the catalog and the trace within 5%. The two GEMM classes are compared
summed: the CSV also counts the routed experts' weight-gradient GEMMs as gemm_expert by their place in
DualPipe's mlp(W) range, and their kernel name is the one the dense weight gradients use.
"""
import collections
import csv
import json
import os
import subprocess
import sys


def main(stepsim, source, trace):
    trace = os.environ.get("STEPSIM_DEEPSEEK_PROFILE", trace)
    if not os.path.exists(trace):
        print(f"skipped: {trace} is not present")
        return 77
    scenario = os.path.join(source, "scenarios/profiles/deepseek-v3-ep64-h800.toml")
    run = subprocess.run([stepsim, "profile", trace, "--scenario", scenario, "--layers", "3-6",
                          "--microbatches", "0", "--format", "json", "--quiet"],
                         capture_output=True, text=True, timeout=240)
    if run.returncode != 0:
        print(run.stderr)
        return 1
    doc = json.loads(run.stdout)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    failures = []
    counted = sum(r["kernels"] for r in doc["classes"]) + sum(r["kernels"] for r in doc["communication"]) + \
        sum(u["count"] for u in doc["unclassified"])
    if doc["kernels"] != len(gpu) or counted != len(gpu):
        failures.append(f"{len(gpu)} GPU activities in the trace, {doc['kernels']} read, {counted} classed or listed")

    measured = {r["class"]: r for r in doc["classes"] + doc["communication"]}
    expected_us = collections.Counter()
    expected_n = collections.Counter()
    with open(os.path.join(source, "tools/calibration/profiles/deepseek-v3-ep64-h800-kernels.csv")) as f:
        for row in csv.DictReader(f):
            cls = "gemm" if row["class"].startswith("gemm") else row["class"]
            expected_us[cls] += float(row["dur_us"])
            expected_n[cls] += 1
    got_ms = collections.Counter()
    got_n = collections.Counter()
    for cls, r in measured.items():
        key = "gemm" if cls.startswith("gemm") else cls
        if cls in ("memcpy", "memset"):
            continue  # not kernels: the CSV holds "cat": "kernel" events only
        got_ms[key] += r["measured_ms"]
        got_n[key] += r["kernels"]
    for u in doc["unclassified"]:
        failures.append(f"unclassified: {u['name'][:100]} ({u['count']} x, {u['time_ms']:.3f} ms)")
    print(f"{'class':14s} {'csv ms':>10s} {'stepsim ms':>10s} {'csv n':>6s} {'n':>6s}")
    for cls in sorted(set(expected_us) | set(got_ms)):
        want, have = expected_us[cls] / 1e3, got_ms[cls]
        print(f"{cls:14s} {want:10.3f} {have:10.3f} {expected_n[cls]:6d} {got_n[cls]:6d}")
        if abs(have - want) > 0.01 * want or (want == 0) != (have == 0):
            failures.append(f"{cls}: {have:.3f} ms measured by stepsim profile, {want:.3f} ms in the CSV")
    failures += check_calibration(stepsim, scenario, trace)
    # The training framework launches this many kernels (with memsets and copies) per compute op
    # stepsim simulates: kFrameworkKernelsPerOp in workloads/step/rank_sink.cpp (2.80).
    kernels = sum(r["kernels"] for r in doc["classes"])
    ops = sum(r["simulated_ops"] for r in doc["classes"])
    print(f"kernels per simulated op: {kernels} / {ops} = {kernels / ops:.3f}")
    if abs(kernels / ops / 2.80 - 1) > 0.01:
        failures.append(f"kernels per simulated op {kernels / ops:.3f}, the simulation's host model uses 2.80")
    # The host: launch gaps (waits of 1 ms or more left out) against the catalog's 45.6 us per kernel,
    # which the DualPipe ranges gave (tools/calibration/profile_host.py); and the window's simulated
    # host time against the trace's launching time.
    host = doc["host"]
    print(f"host: {host['measured_us_per_launch']:.1f} us per launch, {host['measured_launching_ms']:.3f} ms "
          f"launching, simulated {host['simulated_host_ms']:.3f} ms")
    if abs(host["measured_us_per_launch"] / 45.6 - 1) > 0.05:
        failures.append(f"host: {host['measured_us_per_launch']:.1f} us per launch, the catalog's h800 has 45.6")
    if abs(host["simulated_host_ms"] / host["measured_launching_ms"] - 1) > 0.05:
        failures.append("host: the window's simulated host time is more than 5% off the trace's")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


def check_calibration(stepsim, scenario, trace):
    """--write-calibration: the written file, applied, reproduces every fitted class within 10%."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        cal = os.path.join(tmp, "cal.toml")
        run = subprocess.run([stepsim, "profile", trace, "--scenario", scenario, "--layers", "3-6",
                              "--microbatches", "0", "--format", "json", "--quiet", "--write-calibration", cal],
                             capture_output=True, text=True, timeout=240)
        if run.returncode != 0:
            return [f"--write-calibration failed: {run.stderr.strip()}"]
        doc = json.loads(run.stdout)["calibration"]
        with open(cal) as f:
            text = f.read()
    failures = []
    applied = {r["class"]: r for r in doc["applied"]["classes"]}
    applied["gemm_dense + gemm_expert"] = doc["applied"]["gemm_total"]
    print(f"\n{'calibrated figure':28s} {'catalog':>8s} {'fitted':>8s} {'error before':>13s} {'after':>8s}")
    for fig in doc["figures"]:
        classes = fig["classes"]
        row = applied.get(classes)
        before = fig["simulated_before_ms"] / fig["measured_ms"] - 1
        after = row["error"] if row else None
        print(f"{fig['key']:28s} {fig['catalog']:8.3f} {fig['fitted']:8.3f} {100 * before:12.1f}% "
              f"{100 * after if after is not None else float('nan'):7.1f}%")
        if after is None or abs(after) > 0.10:
            failures.append(f"{fig['key']}: the applied calibration leaves {classes} at {after}")
        if f'"{fig["key"]}" = "measured: from' not in text:
            failures.append(f"{fig['key']}: no measured provenance in the written file")
    if len(doc["figures"]) < 4:
        failures.append(f"only {len(doc['figures'])} figures fitted")
    return failures


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
