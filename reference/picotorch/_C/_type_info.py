"""``torch.finfo`` and ``torch.iinfo``: ``torch/csrc/TypeInfo.cpp``.

What a dtype can hold: for a floating dtype its bits, ``eps`` (the gap between 1 and the next value),
``max``/``min``, ``tiny`` (= ``smallest_normal``) and ``resolution`` (10 to the minus the number of decimal
digits it keeps); for an integer dtype its bits, ``max`` and ``min``. PyTorch reads them from
``std::numeric_limits``; picotorch from NumPy's ``finfo``/``iinfo`` (bfloat16's written out), the same IEEE
numbers. The reprs print each number as C++'s default stream does (six significant digits, ``%g``).
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from .invalid_arguments import format_invalid_args

__all__ = ["finfo", "iinfo"]


_SIGNATURES = {"finfo": ["(torch.dtype type)", "()"], "iinfo": ["(torch.dtype type)"]}


def _dtype_argument(kind: str, args, kwargs):
    """``finfo(type)``'s one argument, checked as PyTorch's parser does (``finfo()`` means the default dtype)."""
    if kind == "iinfo" and len(args) > 1:  # a single signature: the parser counts positional arguments
        raise TypeError(f"iinfo() takes 1 positional argument but {len(args)} were given")
    if len(args) + len(kwargs) > 1:
        raise TypeError(format_invalid_args(args, kwargs, f"{kind}()", _SIGNATURES[kind]))
    values = list(args) + [kwargs[name] for name in kwargs if name == "type"]
    if not values:
        if kind == "finfo" and not kwargs:
            return st.get_default_dtype()
        raise TypeError(f'{kind}() missing 1 required positional arguments: "type"')
    if not isinstance(values[0], st.dtype):
        raise TypeError(f"{kind}(): argument 'type' (position 1) must be torch.dtype, not {type(values[0]).__name__}")
    return values[0]


def _g(value) -> str:
    return f"{value:g}"


class finfo:
    """``torch.finfo(dtype=default)``: the limits of a floating dtype."""

    def __hash__(self):  # comparable, not hashable, and named as PyTorch's C type
        raise TypeError("unhashable type: 'torch.finfo'")

    def __init__(self, *args, **kwargs) -> None:
        dtype = _dtype_argument("finfo", args, kwargs).to_real()  # a complex dtype's limits are its parts'
        if not dtype.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        self.bits = dtype.itemsize * 8
        self.eps, self.max, self.tiny = _BFLOAT16 if dtype is st.bfloat16 else _limits(np.finfo(dtype._numpy))
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = dtype.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __repr__(self) -> str:
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, eps={_g(self.eps)}, "
                f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo(dtype)``: the limits of an integer dtype."""

    def __hash__(self):  # comparable, not hashable, and named as PyTorch's C type
        raise TypeError("unhashable type: 'torch.iinfo'")

    def __init__(self, *args, **kwargs) -> None:
        dtype = _dtype_argument("iinfo", args, kwargs)
        if dtype is st.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dtype.is_floating_point or dtype.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        limits = np.iinfo(dtype._numpy)
        self.bits = dtype.itemsize * 8
        self.max = int(limits.max)
        self.min = int(limits.min)
        self.dtype = dtype.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __repr__(self) -> str:
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


def _limits(limits) -> tuple[float, float, float]:
    return float(limits.eps), float(limits.max), float(limits.smallest_normal)


# bfloat16: float32's exponent with 8 significant bits (NumPy has no bfloat16; ml_dtypes is not loaded for this)
_BFLOAT16 = (2.0 ** -7, (2 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -126)


finfo.__module__ = iinfo.__module__ = "torch"
