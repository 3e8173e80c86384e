"""scaleref in PyTorch: the methods as torch operators and nn.Modules with autograd.

    import scaleref.torch as st
    norm = st.SeeDNorm(512)                      # alpha = 1, beta = 0, gamma = 1 (the paper's)
    layer = st.SDDLinear(512, 2048)
    opt = torch.optim.AdamW(st.param_groups(model, weight_decay=0.1), lr=1e-3)
    st.rescale_(model, "zwr", sigma=0.02)        # every weight matrix, in place

The operators are registered with TORCH_LIBRARY (``torch.ops.scaleref.*``,
python/torch/schema.hpp). A CPU tensor runs the double-precision reference (the
result rounded to the input's dtype); a CUDA tensor runs the project's CUDA
kernels where the extension was built with them. ``backend="emu"`` on a module
(or ``SCALEREF_TORCH_BACKEND=emu`` in the environment when the module is made) runs
the CUDA kernels' host and kernel code on CPU tensors through the CPU emulator
(``torch.ops.scaleref_emu.*``), where it was built.

Parameters are named and initialized as the papers give them, from the
project's spec headers (``scaleref.describe``): a [1, D] row is held 1-D ([D]),
as torch's norms hold their weights. Storage types: float32, bfloat16,
float64; every tensor of one call in one dtype and on one device. A
non-contiguous input is copied to a contiguous one. Bad input raises
ValueError or TypeError naming the argument; a non-finite input is an error on
the reference path (the reference refuses it) and gives NaN on the kernels'.
Double backward is not supported (the backward is the hand-derived one of the
reference or the kernels).
"""

import os

import numpy

import torch
from torch.autograd.function import once_differentiable

from .. import _scaleref, describe

__all__ = [
    "RMSNorm",
    "LayerNorm",
    "DyT",
    "SeeDNorm",
    "AdaSeeDNorm",
    "SDDLinear",
    "ScaleVectorLinear",
    "param_groups",
    "init_",
    "rescale_",
    "ops",
    "BACKENDS",
]

_HERE = os.path.dirname(os.path.abspath(__file__))
if not os.path.exists(os.path.join(_HERE, "libscaleref_torch.so")):
    raise ImportError(
        "scaleref.torch: this build has no torch extension (libscaleref_torch.so); configure "
        "with a torch CMake can find (Debian's libtorch-dev, which scripts/setup.sh installs, or "
        "-DCMAKE_PREFIX_PATH=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'))"
    )
torch.ops.load_library(os.path.join(_HERE, "libscaleref_torch.so"))

BACKENDS = ("default", "emu")
_LIBRARIES = {"default": "scaleref", "emu": "scaleref_emu"}
_emu_loaded = False


def _library(backend):
    """The operator library of a backend, loaded: "scaleref" (default: the reference on CPU
    tensors, the kernels on CUDA ones) or "scaleref_emu" (the kernels through the emulator,
    CPU tensors). None reads SCALEREF_TORCH_BACKEND (default "default")."""
    global _emu_loaded
    name = backend if backend is not None else os.environ.get("SCALEREF_TORCH_BACKEND", "default")
    if name not in _LIBRARIES:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {name!r}")
    if name == "emu" and not _emu_loaded:
        path = os.path.join(_HERE, "libscaleref_torch_emu.so")
        if not os.path.exists(path):
            raise RuntimeError(
                "backend 'emu': this build has no emulator operators "
                f"({path} is missing; configure with SCALEREF_CUDA_EMU=ON)"
            )
        torch.ops.load_library(path)
        _register_fakes("scaleref_emu")
        _emu_loaded = True
    return _LIBRARIES[name]


def ops(backend=None):
    """The operator namespace of a backend (torch.ops.scaleref or torch.ops.scaleref_emu)."""
    return getattr(torch.ops, _library(backend))


def has_cuda_kernels():
    """Whether this build runs CUDA tensors on the project's kernels (a torch with CUDA)."""
    return torch._C._dispatch_has_kernel_for_dispatch_key("scaleref::rmsnorm", "CUDA")


# Every layer operator, and whether its forward returns `saved`.
_LAYERS = {"rmsnorm": True, "layernorm": True, "dyt": False, "seednorm": True,
           "adaseednorm": True, "sdd": True, "scalevec": True}
_LINEAR = {"sdd", "scalevec"}  # y has the weight's rows as columns (the input after x)
_FUNCTIONS = {}


