#!/usr/bin/python3
"""PyTorch's CPU float64 timing of the normalization methods' forward +
backward, for comparison with scaleref_norm_bench (reference/bench/norm_bench.cpp)
on the same machine.

One iteration is the forward followed by autograd's backward, y.backward(dy),
with x and every parameter requiring a gradient (so dx and each parameter's
gradient are computed, as the C++ backward does). The inputs and parameters are
the C++ benchmark's, built with the same formulas in float64: x and dy are sin /
cos of the element index, gain / bias / seed_alpha / seed_beta sit away from
their initialization. Methods (names as the C++ benchmark's, before the '/'):

  RMSNorm          gamma x rsqrt(mean x^2 + 1e-6), gamma = gain
  LayerNorm        F.layer_norm, weight = gain, bias = bias, eps 1e-5
  DyT              gamma tanh(alpha x) + beta, alpha = 0.7 (a scalar tensor)
  SeeDNorm         (tanh(x . beta) alpha + gamma) x rsqrt(mean x^2 + 1e-6)
  SeeDNorm_heads8  the same with one tanh(x_h . beta_h) per head of D / 8;
                   the RMS stays over all of D
  SDD              alpha z rsqrt(mean z^2), z = x V^T, V [D, D] (eps 0)

    scripts/bench_norm_torch.py [--reps 5] [--warmup 1] [--filter REGEX] [--json]

N and D come from SCALEREF_BENCH_N and SCALEREF_BENCH_D (default 4096 each; D
divisible by 8 for SeeDNorm_heads8), the thread count from OMP_NUM_THREADS
(default: all cores). --filter is searched (re.search) in the Google Benchmark
style name, e.g. "SeeDNorm/N:4096/D:4096", so one regex selects the same
methods here and in scaleref_norm_bench --benchmark_filter. Prints one line per
method (median, min, max in ms over reps), or with --json one JSON object.

Needs Debian's python3-torch and, for a fair comparison, an optimized BLAS
under it (libopenblas0-pthread): scripts/bench_norm.sh installs both and runs
this script and scaleref_norm_bench in alternation. Not part of the default
install.
"""
import argparse
import json
import math
import os
import re
import statistics
import sys

import torch
import torch.nn.functional as F

from bench_lm_torch import timed  # the same timing loop as the LM comparison

F64 = torch.float64
HEADS = 8  # the multi-head SeeDNorm case


def size_from_env(name, fallback=4096):
    text = os.environ.get(name, "")
    if text == "":
        return fallback
    if not re.fullmatch(r"[0-9]+", text) or int(text) <= 0:
        sys.exit(f"bench_norm_torch: {name} must be a positive integer, got '{text}'")
    return int(text)


# The C++ benchmark's inputs and parameters (norm_bench.cpp: inputs(), gain,
# bias, seed_alpha, seed_beta), same formulas and evaluation order.
def inputs(n, d):
    i = torch.arange(n, dtype=F64)[:, None]
    j = torch.arange(d, dtype=F64)[None, :]
    x = 1.5 * torch.sin(0.37 * i + 0.011 * j + 0.3) + 0.5 * torch.cos(0.05 * i * j + 1.0)
    dy = 0.8 * torch.cos(0.23 * i - 0.017 * j + 0.7) + 0.2 * torch.sin(0.031 * i * j)
    return x, dy


def gain(d):
    return 1.0 + 0.1 * torch.sin(0.7 * torch.arange(d, dtype=F64))


def bias(d):
    return 0.05 * torch.cos(0.3 * torch.arange(d, dtype=F64))


def seed_alpha(d):
    return 0.5 + 0.2 * torch.cos(0.9 * torch.arange(d, dtype=F64))


def seed_beta(d):
    j = torch.arange(d, dtype=F64)
    return 2.0 / d * torch.sin(0.011 * j) + 0.3 / math.sqrt(d) * torch.cos(1.3 * j)


