"""Every method from Python: shapes, defaults, settings, precision, and bad input."""

import numpy as np
import pytest

import scaleref
from scaleref import _scaleref

RNG = np.random.default_rng(20261125)


def randn(*shape):
    return RNG.standard_normal(shape)


LAYER_CASES = {
    "rmsnorm": dict(tensors={"gamma": (8,)}, d_out=8),
    "layernorm": dict(tensors={"gamma": (8,), "beta": (8,)}, d_out=8),
    "dyt": dict(tensors={"alpha": (), "gamma": (8,), "beta": (8,)}, d_out=8),
    "seednorm": dict(tensors={"alpha": (8,), "beta": (8,), "gamma": (8,)}, d_out=8),
    "adaseednorm": dict(
        tensors={"alpha": (8,), "beta": (8,), "gamma_c": (2, 3, 8), "eta_c": (2, 3, 8)}, d_out=8
    ),
    "sdd": dict(tensors={"V": (5, 8), "alpha": (5,)}, d_out=5),
    "linear": dict(tensors={"W": (5, 8)}, d_out=5),
    "scalevec": dict(tensors={"W": (5, 8), "g": (8,)}, d_out=5),
}


def test_every_listed_method_is_a_function():
    names = scaleref.methods()
    assert set(LAYER_CASES) | {"init", "uwr", "zwr", "tvr", "tvr_authors_code"} == set(names)
    for name in names:
        assert callable(getattr(scaleref, name))
        assert name in getattr(scaleref, name).__doc__


@pytest.mark.parametrize("method", sorted(LAYER_CASES))
def test_layers_keep_batch_dimensions_and_parameter_shapes(method):
    case = LAYER_CASES[method]
    x = randn(2, 3, 8)
    tensors = {k: randn(*s) for k, s in case["tensors"].items()}
    dy = randn(2, 3, case["d_out"])
    out = getattr(scaleref, method)(x, dy=dy, **tensors)
    assert out["y"].shape == (2, 3, case["d_out"])
    assert out["dx"].shape == x.shape
    for name, value in tensors.items():
        assert out["d" + name].shape == value.shape, name
    for value in out.values():
        assert value.dtype == np.float64 and np.isfinite(value).all()
    # the same call on the flattened batch gives the same numbers
    flat = {k: (v.reshape(6, -1) if v.shape[:2] == (2, 3) else v) for k, v in tensors.items()}
    ref = getattr(scaleref, method)(x.reshape(6, 8), dy=dy.reshape(6, -1), **flat)
    np.testing.assert_array_equal(ref["y"].reshape(out["y"].shape), out["y"])


def test_forward_only_returns_y():
    out = scaleref.rmsnorm(randn(4, 8))
    assert list(out) == ["y"]


def test_parameters_default_to_their_papers_initial_values():
    x, dy = randn(4, 8), randn(4, 8)
    left_out = scaleref.seednorm(x, dy=dy)
    given = scaleref.seednorm(x, np.ones(8), np.zeros(8), np.ones(8), dy=dy)  # alpha_init = 1
    for k in given:
        np.testing.assert_array_equal(left_out[k], given[k])
    # SeeDNorm at its initial values is RMSNorm (beta = 0, tanh(0) = 0), up to the
    # rounding of their different operation orders (a few ulps: rtol 8 u)
    np.testing.assert_allclose(left_out["y"], scaleref.rmsnorm(x)["y"], rtol=8 * 2.0**-53, atol=0)
    # alpha_init sets the left-out alpha
    a = scaleref.dyt(x, alpha_init=0.25)["y"]
    # tanh from two libraries: within 2 ulps of each other (rtol 4 u)
    np.testing.assert_allclose(a, np.tanh(0.25 * x), rtol=4 * 2.0**-53, atol=0)


def test_describe_gives_each_tensors_initial_value_and_weight_decay():
    """From the spec headers: SeeDNorm decays alpha and beta, not gamma (Sec. 3.1); alpha
    starts at the setting alpha_init; IWD decays an Input-Norm scale vector, not an
    Output-Norm one; x is an input (required, not decayed)."""
    inputs = {t["name"]: t for t in scaleref.describe("seednorm")["inputs"]}
    assert [inputs[n]["weight_decay"] for n in ("x", "alpha", "beta", "gamma")] == [
        False, True, True, False]
    assert inputs["alpha"]["initial"] == "setting" and inputs["alpha"]["initial_setting"] == "alpha_init"
    assert (inputs["beta"]["initial"], inputs["gamma"]["initial"]) == ("zeros", "ones")
    assert inputs["x"]["initial"] == "none" and inputs["x"]["required"]
    assert "Sec. 3.1" in inputs["alpha"]["decay_source"]
    dp = {t["name"]: t for t in _scaleref.inputs("scalevec", {"strategy": "DP"})}
    assert (dp["g"]["weight_decay"], dp["a"]["weight_decay"], dp["W"]["weight_decay"]) == (
        True, False, True)