def _function(library, name, has_saved):
    """The autograd.Function of one layer operator: op(*inputs, *settings) -> (y, saved)
    (or y alone), and op_backward(dy, *inputs, [saved], *settings) -> the inputs' gradients
    in their order (None where an input is absent). Made once per (library, name)."""
    key = (library, name)
    if key in _FUNCTIONS:
        return _FUNCTIONS[key]
    namespace = getattr(torch.ops, library)
    forward_op, backward_op = getattr(namespace, name), getattr(namespace, name + "_backward")

    class Layer(torch.autograd.Function):
        @staticmethod
        def forward(ctx, settings, *inputs):
            x = inputs[0]
            ctx.settings, ctx.n_inputs = settings, len(inputs)
            ctx.empty = x.dim() >= 1 and x.shape[-1] > 0 and x.numel() == 0
            if ctx.empty:  # no rows (an expert that got no tokens): nothing to compute
                cols = inputs[1].shape[0] if name in _LINEAR else x.shape[-1]
                ctx.save_for_backward(*inputs)
                return x.new_empty((*x.shape[:-1], cols))
            out = forward_op(*inputs, *settings)
            y, saved = out if has_saved else (out, [])
            ctx.save_for_backward(*inputs, *saved)
            return y

        @staticmethod
        @once_differentiable
        def backward(ctx, dy):
            tensors = ctx.saved_tensors
            inputs, saved = tensors[: ctx.n_inputs], list(tensors[ctx.n_inputs :])
            if ctx.empty:  # a sum over no rows: zero
                grads = [None if t is None else torch.zeros_like(t) for t in inputs]
            else:
                extra = [saved] if has_saved else []
                grads = backward_op(dy.contiguous(), *inputs, *extra, *ctx.settings)
            needed = ctx.needs_input_grad[1:]
            return (None, *(g if need else None for g, need in zip(grads, needed)))

    Layer.__name__ = Layer.__qualname__ = f"{library}_{name}"
    _FUNCTIONS[key] = Layer
    return Layer


def _autocast_on(device_type):
    try:
        return torch.is_autocast_enabled(device_type)  # torch 2.4+
    except TypeError:  # torch 1.13 - 2.3: one function per device type
        if device_type == "cpu":
            return torch.is_autocast_cpu_enabled()
        return torch.is_autocast_enabled()


def _default(method, key, cast):
    """A setting's default, as the spec header gives it (scaleref.describe)."""
    for k in describe(method)["keys"]:
        if k["name"] == key:
            return k["default"] == "true" if k["type"] == "bool" else cast(k["default"])
    raise KeyError(f"{method} has no setting {key}")


def _setting(method, key, value, cast):
    """value, or the setting's default from the spec when value is None."""
    return _default(method, key, cast) if value is None else cast(value)


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _SpecModule(torch.nn.Module):
    """A module whose parameters are its method's tensors (after x) for these settings,
    named, shaped and initialized as the spec gives them, with their weight-decay rule."""

    _method = ""

    def _make_params(self, settings, dims, device, dtype, skip=()):
        specs = _scaleref.inputs(self._method, {k: _text(v) for k, v in settings.items()})
        self._decay = {}
        for t in specs:
            name = t["name"]
            if t["shape"][0] == "N" or name in skip:  # a batch input (x, conditions)
                continue
            shape = [dims[s] if s in dims else int(s) for s in t["shape"]]
            if t["shape"][0] == "1":  # a row: held 1-D (a [d_out, d_in] matrix stays 2-D)
                shape = shape[1:]
            value = torch.empty(shape, device=device, dtype=dtype)
            initial = t["initial"]
            if initial == "ones":
                torch.nn.init.ones_(value)
            elif initial == "zeros":
                torch.nn.init.zeros_(value)
            elif initial == "setting":
                torch.nn.init.constant_(value, float(settings[t["initial_setting"]]))
            else:
                self._init_matrix(name, value)
            self.register_parameter(name, torch.nn.Parameter(value))
            self._decay[name] = (bool(t["weight_decay"]), t["decay_source"])

    def _init_matrix(self, name, value):
        raise NotImplementedError(f"{type(self).__name__}: no initial value for {name}")

    def decay_rules(self):
        """{parameter name: (decayed, where the paper says so)} for this module's parameters."""
        return dict(self._decay)

    def _opt(self, name):
        return getattr(self, name, None)

    def _bind(self, backend):
        """The operator library and the autograd Function this module calls (made here,
        not while torch.compile traces a forward)."""
        self.backend = backend
        self._lib = _library(backend)
        self._fn = _function(self._lib, self._method, _LAYERS[self._method])

    def _call(self, settings, x, *inputs):
        if x.is_floating_point() and _autocast_on(x.device.type):
            # Under autocast the activations arrive in the autocast dtype and the parameters
            # stay in theirs: they enter the operator in x's (the cast is differentiable, so
            # their gradients come back in their own dtype).
            inputs = [t.to(x.dtype) if t is not None and t.dtype != x.dtype else t
                      for t in inputs]
        return self._fn.apply(tuple(settings), x, *inputs)


