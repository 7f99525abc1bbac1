#!/usr/bin/env bash
# Runs every libFuzzer target for a while from the seed corpus (tests/fuzz/corpus/<target>).
# Usage: bash tests/fuzz/run.sh BUILD_DIR SECONDS_PER_TARGET [JOBS] [TARGET...]
#   BUILD_DIR was configured with -DSTEPSIM_FUZZ=ON and clang (see docs/fuzzing.md).
#   TARGETs: scenario sweep topology journal nccl_tests catalog (default: all six).
# New inputs the fuzzer finds go to BUILD_DIR/fuzz-corpus/<target> (the seed corpus in the tree is
# only read); a crash, a sanitizer report or an internal error leaves the input in
# BUILD_DIR/fuzz-findings/ and makes this script fail. With JOBS > 1 each target runs that many
# fuzzing processes in parallel (libFuzzer -fork). Each target's executions are printed at the end.
set -euo pipefail
build=${1:?build dir}
seconds=${2:?seconds per target}
jobs=${3:-1}
shift $(($# < 3 ? $# : 3))
targets=("$@")
((${#targets[@]})) || targets=(scenario sweep topology journal nccl_tests catalog)
here="$(cd "$(dirname "$0")" && pwd)"
status=0
total=0
for target in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$target"
  work="$build/fuzz-corpus/$target"
  findings="$build/fuzz-findings/$target"
  mkdir -p "$work" "$findings"
  fork=()
  ((jobs > 1)) && fork=(-fork="$jobs" -ignore_crashes=0)
  echo "== fuzz_$target: ${seconds}s =="
  # -timeout: one input may take at most 10 s (the scenario target simulates small jobs);
  # -rss_limit_mb: input must be refused by a limit long before it can use 2 GB.
  log="$build/fuzz-$target.log"
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$findings/" "${fork[@]}" "$work" "$here/corpus/$target" 2>"$log"; then
    status=1
    echo "fuzz_$target FAILED; the input is in $findings/, the log in $log:"
    grep -E "internal error|ERROR|Assertion|runtime error" "$log" | head -n 5 || true
    tail -n 20 "$log"
  fi
  # Executions: the final stats of one process, or the last "#N:" progress line of -fork mode.
  runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" | tail -n 1 || true)
  [[ -n "$runs" ]] || runs=$(grep -oE "^#[0-9]+:" "$log" | tr -d '#:' | tail -n 1 || true)
  runs=${runs:-0}
  total=$((total + runs))
  echo "fuzz_$target: $runs executions"
done
echo "fuzz: $total executions over ${#targets[@]} target(s)"
exit $status
