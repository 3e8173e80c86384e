#!/usr/bin/env python3
"""Merges cuda_bench's and bench_torch.py's JSON into one document and a text report.

  python3 cuda/bench/merge_results.py --cuda cuda_bench.json [--torch torch.json] \\
      --json bench.json --report report.txt

The report has, in order: the targets of the CUDA issue with PASS / FAIL (MISSING
where a number is absent), SeeDNorm forward+backward against PyTorch, every
case at the default shape, and the sweep of the hidden size. The merged JSON
holds both inputs unchanged ("cuda", "torch") plus "comparisons" (each PyTorch
case beside the fused kernel's time), "targets" and "bytes_check" (both
programs must count the same bytes for a shared case). Python 3 standard
library only. Exit status 0 when the report was written, whatever the
verdicts; 1 when an input cannot be read.
"""

import argparse
import json
import sys

DEFAULT_SHAPE = (16384, 4096)
SWEEP_ELEMENTS = DEFAULT_SHAPE[0] * DEFAULT_SHAPE[1]
TARGET_DTYPE = "bf16"
BANDWIDTH_OPS = ["rmsnorm", "dyt", "seednorm", "seednorm_h16", "sdd_epilogue"]
SEEDNORM_OPS = ["seednorm", "seednorm_h16"]
CLIFF_RANGE = (1024, 65536)
FWD_FRACTION, BWD_FRACTION, CLIFF_FRACTION = 0.95, 0.85, 0.80
EAGER_SPEEDUP, COMPILE_SPEEDUP = 3.0, 1.2


def key(r):
    return (r["op"], r["dir"], r["dtype"], r["rows"], r["cols"])


def cuda_time(cuda, op, direction, dtype, rows, cols):
    """The fused median (ms) for a case, and how it was obtained; fwd_bwd falls back
    to the sum of the fwd and bwd medians when it was not timed as one."""
    r = cuda.get((op, direction, dtype, rows, cols))
    if r:
        return r["fused"]["median_ms"], r["bytes"], "fused fwd_bwd timed as one"
    if direction == "fwd_bwd":
        f = cuda.get((op, "fwd", dtype, rows, cols))
        b = cuda.get((op, "bwd", dtype, rows, cols))
        if f and b:
            return (f["fused"]["median_ms"] + b["fused"]["median_ms"], f["bytes"] + b["bytes"],
                    "fused fwd + bwd medians")
    return None, None, None


def compare(cuda, torch_results):
    comparisons, byte_mismatches = [], []
    for t in torch_results:
        ms, nbytes, how = cuda_time(cuda, t["op"], t["dir"], t["dtype"], t["rows"], t["cols"])
        c = {"op": t["op"], "dir": t["dir"], "dtype": t["dtype"], "rows": t["rows"],
             "cols": t["cols"], "sweep": t["sweep"], "impl": t["impl"],
             "torch_median_ms": t["median_ms"], "cuda_median_ms": ms, "cuda_time": how,
             "speedup": t["median_ms"] / ms if ms else None}
        comparisons.append(c)
        if nbytes is not None and abs(nbytes - t["bytes"]) > 0.5:
            byte_mismatches.append({**{k: c[k] for k in ("op", "dir", "dtype", "rows", "cols")},
                                    "cuda_bytes": nbytes, "torch_bytes": t["bytes"]})
    return comparisons, byte_mismatches


def verdict(value, need):
    if value is None:
        return "MISSING"
    return "PASS" if value >= need else "FAIL"


