#!/usr/bin/env python3
"""Does communication that overlaps a GEMM slow it by more than the SMs it takes?

stepsim prices a GEMM that runs beside a collective as losing the collective's share of the SMs
(`comm_sm_fraction`). NCCL's kernels run one CTA per channel and move data through HBM at the link's
rate; they also draw power, and at the power limit that lowers the clock for the GEMM too. One GPU
cannot run NCCL, so a stand-in runs beside the GEMM: a Triton copy kernel of N CTAs of 512 threads
(NCCL's channel CTA size), looping over a 512 MiB buffer (past L2) for the whole measurement.

For N in 0, 8, 16, 24, 32 CTAs and two GEMM shapes, at the power limit (1.5 s of the GEMM alone
first), it times the GEMM's CUDA graph replays on one stream while the copy runs on another, and the
copy's own bandwidth. Reported: GEMM time / alone, the SM-share model's 1 / (1 - N / 132), the copy's
GB/s, and NVML's SM clock and power.
Writes $OUT/overlap_interference.json (or ./). Needs an NVIDIA GPU, PyTorch and Triton.
Usage: python3 tools/calibration/overlap_interference.py
"""
import threading
import time

import torch
import triton
import triton.language as tl

from hopper_op_classes import event_seconds, mean_seconds_after, write_result
from sustained_clock import sampler

SMS = torch.cuda.get_device_properties(0).multi_processor_count if torch.cuda.is_available() else 132


@triton.jit
def copy_loop(src, dst, n_elems, iters, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    for _ in range(iters):
        for start in range(pid * BLOCK, n_elems, nprog * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < n_elems
            tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


def gemm_graph(m, n, k, reps):
    a = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(3)]
    b = [torch.randn(k, n, device="cuda", dtype=torch.bfloat16) for _ in range(3)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.mm(a[0], b[0])
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(reps):
            torch.mm(a[i % 3], b[i % 3])
    g.replay()
    torch.cuda.synchronize()
    return g


def replay_for(graph, seconds, stream):
    """Replays on `stream` for `seconds`; returns the mean seconds per replay over the second half."""
    with torch.cuda.stream(stream):
        return mean_seconds_after(graph.replay, seconds, seconds / 2)


def case(shape, ctas, src, dst, samples, t_start):
    m, n, k = shape
    reps = 10
    graph = gemm_graph(m, n, k, reps)
    gemm_stream, copy_stream = torch.cuda.Stream(), torch.cuda.Stream()
    alone = replay_for(graph, 1.5, gemm_stream)  # heats to the power limit, then the reference time
    out = {"m": m, "n": n, "k": k, "ctas": ctas, "gemm_alone_us": alone / reps * 1e6}
    if ctas == 0:
        return out
    n_elems = src.numel()
    torch.cuda.synchronize()
    # The copy alone, two passes.
    per_pass = event_seconds(lambda: copy_loop[(ctas,)](src, dst, n_elems, 2, BLOCK=4096, num_warps=16)) / 2
    out["copy_alone_GB_per_s"] = 4.0 * n_elems / per_pass / 1e9
    iters = max(2, int(1.1 / per_pass))  # outlasts the 0.8 s of GEMMs below
    c0, c1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    mark = time.time() - t_start
    with torch.cuda.stream(copy_stream):
        c0.record()
        copy_loop[(ctas,)](src, dst, n_elems, iters, BLOCK=4096, num_warps=16)
        c1.record()
    time.sleep(0.01)
    beside = replay_for(graph, 0.8, gemm_stream)
    c1.synchronize()
    copy_s = c0.elapsed_time(c1) / 1e3
    late = [s for s in samples if mark + 0.4 <= s[0] <= mark + 0.8]
    out.update({"gemm_beside_us": beside / reps * 1e6, "slowdown": beside / alone,
                "sm_share_model": 1.0 / (1.0 - ctas / SMS), "copy_GB_per_s": 4.0 * n_elems * iters / copy_s / 1e9,
                "copy_s": copy_s, "sm_mhz": sum(s[1] for s in late) / max(1, len(late)),
                "power_w": sum(s[2] for s in late) / max(1, len(late))})
    return out


def main():
    torch.manual_seed(0)
    stop, samples = threading.Event(), []
    th = threading.Thread(target=sampler, args=(stop, samples))
    th.start()
    t_start = time.time()
    src = torch.randn(1 << 28, device="cuda", dtype=torch.bfloat16)  # 512 MiB
    dst = torch.empty_like(src)
    copy_loop[(8,)](src, dst, src.numel(), 1, BLOCK=4096, num_warps=16)  # compiles the kernel before any timing
    torch.cuda.synchronize()
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "sms": SMS, "rows": []}
    for shape in ((8192, 8192, 8192), (4096, 7168, 4096)):
        for ctas in (0, 8, 16, 24, 32):
            r = case(shape, ctas, src, dst, samples, t_start)
            result["rows"].append(r)
            if ctas:
                print(f"{shape}: {ctas} CTAs copying {r['copy_alone_GB_per_s']:.0f} GB/s alone, {r['copy_GB_per_s']:.0f} "
                      f"over the overlap and after: GEMM x{r['slowdown']:.3f} "
                      f"(SM share x{r['sm_share_model']:.3f}), {r['sm_mhz']:.0f} MHz {r['power_w']:.0f} W")
            else:
                print(f"{shape}: alone {r['gemm_alone_us']:.0f} us per GEMM at the power limit")
    stop.set()
    th.join()
    write_result("overlap_interference.json", result)


if __name__ == "__main__":
    main()
