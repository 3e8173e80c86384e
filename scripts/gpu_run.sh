#!/usr/bin/env bash
# Run ON A GPU MACHINE: everything the CUDA issue asks of one.
#   scripts/gpu_run.sh OUTDIR [check|bench|all] [--quick]
# (a device call may run 10 minutes: `check` and `bench` fit one call each).
# Builds the CUDA targets (SCALEREF_CUDA=ON; not the CPU emulator, which CI
# runs everywhere), then writes into OUTDIR:
#   env.txt        device (nvidia-smi), date, commit (SCALEREF_COMMIT or git)
#   cuda_check.txt every kernel x dtype x shape against the reference
#   memcheck.txt, racecheck.txt, initcheck.txt, synccheck.txt
#                  compute-sanitizer's four tools on cuda_check --quick (the
#                  emulator's own checks are compared with them in cuda/README.md)
#   ctest_gpu.txt  the gpu-labelled tests
#   bench/         scripts/bench_cuda.sh's JSON and report
#   and OUTDIR.tar.gz of all of it (a device call returns at most 8 files).
# Missing Debian packages (Eigen, Boost, GoogleTest, rapidcheck, nlohmann-json)
# are taken from carried .deb files in .deps/ (scripts/gpu_deps.sh), unpacked
# under /tmp/deps, never into /. Each step's exit status is recorded; the script
# exits non-zero when any step failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/gpu_run.sh OUTDIR [check|bench|all] [--quick]}
what=${2:-all}
quick=${3:-}
mkdir -p "$out"
build=${BUILD_DIR:-$root/build-gpu}

prefix=()
if compgen -G "$root/.deps/*.deb" >/dev/null; then
  mkdir -p /tmp/deps
  for f in "$root"/.deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  prefix=(-DCMAKE_PREFIX_PATH="/tmp/deps/usr;/tmp/deps/usr/lib/x86_64-linux-gnu/cmake"
    -DCMAKE_CXX_FLAGS="-isystem /tmp/deps/usr/include")
fi

{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: ${SCALEREF_COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -1
} >"$out/env.txt" 2>&1
cat "$out/env.txt"

status=0
step() {  # step NAME COMMAND...: runs it, tees its output, records its exit status
  local name=$1
  shift
  echo "== $name: $*"
  "$@" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  echo "$name: exit $rc" | tee -a "$out/status.txt"
  ((rc == 0)) || status=1
}

step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSCALEREF_CUDA=ON -DSCALEREF_CUDA_EMU=OFF -DSCALEREF_WERROR=ON "${prefix[@]}"
# Every test target that ctest_gpu selects below (tests/CMakeLists.txt): one left
# unbuilt would show as a failing <target>_NOT_BUILT test and its GPU tests
# would not run.
step build cmake --build "$build" --parallel "$(nproc)" --target cuda_check cuda_bench \
  cuda_device_test cuda_philox_test cuda_kernels_test cuda_scalevec_test cuda_rescale_test \
  cuda_init_test cuda_compare_test cuda_launch_test
# compute-sanitizer: on the PATH of the GPU image; else where the toolkit keeps it
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
quick_arg=()
[[ $quick == --quick ]] && quick_arg=(--quick)
if [[ $what == check || $what == all ]]; then
  step cuda_check "$build/cuda/cuda_check" "${quick_arg[@]}"
  step memcheck "$sanitizer" --tool memcheck --error-exitcode 1 "$build/cuda/cuda_check" --quick
  step racecheck "$sanitizer" --tool racecheck --error-exitcode 1 "$build/cuda/cuda_check" --quick
  step initcheck "$sanitizer" --tool initcheck --error-exitcode 1 "$build/cuda/cuda_check" --quick
  step synccheck "$sanitizer" --tool synccheck --error-exitcode 1 "$build/cuda/cuda_check" --quick
  step ctest_gpu ctest --test-dir "$build" -R '^Cuda|^cuda|^bench.cuda' --output-on-failure
fi
if [[ $what == bench || $what == all ]]; then
  step bench env CUDA_BENCH="$build/cuda/cuda_bench" bash "$root/scripts/bench_cuda.sh" \
    "${quick_arg[@]}" "$out/bench"
fi
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
exit $status
