#!/usr/bin/env python3
"""Where nvcc and GCC fuse a * b + c into an FMA, source line by source line.

    scripts/fma_sites.py [--files rmsnorm rescale ...] [--json FILE]

Compiles each cuda/src/<file>.cu twice, in a temporary folder: by nvcc to
PTX (sm_90, -O3, -lineinfo), and by g++ as the CPU emulator's FMA mode does
(-O3 -march=native -ffp-contract=fast -mfma, -DSCALEREF_CUDA_EMU) to an
object file read back with `objdump -d -l --inlines`. Each fma.rn.f32/f64 in the PTX
goes to the source line of the `.loc` before it; each x86 FMA (vfmadd,
vfmsub, vfnmadd, vfnmsub, scalar or packed) to the line objdump printed last.
Only lines in cuda/src and reference/include/scaleref count. When an FMA's
line lies elsewhere (the emulator's __fma_rn or __dadd_rn, std::tanh, a CUDA
or system header), it goes to the innermost counted call site it was inlined
at (PTX's `.loc` names one level, objdump --inlines the whole chain); an FMA
with no counted line there, or at line 0, is left out and counted as such.

Prints per file and in total (over the union of the files) how many distinct
source lines hold at least one FMA from nvcc, from GCC and from both, then
the lines only one compiler fuses, with their FMA count and source text.
--json FILE writes the same numbers and lists. No GPU needed. Exits 1 when a
compiler or objdump fails, printing the command.
"""
import argparse
import functools
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILES = ["rmsnorm", "layernorm", "dyt", "seednorm", "scalevec", "rescale",
                 "init_fill", "philox_fill"]
COUNTED_DIRS = ("cuda/src/", "reference/include/scaleref/")
NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")

PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', re.M)
PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*inlined_at\s+(\d+)\s+(\d+))?")
PTX_FMA = re.compile(r"\bfma\.rn(?:\.ftz)?\.f(?:32|64)\b")
OBJDUMP_LINE = re.compile(r"^(/?[^\s:][^:]*):(\d+)(?: \(discriminator \d+\))?$")
OBJDUMP_INLINED = re.compile(r"^inlined by (\S[^:]*):(\d+)")
OBJDUMP_INSN = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)")
X86_FMA = re.compile(r"^vf(?:n?madd|n?msub)\d{3}[sp][sd]$")


class ToolError(Exception):
    """A compiler or objdump run that failed; carries the command."""


def run(command):
    """Runs `command` from the repository root and returns its stdout."""
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise ToolError(shlex.join(command))
    return done.stdout


def counted_path(path):
    """`path` relative to the repository root, or None when it is not counted."""
    relative = os.path.relpath(os.path.normpath(os.path.join(ROOT, path)), ROOT)
    return relative if relative.startswith(COUNTED_DIRS) else None


def add_site(sites, frames):
    """Counts one FMA in `sites` at the first counted (path, line) of `frames`,
    innermost first; returns False when none is counted."""
    for path, line in frames:
        path = counted_path(path) if path else None
        if path is not None and line != 0:
            sites[(path, line)] = sites.get((path, line), 0) + 1
            return True
    return False


def nvcc_sites(source, tmp):
    """{(path, line): FMA count} in nvcc's PTX for `source`, and the FMAs left out."""
    ptx = os.path.join(tmp, "kernel.ptx")
    run([NVCC, "-I", "cuda/include", "-I", "reference/include", "-O3", "-DNDEBUG",
         "-arch=sm_90", "-std=c++17", "-lineinfo", "-x", "cu", "-ptx", source, "-o", ptx])
    with open(ptx) as f:
        text = f.read()
    files = {number: path for number, path in PTX_FILE.findall(text)}
    sites, left_out, frames = {}, 0, []
    for text_line in text.splitlines():
        loc = PTX_LOC.match(text_line)
        if loc:
            file_id, line, caller_file_id, caller_line = loc.groups()
            frames = [(files.get(file_id), int(line))]
            if caller_file_id:
                frames.append((files.get(caller_file_id), int(caller_line)))
        elif PTX_FMA.search(text_line.split("//")[0]):
            left_out += not add_site(sites, frames)
    return sites, left_out


