#!/usr/bin/env bash
# Identical inputs, identical bytes: `stepsim run` writes the trace, the HDF5 file and the report
# twice (every rank simulated), `stepsim compare` its page twice (the scenario against itself: the
# bundled comparison is slow under the sanitizers); each pair must match exactly.
# Usage: check_determinism.sh STEPSIM SCENARIO WORKDIR
set -euo pipefail
stepsim=$1 scenario=$2 work=$3
mkdir -p "$work"
for i in 1 2; do
  "$stepsim" run "$scenario" --ranks all --trace "$work/t$i.json" --hdf5 "$work/r$i.h5" --report "$work/r$i.html" \
    >"$work/out$i.txt" 2>/dev/null
  "$stepsim" compare "$scenario" "$scenario" --report "$work/c$i.html" >/dev/null 2>&1
done
for f in t%.json r%.h5 r%.html c%.html out%.txt; do
  a=$work/${f/\%/1} b=$work/${f/\%/2}
  [[ -s $a ]] || { echo "FAILED: $a is empty"; exit 1; }
  cmp "$a" "$b" || { echo "FAILED: $a and $b differ"; exit 1; }
done
echo "trace, HDF5, report and comparison are byte-identical across runs"
