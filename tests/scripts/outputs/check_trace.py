"""The Chrome trace of a run against the trace-event format as Perfetto's JSON importer reads it
(no Debian or npm package ships Perfetto's trace processor, so this script plays its part for the
features stepsim uses):

- every event is metadata (M), a complete slice (X) or a counter (C), with the fields each needs;
- slices on one thread nest (a thread track is a stack: a slice that starts inside another and
  ends after it would be cut by the importer);
- flow events (v2: `bind_id` with `flow_out`, `flow_in` or both on a slice) replayed as the importer
  does, in timestamp order with ties in file order: a chain begins with a flow_out-only slice,
  continues through flow_in+flow_out slices and ends with a flow_in-only one, never stepping an
  unopened flow and leaving none open; each arrow goes from a slice that ends no later than the
  next one starts (a dependency precedes what waits on it), and the arrows join exactly the
  consecutive ops of the critical path that the trace shows;
- the critical-path track covers the step from 0 to its end with no gap and no overlap, its waits
  add up to the summary's `critical_path.seconds.dependency`, and each of its op slices on a
  traced rank matches the op's own event (same name, start and duration).

Usage: check_trace.py STEPSIM_BINARY SCENARIO WORK_DIR [RUN OPTIONS...]"""

import json
import pathlib
import shutil
import subprocess
import sys

binary, scenario, work, options = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4:]
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
trace_path = work / "trace.json"
summary = json.loads(subprocess.run([binary, "run", scenario, "--format", "json", "--trace", str(trace_path), *options],
                                    check=True, capture_output=True, text=True).stdout)
trace = json.loads(trace_path.read_text())
events = trace["traceEvents"]
failures = []
NS = 1e-3  # the trace's times are microseconds with three decimals


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


# 1. Event shapes.
bad = [e for e in events if e.get("ph") not in ("M", "X", "C") or "pid" not in e
       or (e["ph"] == "X" and not ("tid" in e and "ts" in e and e.get("dur", -1) >= 0 and "name" in e))
       or (e["ph"] == "C" and not isinstance(e.get("args"), dict))]
check(not bad, f"{len(events)} events are M, X or C with their fields ({bad[:1]})")

# 2. Nesting per thread.
slices = [e for e in events if e["ph"] == "X"]
by_thread = {}
for e in slices:
    by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
crossing = 0
for evs in by_thread.values():
    stack = []
    for e in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
        while stack and stack[-1] <= e["ts"] + NS / 2:
            stack.pop()
        end = e["ts"] + e["dur"]
        if stack and end > stack[-1] + NS / 2:
            crossing += 1
        stack.append(end)
check(crossing == 0, f"slices nest on each of {len(by_thread)} threads ({crossing} cross)")

# 3. Flows, replayed in the importer's order (stable sort by timestamp).
order = sorted(range(len(events)), key=lambda i: events[i].get("ts", 0))
open_flows, arrows, problems = {}, [], []
for i in order:
    e = events[i]
    if "bind_id" not in e:
        continue
    fid, fin, fout = e["bind_id"], e.get("flow_in", False), e.get("flow_out", False)
    if fin and fid not in open_flows:
        problems.append(f"flow {fid} arrives at {e['name']} before it began")
        continue
    if fin:
        arrows.append((open_flows.pop(fid), e))
    if fout:
        if fid in open_flows:
            problems.append(f"flow {fid} begins twice")
        open_flows[fid] = e
    if not fin and not fout:
        problems.append(f"flow {fid} on {e['name']} has no direction")
problems += [f"flow {fid} never ends" for fid in open_flows]
check(not problems, f"flow chains replay cleanly: {len(arrows)} arrows ({problems[:3]})")
backwards = [(a["name"], b["name"]) for a, b in arrows if a["ts"] + a["dur"] > b["ts"] + NS / 2]
check(not backwards, f"every arrow leaves a slice that ended before its target started ({backwards[:2]})")

# 4. The critical-path track.
names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e.get("name") == "process_name"}
crit_pid = next((pid for pid, n in names.items() if n == "critical path"), None)
check(crit_pid is not None, "a process named `critical path`")
track = sorted((e for e in slices if e["pid"] == crit_pid), key=lambda e: e["ts"])
step_us = summary["step_time_s"] * 1e6
t, gaps = 0.0, 0
for e in track:
    gaps += abs(e["ts"] - t) > NS / 2
    t = e["ts"] + e["dur"]
check(len(track) > 0 and gaps == 0 and abs(t - step_us) <= NS,
      f"the track covers 0 to the step's end ({t:.3f} us of {step_us:.3f}) without gaps ({gaps})")
waits_s = sum(e["dur"] for e in track if e["cat"] == "critical.wait") * 1e-6
want_s = summary["critical_path"]["seconds"]["dependency"]
check(abs(waits_s - want_s) <= 1e-9 * (1 + len(track)),
      f"its waits add up to critical_path.seconds.dependency ({waits_s:.9f} s vs {want_s:.9f} s)")
ops = {e["args"]["op"]: e for e in slices if "op" in e.get("args", {})}  # each op's own event
on_path = [e for e in track if e["cat"] == "critical"]
traced = [e for e in on_path if e["args"]["traced"]]
mismatch = [e["name"] for e in traced
            if e["args"]["copy_of"] not in ops
            or (ops[e["args"]["copy_of"]]["name"], ops[e["args"]["copy_of"]]["ts"], ops[e["args"]["copy_of"]]["dur"])
            != (e["name"], e["ts"], e["dur"])]
check(len(traced) > 0 and not mismatch,
      f"{len(traced)} of {len(on_path)} path ops are traced, each as its own event ({mismatch[:2]})")
pairs = {(a["args"]["op"], b["args"]["op"]) for a, b in arrows}
missing = [(a["name"], b["name"]) for a, b in zip(on_path, on_path[1:])
           if a["args"]["traced"] and b["args"]["traced"] and a["ts"] < b["ts"]
           and (a["args"]["copy_of"], b["args"]["copy_of"]) not in pairs]
check(not missing and len(pairs) == len(arrows),
      f"an arrow joins each two consecutive traced ops of the path, and only those ({missing[:2]})")
consecutive = {(a["args"]["copy_of"], b["args"]["copy_of"]) for a, b in zip(on_path, on_path[1:])}
stray = [p for p in pairs if p not in consecutive]
check(not stray, f"no arrow joins ops that are not consecutive on the path ({stray[:2]})")

if failures:
    print(f"FAILED: {len(failures)} checks")
    sys.exit(1)
print("PASS")
