#!/usr/bin/env bash
# The CUDA kernels' speed on this machine's GPU, as results to commit: builds
# cuda_bench, runs it and cuda/bench/bench_torch.py (PyTorch eager and
# torch.compile on the same GPU, same shapes), and merges both into one JSON
# and a text report with the issue's targets marked PASS / FAIL.
#
#   scripts/bench_cuda.sh [--quick] [--no-torch] [OUTDIR]
#
# OUTDIR defaults to cuda/results/<UTC date>-<device>/, e.g.
# cuda/results/2026-11-22-nvidia-h100-80gb-hbm3/. Written there:
#   report.txt        targets, SeeDNorm fwd+bwd vs PyTorch, every case, the N sweep
#   bench.json        the merged document (both programs' JSON, comparisons, targets)
#   cuda_bench.json   cuda_bench --json
#   torch.json        bench_torch.py --json
#   bench.log         everything printed, the build included
# Run time on an H100: about 1-2 min to build, 2-3 min for cuda_bench, 2-4 min for
# PyTorch (torch.compile compiles each case); --quick takes about half.
#
# Environment:
#   SCALEREF_COMMIT  the commit to record (default: git rev-parse HEAD, "-dirty" when the
#                    tree differs; "unknown" without git, e.g. in a copy of the tree)
#   CUDA_BENCH       a cuda_bench binary built elsewhere: no build
#   BUILD_DIR        build directory (default build-bench)
#   PYTHON           the python with torch (default python3)
#   BENCH_BUILD      auto (default: CMake, else direct), cmake, or direct (nvcc only)
#   CUDA_ARCH        GPU architecture for the direct build (default 90)
#   CUDA_BENCH_ARGS  more arguments for cuda_bench (e.g. "--reps 100")
#   TORCH_BENCH_ARGS more arguments for bench_torch.py (e.g. "--compile-dtypes none")
#
# Within a 10-minute limit per command, the two halves can also run apart and be
# merged anywhere (merge_results.py needs only python3):
#   scripts/bench_cuda.sh --no-torch OUTDIR
#   python3 cuda/bench/bench_torch.py --json OUTDIR/torch.json --commit SHA
#   python3 cuda/bench/merge_results.py --cuda OUTDIR/cuda_bench.json \
#     --torch OUTDIR/torch.json --json OUTDIR/bench.json --report OUTDIR/report.txt
#
# The build: a CMake configure of the whole project needs the CPU side's
# packages (Eigen, Boost, GoogleTest, rapidcheck; scripts/setup.sh installs
# them). Where that configure fails, as on a GPU image without them and
# without a package mirror, cuda_bench is built directly with nvcc from
# cuda/src, cuda/bench and the header-only reference/include.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build-bench}
python=${PYTHON:-python3}

quick=() torch=1 out=""
for a in "$@"; do
  case $a in
    --quick) quick=(--quick) ;;
    --no-torch) torch=0 ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench_cuda: unknown option $a" >&2; exit 2 ;;
    *) out=$a ;;
  esac
done

