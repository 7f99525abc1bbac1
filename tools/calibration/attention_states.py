#!/usr/bin/env python3
"""Training attention timed in the two states a GPU runs it in, as gemm_states.py times GEMMs.

hopper_op_classes.py timed causal attention one call at a time after more than 0.3 s of GEMMs, so
its figure was the power-limited one, and the catalog's `efficiency.attention` divides it back to
the short-run speed by the GEMMs' sustained ratio (0.832). Here each case is timed in both states:

  short      after 1.5 s idle, the median of the first 3 calls
  sustained  the case looped for 1.6 s, mean of the calls that end after 0.8 s

Cases: causal self-attention through torch SDPA, the cuDNN fused kernel (the one Transformer
Engine uses on Hopper) and PyTorch's FlashAttention-2, forward alone and forward + backward, at
the shapes training runs give one GPU: Llama-70B-like (64 heads, 4K), 32 heads at 8K, the 16 heads
of a TP-8 shard of Llama-3.1-405B at 8K, and MLA's head dims (192 for q and k, 128 for v).
FLOPs as hopper_op_classes.py counts them: causal forward 0.5 x 2 b h s^2 (d + d_v), backward
2.5x the forward. Efficiency against the 989 TFLOP/s bf16 datasheet peak. Random operands.
Writes $OUT/attention_states.json (or ./). Needs an NVIDIA GPU and PyTorch.
Usage: python3 tools/calibration/attention_states.py
"""
import time

import torch

from hopper_op_classes import event_seconds, mean_seconds_after, write_result

PEAK_BF16 = 989e12
# (batch, heads, sequence, q/k head dim, v head dim)
SHAPES = [(1, 64, 4096, 128, 128), (2, 32, 8192, 128, 128), (1, 16, 8192, 128, 128), (1, 128, 4096, 192, 128)]
BACKENDS = {"cudnn": torch.nn.attention.SDPBackend.CUDNN_ATTENTION,
            "flash": torch.nn.attention.SDPBackend.FLASH_ATTENTION}


def case(b, h, s, d, d_v, backend, backward):
    q, k = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16).requires_grad_(backward) for _ in range(2))
    v = torch.randn(b, h, s, d_v, device="cuda", dtype=torch.bfloat16).requires_grad_(backward)
    grad = torch.randn(b, h, s, d_v, device="cuda", dtype=torch.bfloat16)
    f = torch.nn.functional.scaled_dot_product_attention

    def run():
        with torch.nn.attention.sdpa_kernel(BACKENDS[backend]):
            o = f(q, k, v, is_causal=True)
        if backward:
            torch.autograd.grad(o, (q, k, v), grad)

    row = {"backend": backend, "b": b, "heads": h, "seq": s, "head_dim": d, "v_head_dim": d_v, "backward": backward}
    try:
        run()  # the first call picks and loads the kernel
        torch.cuda.synchronize()
    except RuntimeError as e:  # a backend that does not take this shape
        row["error"] = str(e)[:200]
        return row
    time.sleep(1.5)
    s_short = sorted(event_seconds(run) for _ in range(3))[1]
    s_sus = mean_seconds_after(run, 1.6, 0.8)
    flops = 0.5 * 2.0 * b * h * s * s * (d + d_v) * (3.5 if backward else 1.0)
    row.update({"short_us": s_short * 1e6, "sustained_us": s_sus * 1e6, "short_efficiency": flops / s_short / PEAK_BF16,
                "sustained_efficiency": flops / s_sus / PEAK_BF16, "ratio": s_short / s_sus})
    del q, k, v, grad
    torch.cuda.empty_cache()
    return row


def main():
    torch.manual_seed(0)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "peak_bf16": PEAK_BF16, "rows": []}
    for shape in SHAPES:
        for backend in BACKENDS:
            for backward in (False, True):
                r = case(*shape, backend, backward)
                result["rows"].append(r)
                head = f"{backend:5s} b{r['b']} h{r['heads']} s{r['seq']} d{r['head_dim']}/{r['v_head_dim']} bwd={backward}"
                if "error" in r:
                    print(f"{head}: failed {r['error'][:80]}")
                else:
                    print(f"{head}: short {r['short_efficiency']:.3f} sustained {r['sustained_efficiency']:.3f} "
                          f"ratio {r['ratio']:.3f}")
    write_result("attention_states.json", result)


if __name__ == "__main__":
    main()