def test_one_d_and_two_d_parameters_both_work_and_keep_their_shape():
    x, dy = randn(4, 8), randn(4, 8)
    one = scaleref.rmsnorm(x, RNG.uniform(0.5, 1.5, 8), dy=dy)
    two = scaleref.rmsnorm(x, one_row := one["dgamma"][None, :] * 0 + 1, dy=dy)
    assert one["dgamma"].shape == (8,) and two["dgamma"].shape == (1, 8)
    assert one_row.shape == (1, 8)


def test_settings_are_keywords_and_unread_ones_are_errors():
    x = randn(4, 8)
    assert scaleref.rmsnorm(x, eps=1e-3)["y"].shape == (4, 8)
    with pytest.raises(ValueError, match="heads is not read by scalevec with strategy=AP"):
        scaleref.scalevec(x, randn(5, 8), strategy="AP", heads=5)
    with pytest.raises(ValueError, match="alpha_init is alpha's initial value"):
        scaleref.seednorm(x, np.ones(8), alpha_init=2.0)
    with pytest.raises(ValueError, match="no setting or tensor named 'bias'"):
        scaleref.rmsnorm(x, bias=True)
    with pytest.raises(ValueError, match="expected a real number"):
        scaleref.rmsnorm(x, eps="small")
    # NumPy scalars are numbers, not tensors
    assert scaleref.rmsnorm(x, eps=np.float32(1e-3))["y"].shape == (4, 8)
    assert scaleref.layernorm(x, bias=np.bool_(False))["y"].shape == (4, 8)
    # SeeDNorm's alpha: a string is the setting, an array the tensor
    out = scaleref.seednorm(x, alpha="scalar", dy=randn(4, 8))
    assert out["dalpha"].shape == (1,)


def test_gelu_is_named_for_its_tanh_form():
    keys = {k["name"]: k for k in scaleref.describe("seednorm")["keys"]}
    assert "gelu_tanh" in keys["sigma"]["choices"] and "gelu" not in keys["sigma"]["choices"]
    x, beta = randn(4, 8), randn(8)
    z = x @ beta
    tanh_form = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z**3)))
    rms = np.sqrt((x**2).mean(axis=1) + 1e-6)
    want = (tanh_form[:, None] * 1.0 + 1.0) * x / rms[:, None]
    got = scaleref.seednorm(x, beta=beta, sigma="gelu_tanh")["y"]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_precision_50_reports_the_double_results_error():
    out = scaleref.layernorm(randn(4, 8), dy=randn(4, 8), precision=50)
    assert out.precision == 50 and set(out.double_error) == set(out)
    for err in out.double_error.values():
        assert 0 <= err["max_rel"] < 1e-14  # double against 50 digits: a few ulps
    assert scaleref.layernorm(randn(2, 8)).double_error is None


def test_initializers_and_rescalers():
    w = scaleref.init(method="XavierNormal", role="query", d_out=16, d_in=32, seed=3)["W"]
    assert w.shape == (16, 32)
    np.testing.assert_array_equal(
        w, scaleref.init(method="XavierNormal", role="query", d_out=16, d_in=32, seed=3)["W"]
    )
    u = scaleref.uwr(randn(4, 6))["W"]
    assert u.shape == (4, 6) and abs(np.linalg.norm(u) - 1) < 1e-15
    with pytest.raises(ValueError, match="sigma is not read by init"):
        scaleref.init(method="XavierNormal", role="query", d_out=4, d_in=4, sigma=0.1)
    with pytest.raises(ValueError, match="has no backward"):
        scaleref.uwr(randn(4, 6), dy=randn(4, 6))


def test_torch_tensors_and_bfloat16():
    torch = pytest.importorskip("torch")
    x = torch.randn(3, 8)
    want = scaleref.rmsnorm(x.numpy())["y"]
    np.testing.assert_array_equal(scaleref.rmsnorm(x)["y"], want)
    xb = x.bfloat16()
    np.testing.assert_array_equal(
        scaleref.rmsnorm(xb)["y"], scaleref.rmsnorm(xb.float().numpy())["y"]
    )
    with pytest.raises(TypeError, match="detach"):
        scaleref.rmsnorm(torch.randn(2, 4, requires_grad=True))


