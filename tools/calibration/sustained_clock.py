#!/usr/bin/env python3
"""What a GPU sustains at its power limit: a dense GEMM loop for 40 s while sampling the SM clock.

stepsim's GEMM efficiencies come from short micro-benchmarks (hopper_op_classes.py: 3 warm-ups and
20 timed repetitions per shape). A training step keeps the tensor cores busy for seconds to minutes,
where the power limit, and in poorly cooled racks the temperature, hold a lower SM clock. This
script measures the ratio the catalog calls `sustained_clock`:

    sustained_clock = (TFLOP/s over the last 10 s of the loop) / (TFLOP/s over its first 0.2 s)

and records the SM clock, power and temperature sampled every 100 ms through NVML (pynvml) or, if
that is missing, `nvidia-smi --query-gpu`. Random bf16 operands (zeros draw less power and run
faster: Horace He, "Strangely, matrix multiplications run faster when given predictable data").
Writes $OUT/sustained_clock_<dtype>.json (or ./). Not run in CI: it needs an NVIDIA GPU.
Usage: python3 tools/calibration/sustained_clock.py [--seconds 40] [--dtype bf16|fp8]
"""
import argparse
import subprocess
import threading
import time

import torch

from hopper_op_classes import event_seconds, write_result


def sampler(stop, samples):
    """Appends (t, sm_mhz, power_w, temp_c) every 100 ms until `stop` is set."""
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())

        def read():
            return (pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                    pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
                    pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU))
    except Exception:  # no pynvml: one nvidia-smi query per sample (slower, still ~10 Hz)
        def read():
            out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                                  "--format=csv,noheader,nounits", "-i", str(torch.cuda.current_device())],
                                 capture_output=True, text=True).stdout.strip().split(",")
            return float(out[0]), float(out[1]), float(out[2])
    t0 = time.time()
    while not stop.is_set():
        samples.append((time.time() - t0,) + tuple(read()))
        time.sleep(0.1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--dtype", choices=["bf16", "fp8"], default="bf16")
    ap.add_argument("--n", type=int, default=8192)
    args = ap.parse_args()
    n = args.n
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    if args.dtype == "fp8":
        a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn).t()
        one = torch.ones((), device="cuda")

        def step():
            torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        def step():
            torch.mm(a, b)
    flops = 2.0 * n ** 3
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    stop, samples = threading.Event(), []
    th = threading.Thread(target=sampler, args=(stop, samples))
    th.start()
    windows = []  # (t_end, TFLOP/s) per batch of 20 GEMMs
    t0 = time.time()
    while time.time() - t0 < args.seconds:
        s = event_seconds(lambda: [step() for _ in range(20)])
        windows.append((time.time() - t0, 20 * flops / s / 1e12))
    stop.set()
    th.join()
    first = [r for t, r in windows if t <= 0.2] or [windows[0][1]]
    last = [r for t, r in windows if t >= args.seconds - 10.0]
    result = {
        "device": torch.cuda.get_device_name(), "torch": torch.__version__, "dtype": args.dtype, "n": n,
        "seconds": args.seconds, "first_tflops": sum(first) / len(first), "last_10s_tflops": sum(last) / len(last),
        "sustained_clock": (sum(last) / len(last)) / (sum(first) / len(first)),
        "sm_mhz_first": samples[0][1] if samples else None,
        "sm_mhz_last_10s": (sum(s[1] for s in samples if s[0] >= args.seconds - 10.0) /
                            max(1, sum(1 for s in samples if s[0] >= args.seconds - 10.0))) if samples else None,
        "windows": windows, "samples": samples,
    }
    write_result(f"sustained_clock_{args.dtype}.json", result)
    print(f"{result['device']} {args.dtype} {n}^3: {result['first_tflops']:.0f} -> {result['last_10s_tflops']:.0f} "
          f"TFLOP/s, sustained_clock {result['sustained_clock']:.3f}; SM {result['sm_mhz_first']} -> "
          f"{result['sm_mhz_last_10s']} MHz")


if __name__ == "__main__":
    main()
