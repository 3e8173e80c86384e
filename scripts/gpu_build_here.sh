#!/usr/bin/env bash
# Run HERE, before a GPU lease: builds the CUDA targets that scripts/gpu_run.sh
# runs (nvcc is on every machine; no GPU is needed to compile) into build-gpu/,
# for any x86-64 CPU (SCALEREF_NATIVE=OFF: the GPU machine's CPU is not this
# one), then drops the object files so that the folder can be carried to the
# device (64 MiB in all). The lease then spends no device time compiling:
#
#   scripts/gpu_build_here.sh
#   device run, carry build-gpu:
#     SCALEREF_PREBUILT=1 SCALEREF_DEADLINE=... scripts/gpu_run.sh /tmp/r/run
#
# Takes about 10 minutes on two cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
targets=(cuda_check cuda_bench cuda_device_test cuda_philox_test cuda_kernels_test
  cuda_scalevec_test cuda_rescale_test cuda_init_test cuda_compare_test cuda_launch_test)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEREF_CUDA=ON \
  -DSCALEREF_CUDA_EMU=OFF -DSCALEREF_WERROR=ON -DSCALEREF_NATIVE=OFF
cmake --build "$build" --parallel "${JOBS:-2}" --target "${targets[@]}"
find "$build" -name '*.o' -delete
du -sh "$build"
