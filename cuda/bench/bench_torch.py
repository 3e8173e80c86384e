#!/usr/bin/env python3
"""PyTorch eager and torch.compile on the ops cuda_bench times, on the same GPU.

The same ops, shapes, dtypes, byte model and timing method as cuda_bench
(cuda/bench/cuda_bench.cpp), so that scripts/bench_cuda.sh can put the two
side by side:

  rmsnorm       F.rms_norm with gain gamma, eps 1e-6
  layernorm     F.layer_norm with gamma and beta, eps 1e-5
  dyt           gamma * tanh(alpha * x) + beta, alpha a 1-element tensor
  seednorm      SeeDNorm as the paper's Algorithm 1, in plain torch:
                y = (tanh(x @ beta) * alpha + gamma) * x * rsqrt(mean(x^2) + eps)
  seednorm_h16  the same with 16 heads (eq. 7): one tanh(x_h . beta_h) per head
  sdd_epilogue  F.rms_norm(z, gain alpha, eps 0)
  sdd_layer     z = x @ V^T, then the epilogue (D x D weight)

Directions: fwd (under torch.no_grad) and fwd_bwd (forward, then
torch.autograd.grad of y with gradient dy with respect to x and every
parameter; no .grad accumulation). Each measurement: warm-up calls (for
torch.compile these include the compilation, timed separately as compile_s),
then --reps calls, each after an L2 flush (a sum over a buffer of 4 x the L2
size, outside the events) and between its own pair of CUDA events; median and
spread of the per-call times.

Cases: every op at the default shape 16384 x 4096 in bf16, fp32 and fp64 in
eager mode, torch.compile in bf16 (--compile-dtypes to change), and the sweep
of the hidden size N = 1024 .. 262144 at the same element count in bf16,
eager only unless --compile-sweep.

  python3 cuda/bench/bench_torch.py --json torch.json [--quick] [--commit SHA]

Needs PyTorch with CUDA; without either it says so and exits with status 2.
"""

import argparse
import datetime
import json
import math
import sys
import time

# The byte model of cuda/bench/bytes.hpp, term for term: (count, size, accumulator).
# size: RD = rows x cols, D = cols, R = rows, RH = rows x heads, 1, DD = cols x cols;
# accumulator: entries of 4 bytes (8 for fp64) instead of the storage type's.
# merge_results.py checks that both programs count the same bytes per case.
BYTES_TERMS = {
    "rmsnorm": ([(2, "RD", False), (1, "D", False), (1, "R", True)],
                [(3, "RD", False), (2, "D", False), (1, "R", True)]),
    "sdd_epilogue": ([(2, "RD", False), (1, "D", False), (1, "R", True)],
                     [(3, "RD", False), (2, "D", False), (1, "R", True)]),
    "layernorm": ([(2, "RD", False), (2, "D", False), (2, "R", True)],
                  [(3, "RD", False), (3, "D", False), (2, "R", True)]),
    "dyt": ([(2, "RD", False), (2, "D", False), (1, "1", False)],
            [(3, "RD", False), (3, "D", False), (2, "1", False)]),
    "seednorm": ([(2, "RD", False), (3, "D", False), (1, "R", True), (1, "RH", True)],
                 [(3, "RD", False), (6, "D", False), (1, "R", True), (1, "RH", True)]),
    "sdd_layer": ([(3, "RD", False), (1, "DD", False), (1, "D", False), (1, "R", True)],
                  [(4, "RD", False), (2, "DD", False), (2, "D", False), (1, "R", True)]),
}
BYTES_TERMS["seednorm_h16"] = BYTES_TERMS["seednorm"]

OPS = ["rmsnorm", "layernorm", "dyt", "seednorm", "seednorm_h16", "sdd_epilogue", "sdd_layer"]
DIRS = ["fwd", "fwd_bwd"]
DTYPES = ["bf16", "fp32", "fp64"]
HEADS = {"seednorm_h16": 16}
STORAGE_BYTES = {"bf16": 2, "fp32": 4, "fp64": 8}
ACC_BYTES = {"bf16": 4, "fp32": 4, "fp64": 8}


def bytes_moved(op, direction, rows, cols, heads, dtype):
    """cuda/bench/bytes.hpp's bytes_moved: what a pass must read and write, each once."""
    size = {"RD": rows * cols, "D": cols, "R": rows, "RH": rows * heads, "1": 1,
            "DD": cols * cols}
    fwd, bwd = BYTES_TERMS[op]
    terms = fwd if direction == "fwd" else bwd if direction == "bwd" else fwd + bwd
    return float(sum(count * size[s] * (ACC_BYTES[dtype] if acc else STORAGE_BYTES[dtype])
                     for count, s, acc in terms))