class RMSNorm(_SpecModule):
    """y = gamma (.) x / sqrt(mean(x^2) + eps) over the last dimension (seednorm eq. 2)."""

    _method = "rmsnorm"

    def __init__(self, d, eps=None, elementwise_affine=True, *, backend=None, device=None,
                 dtype=None):
        super().__init__()
        self.d = d
        self._bind(backend)
        self.eps = _setting("rmsnorm", "eps", eps, float)
        self.elementwise_affine = elementwise_affine
        skip = () if elementwise_affine else ("gamma",)
        self._make_params({}, {"D": d}, device, dtype, skip=skip)

    def forward(self, x):
        return self._call((self.eps,), x, self._opt("gamma"))

    def extra_repr(self):
        return f"{self.d}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LayerNorm(_SpecModule):
    """y = gamma (.) (x - mean) / sqrt(var + eps) + beta over the last dimension."""

    _method = "layernorm"

    def __init__(self, d, eps=None, bias=True, *, backend=None, device=None, dtype=None):
        super().__init__()
        self.d, self.bias = d, bias
        self._bind(backend)
        self.eps = _setting("layernorm", "eps", eps, float)
        self._make_params({"bias": bias}, {"D": d}, device, dtype)

    def forward(self, x):
        return self._call((self.eps,), x, self.gamma, self._opt("beta"))

    def extra_repr(self):
        return f"{self.d}, eps={self.eps}, bias={self.bias}"


class DyT(_SpecModule):
    """Dynamic Tanh: y = gamma (.) tanh(alpha x) + beta, alpha a learned scalar."""

    _method = "dyt"

    def __init__(self, d, alpha_init=None, bias=True, *, backend=None, device=None, dtype=None):
        super().__init__()
        self.d, self.bias = d, bias
        self._bind(backend)
        self.alpha_init = _setting("dyt", "alpha_init", alpha_init, float)
        self._make_params({"bias": bias, "alpha_init": self.alpha_init}, {"D": d}, device, dtype)

    def forward(self, x):
        return self._call((), x, self.alpha, self.gamma, self._opt("beta"))

    def extra_repr(self):
        return f"{self.d}, alpha_init={self.alpha_init}, bias={self.bias}"


class _SeeDNormBase(_SpecModule):
    def _setup(self, d, eps, sigma, heads, alpha, beta, alpha_init, backend, extra, device, dtype):
        m = self._method
        self.d = d
        self._bind(backend)
        self.eps = _setting(m, "eps", eps, float)
        self.sigma = _setting(m, "sigma", sigma, str)
        self.heads = _setting(m, "heads", heads, int)
        self.alpha_form = _setting(m, "alpha", alpha, str)
        self.beta_form = _setting(m, "beta", beta, str)
        self.alpha_init = _setting(m, "alpha_init", alpha_init, float)
        settings = {
            "eps": self.eps,
            "sigma": self.sigma,
            "heads": self.heads,
            "alpha": self.alpha_form,
            "beta": self.beta_form,
            "alpha_init": self.alpha_init,
            **extra,
        }
        # The settings' rules (heads divides D; beta removed needs a vector alpha; ...) are
        # the reference's: one evaluation on a row of ones refuses what it refuses, now
        # rather than at the first forward.
        row = {"x": numpy.ones((1, d))}
        if m == "adaseednorm":
            row.update(gamma_c=numpy.zeros((1, d)), eta_c=numpy.zeros((1, d)))
        _scaleref.evaluate(m, {k: _text(v) for k, v in settings.items() if k != "alpha_init"},
                           row, 53)
        self._make_params(settings, {"D": d}, device, dtype)

    def _settings(self):
        return (self.eps, self.sigma, self.heads, self.alpha_form, self.beta_form)

    def extra_repr(self):
        return (
            f"{self.d}, eps={self.eps}, sigma={self.sigma!r}, heads={self.heads}, "
            f"alpha={self.alpha_form!r}, beta={self.beta_form!r}, alpha_init={self.alpha_init}"
        )