def gcc_sites(source, tmp):
    """{(path, line): FMA count} in g++'s FMA-mode object for `source`, and the rest."""
    obj = os.path.join(tmp, "kernel.o")
    run(["g++", "-std=c++20", "-O3", "-g", "-march=native", "-ffp-contract=fast", "-mfma",
         "-DNDEBUG", "-DEIGEN_DONT_PARALLELIZE", "-DSCALEREF_CUDA_EMU", "-I", "cuda/emu/include",
         "-I", "cuda/include", "-I", "reference/include", "-I", "cuda/src",
         "-isystem", "/usr/include/eigen3", "-Wno-unknown-pragmas", "-x", "c++", "-c", source,
         "-o", obj])
    # objdump prints the file:line only when it changes, the "inlined by"
    # chain under it again before each instruction it covers.
    sites, left_out, frames, chain_done = {}, 0, [], False
    disassembly = run(["objdump", "-d", "-l", "--inlines", "--no-show-raw-insn", obj])
    for text_line in disassembly.splitlines():
        inlined = OBJDUMP_INLINED.match(text_line)
        marker = OBJDUMP_LINE.match(text_line)
        insn = OBJDUMP_INSN.match(text_line)
        if inlined:
            frames = frames[:1] if chain_done else frames
            frames.append((inlined.group(1), int(inlined.group(2))))
        elif marker:
            frames = [(marker.group(1), int(marker.group(2)))]
        elif insn and X86_FMA.match(insn.group(1)):
            left_out += not add_site(sites, frames)
        chain_done = not (inlined or marker)
    return sites, left_out


@functools.cache
def source_lines(path):
    """The lines of the repository file `path`."""
    with open(os.path.join(ROOT, path), errors="replace") as f:
        return f.read().splitlines()


def source_text(path, line):
    """The stripped text of `line` (1-based) in the repository file `path`."""
    lines = source_lines(path)
    return lines[line - 1].strip() if line <= len(lines) else ""


def compare(nvcc, gcc):
    """The counts and one-sided line lists for two {(path, line): count} maps."""
    def listing(keys, counts):
        return [{"site": f"{path}:{line}", "fmas": counts[(path, line)],
                 "text": source_text(path, line)} for path, line in sorted(keys)]
    return {"nvcc_lines": len(nvcc), "gcc_lines": len(gcc),
            "both": len(nvcc.keys() & gcc.keys()),
            "nvcc_only": listing(nvcc.keys() - gcc.keys(), nvcc),
            "gcc_only": listing(gcc.keys() - nvcc.keys(), gcc)}


def merge(total, sites):
    """Adds the FMA counts of `sites` into `total`."""
    for key, count in sites.items():
        total[key] = total.get(key, 0) + count


def print_report(results):
    """Prints the table, the one-sided lines per file and in total, the summary."""
    print(f"{'file':24s} {'nvcc':>5s} {'gcc':>5s} {'both':>5s} {'nvcc-only':>9s} "
          f"{'gcc-only':>8s} {'left out (nvcc/gcc)':>20s}")
    for name, r in results.items():
        left_out = f"{r['nvcc_left_out']}/{r['gcc_left_out']}"
        print(f"{name:24s} {r['nvcc_lines']:5d} {r['gcc_lines']:5d} {r['both']:5d} "
              f"{len(r['nvcc_only']):9d} {len(r['gcc_only']):8d} {left_out:>20s}")
    for name, r in results.items():
        for side in ("nvcc_only", "gcc_only"):
            if r[side]:
                print(f"\n{name}: {side.replace('_', '-')} lines (FMA instructions)")
            for site in r[side]:
                print(f"  {site['site']} [{site['fmas']}]  {site['text']}")
    total = results["total"]
    share = total["both"] / total["nvcc_lines"] if total["nvcc_lines"] else 0.0
    print(f"\nfma sites: nvcc {total['nvcc_lines']} lines, gcc {total['gcc_lines']} lines, "
          f"both {total['both']} ({total['both']}/{total['nvcc_lines']} = {share:.0%} of nvcc's)")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Totals are over the union of the files' lines: a shared header's line counts "
               "once, as 'both' when each compiler fuses it in some file.")
    parser.add_argument("--files", nargs="+", default=DEFAULT_FILES, metavar="NAME",
                        help="kernel sources, as cuda/src/NAME.cu (default: %(default)s)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    results, nvcc_total, gcc_total = {}, {}, {}
    try:
        with tempfile.TemporaryDirectory(prefix="fma_sites.") as tmp:
            for name in args.files:
                source = f"cuda/src/{name}.cu"
                nvcc, nvcc_left_out = nvcc_sites(source, tmp)
                gcc, gcc_left_out = gcc_sites(source, tmp)
                results[source] = dict(compare(nvcc, gcc), nvcc_left_out=nvcc_left_out,
                                       gcc_left_out=gcc_left_out)
                merge(nvcc_total, nvcc)
                merge(gcc_total, gcc)
    except ToolError as failed:
        print(f"fma_sites: command failed: {failed}", file=sys.stderr)
        return 1
    results["total"] = dict(
        compare(nvcc_total, gcc_total),
        nvcc_left_out=sum(r["nvcc_left_out"] for r in results.values()),
        gcc_left_out=sum(r["gcc_left_out"] for r in results.values()))
    print_report(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
