"""Every HDF5 table of a run, of a run of several steps with [variability], of a goodput assessment
and of a sweep reads into pandas as docs/hdf5.md says, and the documented snippets run.

Usage: check_pandas.py STEPSIM_BINARY SOURCE_DIR WORK_DIR (PYTHONPATH holds the built package).

1. The run's file (`stepsim run --hdf5`), a run of 5 steps with [variability] (`--steps 5`), a
   goodput file (`stepsim goodput --hdf5`) and a sweep's (`stepsim sweep`, with a string axis) are
   written by the command-line tool.
2. stepsim.read_tables reads every compound table of both: each HDF5 enum field is a pandas
   category whose categories are all the enum's names in code order and whose values are the
   names of the stored codes (missing text as NaN); each string field holds `str` values equal to
   the decoded bytes; every other field keeps its numpy type; row counts agree with h5py.
3. The `python` code blocks of docs/hdf5.md run as written, in a folder holding run.h5,
   straggler.h5 (the run with [variability]) and sweep.h5."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd

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


# 1. A run and a sweep with a string axis (two GPU models) and a point that is invalid (its layout
#    does not fill the 16 GPUs), so that `bottleneck` has missing values.
subprocess.run([binary, "run", str(scenario), "--hdf5", str(work / "run.h5")], check=True,
               stdout=subprocess.DEVNULL)
(work / "sweep.toml").write_text(f"""[sweep]
name = "pandas"
base = "{scenario}"
[[axis]]
key = "hardware.gpu"
values = ["h100-sxm", "a100-sxm-80gb"]
[[axis]]
keys = ["parallelism.pp", "parallelism.dp"]
values = [[1, 8], [3, 3]]
""")
subprocess.run([binary, "sweep", str(work / "sweep.toml"), "--out", str(work / "sweep.h5"), "--progress",
                "none"], check=True, stdout=subprocess.DEVNULL)
# GPU 5 named 20% slow on top of a 2% spread, 5 steps with 5% kernel jitter, every GPU simulated.
subprocess.run([binary, "run", str(scenario), "--steps", "5", "--ranks", "all", "--set", "variability.seed=11",
                "--set", "variability.slow_gpus=[{rank=5,factor=1.2}]", "--set", "variability.gpu_speed_sd=0.02",
                "--set", "variability.kernel_jitter_cv=0.05", "--hdf5", str(work / "straggler.h5")], check=True,
               stdout=subprocess.DEVNULL)
subprocess.run([binary, "goodput", str(scenario), "--steps", "100000", "--trials", "20", "--hdf5",
                str(work / "goodput.h5")], check=True, stdout=subprocess.DEVNULL)


# 2. Every table, field by field, against what h5py reads raw.
def check_file(path, expect_tables):
    tables = stepsim.read_tables(path)
    check(expect_tables <= set(tables), f"{path.name}: tables {sorted(tables)}")
    enum_fields = string_fields = 0
    with h5py.File(path, "r") as f:
        for name, frame in tables.items():
            raw = f[name][()]
            check(len(frame) == len(raw) and list(frame.columns) == list(raw.dtype.names),
                  f"{path.name}:{name}: {len(frame)} rows, the file's columns in order")
            for field in raw.dtype.names:
                dtype = f[name].dtype[field]
                column = frame[field]
                mapping = h5py.check_enum_dtype(dtype)
                where = f"{path.name}:{name}.{field}"
                if mapping:
                    enum_fields += 1
                    names = sorted(mapping, key=mapping.get)
                    want = [names[c] if c < len(names) else np.nan for c in raw[field].astype(int)]
                    got = column.astype(object).where(column.notna(), np.nan).tolist()
                    ok = (isinstance(column.dtype, pd.CategoricalDtype)
                          and list(column.cat.categories) == names
                          and all((g == w) or (g is np.nan and w is np.nan) or (pd.isna(g) and pd.isna(w))
                                  for g, w in zip(got, want)))
                    if not ok:
                        check(False, f"{where}: a category of the enum's names with the stored values")
                elif h5py.check_string_dtype(dtype) is not None:
                    string_fields += 1
                    want = [v.decode("utf-8") if isinstance(v, bytes) else v for v in raw[field]]
                    if not all(isinstance(v, str) for v in column) or column.tolist() != want:
                        check(False, f"{where}: str values equal to the decoded bytes")
                elif column.dtype != raw.dtype[field]:
                    check(False, f"{where}: keeps its type {raw.dtype[field]} (got {column.dtype})")
    check(enum_fields > 0 and string_fields > 0,
          f"{path.name}: {enum_fields} enum fields as categories, {string_fields} string fields as str")
    return tables


run = check_file(work / "run.h5", {"summary", "summary_text", "ranks", "critical_path", "ops", "memory", "links",
                                   "link_tiers", "link_loads"})
ops = run["ops"]
classes = set(ops["op_class"].dropna())
check({"gemm", "collective", "p2p"} <= classes,
      f"ops.op_class files communication under its own classes: {sorted(classes)}")
comm = ops[ops["group"] != "none"]
check(len(comm) > 0 and set(comm["op_class"]) <= {"collective", "p2p"},
      f"every op of a communicating group ({len(comm)}) is a collective or p2p, none a kernel class")
check(set(ops.loc[ops["group"] == "pp", "op_class"]) == {"p2p"}, "pipeline sends are p2p")

path = run["critical_path"]
step_s = dict(zip(run["summary"]["name"], run["summary"]["value"]))["step_time_s"]
covered = (path["end_s"] - path["start_s"] + path["wait_s"]).sum()
check(len(path) > 0 and abs(covered - step_s) <= 1e-12 * len(path) + 1e-15 and path["end_s"].iloc[-1] == step_s,
      f"critical_path: {len(path)} ops and waits add up to the step ({covered} s of {step_s} s)")

steps = check_file(work / "straggler.h5", {"steps/times", "steps/ranks", "ranks", "summary"})
times, ranks = steps["steps/times"], steps["steps/ranks"]
with h5py.File(work / "straggler.h5") as f:
    attrs = dict(f["steps"].attrs)
check(len(times) == 5 and list(times["step"]) == list(range(5)) and times["time_s"].max() == attrs["max_s"],
      f"steps/times: 5 steps in order, the largest time the max_s attribute ({attrs['max_s']})")
check(len(ranks) == 16 and ranks["time_factor"].idxmax() == 5 and (ranks["sim_rank"] >= 0).all(),
      "steps/ranks: every GPU simulated, GPU 5 the slowest")
median_s = dict(zip(steps["summary"]["name"], steps["summary"]["value"]))["step_time_s"]
check(((ranks["busy_s"] + ranks["waiting_s"]) - median_s).abs().max() <= 1e-12 * median_s,
      f"steps/ranks: busy and waiting add up to the median step ({median_s} s) on every GPU")
goodput = check_file(work / "goodput.h5", {"intervals", "failures", "summary", "summary_text"})
intervals = goodput["intervals"]
with h5py.File(work / "goodput.h5") as f:
    best = int(f.attrs["best_interval_steps"])
    schema = f.attrs["schema"]
check(intervals["interval_steps"].is_monotonic_increasing and intervals["best"].sum() == 1
      and int(intervals.loc[intervals["best"] == 1, "interval_steps"].iloc[0]) == best,
      f"goodput intervals: increasing, one best ({best}) as the root attribute says")
check(schema == "stepsim.goodput/1", f"goodput file schema {schema!r}")

sweep = check_file(work / "sweep.h5", {"results"})["results"]
check(list(sweep["hardware.gpu"].cat.categories) == ["h100-sxm", "a100-sxm-80gb"],
      "a string axis is a category of its values in the sweep's order")
check(list(sweep["status"].cat.categories) == ["ok", "out_of_memory", "invalid", "failed"],
      "status categories in their documented order")
invalid = sweep[sweep["status"] == "invalid"]
check(len(invalid) == 2 and invalid["bottleneck"].isna().all() and isinstance(invalid["message"].iloc[0], str),
      "points that were not simulated have no bottleneck (NaN) and a str message")
frame = stepsim.SweepResult({"out": str(work / "sweep.h5")}).frame()
check(frame.equals(sweep), "SweepResult.frame() is the same DataFrame as read_tables")

# 3. The documented snippets, as written.
doc = (source / "docs/hdf5.md").read_text()
blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
check(len(blocks) == 3, f"docs/hdf5.md has {len(blocks)} python snippets (3 expected)")
os.chdir(work)
for i, block in enumerate(blocks):
    try:
        exec(compile(block, f"docs/hdf5.md snippet {i + 1}", "exec"), {})
        check(True, f"docs/hdf5.md snippet {i + 1} runs")
    except Exception as e:  # noqa: BLE001 - any failure of the documented code is the finding
        check(False, f"docs/hdf5.md snippet {i + 1}: {type(e).__name__}: {e}")

if failures:
    print(f"FAILED: {len(failures)} checks")
    sys.exit(1)
print("PASS")
