#!/usr/bin/env python3
"""Sets tools/calibration/layer_step.py's measured loop beside stepsim's simulation of the same layers.

Runs `stepsim run` on scenarios/profiles/llama3.1-8b-layers-1xh100.toml with the measured run's shapes
(layers, hidden, heads, KV heads, FFN, sequence, batch) and GPU, writes its Chrome trace, and takes
from the simulated rank's compute stream the span of the layers' forward (the first forward op of
layer 0 to the last of the last layer) and of their backward (the first backward op of the last layer
to the last of layer 0): launch gaps and every kernel of the layers, no embedding, loss or optimizer.
Prints it beside the measured iteration, short-run and sustained, with the error of each.

The simulated step's clock is the GPU's clock_duty at the whole step's tensor-core duty (the loss and
the optimizer included), the loop's its own: the sustained column is the comparison for a training
step, the short column for the kernels alone.
Usage: python3 tools/calibration/layer_step_compare.py layer_step.json [--stepsim build/bin/stepsim]
       [--gpu h100-sxm]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCENARIO = os.path.join(ROOT, "scenarios", "profiles", "llama3.1-8b-layers-1xh100.toml")
GPUS = {"NVIDIA H100 80GB HBM3": "h100-sxm", "NVIDIA H200": "h200"}


def simulated_spans(stepsim, cfg, gpu):
    """(forward span, backward span) in seconds of the layers on the simulated rank's compute stream."""
    sets = [f"hardware.gpu=\"{gpu}\"", f"model.layers={cfg['layers']}", f"model.hidden={cfg['hidden']}",
            f"model.heads={cfg['heads']}", f"model.kv_heads={cfg['kv_heads']}", f"model.ffn={cfg['ffn']}",
            f"workload.seq_len={cfg['seq']}", f"workload.micro_batch={cfg['batch']}",
            f"workload.global_batch={cfg['batch']}"]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        cmd = [stepsim, "run", SCENARIO, "--quiet", "--trace", trace]
        for s in sets:
            cmd += ["--set", s]
        run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit(run.stderr.strip())
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
    compute = {(e["pid"], e["tid"]) for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name" and " compute " in e["args"]["name"]}
    spans = {}
    for e in events:
        layer = e.get("args", {}).get("layer")
        if e.get("ph") != "X" or (e["pid"], e["tid"]) not in compute or layer is None:
            continue
        phase = "fwd" if ".fwd." in e["name"] else "bwd" if ".bwd." in e["name"] else None
        if phase is None:
            continue
        lo, hi = spans.get(phase, (float("inf"), 0.0))
        spans[phase] = (min(lo, e["ts"]), max(hi, e["ts"] + e["dur"]))
    if set(spans) != {"fwd", "bwd"}:
        sys.exit("the simulated trace has no layer ops on a compute stream")
    return tuple((spans[p][1] - spans[p][0]) / 1e6 for p in ("fwd", "bwd"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measured", help="layer_step.json written by layer_step.py")
    ap.add_argument("--stepsim", default=os.path.join(ROOT, "build", "bin", "stepsim"))
    ap.add_argument("--gpu", help="stepsim's catalog id of the GPU (default: from the measured GPU's name)")
    a = ap.parse_args()
    with open(a.measured) as f:
        m = json.load(f)
    gpu = a.gpu or GPUS.get(m["gpu"])
    if gpu is None:
        sys.exit(f"no catalog id known for \"{m['gpu']}\": pass --gpu")
    cfg = {k.replace("-", "_"): v for k, v in m["config"].items()}
    fwd, bwd = simulated_spans(a.stepsim, cfg, gpu)
    sim = fwd + bwd
    print(f"{cfg['layers']} layers of h {cfg['hidden']}, FFN {cfg['ffn']}, {cfg['seq']} x {cfg['batch']} tokens "
          f"on {m['gpu']} ({gpu})")
    print(f"stepsim: forward {fwd * 1e3:.2f} ms + backward {bwd * 1e3:.2f} ms = {sim * 1e3:.2f} ms")
    for state in ("short", "sustained"):
        t = m[f"{state}_s"]
        print(f"measured {state:9s} {t * 1e3:9.2f} ms   stepsim {100.0 * (sim / t - 1.0):+6.1f}%")


if __name__ == "__main__":
    main()
