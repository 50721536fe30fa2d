"""``max()`` and ``min()`` over every element: a zero-dim tensor of the input's dtype.

Models ``aten/src/ATen/native/ReduceAllOps.cpp``. A NaN anywhere gives NaN; an empty tensor has no
maximum, and PyTorch asks for a ``dim`` instead (along a dim, an empty result is fine).
"""

from __future__ import annotations

from .helpers import xp_of
from .tensor_impl import new_tensor


def max(self):
    return _reduce_all(self, "max")


def min(self):
    return _reduce_all(self, "min")


def _reduce_all(self, name: str):
    if self._data.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    if self._dtype.is_complex:  # complex numbers have no order
        raise NotImplementedError(f"\"{name}_all\" not implemented for '{self._dtype.c10_name}'")
    xp = xp_of(self)
    data = getattr(xp, name)(self._data)
    return new_tensor(xp.asarray(data), self._dtype, self._device)
