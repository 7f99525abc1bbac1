#!/usr/bin/env bash
# A sweep on a real Slurm: starts a one-node cluster on localhost (munged, slurmctld, slurmd, all
# configured under a private folder; /etc is not touched), submits the sweep as a 4-task array plus
# the merge job with `stepsim slurm --submit`, waits for both, and checks that the merged results
# are byte-identical to a local `stepsim sweep` of the same file. Stops every daemon it started.
#
# Usage: slurm_sweep_test.sh STEPSIM_BINARY SWEEP.toml
# Exit 77 (skipped) only when Slurm is missing and cannot be installed (not root).
set -euo pipefail
stepsim=$1
sweep=$(realpath "$2")
here=$(dirname "$(realpath "$0")")

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
  ! command -v munged >/dev/null; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "SKIP: Slurm and munge are not installed and installing them needs root"
    exit 77
  fi
  bash "$here/install_slurm.sh"
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: running slurmd needs root"
  exit 77
fi

work=$(mktemp -d /tmp/stepsim-slurm.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/run"
chown munge:munge "$work/munge"
chmod 755 "$work/munge"  # clients reach the socket in it
export SLURM_CONF=$work/slurm.conf
started=$(date +%s)

# Stops a daemon by the PID in its pid file and waits until it is gone (or a zombie: daemons are
# re-parented to a PID 1 that may never reap them, so a zombie counts as stopped).
stop_daemon() {
  local pidfile=$1 pid state
  [[ -s $pidfile ]] || return 0
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do
    state=$(ps -o stat= -p "$pid" 2>/dev/null || true)
    [[ -z $state || $state == Z* ]] && return 0
    sleep 0.2
  done
  kill -9 "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  [[ -s $work/run/slurmctld.pid ]] && timeout 10 scancel --quiet --user=root 2>/dev/null || true
  stop_daemon "$work/run/slurmd.pid"
  stop_daemon "$work/run/slurmctld.pid"
  stop_daemon "$work/munge/munged.pid"
  if [[ $rc -ne 0 ]]; then
    for log in "$work"/*.log "$work"/out*/logs/*.log; do
      [[ -f $log ]] && { echo "== $log"; tail -n 30 "$log"; }
    done
  fi
  rm -rf "$work"
  echo "slurm test: $(($(date +%s) - started)) s, exit $rc"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# munge: its own key, socket and files, run as the munge user.
mungekey --create --keyfile="$work/munge/munge.key" --force
chown munge:munge "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
runuser -u munge -- munged --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed"

cpus=$(nproc)
sed -e "s|@WORK@|$work|g" -e "s|@CTLD_PORT@|$(free_port)|" -e "s|@SLURMD_PORT@|$(free_port)|" \
  -e "s|@CPUS@|$cpus|" "$here/slurm.conf.in" >"$SLURM_CONF"

slurmctld -i
slurmd -N localhost

# Wait for the node to come up idle.
for _ in $(seq 150); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  if [[ $state == down* || $state == drain* ]]; then scontrol update nodename=localhost state=resume || true; fi
  sleep 0.2
done
[[ $(sinfo -h -n localhost -o %T) == idle ]] || { echo "FAIL: the node never became idle"; sinfo; exit 1; }

# Submit the array (4 shards) and the merge job that depends on it, into a folder whose name holds
# what a shell or sbatch would act on: real sbatch must read the quoted #SBATCH lines back intact
# (logs land in out/logs/shard-I.log), and no CANARY file may appear.
cd "$work"
out="$work/out \$(touch CANARY1) \`touch CANARY2\` 'q' \"dq\"; touch CANARY3 # 50% é"
submitted=$("$stepsim" slurm "$sweep" --tasks 4 --out "$out" --cpus-per-task 1 --csv --submit \
  --job-name "stepsim 'test' #1")
echo "$submitted"
array=$(sed -n 's/.*array job \([0-9]*\).*/\1/p' <<<"$submitted")
merge=$(sed -n 's/.*merge job \([0-9]*\).*/\1/p' <<<"$submitted")
[[ -n $array && -n $merge ]] || { echo "FAIL: no job ids in the submission output"; exit 1; }

# While Slurm runs the jobs, run the same sweep locally.
"$stepsim" sweep "$sweep" --out "$work/local.h5" --csv "$work/local.csv" --jobs 1 --progress none

for _ in $(seq 900); do
  pending=$(squeue -h -j "$array,$merge" -o %i 2>/dev/null | wc -l)
  ((pending == 0)) && break
  sleep 0.2
done
((pending == 0)) || { echo "FAIL: jobs still queued after 180 s"; squeue; exit 1; }

for i in 0 1 2 3; do
  [[ -f $out/shard-$i-of-4.h5 ]] || { echo "FAIL: shard $i missing"; exit 1; }
  [[ -s $out/logs/shard-$i.log ]] || { echo "FAIL: no log for task $i in $out/logs"; ls -la "$out/logs"; exit 1; }
done
[[ -f $out/results.h5 ]] || { echo "FAIL: the merge job wrote no results.h5"; exit 1; }
canaries=$(find "$work" \( -name CANARY1 -o -name CANARY2 -o -name CANARY3 \) | wc -l)
((canaries == 0)) || { echo "FAIL: a command hidden in the folder name ran"; exit 1; }
cmp "$out/results.h5" "$work/local.h5" || { echo "FAIL: merged HDF5 differs from the local run"; exit 1; }
cmp "$out/results.csv" "$work/local.csv" || { echo "FAIL: merged CSV differs from the local run"; exit 1; }
rows=$(($(wc -l <"$work/local.csv") - 1))
((rows >= 200)) || { echo "FAIL: only $rows points; the test needs at least 200"; exit 1; }
echo "PASS: $rows points in 4 array tasks and a merge job equal the local run byte for byte"
