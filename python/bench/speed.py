"""Per-call time of scaleref's Python functions against the C++ reference's own
time for the same call, in one process, alternating (the issue's target: within
1.5x at 64 x 4096 in double).

    PYTHONPATH=build/python python3 python/bench/speed.py [--reps 30] [--n 64] [--d 4096]

The C++ time is the oracle's evaluation on inputs already in its matrices
(_scaleref.time_reference: the reference's forward and backward, no conversion,
no Python); the Python time is the whole call, scaleref.<method>(..., dy=dy),
from NumPy arrays in to NumPy arrays out. Each figure is the median of --reps
calls; the ratio is Python over C++.
"""

import argparse
import statistics
import time

import numpy as np

import scaleref
from scaleref import _scaleref


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--d", type=int, default=4096)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    n, d = args.n, args.d
    x, dy = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    row = lambda lo, hi: rng.uniform(lo, hi, d)  # noqa: E731
    cases = {
        "rmsnorm": {"x": x, "gamma": row(0.5, 1.5), "dy": dy},
        "layernorm": {"x": x, "gamma": row(0.5, 1.5), "beta": row(-0.5, 0.5), "dy": dy},
        "dyt": {"x": x, "alpha": np.array(0.5), "gamma": row(0.5, 1.5), "beta": row(-0.5, 0.5), "dy": dy},
        "seednorm": {"x": x, "alpha": row(0.5, 1.5), "beta": 0.01 * row(-1, 1), "gamma": row(0.5, 1.5), "dy": dy},
    }
    print(f"{'method':<10} {'C++ ms':>9} {'Python ms':>10} {'ratio':>6}   ({n} x {d}, double, forward + backward, median of {args.reps})")
    for method, tensors in cases.items():
        f = getattr(scaleref, method)
        kwargs = {k: v for k, v in tensors.items() if k != "dy"}
        cpp, py = [], []
        for _ in range(args.reps):
            cpp.append(_scaleref.time_reference(method, {}, tensors, 1))
            t0 = time.perf_counter()
            out = f(dy=tensors["dy"], **kwargs)
            py.append(time.perf_counter() - t0)
            del out  # freed after the clock stops, as the C++ side frees its outputs
        c, p = statistics.median(cpp), statistics.median(py)
        print(f"{method:<10} {1e3 * c:9.3f} {1e3 * p:10.3f} {p / c:6.2f}")


if __name__ == "__main__":
    main()
