#!/usr/bin/env python3
"""A stack of Llama decoder layers, forward and backward, on one GPU at its power limit: does the sum of
stepsim's kernel prices hold for a whole step's mix of kernels, or is the step slower than its parts?

The dgxc H100 runs in scenarios/validation/ measure about 10% slower than stepsim, and the missing time
scales with the GEMMs' precision (docs/simulation.md section 6): GEMMs inside a real step run slower
than the short-run curve times the measured power-limit clock. This script separates the candidates on
one GPU. It runs `--layers` Llama layers (RMSNorm, fused QKV projection, rotary, causal attention
through SDPA's cuDNN backend, output projection, residual, RMSNorm, fused gate/up projection, SwiGLU,
down projection, residual; weights and activations bf16, random) forward and backward in a loop, and
records:

  short       the first 3 iterations after 2 s idle (median)
  sustained   the mean iteration over the last 10 s of a `--seconds` loop, with the SM clock, power and
              temperature sampled through NVML (sustained_clock.sampler)
  trace       one sustained iteration under torch.profiler, written as a Kineto trace that
              `stepsim profile` reads: every kernel classed (GEMM, attention, norm, activation,
              element-wise) and set beside the simulated step's ops of the same layers

Compare with the simulation of the same layers (scenarios/profiles/llama3.1-8b-layers-1xh100.toml has
this script's default shapes and four layers):

  stepsim profile $OUT/layer_step_trace.json --scenario scenarios/profiles/llama3.1-8b-layers-1xh100.toml \\
      --layers 0-3 --microbatches 0

and tools/calibration/layer_step_compare.py prints the per-layer time beside stepsim's. If the loop
matches stepsim within a few percent, the dgxc gap is multi-GPU (communication beside the GEMMs, a
cluster's temperatures); if the whole is slower than its parts, it is the kernel mix on one GPU.

Norms and rotary run as Transformer Engine's kernels when it is installed (the dgxc runs' own), else as
torch.compile'd functions (their Triton kernels class as element-wise); SwiGLU is compiled either way.
Weight gradients are written in bf16 by autograd (Megatron accumulates them into fp32 main_grad: not
this). Writes $OUT/layer_step.json and $OUT/layer_step_trace.json (or ./). Needs an NVIDIA GPU and
PyTorch 2.5 or later. Not run in CI.
Usage: python3 tools/calibration/layer_step.py [--layers 4] [--seconds 40] [--seq 8192]
"""
import argparse
import os
import statistics
import threading
import time

import torch
import torch.nn.functional as F

from hopper_op_classes import event_seconds, write_result
from sustained_clock import sampler

try:  # Transformer Engine's norm and rotary kernels, as the dgxc runs use them
    import transformer_engine.pytorch as te
except ImportError:
    te = None
te_rope = None
if te is not None:
    for where in ("transformer_engine.pytorch.attention", "transformer_engine.pytorch.attention.rope"):
        try:
            te_rope = __import__(where, fromlist=["apply_rotary_pos_emb"]).apply_rotary_pos_emb
            break
        except (ImportError, AttributeError):
            pass


@torch.compile
def rms_norm_compiled(x, w):
    return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5)).type_as(x) * w


@torch.compile
def rope_compiled(t, cos, sin):
    t1, t2 = t.chunk(2, dim=-1)
    return torch.cat((t1 * cos - t2 * sin, t2 * cos + t1 * sin), dim=-1).type_as(t)


@torch.compile
def swiglu(gu):
    g, u = gu.chunk(2, dim=-1)
    return F.silu(g) * u


ATTENTION = {"path": None}


def attention(q, k, v):
    """Causal attention through SDPA's cuDNN backend (Transformer Engine's kernel on Hopper): the
    grouped-query heads shared inside the kernel where this PyTorch's cuDNN path takes enable_gqa,
    else the keys and values repeated per query head first (a copy the real step does not make)."""
    backend = torch.nn.attention.SDPBackend.CUDNN_ATTENTION
    if ATTENTION["path"] in (None, "gqa"):
        try:
            with torch.nn.attention.sdpa_kernel(backend):
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            ATTENTION["path"] = "gqa"
            return o
        except RuntimeError:
            ATTENTION["path"] = "repeat"
    r = q.shape[1] // k.shape[1]
    with torch.nn.attention.sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k.repeat_interleave(r, 1), v.repeat_interleave(r, 1), is_causal=True)


