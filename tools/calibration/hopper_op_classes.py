#!/usr/bin/env python3
"""One micro-benchmark of the op classes stepsim's compute model uses, on one Hopper GPU.

Run on an H100 or H200 with PyTorch (CUDA). It measures, with CUDA events, medians of repeated runs
after warm-ups, on random data:

  large_gemm   bf16 matrix products of training shapes (smallest dimension >= 4096)
  small_gemm   skinny products (smallest dimension 256-2048) and MoE expert shapes (grouped as bmm)
  attention    FlashAttention (torch SDPA, causal) forward and forward+backward, head dim 128
  hbm          device-to-device copy, RMSNorm and SwiGLU (eager and torch.compile-fused), fused AdamW, decode GEMV
  launch       back-to-back tiny kernels: per-kernel time launched from Python (eager) and replayed
               from a CUDA graph

and writes every figure to $OUT/hopper_op_classes.json (or ./hopper_op_classes.json) with the
efficiency against the datasheet peaks given below. docs/model.md (calibration) says which catalog
figures come from it. Usage: python3 tools/calibration/hopper_op_classes.py
"""
import json
import os
import statistics
import time

import torch

PEAK_BF16 = 989e12  # H100/H200 SXM datasheet, dense
PEAK_HBM = {"NVIDIA H200": 4.8e12, "NVIDIA H100 80GB HBM3": 3.35e12}


def event_seconds(fn):
    """Seconds between CUDA events recorded on the current stream around fn(), waited for."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / 1e3


def timed(fn, warmup=3, reps=20):
    """Median seconds per call of fn over `reps` event-timed calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    return statistics.median(event_seconds(fn) for _ in range(reps))


def mean_seconds_after(fn, seconds, after):
    """Calls fn, each call event-timed, for `seconds` of wall time; the mean seconds of the calls
    that end `after` seconds or later (the GPU at its power limit by then)."""
    t0, late = time.time(), []
    while time.time() - t0 < seconds:
        s = event_seconds(fn)
        if time.time() - t0 >= after:
            late.append(s)
    return sum(late) / len(late)


def write_result(name, result, indent=1):
    """Writes `result` as JSON to $OUT/name (or ./name) and says where."""
    path = os.path.join(os.environ.get("OUT", "."), name)
    with open(path, "w") as f:
        json.dump(result, f, indent=indent)
    print("wrote", path)
    return path


def rand(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, device="cuda", dtype=dtype)


def gemm(m, n, k, count=1):
    """bf16 C[m x n] = A[m x k] B[k x n] (count of them batched); returns TFLOP/s and efficiency."""
    sets = [(rand(count, m, k), rand(count, k, n)) for _ in range(3)]  # rotate inputs past L2
    i = [0]

    def run():
        a, b = sets[i[0] % 3]
        i[0] += 1
        torch.bmm(a, b) if count > 1 else torch.mm(a[0], b[0])

    s = timed(run)
    flops = 2.0 * m * n * k * count
    return {"m": m, "n": n, "k": k, "count": count, "time_us": s * 1e6, "tflops": flops / s / 1e12,
            "efficiency": flops / s / PEAK_BF16}


def attention(b, heads, seq, d, backward, backend="flash", d_v=None):
    """Causal attention through torch SDPA: `flash` is PyTorch's FlashAttention-2, `cudnn` the cuDNN
    fused kernel Transformer Engine uses on Hopper. d_v: value head width (MLA: 128 beside d 192)."""
    d_v = d_v or d
    q, k = (rand(b, heads, seq, d).requires_grad_(backward) for _ in range(2))
    v = rand(b, heads, seq, d_v).requires_grad_(backward)
    grad = rand(b, heads, seq, d_v)
    f = torch.nn.functional.scaled_dot_product_attention
    kind = {"flash": torch.nn.attention.SDPBackend.FLASH_ATTENTION,
            "cudnn": torch.nn.attention.SDPBackend.CUDNN_ATTENTION}[backend]

    def run():
        with torch.nn.attention.sdpa_kernel(kind):
            o = f(q, k, v, is_causal=True)
        if backward:
            torch.autograd.grad(o, (q, k, v), grad)

    try:
        s = timed(run)
    except RuntimeError as e:  # a backend that does not take this shape
        return {"backend": backend, "b": b, "heads": heads, "seq": seq, "head_dim": d, "v_head_dim": d_v,
                "backward": backward, "error": str(e)[:200]}
    # Causal: half of 2 b h s^2 (d + d_v) forward; backward 2.5x the forward (FlashAttention-2 accounting).
    fwd = 0.5 * 2.0 * b * heads * seq * seq * (d + d_v)
    flops = fwd * (3.5 if backward else 1.0)
    return {"backend": backend, "b": b, "heads": heads, "seq": seq, "head_dim": d, "v_head_dim": d_v,
            "backward": backward, "time_us": s * 1e6, "tflops": flops / s / 1e12,
            "efficiency": flops / s / PEAK_BF16}


def bandwidth(name, fn, nbytes, peak):
    s = timed(fn)
    return {"kernel": name, "bytes": nbytes, "time_us": s * 1e6, "GB_per_s": nbytes / s / 1e9,
            "efficiency": nbytes / s / peak}


