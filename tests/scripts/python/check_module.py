"""The Python module against the CLI: the same C++ must give the same numbers.

Usage: check_module.py STEPSIM_BINARY SOURCE_DIR WORK_DIR (PYTHONPATH holds the built package)."""

import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tomllib

import stepsim

binary, source, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
scenario = source / "tests/output/data/small-train.toml"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def cli_json(*args):
    return json.loads(subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout)


# 1. A file: the same document as `stepsim run --format json` (files_written is the module's own).
r = stepsim.run(scenario)
cli = cli_json("run", str(scenario), "--format", "json")
mine = r.to_dict()
mine.pop("files_written")
check(mine == cli, "run(file) returns the CLI's JSON document, field for field")
check(r.step_time_s == cli["step_time_s"] and r.step_time_s > 0, f"step_time_s {r.step_time_s}")
check(r.memory.peak_bytes == cli["memory"]["peak_bytes"], "nested objects read as attributes")

# 2. The same scenario as a dict (as tomllib reads the file) and as TOML text.
as_dict = tomllib.loads(scenario.read_text())
check(stepsim.run(as_dict).step_time_s == r.step_time_s, "run(dict) simulates the same step")
check(stepsim.run(scenario.read_text()).step_time_s == r.step_time_s, "run(TOML text) simulates the same step")

# 3. Overrides as the CLI's --set: a dict and a list of strings agree with the CLI.
# (The file's 16 GPUs run TP 2 x PP 2 x DP 4; without pipelining they run DP 8.)
cli_pp1 = cli_json("run", str(scenario), "--format", "json", "--set", "parallelism.pp=1", "--set",
                   "parallelism.dp=8")
check(stepsim.run(scenario, set={"parallelism.pp": 1, "parallelism.dp": 8}).step_time_s == cli_pp1["step_time_s"],
      "set={'parallelism.pp': 1, ...} equals --set parallelism.pp=1 ...")
check(stepsim.run(scenario, set=["parallelism.pp=1", "parallelism.dp=8"]).step_time_s == cli_pp1["step_time_s"],
      "set=['parallelism.pp=1', ...] equals --set parallelism.pp=1 ...")

# 4. Bad input: stepsim.UserError (a ValueError) with the CLI's located message.
try:
    stepsim.run(scenario, set={"hardware.nic_gbps": 1e-9})
    check(False, "a NIC of 1e-9 Gb/s raises UserError")
except stepsim.UserError as e:
    check(isinstance(e, ValueError) and "hardware.nic_gbps: must be in [0.01, 1e+07]" in str(e),
          f"UserError: {str(e).splitlines()[0]}")
try:
    stepsim.run({"model": {"preset": "llama-3.1-8b"}, "hardware": {"gpu": "h100-sxm", "nodes": None}})
    check(False, "None raises UserError")
except stepsim.UserError as e:
    check("hardware.nodes" in str(e), f"None has no TOML form: {e}")

# 4b. Every GPU replayed, as `stepsim run --ranks replay`: the same document.
varied = ["variability.slow_gpus=[{rank=9,factor=1.5}]", "variability.seed=3"]
replayed = stepsim.run(scenario, set=varied, ranks="replay").to_dict()
replayed.pop("files_written")
check(replayed == cli_json("run", str(scenario), "--format", "json", "--ranks", "replay",
                           "--set", "variability.slow_gpus=[{rank=9,factor=1.5}]", "--set", "variability.seed=3")
      and replayed["steps"]["replayed"], "run(ranks=\"replay\") returns the CLI's replayed document")

# 5. The estimate, as `stepsim estimate --format json`.
check(stepsim.estimate(scenario).to_dict() == cli_json("estimate", str(scenario), "--format", "json"),
      "estimate(file) returns the CLI's JSON document")

# 5b. The layout search, as `stepsim search --format json` (the same knob values by default).
check(stepsim.search(scenario, top=2, jobs=1).to_dict() ==
      cli_json("search", str(scenario), "--format", "json", "--top", "2", "--jobs", "1"),
      "search(file) returns the CLI's JSON document")

# 6. A run's HDF5 tables back as DataFrames: the ops table has one row per op of the ranks.
h5 = work / "run.h5"
stepsim.run(scenario, hdf5=h5)
tables = stepsim.read_tables(h5)
ops = tables["ops"]
check(len(ops) > 0 and "op_class" in ops.columns, f"read_tables: ops has {len(ops)} rows")
check(all(isinstance(v, str) for v in ops["op_class"].head(20)), "op_class reads back as str, not bytes")

# 7. A sweep into a DataFrame: two points, both simulated, the steps the CLI gives for them.
sweep_file = work / "sweep.toml"
sweep_file.write_text(f"""[sweep]
name = "python"
base = "{scenario}"
[[axis]]
keys = ["parallelism.pp", "parallelism.dp"]
values = [[1, 8], [2, 4]]
""")
s = stepsim.sweep(sweep_file, work / "sweep.h5", jobs=1)
frame = s.frame()
check(len(frame) == 2 and s.by_status.ok == 2, f"sweep: {len(frame)} rows, {s.by_status.ok} ok")
step_column = next(c for c in frame.columns if c.endswith("step_time_s"))
got = sorted(frame[step_column])
want = sorted([cli_pp1["step_time_s"], cli["step_time_s"]])
check(all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(got, want)),
      f"sweep rows {got} equal the CLI's runs {want}")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
