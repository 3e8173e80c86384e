#!/usr/bin/env bash
# The tiny LM's speed against PyTorch on this machine: scaleref_lm_bench
# (reference/bench/lm_bench.cpp, double, OpenMP) and scripts/bench_lm_torch.py
# (PyTorch float64 on OpenBLAS), same model, same shapes, same thread count,
# run in alternation (scaleref, torch, scaleref, torch, ...) for `rounds` pairs
# per thread count. Prints every run's lines, then per thread count and phase
# (forward+backward; training step with clipping and AdamW) the median time of
# each side, the ratio torch / scaleref of every pair and its median (> 1:
# scaleref is that many times faster), and scaleref's heap allocations per
# step. Installs python3-torch and libopenblas0-pthread (Debian) when missing;
# builds like run.sh.
#
#   scripts/bench_lm.sh [rounds] [reps]     (defaults 3 and 10)
#
# Environment: THREADS (thread counts, default "1 2"; each pair exports
# OMP_NUM_THREADS), BUILD_DIR.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
rounds=${1:-3}
reps=${2:-10}
threads_list=${THREADS:-1 2}
for v in "$rounds" "$reps"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "bench_lm: rounds and reps must be positive integers, got '$v'" >&2; exit 2; }
done

"$root/scripts/bench_deps.sh"

"$root/scripts/setup.sh" >/dev/null
cmake --build "$build_dir" --target scaleref_lm_bench --parallel "$(nproc)"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc --all) cores," \
  "OMP_NUM_THREADS in {${threads_list// /,}}, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in $threads_list; do
  export OMP_NUM_THREADS=$t
  for ((r = 1; r <= rounds; r++)); do
    "$build_dir/reference/scaleref_lm_bench" --reps "$reps" --warmup 2 | tee "$tmp/scaleref-$t-$r.txt"
    /usr/bin/python3 "$root/scripts/bench_lm_torch.py" --reps "$reps" --warmup 2 | tee "$tmp/torch-$t-$r.txt"
  done
done

# shellcheck disable=SC2086  # the thread counts are meant to split into arguments
/usr/bin/python3 - "$tmp" "$rounds" $threads_list <<'EOF'
import re
import statistics
import sys

tmp, rounds, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
PHASES = ["forward+backward", "training step (AdamW, clip)"]


def read(path, side):  # phase -> (median ms, heap allocations per step or None)
    out = {}
    for line in open(path):
        for phase in PHASES:
            if line.startswith(f"{side} {phase}: median "):
                ms = float(re.search(r"median ([0-9.]+) ms", line).group(1))
                allocs = re.search(r"(\d+) heap allocations", line)
                out[phase] = (ms, int(allocs.group(1)) if allocs else None)
    return out


for t in threads:
    cpp = [read(f"{tmp}/scaleref-{t}-{r}.txt", "scaleref") for r in range(1, rounds + 1)]
    py = [read(f"{tmp}/torch-{t}-{r}.txt", "torch") for r in range(1, rounds + 1)]
    print(f"\n{t} threads, {rounds} pairs (times: medians over the pairs' medians, ms)")
    print(f"{'phase':<30} {'scaleref':>9} {'torch':>9}  {'torch/scaleref per pair':<24} median  allocations/step")
    for phase in PHASES:
        s = [run[phase][0] for run in cpp]
        p = [run[phase][0] for run in py]
        ratios = [b / a for a, b in zip(s, p)]
        allocs = max(run[phase][1] for run in cpp)
        print(f"{phase:<30} {statistics.median(s):>9.1f} {statistics.median(p):>9.1f}  "
              f"{' '.join(f'{x:.2f}' for x in ratios):<24} {statistics.median(ratios):.2f}x  {allocs}")
print("\ntorch/scaleref > 1: scaleref is that many times faster than PyTorch; < 1: slower.")
EOF
