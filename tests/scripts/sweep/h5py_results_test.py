"""A sweep's HDF5 results read back with h5py match its CSV and the documented schema.

Usage: h5py_results_test.py STEPSIM_BINARY SWEEP.toml
"""
import csv
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import h5py

stepsim, sweep = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    h5_path, csv_path = Path(tmp) / "r.h5", Path(tmp) / "r.csv"
    subprocess.run([stepsim, "sweep", sweep, "--out", str(h5_path), "--csv", str(csv_path), "--jobs", "2",
                    "--progress", "none"], check=True, stdout=subprocess.DEVNULL)
    with h5py.File(h5_path, "r") as f:
        attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
        table = f["results"][:]
        # The texts are scalar string datasets (schema 2): any length, unlike attributes (64 KiB).
        sweep_text, base_text = f["sweep_file"][()].decode(), f["base_scenario"][()].decode()
    rows = list(csv.DictReader(open(csv_path, newline="")))

assert attrs["format"] == "stepsim sweep results", attrs
assert attrs["schema_version"] == 3
assert attrs["rows"] == len(table) == len(rows) == attrs["points"], (attrs, len(table), len(rows))
assert attrs["shard_index"] == 0 and attrs["shard_count"] == 1
assert len(attrs["sweep_hash"]) == 16
assert sweep_text == Path(sweep).read_text()
assert base_text == ""  # the sweep holds its base scenario inline
names = table.dtype.names
assert list(names) == list(rows[0].keys()), (names, rows[0].keys())
assert names[0] == "point" and "status" in names and "step_time_s" in names
assert list(table["point"]) == list(range(len(table)))  # point order

# Closed sets of text are HDF5 enums (schema 3) numbered 0..n-1; a value past the enum's names marks
# missing text (a point that was not simulated has no bottleneck). Other text is fixed-length UTF-8.
enums = {}
for name in names:
    mapping = h5py.check_enum_dtype(table.dtype[name])
    if mapping:
        enums[name] = {v: k for k, v in mapping.items()}
        assert sorted(enums[name]) == list(range(len(mapping))), (name, mapping)
assert {"status", "bottleneck", "recompute", "est_bound"} <= set(enums), enums.keys()
assert list(enums["status"].values()) == ["ok", "out_of_memory", "invalid", "failed"]
assert "message" not in enums and table.dtype["message"].kind == "S"

statuses = set()
for record, row in zip(table, rows):
    for name in names:
        value, text = record[name], row[name]
        if name in enums:
            assert enums[name].get(int(value), "") == text, (name, value, text)
        elif isinstance(value, bytes):
            assert value.decode() == text, (name, value, text)
        elif table.dtype[name].kind == "f":
            assert (math.isnan(value) and text == "") or float(text) == value, (name, value, text)
        else:
            assert int(text) == value, (name, value, text)
    status = enums["status"][int(record["status"])]
    statuses.add(status)
    if status == "ok":
        # The breakdown partitions the mean rank's step. The columns are float64 and nine terms sum to
        # within a few ulps (1e-15 relative): 1e-9 is the C++ tests' tolerance for the same identity.
        parts = sum(record[c] for c in ("compute_s", "memory_bound_s", "bubble_s", "host_bound_s", "exposed_tp_s", "exposed_cp_s",
                                         "exposed_ep_s", "exposed_pp_s", "exposed_dp_s"))
        assert math.isclose(parts, record["step_time_s"], rel_tol=1e-9), (parts, record["step_time_s"])
        assert record["fits"] == 1 and record["memory_peak_bytes"] <= record["memory_capacity_bytes"]
assert {"ok", "invalid", "out_of_memory"} <= statuses, statuses
print(f"PASS: {len(table)} rows, columns and values agree between HDF5 (h5py) and CSV")
