#!/usr/bin/python3
"""`stepsim plot` of the bundled sweep in a real browser: the sweep runs, `plot` writes an HTML
page and an SVG, headless Chromium loads each, the DOM must hold the chart with one marker per
plotted point (the numbers the results file holds, read back with h5py), a line per series and
the axis titles, and screenshots are kept for people to look at.

Usage: check_plot.py STEPSIM SWEEP.toml WORKDIR SCREENSHOT_DIR
Exit 77 (skipped) only when no Chromium is installed outside CI; CI must run it.
"""
import html.parser
import os
import shutil
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import headless  # noqa: E402  (tests/scripts/outputs/headless.py)

stepsim, sweep, work, shots = sys.argv[1:5]
browser = headless.find_browser()
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.makedirs(shots, exist_ok=True)
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def chromium(args, url):
    return headless.chromium(browser, args, url)


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.texts, self.svgs, self.attrs = {}, [], [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "svg":
            self.svgs.append(a.get("id"))
        if "id" in a:
            self.attrs[a["id"]] = a

    def handle_data(self, data):
        self.texts.append(data)


def dom_of(path):
    d = Dom()
    d.feed(chromium(["--dump-dom"], "file://" + os.path.abspath(path)))
    return d


results = os.path.join(work, "results.h5")
subprocess.run([stepsim, "sweep", sweep, "--out", results, "--progress", "none"], check=True,
               stdout=subprocess.DEVNULL)
with h5py.File(results) as f:
    table = f["results"][()]
    ok = h5py.check_enum_dtype(f["results"].dtype["status"])["ok"]
rows = table[table["status"] == ok]
series = sorted(set(rows["hardware.nic_gbps"]))

page = os.path.join(work, "plot.html")
args = ["--x", "nodes", "--y", "tokens_per_s_per_gpu", "--color", "nic"]  # axis names stand for keys
subprocess.run([stepsim, "plot", results, *args, "--out", page], check=True, stdout=subprocess.DEVNULL)
d = dom_of(page)
check("plot" in d.svgs, "the page holds <svg id=plot>")
check(d.tags.get("circle", 0) == len(rows), f"{d.tags.get('circle', 0)} markers for {len(rows)} ok points")
check(d.tags.get("polyline", 0) == len(series), f"{d.tags.get('polyline', 0)} lines for {len(series)} NIC speeds")
text = " ".join(d.texts)
check("tokens_per_s_per_gpu (per second per GPU)" in text and "hardware.nodes" in text, "axis titles shown")
check(d.attrs.get("caption", {}).get("data-points") == str(len(rows)), "the caption counts the points")
# The table lists each plotted value as the file holds it (6 significant digits).
values = {f"{v:.6g}" for v in rows["tokens_per_s_per_gpu"]}
check(all(v in text for v in values), "the table lists every plotted value")
chromium(["--window-size=1000,1400", f"--screenshot={os.path.join(shots, 'plot-screenshot.png')}"],
         "file://" + os.path.abspath(page))

svg = os.path.join(work, "plot.svg")
subprocess.run([stepsim, "plot", results, *args, "--log-x", "--out", svg], check=True, stdout=subprocess.DEVNULL)
d = dom_of(svg)
check("plot" in d.svgs and d.tags.get("circle", 0) == len(rows), "the SVG alone opens with every marker")
chromium(["--window-size=900,560", f"--screenshot={os.path.join(shots, 'plot-svg-screenshot.png')}"],
         "file://" + os.path.abspath(svg))
for shot in ("plot-screenshot.png", "plot-svg-screenshot.png"):
    p = os.path.join(shots, shot)
    check(os.path.exists(p) and os.path.getsize(p) > 15000, f"{shot}: written and not blank")

if failures:
    print(f"FAILED: {len(failures)} checks")
    sys.exit(1)
print("PASS")
