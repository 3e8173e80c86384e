#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build, run the main job: the
# paper audit (proofs_check), which prints a verdict for every equation and
# theorem of the five papers. Extra arguments go to it, e.g.
#   scripts/run.sh --json audit.json     also write the JSON document
#   scripts/run.sh --thorough            the slow sweeps too
#   scripts/run.sh --only seednorm       one paper
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
cmake --build "$build_dir" --parallel "$(nproc)"
"$build_dir/proofs_check/proofs_check" "$@"
