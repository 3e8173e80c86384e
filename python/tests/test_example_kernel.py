"""The example of a kernel test: a hand-written float32 SeeDNorm "kernel" in
NumPy (forward and backward), validated against the oracle with
scaleref.testing.assert_close, and the same harness catching a planted bug in
its gradient. Copy this file's shape into your own kernel's tests.

SeeDNorm (seednorm eq. 4, one head, alpha and beta vectors, sigma = tanh):
    r = 1 / sqrt(mean(x^2) + eps),  x_hat = x r,  s = tanh(x . beta)
    y = (s alpha + gamma) (.) x_hat
"""

import numpy as np
import pytest

from scaleref import testing

EPS = 1e-6


def seednorm_kernel(x, alpha, beta, gamma, dy, bug=False):
    """float32 forward and backward, as a GPU kernel would compute them."""
    f32 = np.float32
    r = f32(1) / np.sqrt((x * x).mean(axis=-1, keepdims=True) + f32(EPS))
    x_hat = x * r
    s = np.tanh(x @ beta)[..., None]
    scale = s * alpha + gamma
    y = scale * x_hat
    # backward: g = dy (.) scale; dx through x_hat and through s
    g = dy * scale
    dx_hat = r * (g - x_hat * (g * x_hat).mean(axis=-1, keepdims=True))
    ds = (dy * alpha * x_hat).sum(axis=-1, keepdims=True) * (1 - s * s)
    dx = dx_hat + ds * beta
    rows = tuple(range(x.ndim - 1))
    dalpha = (dy * s * x_hat).sum(axis=rows)
    dbeta = (ds * x).sum(axis=rows)
    dgamma = (dy * x_hat).sum(axis=rows)
    if bug:  # the classic slip: forgetting tanh's derivative in dbeta
        dbeta = ((dy * alpha * x_hat).sum(axis=-1, keepdims=True) * x).sum(axis=rows)
    return {"y": y, "dx": dx, "dalpha": dalpha, "dbeta": dbeta, "dgamma": dgamma}


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    f32 = np.float32
    return {
        "x": rng.standard_normal((4, 16, 256)).astype(f32),  # [batch, seq, D]
        "alpha": rng.uniform(0.5, 1.5, 256).astype(f32),
        "beta": (0.05 * rng.standard_normal(256)).astype(f32),
        "gamma": rng.uniform(0.5, 1.5, 256).astype(f32),
        "dy": rng.standard_normal((4, 16, 256)).astype(f32),
    }


def test_the_float32_kernel_matches_the_oracle():
    t = inputs()
    out = seednorm_kernel(**t)
    reports = testing.assert_close(out, "seednorm", t, {"eps": EPS}, dtype="fp32")
    assert {r["name"] for r in reports} == {"y", "dx", "dalpha", "dbeta", "dgamma"}


def test_the_harness_catches_a_planted_gradient_bug():
    t = inputs()
    out = seednorm_kernel(**t, bug=True)
    with pytest.raises(AssertionError) as e:
        testing.assert_close(out, "seednorm", t, {"eps": EPS}, dtype="fp32")
    text = str(e.value)
    assert "dbeta (256,): MISMATCH" in text  # and only dbeta
    assert "dalpha (256,): ok" in text and "dx (4, 16, 256): ok" in text
