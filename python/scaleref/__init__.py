"""scaleref: the C++ reference of five LLM training-stability methods, from Python.

Every method that ``scaleref methods`` lists is a function here::

    out = scaleref.seednorm(x, dy=dy)              # parameters at their paper's initial values
    out = scaleref.rmsnorm(x, gamma, dy=dy, eps=1e-5)
    out["y"], out["dx"], out["dgamma"]

Tensors are NumPy arrays, or anything with ``__array__`` or DLPack (CPU torch
tensors, JAX arrays), of any float or integer dtype (bfloat16 too); they are
passed in the method's order or by name, and a parameter left out takes its
paper's initial value. Settings are keywords named as the command line names
them (``scaleref.describe(name)`` lists them); a keyword that names both a
setting and a tensor (SeeDNorm's ``alpha`` and ``beta``) is the setting when it
is a string. ``dy=`` runs the backward. The result is a dict of float64 arrays
in the shapes given: leading batch dimensions are kept, and a gradient has its
input's shape. ``precision=50`` runs the 50-digit reference; the result's
``double_error`` then holds, per output, how far the double evaluation is from
it.

Bad input raises ValueError (TypeError for a type the oracle cannot read) with
the C++ message. ``scaleref.testing`` compares a kernel's outputs with the
oracle under derived tolerances and checks a gradient against finite
differences.
"""

import numbers

import numpy as np

from . import _scaleref

__all__ = ["describe", "methods", "Result"]


class Result(dict):
    """A method's outputs by name ("y" or "W", "dx", "d<param>"), float64 arrays.

    precision: 64 (double) or 50 (the 50-digit reference, rounded to float64).
    double_error: with precision=50, per output, {"max_abs", "max_rel"} of the
    double evaluation against the 50-digit one; None otherwise.
    """

    def __init__(self, outputs, precision, double_error):
        super().__init__(outputs)
        self.precision = precision
        self.double_error = double_error


def _as_numpy(obj, name):
    """Any array-like as a NumPy array, without importing the library it came from."""
    if isinstance(obj, np.ndarray):
        array = obj
    else:
        dtype_name = str(getattr(obj, "dtype", ""))
        if dtype_name.endswith("bfloat16") and callable(getattr(obj, "float", None)):
            obj = obj.float()  # torch's bfloat16 has no NumPy dtype: widen (exactly) to float32
        try:
            if hasattr(obj, "__array__") or not hasattr(obj, "__dlpack__"):
                array = np.asarray(obj)
            else:
                array = np.from_dlpack(obj)
        except (RuntimeError, TypeError, BufferError) as e:
            raise TypeError(
                f"{name}: cannot read it as a CPU array ({e}); pass a NumPy array, or a CPU "
                "tensor without grad (x.detach().cpu())"
            ) from None
    if getattr(array.dtype, "name", "") == "bfloat16":  # ml_dtypes (JAX): widens exactly
        array = array.astype(np.float32)
    return array


def _setting_text(key, value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, str):
        return value
    raise TypeError(f"setting {key}: expected a number, a bool or a string, got {type(value).__name__}")


_METHODS = {m["name"]: m for m in _scaleref.methods()}


def methods():
    """The names of every method, in the command line's listing order."""
    return list(_METHODS)


def describe(name):
    """A method's kind, summary, settings (name, type, default, choices, help) and inputs."""
    if name not in _METHODS:
        raise ValueError(f'unknown method "{name}": expected one of {", ".join(_METHODS)}')
    return _METHODS[name]


def _split(method, args, kwargs):
    """The settings (as text) and the tensors (by name) of one call."""
    keys = [k["name"] for k in _METHODS[method]["keys"]]
    settings, tensors = {}, {}
    for key, value in kwargs.items():
        if key in keys and (isinstance(value, str) or not _is_array_like(value)):
            settings[key] = _setting_text(key, value)
        else:
            tensors[key] = value
    names = [t["name"] for t in _scaleref.inputs(method, settings)]
    for key in tensors:
        if key not in names:
            raise ValueError(
                f"{method} has no setting or tensor named {key!r} with these settings "
                f"(settings: {', '.join(keys) or 'none'}; tensors: {', '.join(names) or 'none'}"
                f"{', dy' if _METHODS[method]['kind'] == 'layer' else ''})"
            )
    if len(args) > len(names):
        raise TypeError(
            f"{method} takes at most {len(names)} tensors in order ({', '.join(names) or 'none'}) "
            f"with these settings, got {len(args)}"
        )
    for name, value in zip(names, args):
        if name in tensors:
            raise TypeError(f"{method}: {name} given both in order and by name")
        tensors[name] = value
    return settings, tensors


def _is_array_like(value):
    if isinstance(value, np.generic):  # a NumPy scalar (np.float32(1e-6)) is a number
        return False
    return (
        isinstance(value, (np.ndarray, list, tuple))
        or hasattr(value, "__array__")
        or hasattr(value, "__dlpack__")
    )


def _digits(precision):
    if precision is None or precision == 64:
        return 53
    if precision == 50:
        return 50
    raise ValueError(f"precision: expected None (double) or 50, got {precision!r}")


def _run(method, settings, tensors, precision):
    """One evaluation: settings as text, tensors by name ("dy" for the backward)."""
    arrays = {name: _as_numpy(value, name) for name, value in tensors.items()}
    outputs, errors = _scaleref.evaluate(method, settings, arrays, _digits(precision))
    return Result(outputs, 50 if precision == 50 else 64, errors if precision == 50 else None)


def _call(method, args, kwargs, dy, precision):
    settings, tensors = _split(method, args, kwargs)
    if dy is not None:
        tensors["dy"] = dy
    return _run(method, settings, tensors, precision)


def _make(method):
    info = _METHODS[method]
    names = ", ".join(t["name"] for t in info["inputs"])

    def call(*tensors, dy=None, precision=None, **settings_and_tensors):
        return _call(method, tensors, settings_and_tensors, dy, precision)

    keys = "\n".join(
        f"    {k['name']} = {k['default'] if k['default'] is not None else '<required>'}"
        f"  ({k['type']}{': ' + ', '.join(k['choices']) if k['choices'] else ''}) {k['help']}"
        for k in info["keys"]
    )
    call.__name__ = call.__qualname__ = method
    call.__doc__ = (
        f"{method} ({info['kind']}): {info['summary']}\n\n"
        f"Tensors (default settings): {names or 'none'}"
        f"{'; dy= for the backward' if info['kind'] == 'layer' else ''}.\n"
        f"Settings:\n{keys or '    none'}\n\n"
        "Returns a scaleref.Result (a dict of float64 arrays)."
    )
    return call


for _name in _METHODS:
    globals()[_name] = _make(_name)
    __all__.append(_name)
del _name
