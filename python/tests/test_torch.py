"""scaleref.torch: the operators and modules against autograd's finite differences, against
plain-torch implementations written here from the papers' formulas, and against the oracle
(scaleref.testing.assert_close), on every target this build and machine have: "default"
(the reference on CPU tensors), "emu" (the CUDA kernels through the emulator, CPU tensors)
and "cuda" (the CUDA kernels on CUDA tensors: a torch with CUDA, and a GPU).

Tolerances. Two float64 evaluations of one formula differ by the rounding of their
sums: a sum of n terms carries at most (n - 1) u sum|t_i| (Higham eq. 4.4, u = 2^-53), and
16 u covers the chain of roundings around it (the oracle's rule,
scaleref/oracle/tolerance.hpp). So an output is compared entrywise with
|got - want| <= rtol |want| + rtol max|want|, rtol = (16 + n) u, where n is the longest
sum any output of the case depends on: N x width, a scalar gradient's sum over every
entry (DyT's alpha; the width is D, or d_in + d_out for a linear layer, a row of the GEMM
and one of the norm). It is loose for the outputs with shorter sums (y and dx: a row).
"""

import math
import os

import pytest

torch = pytest.importorskip("torch")
st = pytest.importorskip("scaleref.torch", reason="scaleref was built without the torch extension")

import scaleref  # noqa: E402
import scaleref.testing  # noqa: E402
from torch_plain import (  # noqa: E402  (python/tests/torch_plain.py)
    plain_adaseednorm,
    plain_dyt,
    plain_layernorm,
    plain_rmsnorm,
    plain_scalevec,
    plain_sdd,
    plain_seednorm,
)

U = 2.0**-53
HAS_EMU = os.path.exists(os.path.join(os.path.dirname(st.__file__), "libscaleref_torch_emu.so"))
HAS_CUDA = torch.cuda.is_available() and st.has_cuda_kernels()
TARGETS = ["default"] + (["emu"] if HAS_EMU else []) + (["cuda"] if HAS_CUDA else [])
# A module called with other parameter values: torch.func's (2.0+; torch 2.x deprecates
# the older name, which torch 1.13 alone has).
functional_call = (torch.func.functional_call if hasattr(torch, "func")
                   else torch.nn.utils.stateless.functional_call)


def _backend(target):
    return "emu" if target == "emu" else "default"


def _device(target):
    return "cuda" if target == "cuda" else "cpu"
N, D = 6, 8  # rows and width of the small cases


def _rand(*shape, dtype=torch.float64, seed=0, scale=1.0, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype).to(device)


