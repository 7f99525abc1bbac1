#!/usr/bin/env python3
"""The layering the build enforces (issue 21): no include points up.

Usage: check_layering.py SOURCE_DIR

Libraries, bottom to top: sim <- topology <- workloads <- scenarios <- output <- tools. A file may
include its own folder and the folders below it, never one above. Inside workloads/ and output/ the
subfolders are layered the same way (LAYERS below, bottom first; folders on one line are peers and may
include each other). tests/ may include anything. Each CMake library must link only libraries below
it (its CMakeLists.txt's target_link_libraries names no stepsim library of its own level or above).
"""
import os
import re
import sys

TOP = ["sim", "topology", "workloads", "scenarios", "output", "tools"]
LAYERS = {
    "workloads": [["model"], ["layout"], ["estimate"], ["step"], ["bound"], ["simulate"],
                  ["serving", "reliability", "cluster"]],
    "output": [["common"], ["run"], ["hdf5", "sweep", "search", "profile"], ["views"], ["report"]],
}
LIBRARY = {"sim": "stepsim_sim", "topology": "stepsim_topology", "workloads": "stepsim_workloads",
           "scenarios": "stepsim_scenarios", "output": "stepsim_output", "tools": "stepsim"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def level(folder, sub):
    for i, peers in enumerate(LAYERS[folder]):
        if sub in peers:
            return i
    return None


def main(source):
    failures = []
    for top in TOP:
        for root, _, files in os.walk(os.path.join(source, top)):
            for name in files:
                if not name.endswith((".cpp", ".hpp", ".h")):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, source)
                parts = rel.split(os.sep)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    head = inc.split("/")[0]
                    if head not in TOP:
                        continue
                    if TOP.index(head) > TOP.index(top):
                        failures.append(f"{rel}: includes {inc}, a layer above {top}/")
                        continue
                    if head == top and top in LAYERS and len(parts) > 2:
                        mine, theirs = parts[1], inc.split("/")[1]
                        a, b = level(top, mine), level(top, theirs)
                        if a is None or b is None:
                            failures.append(f"{rel}: {top}/{mine if a is None else theirs}/ is in no layer of "
                                            f"check_layering.py")
                        elif b > a:
                            failures.append(f"{rel}: includes {inc}, a layer above {top}/{mine}/")
                    if top in LAYERS and len(parts) == 2 and name != "CMakeLists.txt":
                        failures.append(f"{rel}: a source directly in {top}/, outside its subfolders")
    for i, top in enumerate(TOP):
        cmake = os.path.join(source, top, "CMakeLists.txt")
        with open(cmake, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"target_link_libraries\(\s*(\S+)([^)]*)\)", text):
            for lib in re.findall(r"\bstepsim_[a-z]+\b", m.group(2)):
                owner = [t for t, l in LIBRARY.items() if l == lib]
                if owner and TOP.index(owner[0]) >= i:
                    failures.append(f"{top}/CMakeLists.txt: {m.group(1)} links {lib}, not below {top}/")
    for f in failures:
        print("FAIL", f)
    print(f"layering: {len(failures)} violations")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
