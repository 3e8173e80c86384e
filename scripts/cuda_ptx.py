#!/usr/bin/env python3
"""What the row kernels' PTX does with memory, without a GPU: nvcc -ptx of
cuda/src/*.cu with the build's own compile commands, read entry by entry.

    scripts/cuda_ptx.py [BUILD_DIR] [--files rmsnorm seednorm ...] [--list]

BUILD_DIR is a build configured with nvcc (default build); its
compile_commands.json gives the commands. For every kernel instantiation
whose template arguments are a storage type D and a vector width V =
16 / sizeof(D) (the path the host takes when rows are 16-byte aligned:
cuda/src/detail/launch.hpp), it checks that

  - the kernel issues 128-bit global loads and 128-bit global stores
    (`ld.global.v4.u32` for bf16, `.v4.f32`, `.v2.f64`); and that
  - no 16 bytes are moved in pieces: a run of global loads or stores in one
    basic block, from one base register, whose offsets tile an aligned
    16-byte window, none of them 128-bit, is a vector access the compiler
    split (a row's ragged tail moves its entries one at a time, each behind
    its own branch, so it never makes such a run);

and, for every kernel entry, that none touches local memory
(`ld.local`/`st.local`: a spill or a local array; ptxas's report is
scripts/cuda_resources.py). Prints one line per finding; exits 1 when there
is any, 2 when nothing could be compiled. --list prints every checked
entry with its vector accesses.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_resources  # noqa: E402
ENTRY = re.compile(r"^(?:\.(?:visible|weak)\s+)?\.entry\s+(\S+)\(", re.M)
STORE = re.compile(r"\bst\.global(?:\.v(\d))?\.([a-z]+)(\d+)\s+\[(%\w+)(?:\+(-?\d+))?\]")
LOAD = re.compile(r"\bld\.global(?:\.nc)?(?:\.v(\d))?\.([a-z]+)(\d+)\s+(?:\{[^}]*\}|%\w+)\s*,\s*"
                  r"\[(%\w+)(?:\+(-?\d+))?\]")
LOCAL = re.compile(r"\b(?:ld|st)\.local\b")
BLOCK_END = re.compile(r"^\s*(?:@%\w+\s+)?(?:bra|ret|exit)\b|^\$L\w+:|^\s*bar\.")
STORAGE = {"double": 8, "float": 4, "bf16": 2}


def compile_commands(build, files):
    entries = cuda_resources.nvcc_commands(build)
    if files:
        entries = [e for e in entries if os.path.basename(e["file"])[:-3] in files]
    return entries


def ptx_of(entry, out_dir):
    """The PTX of one compile command: -c ... -o X.o becomes -ptx ... -o X.ptx."""
    args = [a for a in shlex.split(entry["command"]) if a != "-c"]
    out = os.path.join(out_dir, os.path.basename(entry["file"]) + ".ptx")
    args[args.index("-o") + 1] = out
    args.insert(1, "-ptx")
    done = subprocess.run(args, capture_output=True, text=True, cwd=entry["directory"])
    if done.returncode != 0:
        sys.exit(f"cuda_ptx: nvcc -ptx of {entry['file']} failed:\n{done.stderr}")
    with open(out) as f:
        return f.read()


def entries(ptx):
    """(mangled name, body) per kernel entry."""
    marks = list(ENTRY.finditer(ptx))
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(ptx)
        yield m.group(1), ptx[m.start():end]


def vector_width_of(name):
    """(storage type, V) when the kernel's template arguments are <D, V, ...>
    with V its 16-byte width, else None."""
    m = re.search(r"<(double|float|bf16), ?(\d+)", name)
    if not m:
        return None
    d, v = m.group(1), int(m.group(2))
    return (d, v) if v * STORAGE[d] == 16 else None


def accesses(line, pattern):
    m = pattern.search(line)
    if not m:
        return None
    lanes = int(m.group(1) or 1)
    bits = int(m.group(3))
    return m.group(4), int(m.group(5) or 0), lanes * bits // 8


def split_windows(body, pattern):
    """Runs of accesses in one basic block that tile an aligned 16-byte window
    from one base register in pieces: [(base, offset, pieces)]."""
    found, run = [], {}

    def close():
        for base, pieces in run.items():
            covered = {}
            for off, size in pieces:
                if size < 16:
                    covered.setdefault(off // 16, []).append((off, size))
            for window, parts in covered.items():
                spans = sorted(parts)
                at, ok = window * 16, True
                for off, size in spans:
                    if off != at:
                        ok = False
                        break
                    at += size
                if ok and at == window * 16 + 16 and len(spans) > 1:
                    found.append((base, window * 16, len(spans)))
        run.clear()

    for line in body.splitlines():
        if BLOCK_END.search(line):
            close()
            continue
        a = accesses(line, pattern)
        if a:
            run.setdefault(a[0], []).append((a[1], a[2]))
    close()
    return found


def check(name, body):
    """Findings for one entry, and its 128-bit load and store counts."""
    out = []
    if LOCAL.search(body):
        out.append(f"{name}: touches local memory ({len(LOCAL.findall(body))} ld/st.local)")
    vw = vector_width_of(name)
    loads = stores = 0
    if vw:
        loads = sum(1 for ln in body.splitlines() if (a := accesses(ln, LOAD)) and a[2] == 16)
        stores = sum(1 for ln in body.splitlines() if (a := accesses(ln, STORE)) and a[2] == 16)
        if not loads:
            out.append(f"{name}: no 128-bit global load on its V = {vw[1]} path")
        if not stores:
            out.append(f"{name}: no 128-bit global store on its V = {vw[1]} path")
        for kind, pattern in (("load", LOAD), ("store", STORE)):
            for base, off, pieces in split_windows(body, pattern):
                out.append(f"{name}: a 16-byte {kind} at [{base}+{off}] split into {pieces} pieces")
    return out, vw, loads, stores


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--files", nargs="*")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    cmds = compile_commands(a.build, a.files)
    if not cmds:
        print(f"cuda_ptx: no nvcc compile commands in {a.build}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        ptxs = list(pool.map(lambda e: ptx_of(e, tmp), cmds))
    return report("cuda_ptx", "kernel entries", (e for ptx in ptxs for e in entries(ptx)),
                  check, a.list)


def report(tool, unit, items, check_one, listing):
    """Runs check_one (a check above, or cuda_sass.py's) on every (mangled name, body);
    prints the findings and a summary, and with `listing` every vector path's 128-bit
    load and store counts. The exit status: 1 when there is a finding, else 0."""
    findings, vectored, total = [], 0, 0
    for mangled, body in items:
        name = cuda_resources.readable(mangled)
        total += 1
        out, vw, loads, stores = check_one(name, body)
        vectored += bool(vw)
        findings += out
        if listing and vw:
            print(f"{name}: {loads} 128-bit loads, {stores} 128-bit stores")
    for f in findings:
        print(f)
    print(f"{tool}: {total} {unit}, {vectored} with a 16-byte vector path; "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
