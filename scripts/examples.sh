#!/usr/bin/env bash
# Runs every example (examples/<name>.cpp) at full size, writing its CSV files
# to build/examples/out/<name>/, and redraws its plots into docs/examples/
# with examples/plot_<name>.py (matplotlib, from scripts/setup.sh); and the
# PyTorch example (examples/torch_train.py --compare), whose loss plot becomes
# docs/examples/torch_train.png.
#
#   scripts/examples.sh             every example
#   scripts/examples.sh sdd smallinit   the named ones (torch_train: the PyTorch one)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" >/dev/null
names=("$@")
if ((${#names[@]} == 0)); then
  names=(sdd seednorm scalevec rescale smallinit torch_train)
fi
targets=()
for n in "${names[@]}"; do
  if [[ $n == torch_train ]]; then
    targets+=(scaleref_torch scaleref_python)
  else
    targets+=("scaleref_example_$n")
  fi
done
cmake --build "$build_dir" --target "${targets[@]}" --parallel "$(nproc)"
for n in "${names[@]}"; do
  if [[ $n == torch_train ]]; then
    out="$build_dir/examples/out/torch_train"
    start=$(date +%s)
    PYTHONPATH="$build_dir/python" /usr/bin/python3 "$root/examples/torch_train.py" --compare \
      --out "$out"
    cp "$out/loss.png" "$root/docs/examples/torch_train.png"
    echo "examples: torch_train took $(($(date +%s) - start)) s"
    continue
  fi
  out="$build_dir/examples/out/$n"
  mkdir -p "$out"
  start=$(date +%s)
  "$build_dir/examples/scaleref_example_$n" --out "$out"
  /usr/bin/python3 "$root/examples/plot_$n.py" "$out" "$root/docs/examples"
  echo "examples: $n took $(($(date +%s) - start)) s"
done
