"""Plain-torch implementations of scaleref.torch's modules, from the papers' formulas (the
reference's reading of them, scaleref/norm/*.hpp, scaleref/sdd/layer.hpp,
scaleref/scalevec/linear.hpp), differentiated by autograd: what test_torch.py checks the
modules against, and what python/bench/torch_modules.py times them against. Each takes the
scaleref module (for its parameters and settings) and its inputs."""

import torch


def _rms(x, eps):
    return torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def plain_rmsnorm(m, x):
    y = x / _rms(x, m.eps)
    return y * m.gamma if m.elementwise_affine else y


def plain_layernorm(m, x):
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).pow(2).mean(-1, keepdim=True)
    y = (x - mu) / torch.sqrt(var + m.eps) * m.gamma
    return y + m.beta if m.bias else y


def plain_dyt(m, x):
    y = m.gamma * torch.tanh(m.alpha * x)
    return y + m.beta if m.bias else y


_SIGMA = {
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "hardtanh": torch.nn.functional.hardtanh,
    "softsign": torch.nn.functional.softsign,
    "gelu_tanh": lambda z: torch.nn.functional.gelu(z, approximate="tanh"),
    "swish": torch.nn.functional.silu,
}


def _seed_scale(m, x):
    """sigma(x . beta per head) alpha (eq. 4, 7) or sigma(x (.) beta) alpha, shaped like x
    (the reference's forms, scaleref/norm/seednorm.hpp; beta "none" is not tested here)."""
    if m.beta_form == "dot":
        h = m.heads
        z = (x.unflatten(-1, (h, -1)) * m.beta.unflatten(-1, (h, -1))).sum(-1, keepdim=True)
        s = _SIGMA[m.sigma](z).expand(*z.shape[:-1], m.d // h).flatten(-2)
    elif m.beta_form == "elementwise":
        s = _SIGMA[m.sigma](x * m.beta)
    else:
        raise NotImplementedError(m.beta_form)
    alpha = m.alpha if m.alpha_form != "none" else 1.0  # alpha removed: 1, not learned
    return s * alpha


def plain_seednorm(m, x):
    gain = _seed_scale(m, x) + (m.gamma if m.gamma_on else 0.0)  # gamma removed: no gain
    return gain * x / _rms(x, m.eps)


def plain_adaseednorm(m, x, gamma_c, eta_c):
    return (_seed_scale(m, x) + 1.0) * x / _rms(x, m.eps) * (1.0 + gamma_c) + eta_c


def plain_sdd(m, x):
    z = x @ m.V.t()
    return m.alpha * z / _rms(z, m.eps)


def plain_scalevec(m, x):
    n = x / _rms(x, m.eps)
    s = m.strategy
    if s in ("standard", "DP", "DNP"):
        n = m.g * n
    if s == "MD":
        n = m.r * m.u / torch.sqrt(m.u.pow(2).mean()) * n
    z = n @ m.W.t()
    if s == "DNP":
        zh = z.unflatten(-1, (m.heads, -1))
        z = (zh / _rms(zh, m.eps)).flatten(-2)
    if s in ("AP", "DP", "DNP"):
        z = m.a * z
    return z
