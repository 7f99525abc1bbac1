#!/usr/bin/env bash
# One device session's calibration runs on an H200 (tools/calibration/README in docs/model.md):
# sustained clocks (bf16, fp8), FP8 GEMMs in both accumulation modes, grouped expert GEMMs and
# decode kernels. Each script writes its JSON under $OUT; a failure of one does not stop the rest.
# Usage (device machine): bash tools/calibration/run_h200.sh
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")"
OUT=${OUT:-.}
log=$OUT/run_h200.log
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv | tee "$log"
run() { echo "== $*" | tee -a "$log"; timeout "$1" python3 "${@:2}" 2>&1 | tee -a "$log"; }
run 120 fp8_gemm.py
run 150 grouped_gemm.py
run 150 decode_kernels.py
run 60 sustained_clock.py --seconds 45 --dtype bf16
run 50 sustained_clock.py --seconds 35 --dtype fp8
run 70 clock_wander.py --seconds 20 --warm 5
echo "== done" | tee -a "$log"
