#!/usr/bin/env python3
"""Decode-step kernels on one Hopper GPU: what a serving engine's token step pays per kernel.

  attention  one query token per sequence against a KV cache (torch SDPA: flash and cuDNN backends, grouped-query heads read once where the backend takes enable_gqa),
             batch 1-128, context 512-32,768, Llama-2/3-70B heads unsharded (64 query / 8 KV) and at
             TP 8 (8 / 1); efficiency = K and V bytes read / time / HBM peak
  gemm       decode-shaped linears [m x k] x [k x n], m 1-256 rows (the batch), Llama-70B's TP-8 shards
             and its unsharded MLP: bf16 (cuBLAS), FP8 per-tensor (torch._scaled_mm, m >= 16),
             int4 weight-only with bf16 activations (torch._weight_int4pack_mm, group 128: the tinygemm
             kernel) where the installed PyTorch runs it on CUDA (its int8 weight-only path is a slow
             fallback on CUDA, not an engine kernel, so it is not timed); efficiency = weight bytes / time / HBM peak, with TFLOP/s beside

Weights and caches rotate over enough copies (>= 256 MiB) that every call reads HBM, not L2, as
each layer of a real decode step does. Each case is 20 calls captured in one CUDA graph (as serving
engines replay a decode step), replayed and timed with CUDA events: the time per call is the GPU's,
without Python's launch cost. Median of 10 replays after warm-ups, random data.
Writes $OUT/decode_kernels.json (or ./). Needs an NVIDIA GPU and PyTorch.
Usage: python3 tools/calibration/decode_kernels.py
"""
import math

import torch

from hopper_op_classes import timed, write_result

PEAK_HBM = {"NVIDIA H200": 4.8e12, "NVIDIA H100 80GB HBM3": 3.35e12}
ROTATE_BYTES = 256 << 20


def copies_for(nbytes):
    return max(1, min(64, math.ceil(ROTATE_BYTES / max(1, nbytes))))


CALLS = 20


def rotating(make, nbytes):
    """A callable returning the next of `copies_for(nbytes)` tensors made by make()."""
    items = [make() for _ in range(copies_for(nbytes))]
    i = [0]

    def nxt():
        i[0] += 1
        return items[i[0] % len(items)]

    return nxt


