#!/usr/bin/env bash
# Run ON A GPU MACHINE: everything the CUDA issue asks of one.
#   scripts/gpu_run.sh OUTDIR [check|bench|ncu|passes|clusters|torch|torch-build|torch-run|all] [--quick]
# (a device call may run 10 minutes: `check` and `bench` fit one call each).
# `torch` is `torch-build` (CPU only: it can run beside a GPU step) then
# `torch-run`; `passes` and `clusters` are not part of `all`.
# A lease is short (15 minutes of device time in all, the start included), so
# the build can be made HERE and carried (scripts/gpu_build_here.sh), and every
# step can be held to a deadline:
#   SCALEREF_PREBUILT=1    use BUILD_DIR as built here: no configure, no build
#   SCALEREF_DEADLINE=T    epoch seconds: each step gets at most the time left
#                          (a step with under 15 s left is skipped, and says so)
#   SCALEREF_STEP_CAP=S    at most S seconds per step (default: no cap)
#   SCALEREF_CHECK_ARGS=A  more arguments for cuda_check and the sanitizers'
#                          runs of it (e.g. "--only norms --only rescale
#                          --only init": the kernel families that call no
#                          cuBLAS, whose GEMMs racecheck and initcheck flag;
#                          see cuda/results/2026-11-27-nvidia-h200)
#   SCALEREF_NCU_SHAPES=L  the shapes for Nsight Compute (default: the model's
#                          four, "4096x4096 2048x16384 1024x65536 16x4096")
# Builds the CUDA targets (SCALEREF_CUDA=ON; not the CPU emulator, which CI
# runs everywhere), then writes into OUTDIR:
#   env.txt        device (nvidia-smi), date, commit (SCALEREF_COMMIT or git),
#                  a section for each step run into OUTDIR
#   cuda_check.txt every kernel x dtype x shape against the reference
#   memcheck.txt, racecheck.txt, initcheck.txt, synccheck.txt
#                  compute-sanitizer's four tools on cuda_check --quick (the
#                  emulator's own checks are compared with them in cuda/README.md)
#   ctest_gpu.txt  the gpu-labelled tests
#   sass.txt.gz    cuobjdump -sass of the kernels (the machine code the
#                  FMA and vector-width questions need; not on the CPU machines),
#                  and sass_check.txt, scripts/cuda_sass.py's check of it
#   bench/         scripts/bench_cuda.sh's JSON and report
#   ncu.csv        Nsight Compute per fused kernel at the model's shapes
#                  (issue 34): duration, DRAM bytes, global sectors and
#                  requests, shared bank conflicts, occupancy; clocks as found
#   passes_front.txt, passes_back.txt, passes_*.json
#                  cuda_bench's backward at 1024 x 65536 and 2048 x 16384
#                  with every second pass forced front to back, then back to
#                  front (SCALEREF_SECOND_PASS): the direction rule measured
#                  (cuda/bench/compare_runs.py sets the two side by side)
#   clusters_on.txt, clusters_off.txt, clusters_*.json
#                  cuda_bench's forward and backward at 4096 x 4096, 2048 x
#                  16384 and 1024 x 65536 with the blocks' sums added in
#                  thread-block clusters and wide rows split over a
#                  cluster's blocks (the fp32 and fp64 forwards at 65536
#                  too), then without clusters (SCALEREF_CLUSTERS=off:
#                  sum_partials adds the chunks, a split row's statistics go
#                  through global memory between two launches, a forward's
#                  block walks the row's parts): the clusters' time against
#                  the paths without them (their bits are compared by
#                  ctest_gpu's CudaKernels tests)
#   torch_*.txt, torch_modules_*.json
#                  scaleref.torch (issue 36), built here against the machine's
#                  PyTorch: its tests on CUDA tensors, and each module's forward
#                  + backward against eager and compiled plain torch
#   and OUTDIR.tar.gz of all of it (a device call returns at most 8 files).
# Missing Debian packages (Eigen, Boost, GoogleTest, rapidcheck, nlohmann-json)
# are taken from carried .deb files in .deps/ (scripts/gpu_deps.sh), unpacked
# under /tmp/deps, never into /. Each step's exit status is recorded; the script
# exits non-zero when any step failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: scripts/gpu_run.sh OUTDIR [check|bench|ncu|passes|clusters|torch|torch-build|torch-run|all] [--quick]"
out=${1:?$usage}
what=${2:-all}
quick=${3:-}
case $what in
  check | bench | ncu | passes | clusters | torch | torch-build | torch-run | all) ;;
  *) echo "gpu_run.sh: unknown step '$what'; $usage" >&2; exit 2 ;;
esac
case $quick in
  "" | --quick) ;;
  *) echo "gpu_run.sh: unknown option '$quick'; $usage" >&2; exit 2 ;;
