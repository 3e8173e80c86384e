#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build, run the main job.
# Until the paper audit exists, the main job is the verifier's self-report on
# the tape's primitives (scaleref_selfcheck). Extra arguments go to it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
cmake --build "$build_dir" --parallel "$(nproc)"
"$build_dir/autodiff/scaleref_selfcheck" "$@"
