#!/usr/bin/env bash
# Quick start, part 2: everything run.sh does, then the test suite.
# The default run leaves out the opt-in labels slow and fuzz; the gpu-labelled tests
# run and, without a GPU, report themselves skipped with the reason. Pass ctest
# arguments to choose otherwise, e.g. `scripts/test.sh -L fuzz`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/run.sh"
cd "$build_dir"
if (($#)); then
  ctest --output-on-failure --parallel "$(nproc)" "$@"
else
  ctest --output-on-failure --parallel "$(nproc)" -LE 'slow|fuzz'
fi
