#!/usr/bin/env python3
"""How much of its short-run GEMM speed a Hopper GPU keeps at its power limit, by shape and by the
share of the time its tensor cores are busy.

sustained_clock.py showed the effect on one shape: random bf16 8192^3 products run at their short-run
speed for about 60 ms, then the SM clock falls (1,980 -> ~1,470 MHz on the H200 at 691 of 700 W) and
throughput with it. This script asks the two questions that decide how a training step pays for it:

  shapes  each calibration shape of hopper_op_classes.py (large and skinny bf16 GEMMs) timed twice:
          its first 20 calls from a cold start (the calibration's regime) and over the last 1.5 s
          of a 3 s loop at the power limit; ratio = sustained / short-run
  duty    blocks of 8192^3 products followed by a filler that keeps the tensor cores idle for a
          share (1 - duty) of the time: an HBM-bound copy (element-wise kernels, optimizer), or a
          spinning single-thread kernel (a GPU waiting on a collective); the products' own
          throughput over seconds 4-8 of each mix, against the short-run speed

SM clock, power and temperature are sampled through NVML every 100 ms. Random operands.
Writes $OUT/power_mix.json (or ./). Needs an NVIDIA GPU and PyTorch.
Usage: python3 tools/calibration/power_mix.py
"""
import threading
import time

import torch

from hopper_op_classes import event_seconds, mean_seconds_after, write_result
from sustained_clock import sampler

SHAPES = [(8192, 8192, 8192), (4096, 28672, 8192), (4096, 8192, 28672), (4096, 7168, 4096), (16384, 7168, 2048),
          (1024, 8192, 8192), (512, 8192, 8192), (256, 8192, 8192)]


def rand(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def event_pair():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def cool(seconds=2.0):
    torch.cuda.synchronize()
    time.sleep(seconds)


def shape_case(m, n, k):
    sets = [(rand(m, k), rand(k, n)) for _ in range(3)]
    flops = 2.0 * m * n * k
    cool()
    pairs = []
    for i in range(20):
        e0, e1 = event_pair()
        e0.record()
        torch.mm(*sets[i % 3])
        e1.record()
        pairs.append((e0, e1))
    torch.cuda.synchronize()
    short = sorted(e0.elapsed_time(e1) for e0, e1 in pairs)[10] / 1e3  # median of the 20

    def ten():
        for i in range(10):
            torch.mm(*sets[i % 3])

    sustained = mean_seconds_after(ten, 3.0, 1.5) / 10
    return {"m": m, "n": n, "k": k, "short_tflops": flops / short / 1e12,
            "sustained_tflops": flops / sustained / 1e12, "ratio": short / sustained}


def duty_case(duty, filler, a, b, x, y, gemm_s, copy_s, spin_cycles_per_s):
    gemms = 8
    idle_s = gemms * gemm_s * (1.0 - duty) / duty
    copies = round(idle_s / copy_s) if filler == "copy" else 0
    cool()
    t0, windows = time.time(), []
    while time.time() - t0 < 8.0:
        e0, e1 = event_pair()
        e0.record()
        for _ in range(gemms):
            torch.mm(a, b)
        e1.record()
        if filler == "copy":
            for _ in range(copies):
                y.copy_(x)
        elif idle_s > 0:
            torch.cuda._sleep(int(idle_s * spin_cycles_per_s))
        e1.synchronize()
        windows.append((time.time() - t0, e0.elapsed_time(e1) / 1e3 / gemms))
    late = [s for t, s in windows if t >= 4.0]
    return {"duty": duty, "filler": filler, "gemm_us": sum(late) / len(late) * 1e6}


def calibrate_fillers(a, b, x, y):
    """Short-run seconds of one 8192^3 product and of one copy; the spin kernel's cycles per second."""
    cool()
    for _ in range(3):
        torch.mm(a, b)
    gemm_s = sorted(event_seconds(lambda: torch.mm(a, b)) for _ in range(9))[4]
    copy_s = sorted(event_seconds(lambda: y.copy_(x)) for _ in range(5))[2]
    spin_s = event_seconds(lambda: torch.cuda._sleep(1_000_000))
    return gemm_s, copy_s, 1_000_000 / spin_s


def main():
    torch.manual_seed(0)
    stop, samples = threading.Event(), []
    th = threading.Thread(target=sampler, args=(stop, samples))
    th.start()
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "shapes": [], "duty": []}
    t_start = time.time()
    for m, n, k in SHAPES:
        r = shape_case(m, n, k)
        result["shapes"].append(r)
        print(f"shape {m}x{n}x{k}: short {r['short_tflops']:.0f} sustained {r['sustained_tflops']:.0f} TFLOP/s "
              f"ratio {r['ratio']:.3f}")
    a, b = rand(8192, 8192), rand(8192, 8192)
    x, y = rand(1 << 28), rand(1 << 28)  # 512 MiB each: one copy ~0.25 ms
    gemm_s, copy_s, spin_rate = calibrate_fillers(a, b, x, y)
    result["short_gemm_us"] = gemm_s * 1e6
    for duty, filler in ((1.0, "none"), (0.75, "copy"), (0.5, "copy"), (0.25, "copy"), (0.5, "spin"),
                         (0.25, "spin")):
        t_mark = time.time() - t_start
        r = duty_case(duty, filler, a, b, x, y, gemm_s, copy_s, spin_rate)
        late = [s for s in samples if t_mark + 6.0 <= s[0] <= t_mark + 10.0]  # seconds 4-8 after the cool-down
        r["ratio"] = gemm_s * 1e6 / r["gemm_us"]
        r["sm_mhz"] = sum(s[1] for s in late) / max(1, len(late))
        r["power_w"] = sum(s[2] for s in late) / max(1, len(late))
        result["duty"].append(r)
        print(f"duty {duty:.2f} {filler:5s}: GEMM {r['gemm_us']:.0f} us (short {gemm_s * 1e6:.0f}) ratio "
              f"{r['ratio']:.3f}, SM {r['sm_mhz']:.0f} MHz, {r['power_w']:.0f} W")
    stop.set()
    th.join()
    result["samples"] = samples
    write_result("power_mix.json", result)


if __name__ == "__main__":
    main()
