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
catalog's nvlink_p2p = the GPU's nvlink (0.82, NCCL rings in nccl-tests) x all-to-all / all-gather of
the same harness on 8 GPUs. Prints, per GPU and GPU count, both fractions and that product. Needs only
the standard library.
Usage: python3 tools/calibration/fit_nccl.py
"""
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
NVLINK_GBPS = {"a100": 300.0, "h100": 450.0, "h200": 450.0, "b200": 900.0, "gb200": 900.0}
CATALOG_NVLINK = 0.82  # efficiency.nvlink of these five GPUs (scenarios/catalog/gpus.toml)


def rows():
    with open(os.path.join(HERE, "aiconfigurator-nccl.csv")) as f:
        return list(csv.DictReader(x for x in f if not x.startswith("#")))


def busbw_fraction(table, gpu, op, gpus):
    """Bus bandwidth over the NVLink rate at the largest size measured, or None."""
    mine = [r for r in table if r["gpu"] == gpu and r["op"] == op and int(r["gpus"]) == gpus]
    if not mine:
        return None
    r = max(mine, key=lambda x: int(x["bytes"]))
    p = float(gpus)
    busbw = (p - 1.0) / p * int(r["bytes"]) / (float(r["ms"]) * 1e-3) / 1e9
    return busbw / NVLINK_GBPS[gpu], int(r["bytes"]), r["nccl"]


def main():
    table = rows()
    print("| GPU | NCCL | GPUs | all-to-all busbw / NVLink | all-gather busbw / NVLink | nvlink x ratio | at bytes |")
    print("|---|---|---|---|---|---|---|")
    for gpu in NVLINK_GBPS:
        for gpus in (4, 8):
            a2a = busbw_fraction(table, gpu, "alltoall", gpus)
            ag = busbw_fraction(table, gpu, "all_gather", gpus)
            if a2a is None:
                continue
            p2p = CATALOG_NVLINK * a2a[0] / ag[0]
            print(f"| {gpu} | {a2a[2]} | {gpus} | {a2a[0]:.3f} | {ag[0]:.3f} | {p2p:.3f} | {a2a[1]:,} |")


if __name__ == "__main__":
    main()
