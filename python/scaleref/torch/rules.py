"""The papers' rules as calls on a model: weight-decay groups, initializers, rescaling."""

import torch

from .. import _scaleref
from . import _SpecModule, ops

__all__ = ["param_groups", "init_", "rescale_", "OTHERS"]

# What param_groups does with a parameter of a module that is not scaleref's:
#   "torch": decay it (torch's optimizers apply weight_decay to every parameter);
#   "matrices": decay it when it has two or more dimensions (weights), not biases
#               and norm gains (the usual convention of LLM training code).
OTHERS = ("torch", "matrices")
# How a scale vector is decayed (the scale-vector paper's policies, from the reference:
# spec/scalevec.hpp's names, scalevec::decayed's rule): "iwd": Input-Norm vectors (g, r, u)
# decayed, Output-Norm ones (a) not (the paper's proposal); "decay_all"; "decay_none".
SCALE_VECTOR_POLICIES = tuple(_scaleref.scale_vector_policies())


def _decayed(module, name, p, others, scale_vectors):
    if isinstance(module, _SpecModule):
        if module._method == "scalevec" and name != "W":
            return _scaleref.scale_vector_decayed(scale_vectors, name)
        return module.decay_rules()[name][0]
    return True if others == "torch" else p.dim() >= 2


def param_groups(model, weight_decay, *, others="torch", scale_vectors="iwd"):
    """Two optimizer groups: the parameters the papers decay, with `weight_decay`, and the
    others, with 0. A scaleref module's parameter follows its paper (module.decay_rules():
    SeeDNorm's alpha and beta decayed and gamma not; SDD's V and alpha decayed; a
    ScaleVectorLinear's W decayed and its vectors by `scale_vectors`; the norms' gains and
    biases not). Any other module's parameter follows `others` (OTHERS). A parameter shared
    between modules is listed once; parameters that do not require grad are left out."""
    if others not in OTHERS:
        raise ValueError(f"others: expected one of {', '.join(OTHERS)}, got {others!r}")
    if scale_vectors not in SCALE_VECTOR_POLICIES:
        raise ValueError(
            f"scale_vectors: expected one of {', '.join(SCALE_VECTOR_POLICIES)}, "
            f"got {scale_vectors!r}"
        )
    weight_decay = float(weight_decay)
    if not weight_decay >= 0:
        raise ValueError(f"weight_decay: expected a number >= 0, got {weight_decay}")
    decay, no_decay, seen = [], [], set()
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            if id(p) in seen or not p.requires_grad:
                continue
            seen.add(id(p))
            (decay if _decayed(module, name, p, others, scale_vectors) else no_decay).append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


def _weights(model):
    """(module name, parameter name, parameter) for each weight matrix of the model, once
    each: nn.Linear's and nn.Embedding's weight, SDDLinear's V, ScaleVectorLinear's W."""
    from . import ScaleVectorLinear, SDDLinear

    seen = set()  # a weight shared by two modules (tied embeddings) is listed once
    for mname, module in model.named_modules():
        if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
            pname = "weight"
        elif isinstance(module, SDDLinear):
            pname = "V"
        elif isinstance(module, ScaleVectorLinear):
            pname = "W"
        else:
            continue
        w = getattr(module, pname)
        if id(w) not in seen:
            seen.add(id(w))
            yield mname, pname, w


def rescale_(model_or_weight, rule, *, sigma=None, std=None, threshold=None, backend=None):
    """Rescales in place each weight matrix of a model (or one 2-D tensor): rule "uwr"
    (W / ||W||_F), "zwr" (zero-mean, std sigma: sigma_init), "tvr" (std sigma:
    sigma_target), "tvr_authors_code" (the authors' thresholded TVR). std: "population" or
    "unbiased" sigma(W). Returns the rescaled tensors' names (or the tensor)."""
    namespace = ops(backend)
    with torch.no_grad():
        if isinstance(model_or_weight, torch.Tensor):
            namespace.rescale_(model_or_weight, rule, sigma=sigma, std=std, threshold=threshold)
            return model_or_weight
        names = []
        for mname, pname, w in _weights(model_or_weight):
            namespace.rescale_(w, rule, sigma=sigma, std=std, threshold=threshold)
            names.append(f"{mname}.{pname}" if mname else pname)
        return names


def _init_one(weight, method, role, layer, seed, tensor, settings):
    # The reference draws (on the CPU: a one-time cost); a tensor elsewhere takes a copy.
    target = weight if weight.device.type == "cpu" else torch.empty_like(weight, device="cpu")
    torch.ops.scaleref.init_(target, method, role, layer=layer, seed=seed, tensor=tensor,
                             **settings)
    if target is not weight:
        weight.copy_(target)


def init_(model_or_weight, method, role=None, *, layer=1, seed=0, tensor=0, sigma=None,
          n_layers=None, alpha=None, gamma=None):
    """Draws weights in place from a scaleref initializer (`scaleref.describe("init")`:
    Gaussian, XavierNormal, XavierUniform, KaimingNormal, KaimingUniform, SIR, DSInit, LIR,
    GammaInit; sigma, n_layers, alpha, gamma as the method reads them).

    One [d_out, d_in] tensor: `role` is its place in the transformer (query, key, value,
    attention_output, gate, up, ffn_output, embedding, head) and `layer` its decoder layer.
    A model: `role` is a function (weight name, module) -> (role, layer), or None to leave
    that weight alone, called for each weight matrix (nn.Linear's and nn.Embedding's weight,
    SDDLinear's V, ScaleVectorLinear's W); the k-th weight drawn takes tensor id
    `tensor + k`. Returns the tensor, or the names of the weights drawn.

    The draw is the project's counter-based stream: a pure function of (seed, tensor id,
    shape, method), the same on every machine and in every dtype before rounding."""
    settings = {"sigma": sigma, "n_layers": n_layers, "alpha": alpha, "gamma": gamma}
    with torch.no_grad():
        if isinstance(model_or_weight, torch.Tensor):
            if not isinstance(role, str):
                raise TypeError("init_ of a tensor: role must be its role's name (a str)")
            _init_one(model_or_weight, method, role, layer, seed, tensor, settings)
            return model_or_weight
        if not callable(role):
            raise TypeError("init_ of a model: role must be a function (weight name, module) "
                            "-> (role, layer) or None")
        drawn = []
        modules = dict(model_or_weight.named_modules())
        for mname, pname, w in _weights(model_or_weight):
            name = f"{mname}.{pname}" if mname else pname
            placed = role(name, modules[mname])
            if placed is None:
                continue
            role_name, layer_index = placed
            _init_one(w, method, role_name, layer_index, seed, tensor + len(drawn), settings)
            drawn.append(name)
        return drawn
