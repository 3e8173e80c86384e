#!/usr/bin/env bash
# Run HERE (a machine with apt and network), before a GPU session: downloads
# the Debian packages the GPU build needs (Eigen, Boost headers, GoogleTest,
# rapidcheck, nlohmann-json) as .deb files into .deps/ (git-ignored), to be
# carried to a GPU machine that can fetch nothing (scripts/gpu_run.sh unpacks
# them under /tmp/deps there). About 11 MB (10.7 MB on 2026-11-22).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$root/.deps"
cd "$root/.deps"
apt-get download libeigen3-dev libboost1.74-dev libgtest-dev librapidcheck-dev \
  nlohmann-json3-dev
ls -l "$root/.deps"
