#!/usr/bin/env bash
# Runs every example (examples/<name>.cpp) at full size, writing its CSV files
# to build/examples/out/<name>/, and redraws its plots into docs/examples/
# with examples/plot_<name>.py (matplotlib, from scripts/setup.sh).
#
#   scripts/examples.sh             every example
#   scripts/examples.sh sdd smallinit   the named ones
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" >/dev/null
names=("$@")
if ((${#names[@]} == 0)); then
  names=(sdd seednorm scalevec rescale smallinit)
fi
targets=()
for n in "${names[@]}"; do targets+=("scaleref_example_$n"); done
cmake --build "$build_dir" --target "${targets[@]}" --parallel "$(nproc)"
for n in "${names[@]}"; do
  out="$build_dir/examples/out/$n"
  mkdir -p "$out"
  start=$(date +%s)
  "$build_dir/examples/scaleref_example_$n" --out "$out"
  /usr/bin/python3 "$root/examples/plot_$n.py" "$out" "$root/docs/examples"
  echo "examples: $n took $(($(date +%s) - start)) s"
done