def sdd_v(d):  # V(i, j) = sin(0.29 i - 0.013 j + 0.5) / sqrt(D)
    i = torch.arange(d, dtype=F64)[:, None]
    j = torch.arange(d, dtype=F64)[None, :]
    return torch.sin(0.29 * i - 0.013 * j + 0.5) / math.sqrt(d)


def inv_rms(x, eps):
    return torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def rmsnorm(x, gamma):
    return gamma * x * inv_rms(x, 1e-6)


def layernorm(x, weight, b):
    return F.layer_norm(x, (x.shape[-1],), weight, b, 1e-5)


def dyt(x, alpha, gamma, beta):
    return gamma * torch.tanh(alpha * x) + beta


def seednorm(x, alpha, beta, gamma):
    s = torch.tanh(x @ beta)[:, None]  # [N, 1]: the raw x's dot product
    return (s * alpha + gamma) * x * inv_rms(x, 1e-6)


def seednorm_heads(x, alpha, beta, gamma, heads=HEADS):
    n, d = x.shape
    w = d // heads
    s = torch.tanh(torch.einsum("nhw,hw->nh", x.view(n, heads, w), beta.view(heads, w)))
    scale = (s[:, :, None] * alpha.view(heads, w)).reshape(n, d)  # s_h over head h's block
    return (scale + gamma) * x * inv_rms(x, 1e-6)  # RMS over all of D


def sdd(x, v, alpha):
    z = x @ v.T
    return alpha * z * inv_rms(z, 0.0)


# name -> (forward, parameter builder)
METHODS = {
    "RMSNorm": (rmsnorm, lambda d: [gain(d)]),
    "LayerNorm": (layernorm, lambda d: [gain(d), bias(d)]),
    "DyT": (dyt, lambda d: [torch.tensor(0.7, dtype=F64), gain(d), bias(d)]),
    "SeeDNorm": (seednorm, lambda d: [seed_alpha(d), seed_beta(d), gain(d)]),
    "SeeDNorm_heads8": (seednorm_heads, lambda d: [seed_alpha(d), seed_beta(d), gain(d)]),
    "SDD": (sdd, lambda d: [sdd_v(d), gain(d)]),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--filter", default="", help="regex searched in 'Method/N:n/D:d'")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0:
        sys.exit("bench_norm_torch: --reps must be >= 1 and --warmup >= 0")
    n, d = size_from_env("SCALEREF_BENCH_N"), size_from_env("SCALEREF_BENCH_D")
    pattern = re.compile(args.filter)
    selected = [m for m in METHODS if pattern.search(f"{m}/N:{n}/D:{d}")]
    if "SeeDNorm_heads8" in selected and d % HEADS:
        sys.exit(f"bench_norm_torch: SeeDNorm_heads8 needs SCALEREF_BENCH_D divisible by "
                 f"{HEADS}, got {d} (leave it out with --filter)")
    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count()))
    torch.set_num_threads(threads)
    if not args.json:
        print(f"torch {torch.__version__}, float64, {threads} threads, N {n}, D {d}")

    x, dy = inputs(n, d)
    x.requires_grad_(True)
    results = {}
    for name in selected:
        forward, build = METHODS[name]
        params = [p.requires_grad_(True) for p in build(d)]

        def fwd_bwd():
            x.grad = None
            for p in params:
                p.grad = None
            forward(x, *params).backward(dy)

        times = [t * 1e3 for t in timed(fwd_bwd, args.reps, args.warmup)]
        results[name] = {"median_ms": statistics.median(times), "min_ms": min(times),
                         "max_ms": max(times), "reps": len(times)}
        if not args.json:
            r = results[name]
            print(f"torch {name}/N:{n}/D:{d}: median {r['median_ms']:.3f} ms "
                  f"(min {r['min_ms']:.3f}, max {r['max_ms']:.3f}) over {r['reps']} reps",
                  flush=True)
        del params
    if args.json:
        print(json.dumps({"torch": torch.__version__, "threads": threads, "N": n, "D": d,
                          "results": results}))


if __name__ == "__main__":
    main()
