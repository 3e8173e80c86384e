"""scaleref.testing: assert_close's derived tolerances and gradcheck."""

import numpy as np
import pytest

import scaleref
from scaleref import testing

RNG = np.random.default_rng(7)


def test_assert_close_passes_a_float32_rounding_of_the_oracle_and_reports_headroom():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    dy = RNG.standard_normal((16, 64)).astype(np.float32)
    ref = testing.reference("rmsnorm", {"x": x, "dy": dy})
    actual = {k: v.astype(np.float32) for k, v in ref.items()}
    reports = testing.assert_close(actual, "rmsnorm", {"x": x, "dy": dy}, dtype="fp32")
    by_name = {r["name"]: r for r in reports}
    assert set(by_name) == {"y", "dx", "dgamma"}
    assert by_name["dgamma"]["terms"] == 16 + 64  # N + D: the oracle's rule
    assert by_name["y"]["rtol"] == pytest.approx((16 + 64) * 2.0**-24)
    assert all(r["used"] < 1 for r in reports)


def test_assert_close_reports_every_number_of_a_mismatch():
    x = RNG.standard_normal((4, 8))
    ref = testing.reference("rmsnorm", {"x": x})
    bad = ref["y"].copy()
    bad[2, 5] += 1e-3
    with pytest.raises(AssertionError) as e:
        testing.assert_close({"y": bad}, "rmsnorm", {"x": x}, dtype="fp32")
    text = str(e.value)
    for needle in ("MISMATCH", "worst at [2, 5]", "1 of 32 entries off", "of the tolerance used",
                   "max abs err 1.000e-03"):
        assert needle in text, (needle, text)


def test_assert_close_bf16_allows_its_storage_rounding_and_fp64_does_not():
    x = RNG.standard_normal((4, 32))
    y = testing.reference("rmsnorm", {"x": x})["y"]
    rounded = y * (1 + 2.0**-9)  # half a bf16 ulp
    testing.assert_close({"y": rounded}, "rmsnorm", {"x": x}, dtype="bf16")
    with pytest.raises(AssertionError):
        testing.assert_close({"y": rounded}, "rmsnorm", {"x": x}, dtype="fp64")


def test_assert_close_refuses_unknown_outputs_shapes_and_dtypes():
    x = RNG.standard_normal((4, 8))
    y = testing.reference("rmsnorm", {"x": x})["y"]
    with pytest.raises(ValueError, match='no output "dgamma"'):
        testing.assert_close({"dgamma": np.ones(8)}, "rmsnorm", {"x": x})
    with pytest.raises(ValueError, match="has shape"):
        testing.assert_close({"y": y.T}, "rmsnorm", {"x": x})
    with pytest.raises(ValueError, match="dtype"):
        testing.assert_close({"y": y}, "rmsnorm", {"x": x}, dtype="fp8")


def test_a_nan_in_a_kernels_output_is_a_mismatch():
    x = RNG.standard_normal((4, 8))
    y = testing.reference("rmsnorm", {"x": x})["y"].copy()
    y[1, 1] = np.nan
    with pytest.raises(AssertionError, match="got nan"):
        testing.assert_close({"y": y}, "rmsnorm", {"x": x}, dtype="fp32")


def tanh_layer(bug=None):
    def f(x, w):
        z = x @ w
        y = np.tanh(z)

        def vjp(dy):
            s = dy * (1 - y**2)
            dx, dw = s @ w.T, x.T @ s
            if bug == "sign":
                dx = -dx
            if bug == "factor":
                dw = 2 * dw
            return dx, dw

        return y, vjp

    return f


def test_gradcheck_passes_a_right_vjp_and_catches_planted_bugs():
    inputs = {"x": RNG.standard_normal((3, 4)), "w": 0.5 * RNG.standard_normal((4, 5))}
    report = testing.gradcheck(tanh_layer(), inputs)
    slope = [c for c in report["checks"] if c["check"] == "taylor-double"][0]["slope"]
    assert report and abs(slope - 2) < 0.1
    for bug, name in (("sign", "x"), ("factor", "w")):
        bad = testing.gradcheck(tanh_layer(bug), inputs, raise_on_failure=False)
        assert not bad
        failed = {(c["check"], c["input"]) for c in bad["checks"] if not c["ok"]}
        assert ("fd-double", name) in failed and ("taylor-double", "all") in failed
        with pytest.raises(AssertionError, match="gradcheck failed"):
            testing.gradcheck(tanh_layer(bug), inputs)


def test_gradcheck_refuses_a_gradient_of_the_wrong_shape():
    x = RNG.standard_normal((2, 3, 4))

    def f(x):
        return np.sin(x), lambda dy: [(dy * np.cos(x)).reshape(6, 4)]

    with pytest.raises(ValueError, match=r"the gradient of input0 has shape \(6, 4\), its input \(2, 3, 4\)"):
        testing.gradcheck(f, [x])


def test_assert_close_on_an_elementwise_output_that_cancels():
    # DyT's y = gamma tanh(alpha x) + beta cancels where beta ~ -gamma tanh: a
    # float32 kernel's y there keeps an error of fp32's size relative to the
    # terms, not to y; atol relative to max|y| admits it (rtol alone would not).
    f32 = np.float32
    x = RNG.standard_normal((8, 16)).astype(f32)
    gamma = RNG.uniform(0.5, 1.5, 16).astype(f32)
    beta = (-gamma * np.tanh(f32(0.5) * x[0]) * f32(1 + 1e-5)).astype(f32)  # row 0 ~ 0
    y = gamma * np.tanh(f32(0.5) * x) + beta  # the kernel, in float32
    t = {"x": x, "gamma": gamma, "beta": beta}
    reports = testing.assert_close({"y": y}, "dyt", t, dtype="fp32")
    assert reports[0]["max_rel"] > reports[0]["rtol"]  # the cancelling entries


def test_gradcheck_of_the_oracle_itself():
    x, gamma = RNG.standard_normal((3, 6)), RNG.uniform(0.5, 1.5, 6)

    def f(x, gamma):
        y = scaleref.rmsnorm(x, gamma)["y"]
        return y, lambda dy: [scaleref.rmsnorm(x, gamma, dy=dy)[k] for k in ("dx", "dgamma")]

    assert testing.gradcheck(f, [x, gamma])