def test_every_layout_and_dtype_converts_to_the_same_values():
    # A C-order float64 array is copied by memcpy, any other by NumPy: both give
    # the values of the float64 C-order copy.
    x = randn(6, 8)
    want = scaleref.rmsnorm(x)["y"]
    strided = np.zeros((6, 16))
    strided[:, ::2] = x
    same_values = {
        "Fortran order": np.asfortranarray(x),
        "transposed view": np.ascontiguousarray(x.T).T,
        "strided view": strided[:, ::2],
        "big-endian": x.astype(">f8"),
    }
    for what, arr in same_values.items():
        np.testing.assert_array_equal(scaleref.rmsnorm(arr)["y"], want, err_msg=what)
    ints = np.arange(24).reshape(3, 8)
    np.testing.assert_array_equal(
        scaleref.rmsnorm(ints)["y"], scaleref.rmsnorm(ints.astype(float))["y"]
    )
    x32 = x.astype(np.float32)
    np.testing.assert_array_equal(
        scaleref.rmsnorm(x32)["y"], scaleref.rmsnorm(x32.astype(np.float64))["y"]
    )


def test_calls_in_a_row_read_their_own_inputs_and_leave_earlier_results_alone():
    # Converted inputs go into storage kept from the call before (same shape):
    # each call must see only its own values, a failed call must not poison the
    # next, and no call may write into the caller's arrays or earlier results.
    def rmsnorm(x, gamma, dy):  # the formula, in NumPy
        r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6)
        y = gamma * x / r
        g = dy * gamma
        dx = g / r - x * np.sum(g * x, axis=-1, keepdims=True) / (x.shape[-1] * r**3)
        return y, dx, np.sum(dy * x / r, axis=0)

    calls = [(randn(5, 8), randn(8), randn(5, 8)) for _ in range(3)]
    kept = [tuple(a.copy() for a in c) for c in calls]
    outs = []
    for i, (x, gamma, dy) in enumerate(calls):
        outs.append(scaleref.rmsnorm(x, gamma, dy=dy))
        with pytest.raises(ValueError, match="holds nan"):
            scaleref.rmsnorm(x, gamma, dy=np.full_like(dy, np.nan))
    for (x, gamma, dy), (x0, gamma0, dy0), out in zip(calls, kept, outs):
        for a, a0 in ((x, x0), (gamma, gamma0), (dy, dy0)):
            np.testing.assert_array_equal(a, a0)
        # Two double evaluations of one formula in different orders, D = 8, entries
        # O(1): a few ulp apart; 1e-13 (450 u) and, for the gradients' sums of
        # cancelling terms, 1e-12 bound that with room and still catch a wrong input.
        y, dx, dgamma = rmsnorm(x, gamma, dy)
        np.testing.assert_allclose(out["y"], y, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(out["dx"], dx, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(out["dgamma"], dgamma, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: scaleref.rmsnorm(np.array([[1.0, np.nan]])), ValueError, r"x holds nan at index \(0, 1\)"),
        (lambda: scaleref.rmsnorm(randn(2, 4), dy=np.full((2, 4), np.inf)), ValueError, r"dy holds inf at index \(0, 0\)"),
        (lambda: scaleref.rmsnorm(randn(2, 4), randn(5)), ValueError, r"expected gamma of shape \(D,\) or \(1, D\) with D = 4"),
        (lambda: scaleref.rmsnorm(randn(2, 4), dy=randn(3, 4)), ValueError, "leading dimensions"),
        (lambda: scaleref.rmsnorm(np.zeros((0, 4))), ValueError, "is empty"),
        (lambda: scaleref.rmsnorm(np.zeros(())), ValueError, r"expected x of shape \(\.\.\., D\)"),
        (lambda: scaleref.rmsnorm(np.array([["a"]])), TypeError, "float"),
        (lambda: scaleref.rmsnorm(np.ones((2, 2), dtype=complex)), TypeError, "float"),
        (lambda: scaleref.rmsnorm(np.array([[2**60, 1]], dtype=np.int64)), ValueError, "2\\^53"),
        (lambda: scaleref.linear(randn(2, 4)), ValueError, "missing input W"),
        (lambda: scaleref.rmsnorm(randn(2, 4), eps=-1.0), ValueError, "eps"),
        (lambda: scaleref.seednorm(randn(2, 4), alpha_init=float("nan")), ValueError, "finite alpha_init"),
        (lambda: scaleref.rmsnorm(randn(2, 4), precision=32), ValueError, "precision"),
        (lambda: scaleref.describe("norm"), ValueError, "unknown method"),
        (lambda: scaleref.rmsnorm(randn(2, 4), randn(4), randn(4)), TypeError, "at most 2 tensors"),
    ],
)
def test_bad_input_raises_with_the_cpp_message(call, error, match):
    with pytest.raises(error, match=match):
        call()
