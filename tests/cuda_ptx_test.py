"""scripts/cuda_ptx.py on planted kernels compiled by nvcc, and the
project's kernels held to it (ctest: emu.cuda_ptx): every 16-byte vector
path moves its rows 128 bits at a time, and no kernel touches local memory.

Environment: SCALEREF_BUILD, the build directory (compile_commands.json).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import cuda_ptx  # noqa: E402

BUILD = os.environ.get("SCALEREF_BUILD", os.path.join(ROOT, "build"))

# <float, 4> is a 16-byte vector path. `pieces` writes a row's 4 floats as 4
# stores through a float pointer (aligned to 4 only: nvcc cannot merge them);
# `whole` as one float4; `spills` indexes a local array at run time.
PLANTED = r"""
template <class D, int V>
__global__ void pieces(const float4* x, float* y, long n) {
  long i = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float4 v = x[i];
  y[4 * i] = v.x * 2.f;
  y[4 * i + 1] = v.y * 2.f;
  y[4 * i + 2] = v.z * 2.f;
  y[4 * i + 3] = v.w * 2.f;
}
template <class D, int V>
__global__ void whole(const float4* x, float4* y, long n) {
  long i = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = make_float4(x[i].x * 2.f, x[i].y * 2.f, x[i].z * 2.f, x[i].w * 2.f);
}
template <class D, int V>
__global__ void spills(const float4* x, float4* y, int k) {
  float a[64];
  for (int j = 0; j < 64; ++j) a[j] = x[j].x;
  y[0] = make_float4(a[k], a[k + 1], 0.f, 0.f);
}
template __global__ void pieces<float, 4>(const float4*, float*, long);
template __global__ void whole<float, 4>(const float4*, float4*, long);
template __global__ void spills<float, 4>(const float4*, float4*, int);
"""


def findings_of(ptx):
    """Each planted kernel's findings, by its bare name."""
    found = {}
    for mangled, body in cuda_ptx.entries(ptx):
        name = cuda_ptx.cuda_resources.readable(mangled)
        found[name.split("<")[0].split()[-1]] = cuda_ptx.check(name, body)[0]
    return found


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
def test_a_row_stored_in_pieces_and_a_local_array_are_found():
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "planted.cu"), os.path.join(tmp, "planted.ptx")
        with open(src, "w") as f:
            f.write(PLANTED)
        subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-ptx", src, "-o", out], check=True)
        with open(out) as f:
            found = findings_of(f.read())
    assert any("no 128-bit global store" in m for m in found["pieces"]), found
    assert any("16-byte store" in m and "split into 4 pieces" in m for m in found["pieces"]), found
    assert not any("load" in m for m in found["pieces"]), found  # its load is one float4
    assert found["whole"] == [], found
    assert any("local memory" in m for m in found["spills"]), found


def test_a_split_window_needs_one_block_one_base_and_aligned_pieces():
    split = "\tst.global.f64 \t[%rd34], %fd38;\n\tst.global.f64 \t[%rd34+8], %fd39;\n"
    assert cuda_ptx.split_windows(split, cuda_ptx.STORE) == [("%rd34", 0, 2)]
    # a ragged tail: each entry behind its own branch
    tail = ("\t@%p1 bra \t$L__BB0_2;\n\tst.global.f64 \t[%rd34], %fd38;\n$L__BB0_2:\n"
            "\t@%p2 bra \t$L__BB0_3;\n\tst.global.f64 \t[%rd34+8], %fd39;\n$L__BB0_3:\n")
    assert cuda_ptx.split_windows(tail, cuda_ptx.STORE) == []
    # two bases, or a window that starts off a 16-byte boundary
    assert cuda_ptx.split_windows(
        "\tst.global.f64 \t[%rd34], %fd38;\n\tst.global.f64 \t[%rd35+8], %fd39;\n",
        cuda_ptx.STORE) == []
    assert cuda_ptx.split_windows(
        "\tst.global.f64 \t[%rd34+8], %fd38;\n\tst.global.f64 \t[%rd34+16], %fd39;\n",
        cuda_ptx.STORE) == []
    # a 128-bit access is whole
    assert cuda_ptx.split_windows("\tst.global.v2.f64 \t[%rd34], {%fd38, %fd39};\n",
                                  cuda_ptx.STORE) == []
    loads = ("\tld.global.nc.v2.f32 \t{%f1, %f2}, [%rd7];\n"
             "\tld.global.nc.v2.f32 \t{%f3, %f4}, [%rd7+8];\n")
    assert cuda_ptx.split_windows(loads, cuda_ptx.LOAD) == [("%rd7", 0, 2)]


def test_every_vector_path_moves_rows_128_bits_at_a_time():
    cmds = cuda_ptx.compile_commands(BUILD, None) if os.path.exists(
        os.path.join(BUILD, "compile_commands.json")) else []
    if not cmds:
        pytest.skip(f"no nvcc compile commands in {BUILD}")
    done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "cuda_ptx.py"), BUILD],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # every row kernel's vector instantiation was looked at (the forwards of
    # RMSNorm, LayerNorm and SeeDNorm and SeeDNorm's backward twice: with and
    # without the row split)
    assert ", 54 with a 16-byte vector path; 0 findings" in done.stdout, done.stdout