commit=${SCALEREF_COMMIT:-}
if [[ -z $commit ]]; then
  if commit=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
    [[ -z $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] || commit+="-dirty"
  else
    commit=unknown
  fi
fi
date_iso=$(date -u +%Y-%m-%dT%H:%M:%SZ)

if [[ -z $out ]]; then
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 || true)
  [[ -n $device ]] || device=unknown-gpu
  slug=$(echo "$device" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
  out=$root/cuda/results/${date_iso%%T*}-$slug
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec > >(tee "$out/bench.log") 2>&1
echo "bench_cuda: commit $commit, $date_iso, results in $out"

# ---- build ----------------------------------------------------------------------
# cuda_bench's own sources must compile; a library source that does not (one
# that needs Eigen, say) is left out of the archive, and the link says whether
# cuda_bench needed it.
build_direct() {
  local dir=$build_dir/direct arch=${CUDA_ARCH:-90}
  local nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  local cuda_home
  cuda_home=$(cd "$(dirname "$nvcc")/.." && pwd)
  mkdir -p "$dir/lib" "$dir/bench"
  rm -f "$dir"/lib/*.o "$dir"/bench/*.o
  local inc="-I$root/cuda/include -I$root/cuda/src -I$root/reference/include"
  local cu="$nvcc -O3 -DNDEBUG -std=c++17 -arch=sm_$arch $inc"
  local cxx="${CXX:-g++} -O3 -DNDEBUG -std=c++20 $inc -isystem $cuda_home/include"
  local jobs=() f o c
  for f in "$root"/cuda/src/*.cu "$root"/cuda/src/*.cpp; do
    [[ -e $f ]] || continue
    o=$dir/lib/$(basename "$f").o
    [[ $f == *.cu ]] && c=$cu || c=$cxx
    jobs+=("$c -c $f -o $o 2>$o.log || { echo 'bench_cuda: left out of the library:' $f; rm -f $o; }")
  done
  for f in "$root"/cuda/bench/*.cu "$root"/cuda/bench/*.cpp; do
    o=$dir/bench/$(basename "$f").o
    [[ $f == *.cu ]] && c=$cu || c=$cxx
    jobs+=("$c -c $f -o $o")
  done
  printf '%s\n' "${jobs[@]}" | xargs -d '\n' -n 1 -P "$(nproc)" sh -c
  rm -f "$dir/libscaleref_cuda.a"
  ar rcs "$dir/libscaleref_cuda.a" "$dir"/lib/*.o
  "$nvcc" -arch="sm_$arch" "$dir"/bench/*.o "$dir/libscaleref_cuda.a" -lcublas -o "$dir/cuda_bench"
  bin=$dir/cuda_bench
}

t0=$SECONDS
if [[ -n ${CUDA_BENCH:-} ]]; then
  bin=$CUDA_BENCH
  echo "bench_cuda: using the prebuilt $bin"
else
  mode=${BENCH_BUILD:-auto}
  generator=()
  [[ -f $build_dir/CMakeCache.txt ]] || ! command -v ninja >/dev/null || generator=(-G Ninja)
  if [[ $mode == direct ]]; then
    build_direct
  elif cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DSCALEREF_CUDA=ON >"$out/configure.log" 2>&1; then
    cmake --build "$build_dir" --target cuda_bench --parallel "$(nproc)"
    bin=$build_dir/cuda/cuda_bench
  elif [[ $mode == cmake ]]; then
    cat "$out/configure.log"
    echo "bench_cuda: the CMake configure failed (BENCH_BUILD=cmake)"
    exit 1
  else
    echo "bench_cuda: the project's CMake configure failed (last lines below; the CPU side's"
    echo "packages are probably missing); building cuda_bench directly with nvcc"
    tail -n 5 "$out/configure.log"
    build_direct
  fi
  rm -f "$out/configure.log"
fi
echo "bench_cuda: build took $((SECONDS - t0)) s"

# ---- run ------------------------------------------------------------------------
status=0
t0=$SECONDS
rm -f "$out"/{cuda_bench,torch,bench}.json "$out/report.txt"
# shellcheck disable=SC2086  # the extra arguments split on spaces
if ! "$bin" "${quick[@]}" ${CUDA_BENCH_ARGS:-} --json "$out/cuda_bench.json" --commit "$commit" \
  --date "$date_iso"; then
  status=1
  [[ -s $out/cuda_bench.json ]] || { echo "bench_cuda: cuda_bench wrote no results; stopping"; exit 1; }
  echo "bench_cuda: cuda_bench reported failed cases (FAILED above); going on with the rest"
fi
echo "bench_cuda: cuda_bench took $((SECONDS - t0)) s"

torch_json=()
if ((torch)); then
  t0=$SECONDS
  # shellcheck disable=SC2086
  if PYTHONUNBUFFERED=1 "$python" "$root/cuda/bench/bench_torch.py" "${quick[@]}" ${TORCH_BENCH_ARGS:-} \
    --json "$out/torch.json" --commit "$commit" --date "$date_iso"; then
    torch_json=(--torch "$out/torch.json")
  else
    echo "bench_cuda: bench_torch.py failed; the report has no PyTorch numbers"
    status=1
  fi
  echo "bench_cuda: bench_torch.py took $((SECONDS - t0)) s"
fi

echo
python3 "$root/cuda/bench/merge_results.py" --cuda "$out/cuda_bench.json" "${torch_json[@]}" \
  --json "$out/bench.json" --report "$out/report.txt"
echo "bench_cuda: wrote $out/{report.txt,bench.json,cuda_bench.json${torch_json:+,torch.json},bench.log}"
exit $status