def targets(cuda, comparisons):
    rows, cols = DEFAULT_SHAPE
    out = []

    def add(name, value, need, unit, where=""):
        out.append({"target": name, "value": value, "need": need, "unit": unit,
                    "verdict": verdict(value, need), "where": where})

    for direction, need in (("fwd", FWD_FRACTION), ("bwd", BWD_FRACTION)):
        for op in BANDWIDTH_OPS:
            r = cuda.get((op, direction, TARGET_DTYPE, rows, cols))
            add(f"{op} {direction}: fraction of copy bandwidth", r["frac_copy"] if r else None,
                need, "fraction")
    by_impl = {(c["op"], c["dir"], c["dtype"], c["rows"], c["cols"], c["impl"]): c
               for c in comparisons}
    for op in SEEDNORM_OPS:
        for impl, need in (("eager", EAGER_SPEEDUP), ("compile", COMPILE_SPEEDUP)):
            c = by_impl.get((op, "fwd_bwd", TARGET_DTYPE, rows, cols, impl))
            add(f"{op} fwd+bwd: speedup over PyTorch {impl}", c["speedup"] if c else None, need,
                "x", c["cuda_time"] if c else "")
    sweep_ops = sorted({r["op"] for r in cuda.values() if r.get("sweep")},
                       key=lambda o: list(OP_ORDER).index(o) if o in OP_ORDER else 99)
    for op in sweep_ops:
        for direction in ("fwd", "bwd"):
            points = [r for r in cuda.values()
                      if r["op"] == op and r["dir"] == direction and r["dtype"] == TARGET_DTYPE
                      and r["rows"] * r["cols"] == SWEEP_ELEMENTS
                      and CLIFF_RANGE[0] <= r["cols"] <= CLIFF_RANGE[1]]
            worst = min(points, key=lambda r: r["frac_copy"]) if points else None
            add(f"{op} {direction}: no cliff, min over N {CLIFF_RANGE[0]}..{CLIFF_RANGE[1]}",
                worst["frac_copy"] if worst else None, CLIFF_FRACTION, "fraction",
                f"N = {worst['cols']}, {len(points)} points" if worst else "")
    disagree = [r for r in cuda.values() if not r["agreement"]["ok"]]
    out.append({"target": "fused and unfused outputs agree in every case",
                "value": len(cuda) - len(disagree), "need": len(cuda), "unit": "cases",
                "verdict": "PASS" if cuda and not disagree else "FAIL" if cuda else "MISSING",
                "where": ", ".join(f"{r['op']} {r['dir']} {r['dtype']} {r['rows']}x{r['cols']}"
                                   for r in disagree[:5])})
    return out


OP_ORDER = ["rmsnorm", "layernorm", "dyt", "seednorm", "seednorm_h16", "sdd_epilogue",
            "sdd_layer"]
DIR_ORDER = ["fwd", "bwd", "fwd_bwd"]
DTYPE_ORDER = ["bf16", "fp32", "fp64"]


def order(r):
    return (DTYPE_ORDER.index(r["dtype"]) if r["dtype"] in DTYPE_ORDER else 9,
            OP_ORDER.index(r["op"]) if r["op"] in OP_ORDER else 99,
            DIR_ORDER.index(r["dir"]) if r["dir"] in DIR_ORDER else 9, r["cols"])


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def times(v, width):
    """A speedup as "3.52x", right-aligned; "-" when absent."""
    return format("-" if v is None else f"{v:.2f}x", f">{width}")


