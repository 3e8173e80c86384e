#!/usr/bin/env bash
# The normalization methods' forward + backward against PyTorch on this
# machine: scaleref_norm_bench (reference/bench/norm_bench.cpp, double, OpenMP)
# and scripts/bench_norm_torch.py (PyTorch float64 autograd on OpenBLAS), same
# inputs, same parameters, same thread count, run in alternation for `rounds`
# rounds per thread count. Prints, per thread count and method, each side's
# median time over the rounds, the ratio torch / scaleref of every round and
# its median (> 1: scaleref is that many times faster than PyTorch). Installs
# python3-torch and libopenblas0-pthread (Debian) when missing; builds like
# run.sh.
#
#   scripts/bench_norm.sh [rounds]        (default 3)
#
# Environment: THREADS (thread counts, default "1 2"; each round exports
# OMP_NUM_THREADS), MIN_TIME (--benchmark_min_time in seconds, default 1),
# TORCH_REPS (the torch script's --reps, default 5), FILTER (a regex on the
# names "Method/N:n/D:d", given to both programs; default: the six methods both
# sides have), SCALEREF_BENCH_N / SCALEREF_BENCH_D (default 4096; both programs
# read them), BUILD_DIR. Smoke run:
#   SCALEREF_BENCH_N=256 SCALEREF_BENCH_D=256 scripts/bench_norm.sh 1
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
rounds=${1:-3}
threads_list=${THREADS:-1 2}
min_time=${MIN_TIME:-1}
torch_reps=${TORCH_REPS:-5}
filter=${FILTER:-'^(RMSNorm|LayerNorm|DyT|SeeDNorm|SeeDNorm_heads8|SDD)/'}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench_norm: rounds must be a positive integer, got '$rounds'" >&2; exit 2; }

"$root/scripts/bench_deps.sh"

"$root/scripts/setup.sh" >/dev/null
cmake --build "$build_dir" --target scaleref_norm_bench --parallel "$(nproc)"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc --all) cores," \
  "OMP_NUM_THREADS in {${threads_list// /,}}, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in $threads_list; do
  export OMP_NUM_THREADS=$t
  for ((r = 1; r <= rounds; r++)); do
    echo "bench_norm: $t threads, round $r/$rounds: scaleref_norm_bench, then torch" >&2
    "$build_dir/reference/scaleref_norm_bench" --benchmark_format=json \
      --benchmark_min_time="$min_time" --benchmark_filter="$filter" >"$tmp/scaleref-$t-$r.json"
    /usr/bin/python3 "$root/scripts/bench_norm_torch.py" --json --reps "$torch_reps" \
      --filter "$filter" >"$tmp/torch-$t-$r.json"
  done
done

# shellcheck disable=SC2086  # the thread counts are meant to split into arguments
/usr/bin/python3 - "$tmp" "$rounds" $threads_list <<'EOF'
import json
import statistics
import sys

tmp, rounds, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def scaleref(path):  # method -> ms, from Google Benchmark's JSON
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("error_occurred") or b.get("run_type", "iteration") != "iteration":
            continue
        out[b["name"].split("/")[0]] = b["real_time"] * TO_MS[b.get("time_unit", "ns")]
    return out


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def ms(values):  # the median of `values` in ms: 4 significant digits, 1 decimal from 1000 up
    if not values:
        return "-"
    v = statistics.median(values)
    return f"{v:.1f}" if v >= 1000 else f"{v:.4g}"


for t in threads:
    cpp = [scaleref(f"{tmp}/scaleref-{t}-{r}.json") for r in range(1, rounds + 1)]
    runs = [json.load(open(f"{tmp}/torch-{t}-{r}.json")) for r in range(1, rounds + 1)]
    py = [run["results"] for run in runs]
    methods = list(dict.fromkeys([m for c in cpp for m in c] + [m for p in py for m in p]))
    print(f"\n{t} threads, N {runs[0]['N']}, D {runs[0]['D']}, torch {runs[0]['torch']}, "
          f"{rounds} rounds (times: medians over rounds, ms)")
    print(f"{'method':<16} {'scaleref':>10} {'torch':>10}  {'torch/scaleref per round':<26} median")
    for m in methods:
        c = [run[m] for run in cpp if m in run]
        p = [run[m]["median_ms"] for run in py if m in run]
        ratios = [q[m]["median_ms"] / s[m] for s, q in zip(cpp, py) if m in s and m in q]
        med = statistics.median(ratios) if ratios else None
        print(f"{m:<16} {ms(c):>10} {ms(p):>10}  "
              f"{' '.join(fmt(x) for x in ratios) or '-':<26} "
              f"{fmt(med) + 'x' if med is not None else '-'}")
print("\ntorch/scaleref > 1: scaleref is that many times faster than PyTorch; < 1: slower.")
EOF
