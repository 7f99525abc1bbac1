#!/usr/bin/env python3
"""Checks fit_gemm.py's roofline_fit on shapes whose efficiencies are written here, so the answer is
known: a curve fitted only to the shapes stepsim prices by it.

The synthetic GPU's compute curve is peak 0.8, mn_half 30, k_half 200 (fit_gemm.curve), and each shape
carries an HBM cap. A shape is "measured" at min(curve, cap), as stepsim prices it (the larger of the
compute and HBM times). The compute-bound shapes determine the curve exactly (the least-squares fit of
1/eff is exact on points that lie on the curve), so roofline_fit must return the curve itself, while
an ordinary fit over every shape, HBM-bound ones included, must not: it bends mn_half to carry the
capped shapes. Also: a shape whose cap sits above the curve is fitted, one below is left out, and
the refit stops (the chosen set is returned in `fitted`).
Usage: check_roofline_fit.py SOURCE_DIR
"""
import os
import sys


def main(source):
    sys.path.insert(0, os.path.join(source, "tools", "calibration"))
    import fit_gemm

    true = {"peak": 0.8, "mn_half": 30.0, "k_half": 200.0}
    shapes = []
    # Compute-bound: caps far above the curve (large shapes; the cap is never reached).
    for m, n, k in ((8192, 8192, 8192), (4096, 28672, 8192), (2048, 8192, 8192), (1024, 8192, 8192),
                    (8192, 8192, 1024), (512, 4096, 7168), (16384, 7168, 2048)):
        s = {"m": m, "n": n, "k": k, "cap": 10.0, "set": "synthetic"}
        s["eff"] = fit_gemm.curve(true, s)
        shapes.append(s)
    # HBM-bound: caps at 40% and 60% of the curve's value, as a skinny GEMM streaming its weight.
    for (m, n, k), frac in (((128, 8192, 8192), 0.4), ((256, 8192, 8192), 0.6), ((64, 4096, 7168), 0.4)):
        s = {"m": m, "n": n, "k": k, "set": "synthetic"}
        s["cap"] = frac * fit_gemm.curve(true, s)
        s["eff"] = s["cap"]
        shapes.append(s)

    failures = []
    c = fit_gemm.roofline_fit(shapes)
    for key, want in true.items():
        if abs(c[key] / want - 1.0) > 1e-6:
            failures.append(f"roofline_fit {key} = {c[key]:.6f}, the curve's is {want}")
    if c["fitted"] != 7:
        failures.append(f"roofline_fit used {c['fitted']} shapes, the 7 compute-bound ones expected")
    # Every shape is priced as measured by the recovered curve under its cap.
    for s in shapes:
        if abs(fit_gemm.priced(c, s) / s["eff"] - 1.0) > 1e-6:
            failures.append(f"{s['m']}x{s['n']}x{s['k']}: priced {fit_gemm.priced(c, s):.4f}, measured {s['eff']:.4f}")
    # The ordinary fit over every shape is pulled by the capped ones (it is what the catalog had).
    plain = fit_gemm.fit(shapes)
    if abs(plain["mn_half"] / true["mn_half"] - 1.0) < 0.05:
        failures.append(f"plain fit mn_half {plain['mn_half']:.2f}: the capped shapes should have bent it")
    for f in failures:
        print("FAIL", f)
    print(f"roofline_fit: peak {c['peak']:.4f}, mn_half {c['mn_half']:.3f}, k_half {c['k_half']:.3f} on {c['fitted']} "
          f"shapes; plain fit mn_half {plain['mn_half']:.1f}; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
