#!/usr/bin/python3
"""The HTML report and the comparison page in a real browser: headless Chromium loads each page,
the DOM it builds must hold every chart and the headline figures of `stepsim run --format json`
(resp. the comparison's winners), and a screenshot is kept for people to look at.

Usage: check_report.py STEPSIM SCENARIO COMPARE_DIR WORKDIR SCREENSHOT_DIR
Exit 77 (skipped) only when no Chromium is installed outside CI; CI must run it.
"""
import glob
import html.parser
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import headless  # noqa: E402  (tests/scripts/outputs/headless.py)

stepsim, scenario, compare_dir, work, shots = sys.argv[1:6]
browser = headless.find_browser()
os.makedirs(work, exist_ok=True)
os.makedirs(shots, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def chromium(args, url):
    return headless.chromium(browser, args, url)


class Dom(html.parser.HTMLParser):
    """Elements by id (with their attributes and text) and every <svg>'s id, from --dump-dom."""

    def __init__(self):
        super().__init__()
        self.by_id, self.svgs, self.stack, self.rects = {}, [], [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs.append(a.get("id"))
        if tag in ("rect", "circle"):
            self.rects += 1
        if "id" in a:
            self.by_id[a["id"]] = {"attrs": a, "text": ""}
        self.stack.append(a.get("id"))

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        for i in self.stack:
            if i in self.by_id:
                self.by_id[i]["text"] += data


def dom_of(page):
    d = Dom()
    d.feed(chromium(["--dump-dom"], "file://" + os.path.abspath(page)))
    return d


# The run report.
report = os.path.join(work, "report.html")
run = subprocess.run([stepsim, "run", scenario, "--format", "json", "--report", report],
                     check=True, capture_output=True, text=True)
summary = json.loads(run.stdout)
d = dom_of(report)
for chart in ("breakdown", "gantt", "gantt-zoom", "roofline", "memory", "memory-timeline", "network", "cost"):
    check(chart in d.svgs, f"report: no <svg id={chart}> in the DOM")
# Every chart with axes says what they measure.
texts = " ".join(v["text"] for v in d.by_id.values())
for title in ("time per step (s)", "time in the step (s)", "memory per GPU at its peak (bytes)",
              "memory in use per GPU", "tier load / line rate", "arithmetic intensity (FLOP per HBM byte)"):
    check(title in texts, f"report: no axis title {title!r}")
check(d.rects > 50, f"report: only {d.rects} shapes drawn")
check("cost-table" in d.by_id, "report: no cost table")
headline = {"hl-step-time": summary["step_time_s"], "hl-tokens": summary["tokens_per_s"], "hl-mfu": summary["mfu"],
            "hl-memory": summary["memory"]["peak_bytes"], "hl-cost": summary["cost"]["per_million_tokens"]}
for hid, want in headline.items():
    el = d.by_id.get(hid)
    check(el is not None and float(el["attrs"]["data-value"]) == want, f"report: {hid} {el and el['attrs']} != {want}")
check(summary["bottleneck"]["primary"]["label"] in d.by_id.get("hl-bottleneck", {}).get("text", ""),
      "report: bottleneck not shown")
banner = d.by_id.get("feasibility", {}).get("attrs", {}).get("data-feasible")
check(banner == ("true" if summary["feasible"] else "false"), f"report: feasibility banner {banner!r}")
fits_text = d.by_id.get("hl-memory", {}).get("text", "")
check(("does not fit" not in fits_text) == summary["memory"]["fits"], f"report: memory verdict {fits_text!r}")
chromium(["--window-size=1200,5200", f"--screenshot={os.path.join(shots, 'report-screenshot.png')}"],
         "file://" + os.path.abspath(report))

# The comparison page: the bundled topology comparison.
page = os.path.join(work, "compare.html")
files = sorted(glob.glob(os.path.join(compare_dir, "*.toml")))
cmp = subprocess.run([stepsim, "compare", *files, "--format", "json", "--report", page],
                     check=True, capture_output=True, text=True)
rows = {r["key"]: r for r in json.loads(cmp.stdout)["rows"]}
d = dom_of(page)
check("compare-table" in d.by_id and "compare-breakdown" in d.svgs, "compare: table or chart missing")
step = rows["step_time_s"]
check(len(step["winners"]) == 1, f"compare: step-time winners {step['winners']}")
names = json.loads(cmp.stdout)["scenarios"]
check(len(names) == len(files) == 3, "compare: three scenarios")
chromium(["--window-size=1200,900", f"--screenshot={os.path.join(shots, 'compare-screenshot.png')}"],
         "file://" + os.path.abspath(page))
for shot in ("report-screenshot.png", "compare-screenshot.png"):
    p = os.path.join(shots, shot)
    check(os.path.exists(p) and os.path.getsize(p) > 20000, f"{shot}: missing or blank")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"report and comparison render in {os.path.basename(browser)}; screenshots in {shots}")