def gemm_flops(op, direction, rows, cols):
    if op != "sdd_layer":
        return 0.0
    one = 2.0 * rows * cols * cols
    return {"fwd": one, "bwd": 2 * one, "fwd_bwd": 3 * one}[direction]


def sweep_cols(quick):
    if quick:
        return [1024, 8192, 65536, 262144]
    return [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144]


def fail(message):
    print(f"bench_torch: {message}", file=sys.stderr)
    sys.exit(2)


def import_torch():
    try:
        import torch
    except ImportError as e:
        fail(f"PyTorch is not installed for {sys.executable} (import torch: {e}); "
             "run this with a python that has torch with CUDA")
    if not torch.cuda.is_available():
        fail(f"PyTorch {torch.__version__} sees no CUDA device "
             f"(torch.version.cuda = {torch.version.cuda}); nothing to time")
    return torch


def define_ops(torch):
    """The ops in plain torch: name -> function(x, *params)."""
    F = torch.nn.functional

    def rmsnorm(x, gamma):
        return F.rms_norm(x, (x.shape[-1],), gamma, eps=1e-6)

    def layernorm(x, gamma, beta):
        return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps=1e-5)

    def dyt(x, alpha, gamma, beta):
        return gamma * torch.tanh(alpha * x) + beta

    def seednorm(x, alpha, beta, gamma):
        # Algorithm 1: y = (tanh(x @ beta) * alpha + gamma) * x * rsqrt(mean(x^2) + eps)
        rms_inv = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        s = torch.tanh(x @ beta).unsqueeze(-1)
        return (s * alpha + gamma) * x * rms_inv

    def seednorm_h16(x, alpha, beta, gamma):
        # eq. 7: one sigma(x_h . beta_h) per head h; RMS over the whole row
        heads = 16
        rows, cols = x.shape
        w = cols // heads
        rms_inv = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        s = torch.tanh(torch.einsum("rhw,hw->rh", x.view(rows, heads, w), beta.view(heads, w)))
        scale = (s.unsqueeze(-1) * alpha.view(heads, w) + gamma.view(heads, w)).reshape(rows, cols)
        return scale * x * rms_inv

    def sdd_epilogue(z, alpha):
        return F.rms_norm(z, (z.shape[-1],), alpha, eps=0.0)

    def sdd_layer(x, V, alpha):
        z = F.linear(x, V)
        return F.rms_norm(z, (z.shape[-1],), alpha, eps=0.0)

    return {"rmsnorm": rmsnorm, "layernorm": layernorm, "dyt": dyt, "seednorm": seednorm,
            "seednorm_h16": seednorm_h16, "sdd_epilogue": sdd_epilogue, "sdd_layer": sdd_layer}