def _perturb(module, seed=1):
    """Moves every parameter off its initial value (beta = 0 would hide beta's terms)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=g, dtype=torch.float64).to(p.dtype))
    return module


# ---- the cases: (id, module factory, plain, batch inputs besides x, x's width, terms) ----


def _cases():
    out = [
        ("rmsnorm", lambda b: st.RMSNorm(D, backend=b), plain_rmsnorm),
        ("rmsnorm-no-gain", lambda b: st.RMSNorm(D, elementwise_affine=False, backend=b),
         plain_rmsnorm),
        ("layernorm", lambda b: st.LayerNorm(D, backend=b), plain_layernorm),
        ("layernorm-no-bias", lambda b: st.LayerNorm(D, bias=False, backend=b), plain_layernorm),
        ("dyt", lambda b: st.DyT(D, backend=b), plain_dyt),
        ("dyt-no-bias", lambda b: st.DyT(D, bias=False, backend=b), plain_dyt),
        ("seednorm", lambda b: st.SeeDNorm(D, backend=b), plain_seednorm),
        ("seednorm-heads2", lambda b: st.SeeDNorm(D, heads=2, backend=b), plain_seednorm),
        ("seednorm-scalar-alpha", lambda b: st.SeeDNorm(D, alpha="scalar", backend=b),
         plain_seednorm),
        ("seednorm-no-alpha-no-gamma", lambda b: st.SeeDNorm(D, alpha="none", gamma=False,
                                                             backend=b), plain_seednorm),
    ]
    for sigma in ("sigmoid", "hardtanh", "softsign", "gelu_tanh", "swish"):
        out.append((f"seednorm-{sigma}", lambda b, s=sigma: st.SeeDNorm(D, sigma=s, backend=b),
                    plain_seednorm))
    out += [
        ("seednorm-beta-elementwise", lambda b: st.SeeDNorm(D, beta="elementwise", backend=b),
         plain_seednorm),
        ("adaseednorm", lambda b: st.AdaSeeDNorm(D, backend=b), plain_adaseednorm),
        ("adaseednorm-heads2", lambda b: st.AdaSeeDNorm(D, heads=2, backend=b), plain_adaseednorm),
        ("sdd", lambda b: st.SDDLinear(D, 5, backend=b), plain_sdd),
        ("sdd-eps", lambda b: st.SDDLinear(D, 5, eps=1e-6, backend=b), plain_sdd),
    ]
    for s in ("none", "standard", "AP", "DP", "MD"):
        out.append((f"scalevec-{s}", lambda b, s=s: st.ScaleVectorLinear(D, 6, strategy=s,
                                                                          backend=b),
                    plain_scalevec))
    out.append(("scalevec-DNP-heads2", lambda b: st.ScaleVectorLinear(D, 6, strategy="DNP", heads=2,
                                                                     backend=b), plain_scalevec))
    return out


CASES = _cases()
# What only the reference has (the kernels refuse it with a message naming the reference).
REFERENCE_ONLY = {"seednorm-beta-elementwise"}


def _params(case, target):
    if target != "default" and case[0] in REFERENCE_ONLY:
        pytest.skip("the kernels have beta_form 'dot' only (test_kernels_refuse_reference_forms)")
    torch.manual_seed(0)
    return _perturb(case[1](_backend(target)).double()).to(_device(target))


def _conditions(module, x):
    if isinstance(module, st.AdaSeeDNorm):
        return (0.3 * _rand(*x.shape, seed=7, device=x.device),
                0.3 * _rand(*x.shape, seed=8, device=x.device))
    return ()


def _terms(module):
    """The longest sum any output depends on (the module docstring's n)."""
    width = getattr(module, "d", None) or (module.d_in + module.d_out)
    return N * width


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_float64(case, target):
    """Every op's backward against autograd's central differences, in float64."""
    module = _params(case, target)
    names = [n for n, _ in module.named_parameters()]
    width = module.d if hasattr(module, "d") else module.d_in
    x = _rand(2, 3, width, seed=3, device=_device(target)).requires_grad_()
    extra = tuple(c.requires_grad_() for c in _conditions(module, x))
    params = tuple(p.detach().clone().requires_grad_() for p in module.parameters())

    def f(x, *rest):
        values = dict(zip(names, rest[: len(names)]))
        return functional_call(module, values, (x, *rest[len(names):]))

    # eps 1e-6, atol 1e-5: central differences of a smooth function with O(1) second
    # derivatives err by ~eps^2 + u / eps ~ 1e-10; hardtanh's kink is kept away (|z| < 1 here).
    assert torch.autograd.gradcheck(f, (x, *params, *extra), eps=1e-6, atol=1e-5, rtol=1e-4)


def _compare(got, want, terms, what):
    rtol = (16 + terms) * U
    scale = want.abs().max().item()
    err = (got - want).abs()
    bound = rtol * want.abs() + rtol * scale
    assert bool((err <= bound).all()), (
        f"{what}: max |err| {err.max().item():.3e} over the bound (rtol {rtol:.2e}, "
        f"max|want| {scale:.3e})"
    )


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_plain_torch_float64(case, target):
    """y and every gradient against autograd through the plain formula, in float64."""
    module = _params(case, target)
    plain = case[2]
    device = _device(target)
    x = _rand(N, module.d if hasattr(module, "d") else module.d_in, seed=4, device=device)
    x.requires_grad_()
    extra = tuple(c.requires_grad_() for c in _conditions(module, x))
    dy_cols = module.d if hasattr(module, "d") else module.d_out
    dy = _rand(N, dy_cols, seed=5, device=device)

    y = module(x, *extra)
    grads = torch.autograd.grad(y, (x, *module.parameters(), *extra), dy)
    want = plain(module, x, *extra)
    want_grads = torch.autograd.grad(want, (x, *module.parameters(), *extra), dy)
    terms = _terms(module)
    _compare(y.detach(), want.detach(), terms, "y")
    names = ["x"] + [n for n, _ in module.named_parameters()] + ["gamma_c", "eta_c"][: len(extra)]
    for name, g, w in zip(names, grads, want_grads):
        _compare(g, w, terms, f"d{name}")


def _oracle_inputs(module, x, extra, dy):
    """The tensors the op read, by the oracle's names, and the oracle's settings."""
    inputs = {"x": x, "dy": dy}
    inputs.update({n: p.detach() for n, p in module.named_parameters()})
    if extra:
        inputs["gamma_c"], inputs["eta_c"] = extra
    if isinstance(module, st.RMSNorm):
        return inputs, {"eps": module.eps}
    if isinstance(module, st.LayerNorm):
        return inputs, {"eps": module.eps, "bias": module.bias}
    if isinstance(module, st.DyT):
        return inputs, {"bias": module.bias}
    if isinstance(module, (st.SeeDNorm, st.AdaSeeDNorm)):
        settings = {"eps": module.eps, "sigma": module.sigma, "heads": module.heads,
                    "alpha": module.alpha_form, "beta": module.beta_form}
        if isinstance(module, st.SeeDNorm):
            settings["gamma"] = module.gamma_on
        return inputs, settings
    if isinstance(module, st.SDDLinear):
        return inputs, {"eps": module.eps}
    settings = {"strategy": module.strategy, "eps": module.eps}
    if module.strategy == "DNP":
        settings["heads"] = module.heads
    return inputs, settings


METHOD = {st.RMSNorm: "rmsnorm", st.LayerNorm: "layernorm", st.DyT: "dyt", st.SeeDNorm: "seednorm",
          st.AdaSeeDNorm: "adaseednorm", st.SDDLinear: "sdd", st.ScaleVectorLinear: "scalevec"}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_storage_types_against_the_oracle(case, target, dtype):
    """float32 and bfloat16: y and the gradients against the oracle on the same (rounded)
    inputs, under the kernels' tolerance table (scaleref.testing.assert_close); on the
    reference's own target, each entry also the oracle's value rounded once."""
    module = _params(case, target).to(dtype)
    width = module.d if hasattr(module, "d") else module.d_in
    device = _device(target)
    x = _rand(N, width, dtype=dtype, seed=4, device=device).requires_grad_()
    extra = tuple(c.to(dtype).requires_grad_() for c in _conditions(module, x))
    dy_cols = module.d if hasattr(module, "d") else module.d_out
    dy = _rand(N, dy_cols, dtype=dtype, seed=5, device=device)
    y = module(x, *extra)
    assert y.dtype == dtype
    grads = torch.autograd.grad(y, (x, *module.parameters(), *extra), dy)
    names = ["dx"] + [f"d{n}" for n, _ in module.named_parameters()]
    names += ["dgamma_c", "deta_c"][: len(extra)]
    actual = {"y": y.detach().float().cpu(), **{n: g.float().cpu() for n, g in zip(names, grads)}}
    inputs, settings = _oracle_inputs(module, x.detach(), tuple(e.detach() for e in extra), dy)
    inputs = {k: v.cpu() for k, v in inputs.items()}
    # A parameter held 1-D comes back from the oracle in the shape it was given.
    scaleref.testing.assert_close(actual, METHOD[type(module)], inputs, settings,
                                  dtype="fp32" if dtype == torch.float32 else "bf16")
    if target == "default":
        # The CPU path is the reference: double on the rounded inputs, each output rounded
        # once to the storage type. Under the kernels' tolerances above, a path that computed
        # in float32 (or rounded twice) would pass; here every entry must be the oracle's
        # double value rounded to the storage type, give or take one unit in the last place
        # where two double evaluations straddle a rounding boundary (they differ by a few
        # units of 2^-53, against the 2^-24 (float32) or 2^-8 (bfloat16) between boundaries).
        want = scaleref.testing.reference(METHOD[type(module)], inputs, settings)
        for name, got in actual.items():
            rounded = torch.as_tensor(want[name]).reshape(got.shape).to(dtype)
            steps = _ulps_apart(got.to(dtype), rounded)
            assert steps.max().item() <= 1, (
                f"{name}: {steps.max().item()} units in the last place from the oracle rounded "
                f"to {dtype} at {tuple(torch.nonzero(steps == steps.max())[0].tolist())}")


def _ulps_apart(a, b):
    """Entrywise distance of two float32 or bfloat16 tensors in units in the last place:
    their bit patterns as integers, ordered like the values (sign-magnitude to two's
    complement)."""
    ints, mask = (torch.int32, 0x7FFFFFFF) if a.dtype == torch.float32 else (torch.int16, 0x7FFF)

    def ordered(t):
        bits = t.contiguous().view(ints).long()
        return torch.where(bits < 0, -(bits & mask), bits)

    return (ordered(a) - ordered(b)).abs()


def test_ulps_apart_counts_representable_values_between():
    """_ulps_apart: 0 for equal values (and for -0 against +0), 1 for neighbours, across zero
    the steps on both sides, in float32 and in bfloat16 (whose neighbours of 1 are 2^-7 and
    2^-8 away)."""
    f = torch.tensor([1.0, 1.0, -1.0, -0.0, 0.0, 2.0], dtype=torch.float32)
    g = torch.nextafter(f, torch.tensor(math.inf))
    tiny = torch.tensor(1e-45, dtype=torch.float32)  # the least subnormal
    assert _ulps_apart(f, f).tolist() == [0] * 6
    assert _ulps_apart(f, g).tolist() == [1] * 6
    assert _ulps_apart(-tiny, tiny).item() == 2
    assert _ulps_apart(torch.tensor(-0.0), torch.tensor(0.0)).item() == 0
    b = torch.tensor([1.0, 1.0, -1.0], dtype=torch.bfloat16)
    c = torch.tensor([1.0 + 2.0**-7, 1.0 + 2.0**-6, -1.0 + 2.0**-8], dtype=torch.bfloat16)
    assert _ulps_apart(b, c).tolist() == [1, 2, 1]


@pytest.mark.parametrize("target", TARGETS)
def test_leading_dimensions_and_non_contiguous_input(target):
    """[2, 3, D] gives the [6, D] rows' results; a transposed (non-contiguous) x the same."""
    m = _perturb(st.SeeDNorm(D, heads=2, backend=_backend(target)).double()).to(_device(target))
    x = _rand(2, 3, D, seed=9, device=_device(target))
    torch.testing.assert_close(m(x).reshape(6, D), m(x.reshape(6, D)), rtol=0, atol=0)
    xt = _rand(D, 6, seed=9, device=_device(target)).t()
    assert not xt.is_contiguous()
    torch.testing.assert_close(m(xt), m(xt.contiguous()), rtol=0, atol=0)


@pytest.mark.parametrize("target", TARGETS)
def test_backward_with_non_contiguous_input_and_parameter(target):
    """A transposed x and a transposed V give the gradients of their contiguous copies."""
    backend, device = _backend(target), _device(target)
    m = _perturb(st.SDDLinear(D, 5, backend=backend).double()).to(device)
    x = _rand(D, N, seed=12, device=device).t().requires_grad_()
    v = torch.nn.Parameter(m.V.detach().t().contiguous().t())  # V's values, strides (1, 5)
    assert not x.is_contiguous() and not v.is_contiguous()
    dy = _rand(N, 5, seed=13, device=device)
    y = functional_call(m, {"V": v, "alpha": m.alpha}, (x,))
    grads = torch.autograd.grad(y, (x, v), dy)
    xc = x.detach().contiguous().requires_grad_()
    yc = m(xc)
    want = torch.autograd.grad(yc, (xc, m.V), dy)
    torch.testing.assert_close(y, yc, rtol=0, atol=0)
    for g, w in zip(grads, want):
        torch.testing.assert_close(g, w, rtol=0, atol=0)


@pytest.mark.parametrize("target", TARGETS)
def test_one_output_column_and_empty_batches(target):
    """d_out = 1 keeps V and W 2-D; a batch of no rows gives no rows and zero parameter
    gradients (a sum over no rows), as torch's own norms do."""
    backend, device = _backend(target), _device(target)
    for m in (st.SDDLinear(D, 1, backend=backend), st.ScaleVectorLinear(D, 1, strategy="DP",
                                                                         backend=backend)):
        m = m.double().to(device)
        assert next(m.parameters()).shape == (1, D)
        assert m(_rand(3, D, device=device)).shape == (3, 1)
    for m in (st.RMSNorm(D, backend=backend), st.SeeDNorm(D, backend=backend),
              st.SDDLinear(D, 4, backend=backend)):
        m = m.double().to(device)
        x = torch.zeros(0, 3, D, dtype=torch.float64, device=device, requires_grad=True)
        y = m(x)
        assert y.shape == (0, 3, 4 if isinstance(m, st.SDDLinear) else D)
        grads = torch.autograd.grad(y.sum(), (x, *m.parameters()))
        assert grads[0].shape == x.shape
        assert all(torch.equal(g, torch.zeros_like(g)) for g in grads[1:])


def test_autocast_runs_in_the_activations_dtype():
    """Under autocast a bf16 activation meets float32 parameters: they enter in bf16 and
    their gradients come back in float32."""
    lin, norm = torch.nn.Linear(D, D), st.SeeDNorm(D)
    x = torch.randn(4, D)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = lin(x)
        assert h.dtype == torch.bfloat16
        y = norm(h)
    assert y.dtype == torch.bfloat16
    y.float().sum().backward()
    assert norm.gamma.grad.dtype == torch.float32 and norm.gamma.grad.abs().sum() > 0


def test_state_dict_round_trip_and_repr():
    a = _perturb(st.SeeDNorm(D, heads=2, sigma="softsign").double())
    b = st.SeeDNorm(D, heads=2, sigma="softsign").double()
    b.load_state_dict(a.state_dict())
    x = _rand(N, D)
    torch.testing.assert_close(a(x), b(x), rtol=0, atol=0)
    assert sorted(a.state_dict()) == ["alpha", "beta", "gamma"]
    assert repr(a) == ("SeeDNorm(8, eps=1e-06, sigma='softsign', heads=2, alpha='vector', "
                       "beta='dot', alpha_init=1.0, gamma=True)")
    assert repr(st.ScaleVectorLinear(4, 3, strategy="MD")) == (
        "ScaleVectorLinear(4, 3, strategy='MD', eps=1e-06, heads=1)")


def test_initial_values_are_the_papers():
    """From the spec: SeeDNorm alpha = alpha_init (1), beta = 0, gamma = 1; DyT alpha = 0.5;
    scale vectors 1; SDD's alpha 1 and V ~ N(0, 1 / (2.5 d_in))."""
    s = st.SeeDNorm(16)
    assert torch.equal(s.alpha, torch.ones(16)) and torch.equal(s.beta, torch.zeros(16))
    assert torch.equal(s.gamma, torch.ones(16))
    assert st.SeeDNorm(16, alpha_init=0.1).alpha[0].item() == pytest.approx(0.1)
    assert st.DyT(16).alpha.item() == 0.5 and st.DyT(16).alpha.shape == (1,)
    v = st.ScaleVectorLinear(16, 4, strategy="MD")
    assert v.r.shape == (1,) and torch.equal(v.u, torch.ones(16))
    torch.manual_seed(0)
    sdd = st.SDDLinear(256, 512)
    assert torch.equal(sdd.alpha, torch.ones(512))
    # The sample std of 131072 normal draws is within 1% of sigma (5 sigma of its own spread).
    assert sdd.V.std().item() == pytest.approx(1 / math.sqrt(2.5 * 256), rel=0.01)


# ---- the rules -----------------------------------------------------------------------


def test_param_groups_follow_the_papers():
    model = torch.nn.Sequential(
        st.SeeDNorm(8), st.SDDLinear(8, 6), st.ScaleVectorLinear(6, 4, strategy="DP"),
        st.DyT(4), torch.nn.Linear(4, 2),
    )
    decay, no_decay = st.param_groups(model, 0.1)
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    named = {id(p): n for n, p in model.named_parameters()}
    got = sorted(named[id(p)] for p in decay["params"])
    assert got == ["0.alpha", "0.beta", "1.V", "1.alpha", "2.W", "2.g", "4.bias", "4.weight"]
    decay, _ = st.param_groups(model, 0.1, others="matrices", scale_vectors="decay_none")
    assert sorted(named[id(p)] for p in decay["params"]) == [
        "0.alpha", "0.beta", "1.V", "1.alpha", "2.W", "4.weight"]
    decay, _ = st.param_groups(model, 0.1, scale_vectors="decay_all")
    assert {"2.a", "2.g"} <= {named[id(p)] for p in decay["params"]}
    with pytest.raises(ValueError, match="scale_vectors"):
        st.param_groups(model, 0.1, scale_vectors="some")
    with pytest.raises(ValueError, match="others"):
        st.param_groups(model, 0.1, others="some")
    with pytest.raises(ValueError, match="weight_decay"):
        st.param_groups(model, -1)


@pytest.mark.parametrize("target", TARGETS)
def test_rescale_sets_the_statistics(target):
    """ZWR: std sigma_init (population) and the mean kept; UWR: unit Frobenius norm."""
    backend, device = _backend(target), _device(target)
    model = torch.nn.Sequential(st.SDDLinear(16, 12), torch.nn.Linear(12, 8)).double().to(device)
    mean = model[1].weight.mean().item()
    names = st.rescale_(model, "zwr", sigma=0.05, backend=backend)
    assert names == ["0.V", "1.weight"]
    tied = torch.nn.ModuleDict({"embed": torch.nn.Embedding(7, 4), "head": torch.nn.Linear(4, 7)})
    tied["head"].weight = tied["embed"].weight
    assert st.rescale_(tied.double().to(device), "zwr", sigma=0.05, backend=backend) == [
        "embed.weight"]  # a tied weight is rescaled once
    for w in (model[0].V, model[1].weight):
        assert w.std(unbiased=False).item() == pytest.approx(0.05, rel=1e-12)
    assert model[1].weight.mean().item() == pytest.approx(mean, rel=1e-12, abs=1e-15)
    w = _rand(5, 7, seed=2, device=device)
    st.rescale_(w, "uwr", backend=backend)
    assert w.norm().item() == pytest.approx(1.0, rel=1e-14)
    with pytest.raises(ValueError, match="unknown rule"):
        st.rescale_(w, "xwr", backend=backend)
    with pytest.raises(ValueError):
        st.rescale_(w, "uwr", sigma=0.1, backend=backend)


def test_init_draws_the_reference_stream():
    """The same (seed, tensor, shape, method) gives the same weights in every dtype before
    rounding, and a different seed different ones; XavierNormal's std
    sqrt(2 / (fan_in + fan_out))."""
    a = st.init_(torch.empty(64, 128, dtype=torch.float64), "XavierNormal", "query", seed=3)
    b = st.init_(torch.empty(64, 128, dtype=torch.float32), "XavierNormal", "query", seed=3)
    c = st.init_(torch.empty(64, 128, dtype=torch.float64), "XavierNormal", "query", seed=4)
    assert torch.equal(a.float(), b) and not torch.equal(a, c)
    assert a.std().item() == pytest.approx(math.sqrt(2 / 192), rel=0.03)
    with pytest.raises(ValueError, match="n_layers|SIR"):
        st.init_(torch.empty(4, 4), "SIR", "query")


def test_init_of_a_model_places_each_weight():
    """SIR (rescale eq. 12: N(0, sigma^2 / (2 N)) on the residual output projections, sigma
    elsewhere) through a role function: the output projection's std is the query's /
    sqrt(2 n_layers); the weight left out keeps its values."""
    model = torch.nn.Sequential(st.SDDLinear(256, 256), torch.nn.Linear(256, 256),
                                torch.nn.Linear(256, 4)).double()
    kept = model[2].weight.clone()
    roles = {"0.V": ("query", 1), "1.weight": ("attention_output", 1)}
    drawn = st.init_(model, "SIR", lambda name, module: roles.get(name), sigma=0.02, n_layers=8)
    assert drawn == ["0.V", "1.weight"]
    assert torch.equal(model[2].weight, kept)
    ratio = model[1].weight.std().item() / model[0].V.std().item()
    assert ratio == pytest.approx(1 / math.sqrt(2 * 8), rel=0.02)  # 65536 draws: 0.3% spread
    with pytest.raises(TypeError, match="role must be a function"):
        st.init_(model, "SIR", "query")


# ---- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_bad_input_is_a_clear_error(target):
    backend, device = _backend(target), _device(target)
    m = st.RMSNorm(D, backend=backend).to(device)
    with pytest.raises(TypeError, match="x is Int"):
        m(torch.ones(2, D, dtype=torch.int32, device=device))
    with pytest.raises(TypeError, match="one dtype"):
        m(torch.ones(2, D, dtype=torch.float64, device=device))  # gamma is float32
    with pytest.raises(ValueError, match="gamma"):
        m(torch.ones(2, D + 1, device=device))
    with pytest.raises(ValueError, match="heads"):  # refused when made, by the reference's rule
        st.SeeDNorm(D, heads=3, backend=backend)
    with pytest.raises(ValueError, match="alpha must be a vector"):
        st.SeeDNorm(D, beta="none", alpha="scalar", backend=backend)
    with pytest.raises(ValueError, match="W|d_in|shape"):
        st.SDDLinear(D, 4, backend=backend).to(device)(torch.ones(2, D + 2, device=device))
    with pytest.raises(ValueError, match="backend"):
        st.RMSNorm(D, backend="gpu")(torch.ones(2, D))


def test_non_finite_input():
    """The reference refuses a non-finite input, naming the entry; the kernels let NaN
    through to that row only (cuda/README.md: a row a kernel cannot normalize gives NaN)."""
    x = torch.ones(3, D)
    x[1, 2] = math.nan
    with pytest.raises(ValueError, match="finite"):
        st.RMSNorm(D)(x)
    if HAS_EMU:
        y = st.RMSNorm(D, backend="emu")(x)
        assert torch.isnan(y[1]).all() and torch.isfinite(y[[0, 2]]).all()


@pytest.mark.skipif(not HAS_EMU, reason="this build has no emulator operators")
def test_kernels_refuse_reference_forms():
    m = st.SeeDNorm(D, beta="elementwise", backend="emu")
    with pytest.raises(ValueError, match="beta_form \"elementwise\" has no kernel"):
        m(torch.ones(2, D))


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device, or a torch without CUDA")
def test_device_mix_is_refused():
    m = st.RMSNorm(D).cuda()
    with pytest.raises(ValueError, match="runs CUDA tensors|one device"):
        m(torch.ones(2, D))  # x on the CPU, gamma on the GPU


def test_environment_chooses_the_backend(monkeypatch):
    monkeypatch.setenv("SCALEREF_TORCH_BACKEND", "nonsense")
    with pytest.raises(ValueError, match="backend"):
        st.ops()
    monkeypatch.setenv("SCALEREF_TORCH_BACKEND", "default")
    assert st.ops() is torch.ops.scaleref


@pytest.mark.skipif(st.COMPILE_UNSUPPORTED is not None, reason=str(st.COMPILE_UNSUPPORTED))
@pytest.mark.parametrize("target", TARGETS)
def test_torch_compile_traces_a_model_without_graph_breaks(target):
    """torch 2.x: torch.compile(fullgraph=True) of a model of every layer (the fake
    implementations give its shapes), forward and backward equal to eager's bit for bit (the
    same operators run)."""
    backend, device = _backend(target), _device(target)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        st.SDDLinear(D, 16, backend=backend), st.SeeDNorm(16, heads=2, backend=backend),
        st.ScaleVectorLinear(16, D, strategy="DP", backend=backend), st.RMSNorm(D, backend=backend),
        st.LayerNorm(D, backend=backend), st.DyT(D, backend=backend),
    )
    model = _perturb(model.double()).to(device)
    x = _rand(N, D, seed=11, device=device).requires_grad_()
    # inductor on CUDA; on CPU tensors aot_eager (the trace without inductor's C++ codegen)
    compiled = torch.compile(model, fullgraph=True,
                             backend="inductor" if device == "cuda" else "aot_eager")
    y = compiled(x)
    grads = torch.autograd.grad(y.square().sum(), (x, *model.parameters()))
    y_eager = model(x)
    eager = torch.autograd.grad(y_eager.square().sum(), (x, *model.parameters()))
    torch.testing.assert_close(y, y_eager, rtol=0, atol=0)
    for g, e in zip(grads, eager):
        torch.testing.assert_close(g, e, rtol=0, atol=0)