class SeeDNorm(_SeeDNormBase):
    """SeeDNorm (seednorm eq. 4, 7): y = [sigma(x . beta) alpha + gamma] (.) x / RMS(x).

    sigma: tanh (the paper's), sigmoid, hardtanh, softsign, gelu_tanh, swish;
    heads > 1: the multi-head form (eq. 7), one sigma(x_h . beta_h) per head, RMS over the
    whole row. The paper's ablations (scaleref/norm/seednorm.hpp): alpha "vector" | "scalar" |
    "none" (alpha = 1, not learned); beta "dot" | "elementwise" (sigma(x (.) beta)) | "none"
    (the project's reading: sigma(x_h) . alpha_h per head); gamma=False: no gain, the
    rescaling alone scales x / RMS(x). The kernels have beta "dot" only.
    """

    _method = "seednorm"

    def __init__(self, d, eps=None, sigma=None, heads=None, alpha=None, beta=None, gamma=True,
                 alpha_init=None, *, backend=None, device=None, dtype=None):
        super().__init__()
        self.gamma_on = bool(gamma)
        self._setup(d, eps, sigma, heads, alpha, beta, alpha_init, backend,
                    {"gamma": self.gamma_on}, device, dtype)

    def forward(self, x):
        return self._call(self._settings(), x, self._opt("alpha"),
                      self._opt("beta"), self._opt("gamma"))

    def extra_repr(self):
        return super().extra_repr() + f", gamma={self.gamma_on}"


class AdaSeeDNorm(_SeeDNormBase):
    """AdaSeeDNorm (seednorm eq. 8): SeeDNorm whose gain and shift come per row from a
    condition: forward(x, gamma_c, eta_c), both shaped like x."""

    _method = "adaseednorm"

    def __init__(self, d, eps=None, sigma=None, heads=None, alpha=None, beta=None, alpha_init=None,
                 *, backend=None, device=None, dtype=None):
        super().__init__()
        self._setup(d, eps, sigma, heads, alpha, beta, alpha_init, backend, {}, device, dtype)

    def forward(self, x, gamma_c, eta_c):
        return self._call(self._settings(), x, self._opt("alpha"),
                      self._opt("beta"), gamma_c, eta_c)


class SDDLinear(_SpecModule):
    """Scale-Distribution Decoupling (sdd eq. 5): y = alpha (.) norm(x V^T), norm the
    RMS norm without gain (eps inside, 0 as the paper writes it).

    V ~ N(0, sigma^2) with sigma = 1 / sqrt(2.5 d_in) (sdd Sec. 4.1 read as the std;
    scaleref/sdd/init.hpp), alpha = alpha_init (1; the paper's 1 / sqrt(L) on a
    block's two output projections is alpha_init=1/sqrt(L))."""

    _method = "sdd"

    def __init__(self, d_in, d_out, eps=None, alpha_init=1.0, *, backend=None, device=None,
                 dtype=None):
        super().__init__()
        self.d_in, self.d_out = d_in, d_out
        self._bind(backend)
        self.eps = _setting("sdd", "eps", eps, float)
        self.alpha_init = float(alpha_init)
        self._make_params({"eps": self.eps}, {"d_in": d_in, "d_out": d_out}, device, dtype)
        with torch.no_grad():
            self.alpha.fill_(self.alpha_init)

    def _init_matrix(self, name, value):
        torch.nn.init.normal_(value, std=_scaleref.sdd_v_std(self.d_in))  # sdd::v_std

    def forward(self, x):
        return self._call((self.eps,), x, self.V, self.alpha)

    def extra_repr(self):
        return f"{self.d_in}, {self.d_out}, eps={self.eps}, alpha_init={self.alpha_init}"


