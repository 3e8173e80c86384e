#!/usr/bin/env python3
"""The PTX nvcc emits for kernel sources at two commits, compared kernel by kernel.

    scripts/ptx_diff.py BASE [HEAD] [--files rmsnorm rescale ...]

Builds `nvcc -ptx` (sm_90, -O3, the flags of the CUDA build) of each
cuda/src/<file>.cu at BASE and at HEAD (default: the working tree), in
temporary checkouts, and prints for each .entry whether its PTX is byte for
byte the same. The only rewrite before comparing is the anonymous
namespace's mangled name, which holds a hash nvcc draws per compilation
(_GLOBAL__N__<hash>_<n>_<file>_cu_<hash>_<n>): it differs between two
compilations of the same file. Exits 1 when any entry differs or is missing.
No GPU needed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A mangled anonymous namespace: its length, then _GLOBAL__N__ and a name
# that holds hashes nvcc draws per compilation.
ANON = re.compile(r"(\d+)_GLOBAL__N__")


def without_anonymous_hashes(text):
    """The text with each mangled anonymous namespace spelled 12_GLOBAL__N__."""
    out, at = [], 0
    for m in ANON.finditer(text):
        if m.start() < at:
            continue
        out.append(text[at:m.start()])
        out.append("12_GLOBAL__N__")
        at = m.end(1) + int(m.group(1))
    out.append(text[at:])
    return "".join(out)


def tree_at(commit, where):
    """A checkout of `commit` under `where` (None: the working tree itself)."""
    if commit is None:
        return ROOT
    path = os.path.join(where, commit)
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", path, commit],
                   check=True, capture_output=True)
    return path


def ptx(tree, name, out):
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    subprocess.run([nvcc, "-I", f"{tree}/cuda/include", "-I", f"{tree}/reference/include",
                    "-O3", "-DNDEBUG", "-arch=sm_90", "-std=c++17", "-x", "cu", "-ptx",
                    f"{tree}/cuda/src/{name}.cu", "-o", out], check=True)
    text = without_anonymous_hashes(open(out).read())
    entries = {}
    for part in re.split(r"\n(?=(?:\.visible |\.weak )?\.entry )", text)[1:]:
        entries[re.search(r"\.entry (\S+)\(", part).group(1)] = part
    return entries


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base")
    p.add_argument("head", nargs="?")
    p.add_argument("--files", nargs="+", default=["rmsnorm", "rescale"])
    a = p.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        trees = [tree_at(a.base, tmp), tree_at(a.head, tmp)]
        try:
            for name in a.files:
                before = ptx(trees[0], name, f"{tmp}/{name}.base.ptx")
                after = ptx(trees[1], name, f"{tmp}/{name}.head.ptx")
                for entry in sorted(set(before) | set(after)):
                    same = before.get(entry) == after.get(entry)
                    bad += not same
                    status = "same" if same else ("missing" if entry not in after or
                                                  entry not in before else "DIFFERS")
                    print(f"{name}.cu  {status:8s} {entry}")
                print(f"{name}.cu: {len(before)} kernels at {a.base}, {len(after)} at "
                      f"{a.head or 'the working tree'}")
        finally:
            for t in trees:
                if t != ROOT:
                    subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", t],
                                   capture_output=True)
    print("PTX unchanged" if bad == 0 else f"{bad} kernels differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
