#!/usr/bin/env bash
# Installs Debian's Slurm daemons, client and munge for the Slurm test (as root; no daemon is
# started: the test runs its own one-node cluster). Used by slurm_sweep_test.sh when they are missing.
set -euo pipefail
packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