class ScaleVectorLinear(_SpecModule):
    """A linear map with the scale-vector paper's strategies (scalevec Sec. 3):
    "none", "standard" (g: y = (g (.) n(x)) W^T), "AP" (a after W), "DP" (both),
    "DNP" (a after a head-wise norm of the output, `heads` blocks), "MD" (g = r u / RMS(u)).
    W ~ N(0, 0.02^2) (the Gaussian initializer's default sigma); every scale vector 1."""

    _method = "scalevec"

    def __init__(self, d_in, d_out, strategy=None, eps=None, heads=None, *, backend=None,
                 device=None, dtype=None):
        super().__init__()
        self.d_in, self.d_out = d_in, d_out
        self._bind(backend)
        self.strategy = _setting("scalevec", "strategy", strategy, str)
        self.eps = _setting("scalevec", "eps", eps, float)
        self.heads = _setting("scalevec", "heads", heads, int)
        if self.heads != 1 and self.strategy != "DNP":
            raise ValueError(
                f"heads={self.heads}: heads is DNP's alone (strategy {self.strategy!r})"
            )
        settings = {"strategy": self.strategy}
        self._make_params(settings, {"d_in": d_in, "d_out": d_out}, device, dtype)

    def _init_matrix(self, name, value):
        torch.nn.init.normal_(value, std=_default("init", "sigma", float))

    def forward(self, x):
        return self._call((self.strategy, self.eps, self.heads), x,
                      self.W, self._opt("g"), self._opt("a"), self._opt("r"), self._opt("u"))

    def extra_repr(self):
        return (f"{self.d_in}, {self.d_out}, strategy={self.strategy!r}, eps={self.eps}, "
                f"heads={self.heads}")


# ---- torch.compile: fake (meta) implementations ------------------------------------------
#
# What each operator returns, in shape and dtype only, so that torch.compile can trace a
# model that uses them (torch 2.x: torch.library.register_fake, 2.4+, or impl_abstract,
# 2.1-2.3). `saved` is what the implementation for that library and device returns: the
# reference (scaleref on CPU tensors) keeps nothing; the kernels keep the norms' row
# statistics in the accumulation type (python/torch/kernels.hpp).

# The kernels' saved row statistics: (rows, heads) -> the length of each saved tensor.
_KERNEL_SAVED = {
    "rmsnorm": lambda rows, heads: [rows],
    "layernorm": lambda rows, heads: [rows, rows],
    "seednorm": lambda rows, heads: [rows, rows * heads],
    "adaseednorm": lambda rows, heads: [rows, rows * heads],
}
# Where the operator's heads setting is among its arguments after x.
_HEADS_AT = {"seednorm": 5, "adaseednorm": 6}


def _fake_forward(library, name, has_saved):
    def fake(x, *args):
        cols = args[0].shape[0] if name in _LINEAR else x.shape[-1]
        y = x.new_empty((*x.shape[:-1], cols))
        if not has_saved:
            return y
        saved = []
        if not (library == "scaleref" and x.device.type == "cpu") and name in _KERNEL_SAVED:
            rows = x.numel() // x.shape[-1]
            heads = args[_HEADS_AT[name]] if name in _HEADS_AT else 1
            acc = torch.float64 if x.dtype == torch.float64 else torch.float32
            saved = [x.new_empty((n,), dtype=acc) for n in _KERNEL_SAVED[name](rows, heads)]
        return y, saved

    return fake


def _fake_backward(dy, *args):
    inputs = []
    for a in args:  # the inputs, up to `saved` (a list) or the first setting
        if a is not None and not isinstance(a, torch.Tensor):
            break
        inputs.append(a)
    # contiguous, as the implementations return them (whatever the input's strides)
    return tuple(None if t is None else t.new_empty(t.shape) for t in inputs)


def _register_fakes(library):
    """Registers the fake implementations of `library`'s operators; returns why not, if not."""
    register = getattr(torch.library, "register_fake", None) or getattr(
        torch.library, "impl_abstract", None
    )
    if register is None:
        return (
            f"torch {torch.__version__} has neither torch.library.register_fake (2.4+) nor "
            "impl_abstract (2.1+): torch.compile cannot trace these operators"
        )
    for name, has_saved in _LAYERS.items():
        register(f"{library}::{name}")(_fake_forward(library, name, has_saved))
        register(f"{library}::{name}_backward")(_fake_backward)
    for name in ("rescale_", "init_"):
        if library == "scaleref" or name != "init_":
            register(f"{library}::{name}")(lambda W, *args, **kwargs: None)
    return None


# Why torch.compile cannot trace the operators here (None: it can).
COMPILE_UNSUPPORTED = _register_fakes("scaleref")


from .rules import init_, param_groups, rescale_  # noqa: E402  (they use the modules above)
