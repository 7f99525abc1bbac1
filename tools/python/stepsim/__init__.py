"""stepsim from Python: the simulator's own C++ (a pybind11 module), returning what the CLI's JSON holds.

    import stepsim
    r = stepsim.run("scenarios/examples/llama3.1-70b-512xh100.toml")
    r.step_time_s, r.mfu, r.memory.peak_bytes
    stepsim.run({"model": {"preset": "llama-3.1-8b"}, ...}, set={"parallelism.tp": 2})
    rows = stepsim.sweep("scenarios/examples/sweeps/tp-pp.toml", "out.h5").frame()

A scenario is a path to a TOML file, TOML text, or a dict of tables as the file would hold them.
`set` takes overrides as the CLI's --set does: a dict {"parallelism.tp": 4} or strings "key=value".
Errors in the input raise stepsim.UserError (a ValueError) with the CLI's message.
"""

import json
import os
import pathlib
import tempfile

_here = pathlib.Path(__file__).resolve().parent
# The build tree's and an install's layout alike: python/stepsim/ beside share/stepsim/.
_data = _here.parent.parent / "share" / "stepsim"
if "STEPSIM_DATA_DIR" not in os.environ and _data.is_dir():
    os.environ["STEPSIM_DATA_DIR"] = str(_data)

from . import _native  # noqa: E402

UserError = _native.UserError
__version__ = _native.version
DEFAULT_MAX_OPS = 50_000_000

__all__ = ["Result", "UserError", "run", "estimate", "search", "sweep", "SweepResult", "read_tables"]


class Result:
    """A JSON object with its keys as attributes (nested objects are Results too).

    `r.to_dict()` gives the plain dict, `r["key"]` and `"key" in r` work as on a dict."""

    def __init__(self, data):
        self._data = data

    def __getattr__(self, key):
        try:
            return _wrap(self._data[key])
        except KeyError:
            raise AttributeError(f"no field {key!r}; fields: {', '.join(self._data)}") from None

    def __getitem__(self, key):
        return _wrap(self._data[key])

    def __contains__(self, key):
        return key in self._data

    def __dir__(self):
        return list(self._data) + ["to_dict", "keys"]

    def keys(self):
        return self._data.keys()

    def to_dict(self):
        return self._data

    def __repr__(self):
        shown = ", ".join(f"{k}={v!r}" for k, v in self._data.items() if not isinstance(v, (dict, list)))
        return f"Result({shown})"


