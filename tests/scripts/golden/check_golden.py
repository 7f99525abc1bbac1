#!/usr/bin/env python3
"""Outputs that must not change when code moves: every bundled example (run, compare, search), the
bundled sweep and every validation case, against tests/golden/outputs.json.

Usage: check_golden.py STEPSIM SOURCE_DIR [--update] [--only examples|validation]

Each output is the command's JSON (the sweep's CSV), compared by its SHA-256; the file also keeps each
run's step time (validation: each case's predicted step time, exactly) so that a change says which
figure moved. A refactoring must leave every entry as it is. A change that moves a figure on purpose
updates the file with --update in the same commit and says which figures moved and why.

`examples` runs in seconds; `validation` simulates every published case (about a minute on 2 cores),
so CI runs it in the validation check's slot (tests/scripts/validate), not twice.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def run(stepsim, source, args):
    done = subprocess.run([stepsim, *args, "--quiet"], cwd=source, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"stepsim {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def step_time(doc):
    for path in (("metrics", "step_time_s"), ("step_time_s",)):
        v = doc
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        if isinstance(v, (int, float)):
            return v
    return None


def examples(stepsim, source):
    out = {}
    ex = "scenarios/examples"
    for folder in ("", "compare"):
        d = os.path.join(source, ex, folder)
        for name in sorted(os.listdir(d)):
            if not name.endswith(".toml"):
                continue
            rel = os.path.join(ex, folder, name) if folder else os.path.join(ex, name)
            text = run(stepsim, source, ["run", rel, "--format", "json"])
            out["run " + rel] = {"sha256": sha(text), "step_time_s": step_time(json.loads(text))}
    compare = sorted(os.path.join(ex, "compare", n) for n in os.listdir(os.path.join(source, ex, "compare")))
    text = run(stepsim, source, ["compare", *compare, "--format", "json"])
    out["compare " + " ".join(compare)] = {"sha256": sha(text)}
    search = os.path.join(ex, "search", "gpt-1.7b-16xh100.toml")
    text = run(stepsim, source, ["search", search, "--format", "json", "--jobs", "2"])
    out["search " + search] = {"sha256": sha(text)}
    sweep = os.path.join(ex, "sweeps", "llama3.1-70b-dp-nic.toml")
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "r.csv")
        run(stepsim, source, ["sweep", sweep, "--out", os.path.join(tmp, "r.h5"), "--csv", csv, "--jobs", "2"])
        with open(csv) as f:
            out["sweep " + sweep] = {"sha256": sha(f.read())}
    return out


def validation(stepsim, source, report=None):
    if report is None:
        report = json.loads(run(stepsim, source, ["validate", "--format", "json", "--jobs", "2"]))
    out = {}
    for case in report["cases"]:
        out["validate " + case["id"]] = {"predicted_step_s": case.get("predicted_step_s")}
    return out


def compare(golden, got):
    failures = []
    for key in sorted(set(golden) | set(got)):
        if key not in got:
            failures.append(f"{key}: in the golden file, not produced")
        elif key not in golden:
            failures.append(f"{key}: produced, not in the golden file (run with --update)")
        elif golden[key] != got[key]:
            failures.append(f"{key}: {golden[key]} before, {got[key]} now")
    return failures


def main(argv):
    stepsim, source = argv[0], argv[1]
    update = "--update" in argv
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    path = os.path.join(source, "tests", "golden", "outputs.json")
    golden = {}
    if os.path.exists(path):
        with open(path) as f:
            golden = json.load(f)
    got = {}
    if only in (None, "examples"):
        got.update(examples(stepsim, source))
    if only in (None, "validation"):
        got.update(validation(stepsim, source))
    mine = {k: v for k, v in golden.items() if k.split(" ")[0] in {x.split(" ")[0] for x in got}}
    if update:
        golden.update(got)
        for k in [k for k in mine if k not in got]:
            del golden[k]
        with open(path, "w") as f:
            json.dump(golden, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{path}: {len(got)} outputs written")
        return 0
    failures = compare(mine, got)
    for f in failures:
        print("CHANGED", f)
    print(f"{len(got)} outputs compared, {len(failures)} changed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
