#!/usr/bin/env python3
"""NCCL's all-to-all against its rings on the GPUs of one node: the catalog's `nvlink_p2p`.

Input: aiconfigurator-nccl.csv (aiconfigurator.mjs KIND nccl: NCCL 2.27-2.29 on 2, 4 and 8 GPUs of one
node, A100, H100, H200, B200, GB200). Bus bandwidth as nccl-tests computes it: all-to-all and all-gather
(p - 1) / p x bytes / time. At the largest size (512 MiB a rank) fixed costs are under 1% of the time,
so bus bandwidth over the NVLink's per-direction rate is the fraction of the link the algorithm moves.
NCCL's all-to-all is grouped send/recv through its point-to-point transport; its ring all-gather is
the comparison.

The harness's collectives run below nccl-tests' (its all-gather on 8 B200 reaches 0.686 of the link,
nccl-tests' 0.748), so only the ratio of its two figures is used, as fit_gemm.py uses ratios: the
catalog's nvlink_p2p = the GPU's nvlink (NCCL rings in nccl-tests; read from the catalog, with its
NVLink rate) x all-to-all / all-gather of the same harness on 8 GPUs. Prints, per GPU and GPU count, both fractions and that product; then
the catalog's `nvlink` of GPUs that have no nccl-tests figure (B200, GB200): H100's (nccl-tests ring
busbw, 0.82) x the harness's ring all-gather and reduce-scatter fractions over H100's, mean of the two. Needs only
the standard library and fit_kernels.py beside it.
Usage: python3 tools/calibration/fit_nccl.py
"""
import csv
import os

from fit_kernels import catalog_gpus

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG_ID = {"a100": "a100-sxm-80gb", "h100": "h100-sxm", "h200": "h200", "b200": "b200", "gb200": "gb200"}


def rows():
    with open(os.path.join(HERE, "aiconfigurator-nccl.csv")) as f:
        return list(csv.DictReader(x for x in f if not x.startswith("#")))


def busbw_fraction(table, gpu, op, gpus, nvlink_gbps):
    """Bus bandwidth over the NVLink rate at the largest size measured, or None."""
    mine = [r for r in table if r["gpu"] == gpu and r["op"] == op and int(r["gpus"]) == gpus]
    if not mine:
        return None
    r = max(mine, key=lambda x: int(x["bytes"]))
    p = float(gpus)
    busbw = (p - 1.0) / p * int(r["bytes"]) / (float(r["ms"]) * 1e-3) / 1e9
    return busbw / nvlink_gbps, int(r["bytes"]), r["nccl"]


def main():
    table = rows()
    catalog = catalog_gpus()
    print("| GPU | NCCL | GPUs | all-to-all busbw / NVLink | all-gather busbw / NVLink | nvlink x ratio | at bytes |")
    print("|---|---|---|---|---|---|---|")
    for gpu, cid in CATALOG_ID.items():
        spec = catalog[cid]
        for gpus in (4, 8):
            a2a = busbw_fraction(table, gpu, "alltoall", gpus, spec["nvlink_gb_s"])
            ag = busbw_fraction(table, gpu, "all_gather", gpus, spec["nvlink_gb_s"])
            if a2a is None:
                continue
            p2p = spec["efficiency"]["nvlink"] * a2a[0] / ag[0]
            print(f"| {gpu} | {a2a[2]} | {gpus} | {a2a[0]:.3f} | {ag[0]:.3f} | {p2p:.3f} | {a2a[1]:,} |")

    # The rings themselves, for GPUs without an nccl-tests figure of their own: the harness's ring
    # all-gather and reduce-scatter fractions over H100's (same NCCL 2.29.2, same harness, so its
    # shortfall against nccl-tests cancels) x H100's nccl-tests ring figure (the catalog's nvlink).
    print()
    print("| GPU | GPUs | all-gather / H100's | reduce-scatter / H100's | H100 nvlink x mean ratio |")
    print("|---|---|---|---|---|")
    h100 = catalog[CATALOG_ID["h100"]]
    for gpu in ("h200", "b200", "gb200"):
        spec = catalog[CATALOG_ID[gpu]]
        for gpus in (4, 8):
            ratios = []
            for op in ("all_gather", "reduce_scatter"):
                mine = busbw_fraction(table, gpu, op, gpus, spec["nvlink_gb_s"])
                ref = busbw_fraction(table, "h100", op, gpus, h100["nvlink_gb_s"])
                if mine is not None and ref is not None:
                    ratios.append(mine[0] / ref[0])
            if len(ratios) == 2:
                nvlink = h100["efficiency"]["nvlink"] * sum(ratios) / 2.0
                print(f"| {gpu} | {gpus} | {ratios[0]:.3f} | {ratios[1]:.3f} | {nvlink:.3f} |")


if __name__ == "__main__":
    main()
