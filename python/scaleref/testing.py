"""Testing a kernel, or a derivation, against scaleref's oracle.

assert_close(actual, method, inputs, settings, dtype)
    compares a kernel's outputs (y, dx, d<param>, ...) with the reference's on
    the same inputs, under the tolerances cuda_check uses, derived from the
    kernel's storage type and the length of the sums behind each output (one
    implementation, scaleref/oracle/ in C++):

        rtol = (16 + terms) u + k 2^-p    atol = rtol * max|oracle|  (outputs of sums)

    u is the accumulator's unit roundoff (2^-53 for fp64, 2^-24 otherwise),
    `terms` the longest sum the output goes through (a row's D for y and dx, N
    rows + D for a parameter gradient, N D for a scalar one), k the storage
    roundings on its path and 2^-p the storage type's half ulp (bf16 2^-8, fp16
    2^-11). It raises AssertionError with, per failing tensor, the max abs and
    rel error, the worst index with both values, the number of mismatches and
    the share of the tolerance used; it returns the per-tensor reports.

gradcheck(f, inputs)
    checks a user's own function and its vector-Jacobian product against
    central finite differences with the project's step rule, the transposition
    identity, and the Taylor remainder's slope (2 for a right gradient, 1 for a
    wrong one): the C++ verifier (scaleref/verify/gradcheck.hpp) in double.
"""

import numpy as np

from . import _as_numpy, _digits, _METHODS, _run, _scaleref, _setting_text

__all__ = ["assert_close", "gradcheck", "reference", "Report"]

_DTYPES = ("bf16", "fp16", "fp32", "fp64")


def _format(report):
    idx = ", ".join(str(i) for i in report["worst_index"])
    return (
        f"  {report['name']} {tuple(report['shape'])}: "
        f"{'ok' if report['passed'] else 'MISMATCH'}  max abs err {report['max_abs']:.3e}, "
        f"max rel err {report['max_rel']:.3e}; worst at [{idx}]: got {report['got']!r}, "
        f"want {report['want']!r}; {report['mismatches']} of {report['count']} entries off; "
        f"{report['used']:.3g} of the tolerance used "
        f"(atol {report['atol']:.2e}, rtol {report['rtol']:.2e}: {report['kind']}, "
        f"{report['why']})"
    )


def assert_close(actual, method, inputs, settings=None, dtype="fp32", precision=None):
    """Asserts that a kernel's outputs match the oracle's on the same inputs.

    actual:   dict of the kernel's outputs by the oracle's names ("y", "dx",
              "dgamma", ...), any subset, each in the shape the oracle returns
              (that of the corresponding input; y shaped like x but for d_out).
    method:   a name of scaleref.methods().
    inputs:   dict of the tensors the kernel read ("x", parameters, "dy"), as it
              read them (rounded to its storage type).
    settings: dict of the method's settings (scaleref.describe(method)).
    dtype:    the kernel's storage type: "bf16", "fp16", "fp32" or "fp64".
    precision: None (double oracle) or 50 (the 50-digit oracle).

    Returns the per-tensor reports (dicts); raises AssertionError on a mismatch.
    """
    if method not in _METHODS:
        raise ValueError(f'unknown method "{method}": expected one of {", ".join(_METHODS)}')
    if dtype not in _DTYPES:
        raise ValueError(f"dtype: expected one of {', '.join(_DTYPES)}, got {dtype!r}")
    if not isinstance(actual, dict) or not actual:
        raise TypeError("actual: expected a non-empty dict of the kernel's outputs by name")
    if not isinstance(inputs, dict):
        raise TypeError("inputs: expected a dict of the tensors the kernel read, by name")
    settings = {k: _setting_text(k, v) for k, v in (settings or {}).items()}
    arrays = {name: _as_numpy(value, name) for name, value in inputs.items()}
    got = {name: _as_numpy(value, name) for name, value in actual.items()}
    reports = _scaleref.check(method, settings, arrays, got, dtype, _digits(precision))
    failed = [r for r in reports if not r["passed"]]
    if failed:
        lines = [f"{method} ({dtype}): {len(failed)} of {len(reports)} outputs off the oracle"]
        lines += [_format(r) for r in reports]
        raise AssertionError("\n".join(lines))
    return reports


class Report(dict):
    """gradcheck's result: "ok", "report" (the verifier's text) and "checks"."""

    def __bool__(self):
        return bool(self["ok"])

    def __str__(self):
        return self["report"]


def gradcheck(f, inputs, *, seed=20261122, full_jacobian_limit=4096, raise_on_failure=True):
    """Checks f's vector-Jacobian product against finite differences.

    f(*inputs) returns (y, vjp) where vjp(dy) returns one gradient per input,
    each shaped like its input (the jax.vjp convention). inputs is a list of
    arrays, or a dict of them by name (the names appear in the report).

    Runs, in double: every Jacobian entry (while outputs x input entries <=
    full_jacobian_limit, else random projections against sampled entries)
    against central finite differences with step eta max(|x_j|, rms(x)),
    eta = eps^(1/3), Richardson-extrapolated; <u, J^T v> against <J u, v>; and
    the Taylor remainder |f(x + t d) - f(x) - t <g, d>| for t = 1e-2 / 2^k,
    whose log-log slope must be >= 1.9.

    Returns a Report (truthy when every check passed); raises AssertionError
    with the report when one failed, unless raise_on_failure is False.
    """
    if isinstance(inputs, dict):
        names = list(inputs)
        values = list(inputs.values())
    else:
        values = list(inputs)
        names = [f"input{i}" for i in range(len(values))]
    arrays = [_as_numpy(v, n) for n, v in zip(names, values)]

    def forward(xs):
        y, _ = f(*xs)
        return np.asarray(y, dtype=np.float64)

    def backward(xs, dy):
        _, vjp = f(*xs)
        grads = vjp(dy)
        return [np.asarray(g, dtype=np.float64) for g in grads]

    result = Report(
        _scaleref.gradcheck(forward, backward, names, arrays, seed, full_jacobian_limit)
    )
    if raise_on_failure and not result:
        raise AssertionError("gradcheck failed:\n" + result["report"])
    return result


def reference(method, inputs, settings=None, precision=None):
    """The oracle's outputs for `inputs` (a dict by name, "dy" for the backward)."""
    if method not in _METHODS:
        raise ValueError(f'unknown method "{method}": expected one of {", ".join(_METHODS)}')
    settings = {k: _setting_text(k, v) for k, v in (settings or {}).items()}
    return _run(method, settings, dict(inputs), precision)
