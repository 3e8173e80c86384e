#!/usr/bin/env bash
# The tiny LM's speed against PyTorch on this machine (issue 7's comparison):
# scaleref_lm_bench (double, OpenMP) and scripts/bench_lm_torch.py (PyTorch
# float64 on OpenBLAS), same model, same shapes, same thread count, one after
# the other. Installs python3-torch and libopenblas0-pthread (Debian) when
# missing; builds like run.sh.
#
#   scripts/bench_lm.sh [reps]        threads: OMP_NUM_THREADS (default: nproc)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
reps=${1:-10}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}

missing=()
for p in python3-torch libopenblas0-pthread; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  [[ $(id -u) -eq 0 ]] || { echo "bench_lm: needs root to install ${missing[*]}" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

"$root/scripts/setup.sh" >/dev/null
cmake --build "$build_dir" --target scaleref_lm_bench --parallel "$(nproc)"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc --all) cores," \
  "OMP_NUM_THREADS=$OMP_NUM_THREADS, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD)"
"$build_dir/reference/scaleref_lm_bench" --reps "$reps" --warmup 2
/usr/bin/python3 "$root/scripts/bench_lm_torch.py" --reps "$reps" --warmup 2