esac
mkdir -p "$out"
build=${BUILD_DIR:-$root/build-gpu}

prefix=()
if compgen -G "$root/.deps/*.deb" >/dev/null; then
  # once per machine, under a lock: a `torch-build` may run beside another step
  mkdir -p /tmp/deps
  (
    flock 9
    if [[ ! -e /tmp/deps/.unpacked ]]; then
      ok=1
      for f in "$root"/.deps/*.deb; do dpkg -x "$f" /tmp/deps || ok=0; done
      ((ok)) && touch /tmp/deps/.unpacked
    fi
  ) 9>/tmp/deps.lock
  prefix=(-DCMAKE_PREFIX_PATH="/tmp/deps/usr;/tmp/deps/usr/lib/x86_64-linux-gnu/cmake"
    -DCMAKE_CXX_FLAGS="-isystem /tmp/deps/usr/include")
fi

commit=${SCALEREF_COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)}
{  # appended: several steps may share an OUTDIR
  echo "== gpu_run.sh $what $quick"
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $commit"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -1
} 2>&1 | tee -a "$out/env.txt"

status=0
deadline=${SCALEREF_DEADLINE:-}
cap=${SCALEREF_STEP_CAP:-}
step() {  # step NAME COMMAND...: runs it, tees its output, records its exit status
  local name=$1
  shift
  local limit=()
  if [[ -n $deadline ]]; then
    local left=$((deadline - $(date +%s)))
    if ((left < 15)); then
      echo "$name: skipped (deadline: ${left} s left)" | tee -a "$out/status.txt"
      status=1
      return
    fi
    [[ -n $cap ]] && ((cap < left)) && left=$cap
    limit=(timeout --kill-after=5 "$left")
  elif [[ -n $cap ]]; then
    limit=(timeout --kill-after=5 "$cap")
  fi
  echo "== $name: $*"
  local t0=$SECONDS
  "${limit[@]}" "$@" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  local how="exit $rc"
  ((rc == 124 || rc == 137)) && [[ ${#limit[@]} -gt 0 ]] && how="timed out after ${limit[2]} s"
  echo "$name: $how ($((SECONDS - t0)) s)" | tee -a "$out/status.txt"
  ((rc == 0)) || status=1
}

if [[ ${SCALEREF_PREBUILT:-0} == 1 ]]; then
  # The build records the source folder by its path where it was built: give
  # the source folder that path here too, for anything that reads it.
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  if [[ -n $src && $src != "$root" && ! -e $src ]]; then
    # (a step beside this one may have made it first)
    mkdir -p "$(dirname "$src")" && { ln -s "$root" "$src" 2>/dev/null || [[ -e $src ]]; }
  fi
  echo "prebuilt: $build (built at $src)" | tee -a "$out/status.txt"
else
step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSCALEREF_CUDA=ON -DSCALEREF_CUDA_EMU=OFF -DSCALEREF_WERROR=ON "${prefix[@]}"
# Every test target that ctest_gpu selects below (tests/CMakeLists.txt): one left
# unbuilt would show as a failing <target>_NOT_BUILT test and its GPU tests
# would not run.
step build cmake --build "$build" --parallel "$(nproc)" --target cuda_check cuda_bench \
  cuda_device_test cuda_philox_test cuda_kernels_test cuda_scalevec_test cuda_rescale_test \
  cuda_init_test cuda_compare_test cuda_launch_test
fi
# compute-sanitizer: on the PATH of the GPU image; else where the toolkit keeps it
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
quick_arg=()
[[ $quick == --quick ]] && quick_arg=(--quick)
read -ra check_args <<<"${SCALEREF_CHECK_ARGS:-}"
if [[ $what == check || $what == all ]]; then
  step cuda_check "$build/cuda/cuda_check" "${quick_arg[@]}" "${check_args[@]}"
  for tool in memcheck racecheck initcheck synccheck; do
    step "$tool" "$sanitizer" --tool "$tool" --error-exitcode 1 "$build/cuda/cuda_check" --quick \
      "${check_args[@]}"
  done
  if [[ ${SCALEREF_PREBUILT:-0} == 1 ]]; then
    # ctest's PRE_TEST discovery needs this machine's CMake at the path it had
    # where it was built: run the test programs themselves, with ctest's seed.
    step ctest_gpu env RC_PARAMS="seed=20261122 max_success=100" bash -c \
      'rc=0; for t in "$0"/tests/cuda_*_test; do echo "== $t"; "$t" || rc=1; done; exit $rc' \
      "$build"
  else
    step ctest_gpu ctest --test-dir "$build" -R '^Cuda|^cuda|^bench.cuda' --output-on-failure
  fi
  step sass bash -c "cuobjdump -sass '$build/cuda/cuda_check' | gzip -9 >'$out/sass.txt.gz' &&
    zcat '$out/sass.txt.gz' | grep -c 'Function :'"
  # 128-bit global accesses on every vector path, no local memory, in the machine code
  step sass_check python3 "$root/scripts/cuda_sass.py" "$out/sass.txt.gz"
fi
if [[ $what == bench || $what == all ]]; then
  step bench env CUDA_BENCH="$build/cuda/cuda_bench" bash "$root/scripts/bench_cuda.sh" \
    "${quick_arg[@]}" "$out/bench"
fi
if [[ $what == ncu || $what == all ]]; then
  # The fused kernels only (forward_kernel, backward_kernel and the partial
  # sums), one timed call each after one check call, at the shapes issue 34's
  # model predicts; --clock-control none: the card's clocks as found.
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  # the wavefronts themselves: the H200 run's conflict counts disagreed with
  # the model's wavefronts in the backward kernels whose sums live in shared memory
  metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct
  metrics+=,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__waves_per_multiprocessor
  ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for shape in ${SCALEREF_NCU_SHAPES:-4096x4096 2048x16384 1024x65536 16x4096}; do
    step "ncu_$shape" "$ncu_bin" --clock-control none --csv --metrics "$metrics" \
      -k 'regex:forward_kernel|backward_kernel|sum_partials' \
      "$build/cuda/cuda_bench" --shape "$shape" --no-sweep --dir fwd,bwd --reps 1 --warmup 0 \
      --op rmsnorm,layernorm,dyt,seednorm,seednorm_h16,sdd_epilogue
  done
fi
if [[ $what == passes ]]; then
  for pass in front back; do
    step "passes_$pass" env SCALEREF_SECOND_PASS=$pass "$build/cuda/cuda_bench" \
      --shape 1024x65536 --shape 2048x16384 --no-sweep --dir bwd --dtype all \
      --op rmsnorm,layernorm,seednorm,seednorm_h16,sdd_epilogue --commit "$commit" \
      --json "$out/passes_$pass.json"
  done
fi
if [[ $what == clusters ]]; then
  for clusters in on off; do
    step "clusters_$clusters" env SCALEREF_CLUSTERS=$clusters "$build/cuda/cuda_bench" \
      --shape 4096x4096 --shape 2048x16384 --shape 1024x65536 --no-sweep --dir fwd,bwd \
      --dtype all --op rmsnorm,layernorm,dyt,seednorm,seednorm_h16,sdd_epilogue \
      --commit "$commit" --json "$out/clusters_$clusters.json"
  done
fi
tb=${TORCH_BUILD_DIR:-$root/build-torch}
if [[ $what == torch || $what == torch-build || $what == all ]]; then
  # scaleref.torch on CUDA tensors (issue 36): the torch extension and the Python module
  # built here against this machine's python3 and its PyTorch 2.x with CUDA (the CPU
  # machines have only Debian's CPU-only 1.13), then its tests on CUDA tensors (those of
  # the CPU targets run too; torch.compile included), the DDP test, and each module's
  # forward + backward against eager and compiled plain torch, as ratios.
  py=$(command -v python3)
  torch_prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')
  pybind_dir=$("$py" -m pybind11 --cmakedir 2>/dev/null || true)
  deps_prefix=""
  [[ ${#prefix[@]} -gt 0 ]] && deps_prefix=";/tmp/deps/usr;/tmp/deps/usr/lib/x86_64-linux-gnu/cmake"
  step torch_configure cmake -S "$root" -B "$tb" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSCALEREF_CUDA=ON -DSCALEREF_CUDA_EMU=OFF -DSCALEREF_TORCH=ON -DSCALEREF_NATIVE=OFF \
    -DPython3_EXECUTABLE="$py" -DCMAKE_PREFIX_PATH="$torch_prefix;$pybind_dir$deps_prefix" \
    ${prefix[@]:+"${prefix[1]}"}
  step torch_build cmake --build "$tb" --parallel "$(nproc)" --target scaleref_torch \
    scaleref_python
fi
if [[ $what == torch || $what == torch-run || $what == all ]]; then
  py=$(command -v python3)
  step torch_tests env PYTHONPATH="$tb/python" OMP_NUM_THREADS=4 "$py" -m pytest -q -rs \
    -p no:cacheprovider "$root/python/tests/test_torch.py" \
    "$root/python/tests/test_torch_distributed.py"
  for dtype in bf16 fp32; do
    step "torch_modules_$dtype" env PYTHONPATH="$tb/python" "$py" \
      "$root/python/bench/torch_modules.py" --device cuda --shape 4096x4096 --dtype "$dtype" \
      --json "$out/torch_modules_$dtype.json"
  done
fi
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
exit $status
