#!/usr/bin/env python3
"""Host (CPU) time per launched kernel of a PyTorch training framework, from a Kineto trace.

Reads DeepSeek's published training profile (deepseek-ai/profile-data `train.json`: DeepSeek-V3 on
H800, EP64, TP1, a forward and a backward chunk of 4 MoE layers overlapped as DualPipe runs them) and
writes one row per DualPipe phase (the `record_function` ranges attn(F), mlp(F), dispatch(F), ...):

    phase,ranges,cpu_ms,launches,us_per_launch,counted

`cpu_ms` is the ranges' wall time on the thread that opened them (the main Python thread; the
backward phases' kernels are launched by the autograd thread while the main thread waits in
backward(), so the range is still host time spent on them). `launches` counts the kernel, memset
and memcpy launches (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemsetAsync, cudaMemcpyAsync) that
start inside the ranges, on any thread. `counted` is 0 for dispatch(F): DeepEP's normal dispatch
makes the host wait, polling, for the received token counts the GPU writes to mapped host memory
(DeepEP's Buffer::internode_dispatch), so its range is mostly waiting, not launching. The last row,
`all counted`, divides the counted ranges' CPU time by their launches: the host time a training
framework spends per kernel (Python module code, autograd, allocator calls, the launch itself), the
catalog's `host_framework_us`.

The trace was recorded with CPU ops (4,071 of them in the counted ranges) and CUDA runtime calls
(3,697): recording them costs the host time too, so the figure is as profiled, an upper side of the
framework's own cost.

Usage: profile_host.py TRACE.json > tools/calibration/profiles/deepseek-v3-ep64-h800-host.csv
"""
import collections
import csv
import json
import sys

LAUNCH_CALLS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemsetAsync", "cudaMemcpyAsync")
HOST_WAIT_PHASES = {"dispatch(F)"}
OUTER_RANGES = {"1F1B"}


def phase_rows(events):
    ranges = [e for e in events if e.get("cat") == "user_annotation" and e["name"] not in OUTER_RANGES
              and not e["name"].startswith("ProfilerStep")]
    launches = sorted(e["ts"] for e in events if e.get("cat") == "cuda_runtime" and e["name"] in LAUNCH_CALLS)
    rows = collections.OrderedDict()
    for r in sorted(ranges, key=lambda e: e["ts"]):
        end = r["ts"] + r["dur"]
        n = sum(1 for t in launches if r["ts"] <= t < end)
        row = rows.setdefault(r["name"], {"ranges": 0, "cpu_us": 0.0, "launches": 0})
        row["ranges"] += 1
        row["cpu_us"] += r["dur"]
        row["launches"] += n
    return rows


def main(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    rows = phase_rows(events)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["phase", "ranges", "cpu_ms", "launches", "us_per_launch", "counted"])
    cpu, n = 0.0, 0
    for name, r in rows.items():
        counted = name not in HOST_WAIT_PHASES
        if counted:
            cpu += r["cpu_us"]
            n += r["launches"]
        per = r["cpu_us"] / r["launches"] if r["launches"] else 0.0
        out.writerow([name, r["ranges"], f"{r['cpu_us'] / 1e3:.3f}", r["launches"], f"{per:.1f}", int(counted)])
    out.writerow(["all counted", sum(r["ranges"] for k, r in rows.items() if k not in HOST_WAIT_PHASES),
                  f"{cpu / 1e3:.3f}", n, f"{cpu / n:.1f}", 1])
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