class Layer(torch.nn.Module):
    def __init__(self, h, heads, kv_heads, ffn):
        super().__init__()
        d = h // heads
        self.heads, self.kv_heads, self.d = heads, kv_heads, d

        def weight(rows, cols):
            return torch.nn.Parameter(torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16) * cols**-0.5)

        self.wqkv = weight((heads + 2 * kv_heads) * d, h)
        self.wo = weight(h, heads * d)
        self.wgu = weight(2 * ffn, h)
        self.wd = weight(h, ffn)
        if te is not None:
            self.norm1 = te.RMSNorm(h, eps=1e-5, params_dtype=torch.bfloat16)
            self.norm2 = te.RMSNorm(h, eps=1e-5, params_dtype=torch.bfloat16)
        else:
            self.n1 = torch.nn.Parameter(torch.ones(h, device="cuda", dtype=torch.bfloat16))
            self.n2 = torch.nn.Parameter(torch.ones(h, device="cuda", dtype=torch.bfloat16))

    def norm(self, i, x):
        if te is not None:
            return (self.norm1 if i == 1 else self.norm2)(x)
        return rms_norm_compiled(x, self.n1 if i == 1 else self.n2)

    def forward(self, x, rope):  # x: [s, b, h], Megatron's layout
        s, b, _ = x.shape
        qkv = F.linear(self.norm(1, x), self.wqkv).view(s, b, self.heads + 2 * self.kv_heads, self.d)
        q, k, v = qkv.split([self.heads, self.kv_heads, self.kv_heads], dim=2)
        q, k = rope(q), rope(k)
        # SDPA takes [b, heads, s, d]
        q, k, v = (t.permute(1, 2, 0, 3) for t in (q, k, v))
        o = attention(q, k, v).permute(2, 0, 1, 3).reshape(s, b, self.heads * self.d)
        x = x + F.linear(o, self.wo)
        return x + F.linear(swiglu(F.linear(self.norm(2, x), self.wgu)), self.wd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--ffn", type=int, default=14336)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=40.0)
    a = ap.parse_args()
    torch.manual_seed(0)
    layers = [Layer(a.hidden, a.heads, a.kv_heads, a.ffn) for _ in range(a.layers)]
    d = a.hidden // a.heads
    pos = torch.arange(a.seq, device="cuda", dtype=torch.float32)
    freqs = torch.outer(pos, 500000.0 ** (-torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))
    cos, sin = (f.to(torch.bfloat16)[:, None, None, :] for f in (freqs.cos(), freqs.sin()))
    emb = torch.cat((freqs, freqs), dim=-1)[:, None, None, :]
    rope_path = {"te": te_rope is not None}

    def rope(t):  # Transformer Engine's fused RoPE where it takes the view, else the compiled one
        if rope_path["te"]:
            try:
                return te_rope(t, emb, tensor_format="sbhd", fused=True)
            except (RuntimeError, TypeError):
                rope_path["te"] = False
        return rope_compiled(t, cos, sin)
    x0 = torch.randn(a.seq, a.batch, a.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn_like(x0)

    def step():
        x = x0
        for layer in layers:
            x = layer(x, rope)
        x.backward(grad)

    for _ in range(3):  # compile, pick kernels, load them
        step()
    torch.cuda.synchronize()
    time.sleep(2.0)
    short = statistics.median(event_seconds(step) for _ in range(3))

    stop, samples, times = threading.Event(), [], []
    thread = threading.Thread(target=sampler, args=(stop, samples), daemon=True)
    thread.start()
    t0 = time.time()
    while time.time() - t0 < a.seconds:
        times.append((time.time() - t0, event_seconds(step)))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    stop.set()
    thread.join()
    trace = os.path.join(os.environ.get("OUT", "."), "layer_step_trace.json")
    prof.export_chrome_trace(trace)
    print("wrote", trace)

    late = [s for t, s in times if t >= a.seconds - 10.0]
    late_clock = [c for t, c, *_ in samples if t >= a.seconds - 10.0]
    t_tok = a.seq * a.batch
    q, kv = a.hidden, 2 * a.kv_heads * d
    # FLOPs per layer, forward: the four projections 2 T h (q + kv + h + 3 f) and causal attention
    # 2 b heads s^2 d (half of 4 b heads s^2 d); backward twice the GEMMs and 2.5 x the attention.
    gemm = 2.0 * t_tok * a.hidden * (q + kv + a.hidden + 3 * a.ffn)
    attn = 2.0 * a.batch * a.heads * a.seq * a.seq * d
    flops = a.layers * (3.0 * gemm + 3.5 * attn)
    result = {
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
        "transformer_engine": getattr(te, "__version__", None) if te is not None else None,
        "config": vars(a), "attention_path": ATTENTION["path"], "rope": "te" if rope_path["te"] else "compiled",
        "norm": "te" if te is not None else "compiled",
        "short_s": short, "sustained_s": sum(late) / len(late), "sustained_iterations": len(late),
        "ratio": short / (sum(late) / len(late)),
        "model_tflops_short": flops / short / 1e12, "model_tflops_sustained": flops / (sum(late) / len(late)) / 1e12,
        "sustained_sm_mhz": statistics.median(late_clock) if late_clock else None,
        "iterations": [{"t": t, "s": s} for t, s in times],
        "samples": [{"t": t, "sm_mhz": c, "power_w": p, "temp_c": tc} for t, c, p, tc in samples],
    }
    write_result("layer_step.json", result)
    print(f"{a.layers} layers fwd+bwd: short {short * 1e3:.2f} ms, sustained {result['sustained_s'] * 1e3:.2f} ms "
          f"({result['model_tflops_sustained']:.0f} TFLOP/s), SM clock {result['sustained_sm_mhz']} MHz")


if __name__ == "__main__":
    main()