def hbm_cases(peak):
    n = 1 << 30  # 1 Gi bf16 elements = 2 GiB per tensor
    x, y = rand(n), torch.empty(n, device="cuda", dtype=torch.bfloat16)
    out = [bandwidth("copy", lambda: y.copy_(x), 4 * n, peak)]
    rows, h = 1 << 17, 8192  # RMSNorm over [131072 x 8192]: read x, write y (2 B each)
    xr, w = rand(rows, h), rand(h)
    out.append(bandwidth("rms_norm", lambda: torch.nn.functional.rms_norm(xr, (h,), w), 4 * rows * h, peak))
    g, u = rand(rows, h), rand(rows, h)  # SwiGLU: read gate and up, write silu(gate) * up
    out.append(bandwidth("swiglu", lambda: torch.nn.functional.silu(g) * u, 6 * rows * h, peak))
    # Decode GEMV: one token against a [8192 x 28672] weight (Llama-70B's MLP up at tp 1), read once.
    wts = [rand(8192, 28672) for _ in range(4)]
    tok = rand(1, 8192)
    i = [0]

    def gemv():
        torch.mm(tok, wts[i[0] % 4])
        i[0] += 1

    out.append(bandwidth("decode_gemv", gemv, 2 * 8192 * 28672, peak))
    return out


def fused_cases(peak):
    """Element-wise passes as training frameworks run them: fused by torch.compile (Triton), and the
    fused AdamW step; bytes counted once per tensor read or written."""
    rows, h = 1 << 17, 8192
    x, r, w = rand(rows, h), rand(rows, h), rand(h)

    def add_norm(x, r, w):  # residual add + RMSNorm: read x and r, write the sum and the norm
        s = x + r
        return s, torch.nn.functional.rms_norm(s, (h,), w)

    g, u = rand(rows, h), rand(rows, h)
    add_norm_c = torch.compile(add_norm)
    swiglu_c = torch.compile(lambda g, u: torch.nn.functional.silu(g) * u)
    out = [bandwidth("compiled_add_rms_norm", lambda: add_norm_c(x, r, w), 8 * rows * h, peak),
           bandwidth("compiled_swiglu", lambda: swiglu_c(g, u), 6 * rows * h, peak)]
    # AdamW, fused, fp32 parameters, gradients and moments: read p, g, m, v; write p, m, v.
    n = 1 << 28
    params = [torch.nn.Parameter(torch.randn(n, device="cuda"))]
    params[0].grad = torch.randn(n, device="cuda")
    opt = torch.optim.AdamW(params, lr=1e-4, fused=True)
    out.append(bandwidth("fused_adamw_fp32", opt.step, 28 * n, peak))
    return out


def launch_cases():
    """Per-kernel time of 1,000 back-to-back tiny kernels, eager and from a CUDA graph."""
    t = rand(256)
    count = 1000

    def eager():
        for _ in range(count):
            t.add_(1.0)

    s_eager = timed(eager, reps=10) / count
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        eager()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(count):
            t.add_(1.0)
    s_graph = timed(graph.replay, reps=10) / count
    return {"kernels": count, "eager_us_per_kernel": s_eager * 1e6, "graph_us_per_kernel": s_graph * 1e6}


def main():
    torch.manual_seed(0)
    name = torch.cuda.get_device_name()
    peak_hbm = PEAK_HBM.get(name, 4.8e12)
    result = {"device": name, "torch": torch.__version__, "peak_bf16": PEAK_BF16, "peak_hbm": peak_hbm}
    result["large_gemm"] = [gemm(8192, 8192, 8192), gemm(4096, 28672, 8192), gemm(4096, 8192, 28672),
                            gemm(4096, 7168, 4096), gemm(16384, 7168, 2048)]
    # The efficiency curve over the smallest dimension, the other two 8,192.
    result["small_gemm"] = [gemm(m, 8192, 8192) for m in (128, 256, 512, 1024, 2048, 3072, 4096)]
    # DeepSeek-V3 experts at ep 64: 4 local experts x 4,096 tokens, up [7168 -> 4096], down [2048 -> 7168];
    # and at a skewed or small batch, 512 tokens per expert.
    result["expert_gemm"] = [gemm(4096, 4096, 7168, 4), gemm(4096, 7168, 2048, 4), gemm(512, 4096, 7168, 4),
                             gemm(512, 7168, 2048, 4)]
    result["attention"] = [attention(1, 64, 4096, 128, bwd, backend) for backend in ("flash", "cudnn")
                           for bwd in (False, True)]
    result["attention"] += [attention(2, 32, 8192, 128, True, "cudnn"), attention(1, 64, 4096, 192, True, "cudnn", 128)]
    result["hbm"] = hbm_cases(peak_hbm) + fused_cases(peak_hbm)
    result["launch"] = launch_cases()
    write_result("hopper_op_classes.json", result, indent=2)
    print(f"{name}, torch {torch.__version__}")
    for key in ("large_gemm", "small_gemm", "expert_gemm"):
        for r in result[key]:
            print(f"{key:12s} {r['count']}x[{r['m']}x{r['k']}]x[{r['k']}x{r['n']}]  {r['time_us']:9.1f} us "
                  f"{r['tflops']:6.1f} TFLOP/s  eff {r['efficiency']:.3f}")
    for r in result["attention"]:
        head = f"attention    {r['backend']:5s} b{r['b']} h{r['heads']} s{r['seq']} d{r['head_dim']}/{r['v_head_dim']} " \
               f"bwd={r['backward']}"
        if "error" in r:
            print(f"{head}  failed: {r['error'][:80]}")
            continue
        print(f"{head}  {r['time_us']:9.1f} us {r['tflops']:6.1f} TFLOP/s  eff {r['efficiency']:.3f}")
    for r in result["hbm"]:
        print(f"hbm          {r['kernel']:12s} {r['time_us']:9.1f} us {r['GB_per_s']:7.0f} GB/s  "
              f"eff {r['efficiency']:.3f}")
    print(f"launch       eager {result['launch']['eager_us_per_kernel']:.2f} us/kernel, "
          f"graph {result['launch']['graph_us_per_kernel']:.2f} us/kernel")


if __name__ == "__main__":
    main()
