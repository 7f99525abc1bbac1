#!/usr/bin/env bash
# One device session's calibration runs on an H100 SXM, the GPU whose catalog figures were carried
# over from the H200 ("same die, 700 W"): GEMMs short-run and at the power limit (bf16, FP8 fast and
# split accumulation), training attention in both states, the clock against tensor-core duty, and
# decode kernels on HBM3. Each script writes its JSON under $OUT; a failure of one does not stop the rest.
# Usage (device machine): bash tools/calibration/run_h100.sh
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")"
OUT=${OUT:-.}
log=$OUT/run_h100.log
nvidia-smi --query-gpu=name,driver_version,power.limit,power.max_limit,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv | tee "$log"
run() { echo "== $(date +%T) $*" | tee -a "$log"; timeout "$1" python3 "${@:2}" 2>&1 | tee -a "$log"; }
run 170 gemm_states.py
run 75 attention_states.py
run 140 power_mix.py
run 170 decode_kernels.py
run 70 clock_wander.py --seconds 20 --warm 5
echo "== $(date +%T) done" | tee -a "$log"