def graph_timed(call):
    """Seconds per call of `call` (which takes its own next operands), from CALLS calls captured in
    one CUDA graph; warmed up on a side stream first, as graph capture requires."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS):
            call()
    return timed(graph.replay, warmup=2, reps=10) / CALLS


def attention_case(b, hq, hkv, ctx, backend, peak):
    d = 128
    kv_bytes = 2 * b * hkv * ctx * d * 2
    kinds = {"flash": torch.nn.attention.SDPBackend.FLASH_ATTENTION,
             "efficient": torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION,
             "cudnn": torch.nn.attention.SDPBackend.CUDNN_ATTENTION}
    q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
    cache = rotating(lambda: (torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.bfloat16),
                              torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.bfloat16)), kv_bytes)
    f = torch.nn.functional.scaled_dot_product_attention

    def run():
        k, v = cache()
        with torch.nn.attention.sdpa_kernel(kinds[backend]):
            f(q, k, v, enable_gqa=hkv != hq)

    head = {"backend": backend, "batch": b, "q_heads": hq, "kv_heads": hkv, "context": ctx, "kv_bytes": kv_bytes}
    try:
        s = graph_timed(run)
    except RuntimeError as err:
        return dict(head, error=str(err)[:200])
    return dict(head, time_us=s * 1e6, GB_per_s=kv_bytes / s / 1e9, efficiency=kv_bytes / s / peak)


def attention_cases(peak):
    out = []
    for hq, hkv in ((64, 8), (8, 1)):
        for b in (1, 8, 32, 64, 128):
            for ctx in (512, 2048, 8192, 32768):
                if 2 * b * hkv * ctx * 128 * 2 > 16 << 30:
                    continue
                for backend in ("flash", "cudnn"):
                    out.append(attention_case(b, hq, hkv, ctx, backend, peak))
                    torch.cuda.empty_cache()
    return out


def gemm_row(kind, label, m, k, n, wbytes, s, peak):
    return {"kind": kind, "layer": label, "m": m, "k": k, "n": n, "weight_bytes": wbytes, "time_us": s * 1e6,
            "tflops": 2.0 * m * n * k / s / 1e12, "weight_GB_per_s": wbytes / s / 1e9, "efficiency": wbytes / s / peak}


def try_time(kind, label, m, k, n, wbytes, fn, peak):
    try:
        return gemm_row(kind, label, m, k, n, wbytes, graph_timed(fn), peak)
    except (RuntimeError, TypeError, AttributeError) as err:
        return {"kind": kind, "layer": label, "m": m, "k": k, "n": n, "error": str(err)[:200]}


def int4_weights(k, n):
    """tinygemm's packed int4 weight and its per-group (scale, zero) pairs, group 128."""
    w = torch.randint(0, 256, (n, k // 2), device="cuda", dtype=torch.uint8)
    packed = torch._convert_weight_to_int4pack(w, 8)
    sz = torch.randn(k // 128, n, 2, device="cuda", dtype=torch.bfloat16)
    return packed, sz


def gemm_cases(peak):
    # Llama-2/3-70B at TP 8: QKV 8192 -> (64 + 2 x 8) x 128 / 8, O 1024 -> 8192, gate+up 8192 -> 2 x 28672 / 8,
    # down 3584 -> 8192; and the unsharded gate+up 8192 -> 57344.
    layers = [("qkv_tp8", 8192, 1280), ("o_tp8", 1024, 8192), ("up_tp8", 8192, 7168), ("down_tp8", 3584, 8192),
              ("up_tp1", 8192, 57344)]
    out = []
    for label, k, n in layers:
        wb16 = rotating(lambda: torch.randn(k, n, device="cuda", dtype=torch.bfloat16), 2 * k * n)
        wb8 = rotating(lambda: torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t(), k * n)
        try:
            w4 = rotating(lambda: int4_weights(k, n), k * n // 2)
        except (RuntimeError, AttributeError) as err:
            w4 = None
            out.append({"kind": "w4a16", "layer": label, "error": str(err)[:200]})
        one = torch.ones((), device="cuda")
        for m in (1, 8, 16, 32, 64, 128, 256):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            out.append(try_time("bf16", label, m, k, n, 2 * k * n, lambda: torch.mm(x, wb16()), peak))
            if m >= 16:
                x8 = x.to(torch.float8_e4m3fn)
                out.append(try_time("fp8", label, m, k, n, k * n, lambda: torch._scaled_mm(
                    x8, wb8(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True), peak))
            if w4 is not None:
                def int4():
                    packed, sz = w4()
                    torch._weight_int4pack_mm(x, packed, 128, sz)

                out.append(try_time("w4a16", label, m, k, n, k * n // 2, int4, peak))
        del wb16, wb8, w4
        torch.cuda.empty_cache()
    return out


def main():
    torch.manual_seed(0)
    name = torch.cuda.get_device_name()
    peak = PEAK_HBM.get(name, 4.8e12)
    result = {"device": name, "torch": torch.__version__, "peak_hbm": peak}
    result["gemm"] = gemm_cases(peak)
    for r in result["gemm"]:
        if "error" in r:
            print(f"gemm {r['kind']:6s} {r['layer']:9s} m{r.get('m', '-')}: failed {r['error'][:90]}")
        else:
            print(f"gemm {r['kind']:6s} {r['layer']:9s} m{r['m']:<4d} {r['time_us']:8.1f} us "
                  f"{r['weight_GB_per_s']:6.0f} GB/s eff {r['efficiency']:.3f} {r['tflops']:6.1f} TFLOP/s")
    result["attention"] = attention_cases(peak)
    for r in result["attention"]:
        head = f"attn {r['backend']:9s} b{r['batch']:<4d} h{r['q_heads']}/{r['kv_heads']} ctx{r['context']:<6d}"
        if "error" in r:
            print(f"{head} failed {r['error'][:80]}")
        else:
            print(f"{head} {r['time_us']:8.1f} us {r['GB_per_s']:6.0f} GB/s eff {r['efficiency']:.3f}")
    write_result("decode_kernels.json", result)


if __name__ == "__main__":
    main()
