#!/usr/bin/env bash
# one-off: why _scaleref.evaluate segfaults on the GPU image (pybind11 3.1, numpy 2.5)
root=$PWD
g++ --version | head -1; ulimit -s
python3 -c "import pybind11, numpy, torch; print('pybind11', pybind11.__version__, 'numpy', numpy.__version__, 'torch', torch.__version__)"
export SCALEREF_PREBUILT=1 BUILD_DIR=$root/build-gpu SCALEREF_COMMIT=8a0d696
SCALEREF_STEP_CAP=200 scripts/gpu_run.sh /tmp/r/torch torch-build > /tmp/r_tb.log 2>&1; tail -3 /tmp/r_tb.log
export PYTHONPATH=$root/build-torch/python
cd /tmp
t() { echo "== $1"; timeout 60 python3 -X faulthandler -c "$2" 2>&1 | tail -12; echo "rc ${PIPESTATUS[0]}"; }
t "rmsnorm evaluate, no torch" "import numpy; from scaleref import _scaleref as s; print(sorted(s.evaluate('rmsnorm', {}, {'x': numpy.ones((1,16))}, 53)[0]))"
t "seednorm evaluate, no torch" "import numpy; from scaleref import _scaleref as s; print(sorted(s.evaluate('seednorm', {}, {'x': numpy.ones((1,16))}, 53)[0]))"
t "seednorm evaluate, torch first" "import torch, numpy; from scaleref import _scaleref as s; print(sorted(s.evaluate('seednorm', {}, {'x': numpy.ones((1,16))}, 53)[0]))"
t "describe" "from scaleref import _scaleref as s; print(len(str(s.methods() if hasattr(s,'methods') else dir(s))))"
t "SeeDNorm(16)" "import scaleref.torch as st; print(st.SeeDNorm(16))"
echo "== cuda-gdb backtrace"
timeout 120 cuda-gdb -q -batch -ex run -ex bt -ex "info sharedlibrary" --args python3 -c "import scaleref.torch as st; print(st.SeeDNorm(16))" 2>&1 | grep -v "^\[New Thread\|^\[Thread" | head -80
