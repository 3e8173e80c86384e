#!/usr/bin/env python3
"""What each CUDA kernel costs the SM, as ptxas reports it: registers per
thread, bytes spilled to local memory, static shared memory. Needs no GPU:
it recompiles cuda/src/*.cu with the build's own nvcc command plus
`-Xptxas -v` into a temporary folder and reads ptxas's lines.

    scripts/cuda_resources.py [BUILD_DIR] [--all]

BUILD_DIR is a build configured with SCALEREF_CUDA=ON (default build-cuda);
its compile_commands.json gives the commands. Prints the kernels that spill
or sit at a register cap (64: __launch_bounds__(1024)); --all prints every
kernel. Exits 1 when BUILD_DIR has no CUDA sources to compile.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ENTRY = re.compile(r"Compiling entry function '(\S+)'")
STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USAGE = re.compile(r"Used (\d+) registers")
SMEM = re.compile(r"(\d+) bytes smem")  # absent when a kernel declares none


def ptxas_report(command, source, out_dir):
    """Runs one nvcc command with -Xptxas -v, its object into out_dir."""
    args = shlex.split(command)
    out = args.index("-o")
    args[out + 1] = os.path.join(out_dir, os.path.basename(source) + ".o")
    args.insert(1, "-Xptxas=-v")
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"cuda_resources: compiling {source} failed:\n{done.stderr}")
    return done.stderr


def kernels(log):
    """(mangled name, registers, spill stores, spill loads, smem, stack frame) per entry."""
    name, spill = None, (0, 0, 0)
    for line in log.splitlines():
        if m := ENTRY.search(line):
            name, spill = m.group(1), (0, 0, 0)
        elif (m := STACK.search(line)) and name:
            spill = (int(m.group(2)), int(m.group(3)), int(m.group(1)))
        elif (m := USAGE.search(line)) and name:
            smem = SMEM.search(line)
            yield (name, int(m.group(1)), spill[0], spill[1], int(smem.group(1)) if smem else 0,
                   spill[2])
            name = None


def nvcc_commands(build):
    """compile_commands.json's nvcc commands of cuda/src/*.cu in `build` (not the
    emulator's C++ copies of the same sources)."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        return [e for e in json.load(f) if e["file"].endswith(".cu") and "/cuda/src/" in e["file"]
                and "nvcc" in os.path.basename(shlex.split(e["command"])[0])]


def readable(mangled):
    text = subprocess.run(["c++filt", mangled], capture_output=True, text=True).stdout.strip()
    text = text.replace("scaleref::cuda::", "").replace("(anonymous namespace)::", "")
    text = text.replace("__nv_bfloat16", "bf16")
    return re.sub(r"\(.*\)$", "", text)  # the argument list repeats the template's types


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_all = "--all" in sys.argv[1:]
    build = args[0] if args else "build-cuda"
    entries = nvcc_commands(build)
    if not entries:
        sys.exit(f"cuda_resources: no cuda/src/*.cu in {build}/compile_commands.json "
                 "(configure with -DSCALEREF_CUDA=ON)")
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        logs = list(pool.map(lambda e: (e["file"], ptxas_report(e["command"], e["file"], tmp)),
                             entries))
    rows = []
    for source, log in sorted(logs):
        for name, regs, stores, loads, smem, _ in kernels(log):
            rows.append((os.path.basename(source), readable(name), regs, stores, loads, smem))
    shown = [r for r in rows if show_all or r[3] or r[4] or r[2] >= 64]
    print(f"{len(rows)} kernels compiled for the build's architecture; "
          f"{sum(1 for r in rows if r[3] or r[4])} spill, "
          f"{sum(1 for r in rows if r[2] >= 64)} use 64 registers or more")
    print(f"{'file':<14} {'regs':>4} {'spill st/ld':>11} {'smem':>6}  kernel")
    for source, name, regs, stores, loads, smem in shown:
        print(f"{source:<14} {regs:>4} {stores:>5}/{loads:<5} {smem:>6}  {name}")


if __name__ == "__main__":
    main()
