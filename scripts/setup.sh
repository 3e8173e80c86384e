#!/usr/bin/env bash
# Installs what scaleref needs from Debian packages (only what is missing),
# then configures the build in build/. Idempotent: a second run installs
# nothing and reconfigures in place.
#
#   scripts/setup.sh [extra cmake -D options...]
#
# Environment: BUILD_DIR (default build), CMAKE_BUILD_TYPE (default Release),
# SCALEREF_WERROR (default ON when CI is set, else OFF).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}

# Debian packages the build needs. Each line: package (what it provides).
packages=(
  build-essential  # g++, make
  cmake            # the build
  ninja-build      # faster incremental builds
  libeigen3-dev    # Eigen3 (Eigen3Config.cmake)
  libboost-dev     # Boost.Multiprecision and Boost.Math (header-only)
  libboost-context-dev  # Boost.Context: the fibers of the CUDA emulator (cuda/emu/)
  libgtest-dev     # GoogleTest (GTestConfig.cmake)
  librapidcheck-dev  # rapidcheck + rapidcheck_gtest (rapidcheckConfig.cmake)
  nlohmann-json3-dev # JSON reading and writing (nlohmann_jsonConfig.cmake)
  libbenchmark-dev   # Google Benchmark, for the speed targets
  python3-jsonschema # validates proofs_check --json against its schema (a test)
  python3-matplotlib # the examples' plots (scripts/examples.sh)
  python3-dev        # Python's headers, for the Python module (python/)
  python3-numpy      # the Python module's arrays
  pybind11-dev       # the Python module's bindings (pybind11Config.cmake)
  python3-pytest     # the Python module's tests (run by ctest)
  python3-torch      # PyTorch (1.13, CPU), for scaleref.torch and its tests
  libtorch-dev       # its C++ headers and CMake config, for the torch extension (python/torch/)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing missing Debian packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      echo "setup: error: these packages are missing and installing them needs root:" >&2
      echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
      echo "Run that as root (or rerun this script as root), then rerun it." >&2
      exit 1
    fi
  else
    as_root=()
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

werror=${SCALEREF_WERROR:-$([[ -n ${CI:-} ]] && echo ON || echo OFF)}
generator=()
[[ -f $build_dir/CMakeCache.txt ]] || generator=(-G Ninja)

# SCALEREF_SANITIZE (scripts/test.sh --sanitize sets it): the sanitizers, and
# no CUDA targets or emulator beside them.
sanitize=()
[[ -n ${SCALEREF_SANITIZE:-} ]] &&
  sanitize=(-DSCALEREF_SANITIZE="$SCALEREF_SANITIZE" -DSCALEREF_CUDA=OFF -DSCALEREF_CUDA_EMU=OFF)

cmake -S "$root" -B "$build_dir" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
  -DSCALEREF_WERROR="$werror" "${sanitize[@]}" "$@"
