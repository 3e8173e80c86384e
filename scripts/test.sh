#!/usr/bin/env bash
# Quick start, part 2: everything run.sh does, then the test suite.
# The default run leaves out the opt-in labels slow and fuzz; the gpu-labelled tests
# run and, without a GPU, report themselves skipped with the reason. Pass ctest
# arguments to choose otherwise, e.g. `scripts/test.sh -L fuzz`.
#
# `scripts/test.sh --sanitize [ctest arguments]` is the sanitizer job: the same
# in build-sanitize/ (BUILD_DIR overrides), built with AddressSanitizer and
# UndefinedBehaviorSanitizer (any report fails the test), the audit run under
# them, then the fast tests: -LE 'slow|fuzz|python'. It builds no CUDA targets
# and no emulator (its fibers switch stacks behind ASan's back; the emulator
# has its own memcheck), and leaves out the Python module's test (the system
# python3 is not instrumented). Warnings are not errors here: GCC 12 under
# -fsanitize warns falsely inside libstdc++ (-Wrestrict, -Wmaybe-uninitialized);
# the plain build is the one held to -Werror.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
skip='slow|fuzz'
if [[ ${1:-} == --sanitize ]]; then
  shift
  export BUILD_DIR=${BUILD_DIR:-$root/build-sanitize}
  export SCALEREF_SANITIZE=address,undefined SCALEREF_WERROR=OFF
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  skip='slow|fuzz|python'
fi
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/run.sh"
cd "$build_dir"
if (($#)); then
  ctest --output-on-failure --parallel "$(nproc)" "$@"
else
  ctest --output-on-failure --parallel "$(nproc)" -LE "$skip"
fi