def report(cuda_doc, torch_doc, comparisons, byte_mismatches, target_rows):
    lines = []
    w = lines.append
    dev = cuda_doc.get("device", {})
    w(f"scaleref CUDA benchmark on {dev.get('line', dev.get('name', '?'))}")
    w(f"date {cuda_doc.get('date')}, commit {cuda_doc.get('commit')}; "
      f"{cuda_doc['settings']['warmup']} warm-up + {cuda_doc['settings']['reps']} timed calls, "
      f"L2 flushed before each")
    peak = cuda_doc.get("copy_peak", {})
    if peak:
        w(f"device-to-device copy of {peak['bytes_copied'] / 1e6:.0f} MB: "
          f"{peak['copy']['gbs']:.0f} GB/s counting bytes read and written")
    if torch_doc:
        w(f"PyTorch {torch_doc.get('torch')} (CUDA {torch_doc.get('cuda')}) on "
          f"{torch_doc['device']['name']}, torch.compile mode "
          f"'{torch_doc['settings'].get('compile_mode')}'")
    else:
        w("PyTorch: no results (bench_torch.py did not run or failed)")
    w("")
    w(f"Targets ({TARGET_DTYPE}, {DEFAULT_SHAPE[0]}x{DEFAULT_SHAPE[1]} unless stated)")
    w(f"  {'target':62} {'measured':>10} {'need':>8}  verdict")
    for t in target_rows:
        if t["unit"] == "fraction":
            measured, need = fmt(t["value"], ".1%"), f">= {t['need']:.0%}"
        elif t["unit"] == "x":
            measured, need = times(t["value"], 0), f">= {t['need']}x"
        else:
            measured, need = f"{t['value']}", f"{t['need']}"
        where = f"  ({t['where']})" if t["where"] else ""
        w(f"  {t['target']:62} {measured:>10} {need:>8}  {t['verdict']}{where}")
    counts = {v: sum(1 for t in target_rows if t["verdict"] == v)
              for v in ("PASS", "FAIL", "MISSING")}
    w(f"  {counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['MISSING']} MISSING")
    w("")

    by = {(c["op"], c["dir"], c["dtype"], c["rows"], c["cols"], c["impl"]): c
          for c in comparisons}
    w("SeeDNorm forward+backward against PyTorch (median ms; speedup = PyTorch / fused)")
    w(f"  {'op':13} {'dtype':5} {'shape':12} {'fused':>9} {'eager':>9} {'compile':>9} "
      f"{'vs eager':>9} {'vs compile':>10}")
    for r in sorted(cuda_doc["results"], key=order):
        if r["op"] not in SEEDNORM_OPS or r["dir"] != "fwd_bwd" or r["sweep"]:
            continue
        e = by.get((r["op"], "fwd_bwd", r["dtype"], r["rows"], r["cols"], "eager"))
        c = by.get((r["op"], "fwd_bwd", r["dtype"], r["rows"], r["cols"], "compile"))
        w(f"  {r['op']:13} {r['dtype']:5} {str(r['rows']) + 'x' + str(r['cols']):12} "
          f"{r['fused']['median_ms']:9.4f} {fmt(e and e['torch_median_ms'], '9.4f'):>9} "
          f"{fmt(c and c['torch_median_ms'], '9.4f'):>9} "
          f"{times(e and e['speedup'], 9)} {times(c and c['speedup'], 10)}")
    w("")

    w("Every case at the default shape (median ms; %copy = fraction of the copy's bandwidth; "
      "x unfused / eager / compile = their time over the fused kernel's)")
    w(f"  {'op':13} {'dir':7} {'dtype':5} {'fused':>9} {'p10-p90':>17} {'GB/s':>7} {'%copy':>6} "
      f"{'x unfused':>9} {'x eager':>8} {'x compile':>9}  agree")
    for r in sorted(cuda_doc["results"], key=order):
        if r["sweep"]:
            continue
        e = by.get((r["op"], r["dir"], r["dtype"], r["rows"], r["cols"], "eager"))
        c = by.get((r["op"], r["dir"], r["dtype"], r["rows"], r["cols"], "compile"))
        f = r["fused"]
        extra = f"  {r['tflops']:.0f} TFLOP/s" if r.get("tflops") else ""
        w(f"  {r['op']:13} {r['dir']:7} {r['dtype']:5} {f['median_ms']:9.4f} "
          f"{f['p10_ms']:8.4f}-{f['p90_ms']:<8.4f} {f['gbs']:7.0f} {r['frac_copy']:6.1%} "
          f"{times(r['speedup_vs_unfused'], 9)} {times(e and e['speedup'], 8)} "
          f"{times(c and c['speedup'], 9)}  "
          f"{'ok' if r['agreement']['ok'] else 'MISMATCH'}{extra}")
    w("")

    sweep = [r for r in cuda_doc["results"] if r["rows"] * r["cols"] == SWEEP_ELEMENTS
             and r["dtype"] == TARGET_DTYPE and r["dir"] in ("fwd", "bwd")
             and r["op"] != "sdd_layer"]
    ns = sorted({r["cols"] for r in sweep})
    if len(ns) > 1:
        w(f"Sweep of the hidden size N at {SWEEP_ELEMENTS} elements ({TARGET_DTYPE}): "
          f"% of copy bandwidth (fused)")
        w(f"  {'op':13} {'dir':4} " + " ".join(f"{n:>7}" for n in ns))
        cells = {(r["op"], r["dir"], r["cols"]): r for r in sweep}
        for op in OP_ORDER:
            for d in ("fwd", "bwd"):
                if not any((op, d, n) in cells for n in ns):
                    continue
                w(f"  {op:13} {d:4} " + " ".join(
                    f"{cells[(op, d, n)]['frac_copy']:7.1%}" if (op, d, n) in cells else f"{'-':>7}"
                    for n in ns))
        w("  the same, speedup over the unfused baseline")
        for op in OP_ORDER:
            for d in ("fwd", "bwd"):
                if not any((op, d, n) in cells for n in ns):
                    continue
                w(f"  {op:13} {d:4} " + " ".join(
                    f"{cells[(op, d, n)]['speedup_vs_unfused']:6.2f}x" if (op, d, n) in cells
                    else f"{'-':>7}" for n in ns))
        w("")

    w("Bytes: cuda_bench and bench_torch.py count the same bytes for every shared case"
      if not byte_mismatches else
      f"Bytes: {len(byte_mismatches)} case(s) where the two programs count different bytes: "
      + "; ".join(f"{m['op']} {m['dir']} {m['dtype']} {m['rows']}x{m['cols']}: "
                  f"{m['cuda_bytes']:.0f} vs {m['torch_bytes']:.0f}" for m in byte_mismatches[:5]))
    if cuda_doc.get("errors"):
        w(f"cuda_bench cases that failed: {len(cuda_doc['errors'])}")
        for e in cuda_doc["errors"][:10]:
            w(f"  {e['case']}: {(e['error'].splitlines() or [''])[0]}")
    if torch_doc and torch_doc.get("errors"):
        w(f"PyTorch cases that failed: {len(torch_doc['errors'])}")
        for e in torch_doc["errors"][:10]:
            w(f"  {e['op']} {e['dir']} {e['dtype']} {e['rows']}x{e['cols']} {e['impl']}: "
              f"{e['error']}")
    return "\n".join(lines) + "\n"


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"merge_results: cannot read the {what} results {path}: {e}", file=sys.stderr)
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cuda", required=True, help="cuda_bench --json output")
    p.add_argument("--torch", help="bench_torch.py --json output (optional)")
    p.add_argument("--json", required=True, help="merged document to write")
    p.add_argument("--report", required=True, help="text report to write")
    a = p.parse_args()
    cuda_doc = load(a.cuda, "cuda_bench")
    if cuda_doc is None:
        return 1
    torch_doc = load(a.torch, "bench_torch") if a.torch else None
    cuda = {key(r): r for r in cuda_doc["results"]}
    comparisons, byte_mismatches = compare(cuda, torch_doc["results"] if torch_doc else [])
    target_rows = targets(cuda, comparisons)
    merged = {"schema": "scaleref.cuda_bench_merged/1", "date": cuda_doc.get("date"),
              "commit": cuda_doc.get("commit"), "device": cuda_doc.get("device"),
              "targets": target_rows, "comparisons": comparisons,
              "bytes_check": {"ok": not byte_mismatches, "mismatches": byte_mismatches},
              "cuda": cuda_doc, "torch": torch_doc}
    with open(a.json, "w") as f:
        json.dump(merged, f, indent=1)
    text = report(cuda_doc, torch_doc, comparisons, byte_mismatches, target_rows)
    with open(a.report, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
