#!/usr/bin/env bash
# What the PyTorch comparisons (scripts/bench_lm.sh, scripts/bench_norm.sh)
# need beyond scripts/setup.sh: Debian's python3-torch, and OpenBLAS under it
# (libopenblas0-pthread; without it Debian's torch runs on the reference BLAS,
# not the framework's optimized one). Installs what is missing (needs root).
set -euo pipefail
missing=()
for p in python3-torch libopenblas0-pthread; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  [[ $(id -u) -eq 0 ]] || { echo "bench_deps: needs root to install ${missing[*]}" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
