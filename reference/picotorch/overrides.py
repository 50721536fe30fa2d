"""``picotorch.overrides``: the public face of the ``__torch_function__`` protocol.

Models ``torch/overrides.py``. The machinery lives below, in ``_C/_torch_function.py`` (``_tensor.py``
needs it, and sits under this module); here are the names a user imports: ``has_torch_function``,
``handle_torch_function``, ``is_tensor_like``, ``get_overridable_functions``. Left out: ``TorchFunctionMode``
and the mode stack, ``get_testing_overrides``, ``get_ignored_functions``, ``wrap_torch_function``.
"""

from __future__ import annotations

import functools
import sys

from . import _C
from ._C._torch_function import (  # noqa: F401  (re-exported, as torch.overrides does)
    _get_overloaded_args,
    _has_torch_function,
    _has_torch_function_unary,
    _has_torch_function_variadic,
    _is_torch_function_enabled,
    get_default_nowrap_functions,
    handle_torch_function,
)
from ._tensor import Tensor

has_torch_function = _has_torch_function
has_torch_function_unary = _has_torch_function_unary
has_torch_function_variadic = _has_torch_function_variadic

__all__ = ["get_overridable_functions", "handle_torch_function", "has_torch_function", "is_tensor_like"]


def is_tensor_like(inp) -> bool:
    """A tensor, or anything with a ``__torch_function__`` (a tensor-like class too, as PyTorch answers)."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


@functools.cache
def get_overridable_functions() -> dict:
    """``{namespace: [functions]}`` that honour ``__torch_function__``: picotorch's generated functions and
    the ``Tensor`` methods. A subset of PyTorch's answer, which also lists ``torch.nn.functional``,
    ``torch.linalg`` and more."""
    picotorch = sys.modules[__package__]  # the package imports this module: no import back (no cycle)
    functions = [getattr(picotorch, name) for name in sorted(vars(_C._VariableFunctions))
                 if not name.startswith("_") and name not in picotorch.PRIVATE_OPS]  # (unique_dim is not copied)
    methods = []
    for name in sorted(dir(Tensor)):
        if name.startswith("_") and name not in _OPERATORS:
            continue
        attribute = getattr(Tensor, name)
        if callable(attribute) and not isinstance(attribute, type):
            methods.append(attribute)  # properties are overridable too, but PyTorch does not list them
    return {picotorch: functions, Tensor: methods}


_OPERATORS = frozenset({"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                        "__rdiv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__",
                        "__pow__", "__rpow__", "__matmul__", "__neg__", "__eq__", "__ne__", "__lt__", "__le__",
                        "__gt__", "__ge__", "__and__", "__or__", "__xor__", "__invert__", "__getitem__",
                        "__setitem__", "__len__", "__repr__", "__format__", "__contains__", "__array__"})
