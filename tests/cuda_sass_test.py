"""scripts/cuda_sass.py: the kernels' machine code from a GPU run (ctest: cuda.sass).

The H200 run of 2026-11-27 (second lease) dumped the SASS of cuda_check's kernels
(cuobjdump -sass, which the CPU machines lack); the check must pass it, and flag a
vector path without 128-bit accesses and a function touching local memory.
"""
import gzip
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import cuda_resources  # noqa: E402
import cuda_sass  # noqa: E402

DUMP = os.path.join(ROOT, "cuda", "results", "2026-11-27b-nvidia-h200", "run1", "sass.txt.gz")


def dump():
    with gzip.open(DUMP, "rt") as f:
        return f.read()


def test_the_h200_runs_kernels_move_16_bytes_a_lane_and_use_no_local_memory(capsys):
    assert cuda_sass.main([DUMP]) == 0
    assert "cuda_sass: 110 functions, 36 with a 16-byte vector path; 0 findings" in \
        capsys.readouterr().out


def test_a_split_vector_access_and_local_memory_are_flagged(tmp_path, capsys):
    # the fp32 forward's own name, with a body whose loads are 64-bit and which spills
    name = next(m for m, _ in cuda_sass.functions(dump())
                if cuda_resources.readable(m) == "void rmsnorm::forward_kernel<float, 4>")
    body = ("        /*0100*/                   LDG.E.64 R2, desc[UR4][R2.64] ;\n"
            "        /*0110*/                   STL [R1], R2 ;\n"
            "        /*0120*/                   STG.E.128 desc[UR4][R4.64], R8 ;\n")
    listing = tmp_path / "planted.sass"
    listing.write_text(f"\t\tFunction : {name}\n{body}")
    assert cuda_sass.main([str(listing)]) == 1
    out = capsys.readouterr().out
    assert "rmsnorm::forward_kernel<float, 4>: no 128-bit global load" in out
    assert "touches local memory (1 LDL/STL)" in out
    assert "no 128-bit global store" not in out
    empty = tmp_path / "empty.sass"
    empty.write_text("Fatbin ptx code:\n")
    assert cuda_sass.main([str(empty)]) == 2
