#!/usr/bin/env python3
"""What the kernels' machine code does with memory: the GPU-side half of
scripts/cuda_ptx.py's check, on the SASS that `scripts/gpu_run.sh` dumps
(`cuobjdump -sass`, sass.txt.gz; cuobjdump is on the GPU image, not on the
CPU machines). The PTX says what nvcc asked for; ptxas may still split a
vector access or move an array to local memory, and only the SASS shows it.

    scripts/cuda_sass.py SASS_FILE [--list]

SASS_FILE is a `cuobjdump -sass` listing, plain or .gz. For every kernel
function whose template arguments are a storage type D and a vector width
V = 16 / sizeof(D) (the path the host takes when rows are 16-byte aligned),
it checks that the kernel issues 128-bit global loads (LDG...128) and
128-bit global stores (STG...128); and, for every function, that none
touches local memory (LDL, STL: a spill or a local array). Prints one line
per finding; exits 1 when there is any, 2 when the file holds no function.
--list prints every vector path with its 128-bit load and store counts.
"""
import argparse
import gzip
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_ptx  # noqa: E402

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)\s*$", re.M)
LOAD128 = re.compile(r"\bLDG(?:\.[A-Z0-9_]+)*\.128\b")
STORE128 = re.compile(r"\bSTG(?:\.[A-Z0-9_]+)*\.128\b")
LOCAL = re.compile(r"\b(?:LDL|STL)\b")


def functions(sass):
    """(mangled name, body) per function of a cuobjdump -sass listing."""
    marks = list(FUNCTION.finditer(sass))
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(sass)
        yield m.group(1), sass[m.end():end]


def check(name, body):
    """Findings for one function, its (D, V) or None, its 128-bit load and store counts."""
    out = []
    local = len(LOCAL.findall(body))
    if local:
        out.append(f"{name}: touches local memory ({local} LDL/STL)")
    vw = cuda_ptx.vector_width_of(name)
    loads, stores = len(LOAD128.findall(body)), len(STORE128.findall(body))
    if vw:
        if not loads:
            out.append(f"{name}: no 128-bit global load (LDG...128) on its V = {vw[1]} path")
        if not stores:
            out.append(f"{name}: no 128-bit global store (STG...128) on its V = {vw[1]} path")
    return out, vw, loads, stores


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sass")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    opener = gzip.open if a.sass.endswith(".gz") else open
    with opener(a.sass, "rt") as f:
        sass = f.read()
    found = list(functions(sass))
    if not found:
        print(f"cuda_sass: no function in {a.sass}", file=sys.stderr)
        return 2
    return cuda_ptx.report("cuda_sass", "functions", found, check, a.list)


if __name__ == "__main__":
    sys.exit(main())
