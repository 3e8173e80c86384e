"""Forward + backward time of each scaleref.torch module against the same layer written in
plain torch (python/tests/torch_plain.py), eager and under torch.compile, in one process,
as ratios measured in the same run.

    PYTHONPATH=build/python python3 python/bench/torch_modules.py [--device cuda]
        [--shape 4096x4096] [--dtype bf16] [--reps 20] [--json FILE]

On a CUDA device the scaleref modules run the project's kernels; on the CPU they run the
double-precision reference (the cost of the CPU path: widening to double, the reference,
rounding back). torch.compile of the plain layers needs torch 2.x (it is left out, and the
output says so, on 1.13). Each figure is the median of --reps calls of forward and backward
(after 3 warm-up calls), each call synchronized on the device; ratios are scaleref's time
over the plain layer's (below 1: scaleref is faster).
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import torch

import scaleref.torch as st

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import torch_plain  # noqa: E402  (python/tests/torch_plain.py)

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp64": torch.float64}


def modules(d):
    """(name, scaleref module, plain function of (module, x)) for every layer at width d."""
    return [
        ("rmsnorm", st.RMSNorm(d), torch_plain.plain_rmsnorm),
        ("layernorm", st.LayerNorm(d), torch_plain.plain_layernorm),
        ("dyt", st.DyT(d), torch_plain.plain_dyt),
        ("seednorm", st.SeeDNorm(d), torch_plain.plain_seednorm),
        ("seednorm_h16", st.SeeDNorm(d, heads=16), torch_plain.plain_seednorm),
        ("sdd", st.SDDLinear(d, d), torch_plain.plain_sdd),
        ("scalevec_dp", st.ScaleVectorLinear(d, d, strategy="DP"), torch_plain.plain_scalevec),
    ]


def timed(fn, x, dy, reps, device):
    """Median seconds of forward + backward (x's and every parameter's gradient)."""

    def once():
        y = fn(x)
        y.backward(dy)

    for _ in range(3):
        once()
    times = []
    for _ in range(reps):
        if device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        once()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--shape", default="4096x4096", help="rows x width")
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--only", default="", help="comma-separated layer names")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    n, d = (int(v) for v in args.shape.lower().split("x"))
    dtype, device = DTYPES[args.dtype], args.device
    if device == "cuda" and not st.has_cuda_kernels():
        sys.exit("this scaleref build has no CUDA operators (a torch without CUDA?)")
    compile_ok = hasattr(torch, "compile")
    results = []
    header = f"{'layer':<14} {'scaleref ms':>11} {'eager ms':>9} {'ratio':>6}"
    header += f" {'compiled ms':>11} {'ratio':>6}" if compile_ok else ""
    print(f"{header}   ({n} x {d}, {args.dtype}, {device}, forward + backward, "
          f"median of {args.reps}; ratio = scaleref / plain)")
    only = set(filter(None, args.only.split(",")))
    for name, module, plain in modules(d):
        if only and name not in only:
            continue
        module = module.to(device=device, dtype=dtype)
        gen = torch.Generator().manual_seed(1)
        x = torch.randn(n, d, generator=gen).to(device=device, dtype=dtype).requires_grad_()
        dy = torch.randn(n, module.d_out if hasattr(module, "d_out") else d, generator=gen)
        dy = dy.to(device=device, dtype=dtype)
        row = {"layer": name, "rows": n, "width": d, "dtype": args.dtype, "device": device}
        row["scaleref_s"] = timed(module, x, dy, args.reps, device)
        row["eager_s"] = timed(lambda x: plain(module, x), x, dy, args.reps, device)
        line = (f"{name:<14} {1e3 * row['scaleref_s']:>11.3f} {1e3 * row['eager_s']:>9.3f} "
                f"{row['scaleref_s'] / row['eager_s']:>6.2f}")
        if compile_ok:
            compiled = torch.compile(lambda x: plain(module, x))
            row["compiled_s"] = timed(compiled, x, dy, args.reps, device)
            line += (f" {1e3 * row['compiled_s']:>11.3f} "
                     f"{row['scaleref_s'] / row['compiled_s']:>6.2f}")
        print(line, flush=True)
        results.append(row)
    if not compile_ok:
        print(f"(torch {torch.__version__} has no torch.compile: compiled plain layers left out)")
    if args.json:
        meta = {
            "torch": torch.__version__,
            "device_name": (torch.cuda.get_device_name() if device == "cuda"
                            else platform.processor()),
            "threads": torch.get_num_threads(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