def make_inputs(torch, op, rows, cols, dtype):
    """x, dy and the op's parameters, drawn like cuda_bench's (ops.hpp)."""
    dev = "cuda"
    g = torch.Generator(device=dev)
    g.manual_seed(20261122)

    def uniform(shape, lo, hi):
        return (torch.rand(shape, generator=g, device=dev, dtype=torch.float64) * (hi - lo)
                + lo).to(dtype)

    x = uniform((rows, cols), -2.0, 2.0)
    dy = uniform((rows, cols), -1.0, 1.0)
    gamma = uniform((cols,), 0.5, 1.5)
    if op in ("rmsnorm", "sdd_epilogue"):
        params = [gamma]
    elif op == "layernorm":
        params = [gamma, uniform((cols,), -0.5, 0.5)]
    elif op == "dyt":
        params = [torch.full((1,), 0.5, device=dev, dtype=dtype), gamma,
                  uniform((cols,), -0.5, 0.5)]
    elif op in ("seednorm", "seednorm_h16"):
        b = 1.5 / math.sqrt(cols // HEADS.get(op, 1))
        params = [uniform((cols,), -0.5, 0.5), uniform((cols,), -b, b), gamma]
    elif op == "sdd_layer":
        b = math.sqrt(3.0 / cols)
        params = [uniform((cols, cols), -b, b), gamma]
    else:
        raise ValueError(op)
    return x, dy, params


class Timer:
    """CUDA events per call, an L2 flush before each call, median and spread."""

    def __init__(self, torch, warmup, reps):
        self.torch, self.warmup, self.reps = torch, warmup, reps
        props = torch.cuda.get_device_properties(0)
        self.l2_bytes = int(getattr(props, "L2_cache_size", 50 << 20))
        self.flush_buf = torch.ones(max(4 * self.l2_bytes, 64 << 20) // 4, device="cuda",
                                    dtype=torch.float32)

    def flush(self):
        self.flush_buf.sum()  # reads the whole buffer; L2 then holds clean lines only

    def time(self, fn):
        torch = self.torch
        t0 = time.perf_counter()
        for _ in range(self.warmup):
            self.flush()
            fn()
        torch.cuda.synchronize()
        warmup_s = time.perf_counter() - t0
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        for i in range(self.reps):
            self.flush()
            starts[i].record()
            fn()
            stops[i].record()
        torch.cuda.synchronize()
        return summarize([a.elapsed_time(b) for a, b in zip(starts, stops)]), warmup_s


def summarize(ms):
    """cuda_bench's summarize: median, nearest-rank p10 / p90, min, max, mean."""
    ms = sorted(ms)
    n = len(ms)

    def rank(q):
        return ms[min(max(math.ceil(q * n), 1), n) - 1]

    median = ms[n // 2] if n % 2 else 0.5 * (ms[n // 2 - 1] + ms[n // 2])
    return {"median_ms": median, "min_ms": ms[0], "p10_ms": rank(0.1), "p90_ms": rank(0.9),
            "max_ms": ms[-1], "mean_ms": sum(ms) / n, "reps": n}


def make_call(torch, fn, direction, x, dy, params):
    if direction == "fwd":
        def call():
            with torch.no_grad():
                fn(x, *params)
        return call
    inputs = [x.detach().requires_grad_(True)] + [p.detach().requires_grad_(True) for p in params]

    def call():
        y = fn(*inputs)
        torch.autograd.grad(y, inputs, dy)
    return call


def configure_dynamo(torch):
    import torch._dynamo
    cfg = torch._dynamo.config
    # every (op, shape, dtype, grad mode) is its own compiled graph: allow many
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        if hasattr(cfg, name):
            setattr(cfg, name, 4096)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", help="write the results here")
    p.add_argument("--quick", action="store_true", help="fewer reps and sweep points")
    p.add_argument("--op", default="all", help="comma-separated ops (default all)")
    p.add_argument("--dtype", default="all", help="comma-separated dtypes for eager (default all)")
    p.add_argument("--compile-dtypes", default="bf16",
                   help="dtypes that also run torch.compile (default bf16; 'none' for none)")
    p.add_argument("--compile-sweep", action="store_true", help="torch.compile the sweep too")
    p.add_argument("--compile-mode", default="default", help="torch.compile mode")
    p.add_argument("--no-sweep", action="store_true")
    p.add_argument("--shape", default="16384x4096", help="default shape RxD")
    p.add_argument("--reps", type=int, help="timed calls (default 50, quick 20)")
    p.add_argument("--warmup", type=int, help="warm-up calls (default 5, quick 3)")
    p.add_argument("--commit", default="unknown")
    p.add_argument("--date", default=None)
    a = p.parse_args()

    def pick(arg, universe, what):
        if arg == "all":
            return list(universe)
        if arg == "none":
            return []
        items = [s for s in arg.split(",") if s]
        for s in items:
            if s not in universe:
                p.error(f"unknown {what} '{s}' (one of {', '.join(universe)})")
        return items

    a.ops = pick(a.op, OPS, "op")
    a.dtypes = pick(a.dtype, DTYPES, "dtype")
    a.compile_dtypes = pick(a.compile_dtypes, DTYPES, "dtype")
    try:
        rows, cols = (int(v) for v in a.shape.lower().split("x"))
    except ValueError:
        p.error(f"--shape expects RxD, got '{a.shape}'")
    a.rows, a.cols = rows, cols
    a.reps = a.reps or (20 if a.quick else 50)
    a.warmup = a.warmup if a.warmup is not None else (3 if a.quick else 5)
    return a


def cases(args):
    """(op, dir, dtype, rows, cols, sweep, impls) in run order."""
    out = []
    dtypes = list(dict.fromkeys(args.dtypes + args.compile_dtypes))
    for dtype in dtypes:
        impls = (["eager"] if dtype in args.dtypes else []) + (
            ["compile"] if dtype in args.compile_dtypes else [])
        for op in args.ops:
            for d in DIRS:
                out.append((op, d, dtype, args.rows, args.cols, False, impls))
    if args.no_sweep or "bf16" not in dtypes:
        return out
    total = args.rows * args.cols
    impls = ["eager"] + (["compile"] if args.compile_sweep else [])
    for op in args.ops:
        if op == "sdd_layer":
            continue
        for d in DIRS:
            for n in sweep_cols(args.quick):
                if n == args.cols or total % n:
                    continue
                out.append((op, d, "bf16", total // n, n, True, impls))
    return out


def main():
    args = parse_args()
    torch = import_torch()
    configure_dynamo(torch)
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64}
    # full-precision fp32 GEMMs, as cuBLAS runs them for cuda_bench (no TF32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    ops = define_ops(torch)
    compiled = {name: torch.compile(fn, dynamic=False, mode=args.compile_mode)
                for name, fn in ops.items()}
    timer = Timer(torch, args.warmup, args.reps)
    props = torch.cuda.get_device_properties(0)
    date = args.date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"bench_torch on {props.name}: torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"date {date}, commit {args.commit}; {args.warmup} warm-up + {args.reps} timed calls, "
          f"L2 ({timer.l2_bytes / 1e6:.0f} MB) flushed before each")
    print(f"{'op':13} {'dir':7} {'dtype':5} {'shape':12} {'impl':7} {'MB':>9} {'median_ms':>10} "
          f"{'p10 - p90 ms':>21} {'GB/s':>8} {'compile_s':>9}")
    results, errors = [], []
    for op, d, dtype, rows, cols, sweep, impls in cases(args):
        if not impls:
            continue
        heads = HEADS.get(op, 1)
        try:
            x, dy, params = make_inputs(torch, op, rows, cols, dtypes[dtype])
        except RuntimeError as e:  # out of memory, say
            errors.append({"op": op, "dir": d, "dtype": dtype, "rows": rows, "cols": cols,
                           "impl": "inputs", "error": str(e).splitlines()[0]})
            print(f"{op:13} {d:7} {dtype:5} {rows}x{cols}: inputs failed: {errors[-1]['error']}")
            continue
        nbytes = bytes_moved(op, d, rows, cols, heads, dtype)
        flops = gemm_flops(op, d, rows, cols)
        for impl in impls:
            fn = ops[op] if impl == "eager" else compiled[op]
            try:
                stats, warmup_s = timer.time(make_call(torch, fn, d, x, dy, params))
            except Exception as e:  # a compile failure or OOM is reported, not fatal
                msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                errors.append({"op": op, "dir": d, "dtype": dtype, "rows": rows, "cols": cols,
                               "impl": impl, "error": msg})
                print(f"{op:13} {d:7} {dtype:5} {rows}x{cols} {impl}: FAILED {msg}")
                torch.cuda.synchronize()
                continue
            gbs = nbytes / (stats["median_ms"] * 1e-3) / 1e9
            r = {"op": op, "dir": d, "dtype": dtype, "rows": rows, "cols": cols, "heads": heads,
                 "sweep": sweep, "impl": impl, "bytes": nbytes, **stats, "gbs": gbs,
                 "gemm_flops": flops,
                 "tflops": flops / (stats["median_ms"] * 1e-3) / 1e12 if flops else 0.0,
                 "compile_s": round(warmup_s, 3) if impl == "compile" else None}
            results.append(r)
            extra = f" {r['tflops']:.0f} TFLOP/s" if flops else ""
            print(f"{op:13} {d:7} {dtype:5} {f'{rows}x{cols}':12} {impl:7} {nbytes / 1e6:9.1f} "
                  f"{stats['median_ms']:10.4f} {stats['p10_ms']:10.4f} - {stats['p90_ms']:<8.4f} "
                  f"{gbs:8.1f} {warmup_s if impl == 'compile' else 0:9.1f}{extra}", flush=True)
        del x, dy, params
    doc = {
        "schema": "scaleref.bench_torch/1", "tool": "bench_torch", "date": date,
        "commit": args.commit,
        "device": {"name": props.name, "multiprocessors": props.multi_processor_count,
                   "memory_gib": props.total_memory / 2**30, "l2_bytes": timer.l2_bytes},
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "settings": {"warmup": args.warmup, "reps": args.reps, "quick": args.quick,
                     "compile_mode": args.compile_mode, "compile_dtypes": args.compile_dtypes,
                     "compile_sweep": args.compile_sweep, "allow_tf32": False,
                     "l2_flush": "sum over a float32 buffer of 4 x L2 before every call",
                     "fwd": "under torch.no_grad()",
                     "fwd_bwd": "forward, then torch.autograd.grad(y, [x, *params], dy)"},
        "results": results, "errors": errors,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"bench_torch: wrote {args.json}")
    if errors:
        print(f"bench_torch: {len(errors)} case(s) failed (listed above and under 'errors')")
    return 1 if errors and not results else 0


if __name__ == "__main__":
    sys.exit(main())