def _wrap(v):
    if isinstance(v, dict):
        return Result(v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise UserError(f"set: a value of type {type(v).__name__} has no TOML form: {v!r}")


def _overrides(set):
    if set is None:
        return []
    if isinstance(set, dict):
        return [f"{k}={_toml_value(v)}" for k, v in set.items()]
    if isinstance(set, str):
        return [set]
    return [str(s) for s in set]


def _source(scenario):
    """(path, text, name) for the native calls."""
    if isinstance(scenario, dict):
        return "", _native.toml_from_json(json.dumps(scenario)), "<dict>"
    if isinstance(scenario, os.PathLike):
        return os.fspath(scenario), "", ""
    if isinstance(scenario, str):
        if "\n" in scenario or ("=" in scenario and not scenario.endswith(".toml")):
            return "", scenario, "<text>"
        return scenario, "", ""
    raise TypeError("scenario: expected a path, TOML text or a dict")


def _catalogs(catalog):
    if catalog is None:
        return []
    if isinstance(catalog, (str, os.PathLike)):
        return [os.fspath(catalog)]
    return [os.fspath(c) for c in catalog]


def run(scenario, set=None, *, catalog=None, ranks="representative", max_ops=DEFAULT_MAX_OPS, hdf5=None,
        trace=None, report=None):
    """Simulates one step (or a whole generation or serving run) as `stepsim run --format json` does.

    hdf5/trace/report: files to write as --hdf5/--trace/--report do; `read_tables(hdf5)` reads the HDF5 back."""
    path, text, name = _source(scenario)
    doc = _native.run(path, text, name, _overrides(set), _catalogs(catalog), ranks, int(max_ops),
                      os.fspath(hdf5) if hdf5 else "", os.fspath(trace) if trace else "",
                      os.fspath(report) if report else "")
    return Result(json.loads(doc))


def estimate(scenario, set=None, *, catalog=None):
    """The closed-form bottleneck estimate, as `stepsim estimate --format json`."""
    path, text, name = _source(scenario)
    return Result(json.loads(_native.estimate(path, text, name, _overrides(set), _catalogs(catalog))))


def search(scenario, set=None, *, catalog=None, gpu=None, gpus=None, jobs=None, top=10, rank="tokens_per_s",
           max_ops=DEFAULT_MAX_OPS):
    """The layout search, as `stepsim search --format json` (default knob values)."""
    path, text, name = _source(scenario)
    with tempfile.TemporaryDirectory() as tmp:
        if not path:  # the search reads a file: write the text or dict to one
            path = os.path.join(tmp, "scenario.toml")
            pathlib.Path(path).write_text(text)
        gpu_list = [gpu] if isinstance(gpu, str) else list(gpu or [])
        counts = [gpus] if isinstance(gpus, int) else list(gpus or [])
        doc = _native.search(path, _overrides(set), _catalogs(catalog), gpu_list, counts,
                             int(jobs or os.cpu_count() or 1), int(top), rank, int(max_ops))
    return Result(json.loads(doc))


class SweepResult(Result):
    """A sweep's summary; `frame()` and `rows()` read its results table from the HDF5 file."""

    def rows(self):
        """The results table as a list of dicts (one per point), without pandas."""
        return _read_results(self._data["out"])

    def frame(self):
        """The results table as a pandas DataFrame (needs pandas): text axes, `status`,
        `bottleneck`, `recompute` and `est_bound` as categories, other text as str."""
        import h5py

        with h5py.File(self._data["out"], "r") as f:
            return _dataset_frame(f["results"])


def sweep(sweep_file, out, *, catalog=None, jobs=None, resume=False, max_ops=DEFAULT_MAX_OPS):
    """Runs a sweep file into the HDF5 results file `out`, as `stepsim sweep` does (journal, resume)."""
    doc = _native.sweep(os.fspath(sweep_file), os.fspath(out), _catalogs(catalog), int(jobs or os.cpu_count() or 1),
                        bool(resume), int(max_ops))
    return SweepResult(json.loads(doc))


def _decode(v):
    if isinstance(v, bytes):
        return v.decode("utf-8")
    return v


def _enum_names(dtype):
    """An HDF5 enum field's names by value (stepsim numbers them 0..n-1), or None."""
    import h5py

    mapping = h5py.check_enum_dtype(dtype)
    if not mapping:
        return None
    names = [None] * len(mapping)
    for name, value in mapping.items():
        names[int(value)] = name
    return names


def _dataset_rows(ds):
    """An HDF5 compound dataset as a list of dicts (strings decoded, enums as their names; a value
    outside the enum, which marks missing text, as None)."""
    names = ds.dtype.names or ()
    enums = {n: _enum_names(ds.dtype[n]) for n in names}
    rows = []
    for rec in ds[()]:
        row = {}
        for n in names:
            v = rec[n]
            if enums[n] is not None:
                v = int(v)
                v = enums[n][v] if v < len(enums[n]) else None
            elif hasattr(v, "item"):
                v = v.item()
            row[n] = _decode(v)
        rows.append(row)
    return rows


def _dataset_frame(ds):
    """An HDF5 compound dataset as a pandas DataFrame, column by column: enums as categories (all
    of the enum's names, in value order; missing text as NaN), strings as str, numbers as stored."""
    import numpy as np
    import pandas as pd

    data = ds[()]
    columns = {}
    for n in ds.dtype.names or ():
        field = data[n]
        names = _enum_names(ds.dtype[n])
        if names is not None:
            codes = field.astype(np.int64)
            codes[codes >= len(names)] = -1
            columns[n] = pd.Categorical.from_codes(codes, categories=names)
        elif field.dtype.kind == "S":  # fixed-length, NUL-padded UTF-8
            columns[n] = pd.array(np.char.decode(field, "utf-8"), dtype=object)
        elif field.dtype.kind == "O":  # variable-length strings
            columns[n] = pd.array([_decode(v) for v in field], dtype=object)
        else:
            columns[n] = field
    return pd.DataFrame(columns)


def _read_results(path):
    import h5py

    with h5py.File(path, "r") as f:
        return _dataset_rows(f["results"])


def read_tables(path):
    """Every table (compound dataset) of a run's or a sweep's HDF5 file, by its path in the file:
    pandas DataFrames when pandas is installed (enumerations as categories, strings as str), else
    lists of dicts."""
    import h5py

    try:
        import pandas  # noqa: F401
    except ImportError:  # pragma: no cover - pandas is optional
        pandas = None
    out = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.dtype.names:
            out[name] = _dataset_frame(obj) if pandas is not None else _dataset_rows(obj)

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return out
