#!/usr/bin/env python3
"""Two cuda_bench JSON documents side by side: for each case both measured
(op, direction, dtype, shape, heads), each run's median with its p10 - p90
spread, and B's median over A's. A ratio is marked `~` where the two spreads
overlap (a difference within the run-to-run noise), `<` where B is faster,
`>` where A is.

    python3 cuda/bench/compare_runs.py A.json B.json [--names A,B]

For example the backward's second pass forced each way (scripts/gpu_run.sh's
`passes` step):

    python3 cuda/bench/compare_runs.py passes_front.json.gz passes_back.json.gz \\
        --names front,back

Reads .json or .json.gz. Both runs must come from one device (times from two
devices are not comparable as ratios). Cases found in one run alone are
listed after the table. Exit status 0 when the table was printed; 1 when an
input cannot be read, the devices differ, or no case is in both. Python 3
standard library only.
"""

import argparse
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def case_key(r):
    return (r["op"], r["dir"], r["dtype"], r["rows"], r["cols"], r.get("heads", 1))


def case_name(k):
    op, d, dtype, rows, cols, heads = k
    return f"{op:<13} {d:<7} {dtype:<5} {rows}x{cols}" + (f" h{heads}" if heads != 1 else "")


def compare(a, b):
    """(key, fused A, fused B) for the cases both ran, in A's order; keys of one alone."""
    ra = {case_key(r): r for r in a["results"]}
    rb = {case_key(r): r for r in b["results"]}
    both = [(k, ra[k]["fused"], rb[k]["fused"]) for k in ra if k in rb]
    return both, [k for k in ra if k not in rb], [k for k in rb if k not in ra]


def verdict(fa, fb):
    if fb["p90_ms"] < fa["p10_ms"]:
        return "<"
    if fa["p90_ms"] < fb["p10_ms"]:
        return ">"
    return "~"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--names", default="A,B", help="the two runs' names, comma-separated")
    args = ap.parse_args(argv)
    names = args.names.split(",")
    if len(names) != 2 or not all(names):
        ap.error("--names expects two names separated by a comma")
    try:
        a, b = load(args.a), load(args.b)
    except (OSError, ValueError) as e:
        print(f"compare_runs: cannot read an input: {e}", file=sys.stderr)
        return 1
    da, db = a.get("device", {}).get("name"), b.get("device", {}).get("name")
    if da != db:
        print(f"compare_runs: the runs come from two devices ({da!r}, {db!r}): "
              "their times are not comparable as ratios", file=sys.stderr)
        return 1
    both, only_a, only_b = compare(a, b)
    if not both:
        print("compare_runs: no case is in both runs", file=sys.stderr)
        return 1
    na, nb = names
    print(f"{da}: {na} = {args.a} (commit {a.get('commit')}), "
          f"{nb} = {args.b} (commit {b.get('commit')})")
    print("median ms (p10 - p90); ratio = "
          f"{nb} / {na}; ~ spreads overlap, < {nb} faster, > {na} faster")
    print(f"{'case':<40} {na:>25} {nb:>25} {'ratio':>7}")
    for k, fa, fb in both:
        cell = [f"{f['median_ms']:.4f} ({f['p10_ms']:.4f}-{f['p90_ms']:.4f})" for f in (fa, fb)]
        print(f"{case_name(k):<40} {cell[0]:>25} {cell[1]:>25} "
              f"{fb['median_ms'] / fa['median_ms']:>6.3f}{verdict(fa, fb)}")
    for name, keys in ((na, only_a), (nb, only_b)):
        for k in keys:
            print(f"only in {name}: {case_name(k)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
