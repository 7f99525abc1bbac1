#!/usr/bin/env python3
"""Runs `stepsim validate --format json` on the shipped validation scenarios and checks the
accuracy targets of the dense A100 group (issue 4): MAPE <= 7% and no case worse than 15%.
The figures are printed either way, so CI logs carry them."""
import json
import subprocess
import sys

binary = sys.argv[1]
out = subprocess.run([binary, "validate", "--format", "json", "--jobs", "2"], check=True,
                     capture_output=True, text=True).stdout
report = json.loads(out)
failures = []
for case in report["cases"]:
    print(f"{case['id']:40s} {case['group']:20s} measured {case['measured_step_s']:9.3f} s "
          f"predicted {case['predicted_step_s']:9.3f} s error {100 * case['error']:+6.1f}%")
    for key in ("id", "group", "predicted_step_s", "measured_step_s", "error"):
        if key not in case:
            failures.append(f"case without `{key}`")
for name, g in report["groups"].items():
    print(f"group {name}: {g['cases']} cases, MAPE {100 * g['mape']:.1f}%, max |error| "
          f"{100 * g['max_abs_error']:.1f}%, mean error {100 * g['mean_error']:+.1f}%")
dense = report["groups"].get("public-a100-dense")
if dense is None or dense["cases"] != 18:
    failures.append("expected the 18 dense A100 cases in group public-a100-dense")
else:
    if dense["mape"] > 0.07:
        failures.append(f"dense A100 MAPE {100 * dense['mape']:.1f}% exceeds 7%")
    if dense["max_abs_error"] > 0.15:
        failures.append(f"a dense A100 case misses by {100 * dense['max_abs_error']:.1f}% (> 15%)")
if report["mape"] != {k: g["mape"] for k, g in report["groups"].items()}:
    failures.append("`mape` does not match the per-group summaries")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
