"""New tensors from a tensor: ``zeros_like``, ``ones_like``, ``clone``, ``_to_copy``, ``zero_``.

Models ``aten/src/ATen/native/TensorFactories.cpp`` (``zeros_like``, ``ones_like``, ``clone``) with
neighbours: ``_to_copy`` (what ``.to(dtype, device)`` calls; ATen's ``TensorConversions.cpp``),
and ``zero_``, ``fill_``, ``fill`` (ATen's ``Fill.cpp``). The factories that make a tensor from
nothing (``torch.zeros``, ``torch.tensor``) are ``picotorch/_C/_factories.py``.
"""

from __future__ import annotations

import numpy as np
from array_api_compat import numpy as np_xp

from .device import backend, normalize, to_numpy
from .helpers import shape_of, wrap, xp_dtype, xp_of
from .tensor_impl import TensorImpl, new_tensor


def zeros_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _filled_like(self, 0, dtype, device)


def ones_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _filled_like(self, 1, dtype, device)


def _filled_like(self, value, dtype, device):
    """A new tensor shaped like ``self``, filled with ``value``, on ``device`` (default: ``self``'s)."""
    dtype = dtype or self._dtype
    device = normalize(device) if device is not None else self._device
    target = backend(device)
    data = target.xp.full(shape_of(self), value, dtype=xp_dtype(target.xp, dtype),
                          device=target.array_device(device.index))
    return new_tensor(data, dtype, device)


def clone(self, memory_format=None):
    """A copy in the input's layout, or row-major for ``contiguous_format`` (what ``contiguous()`` asks)."""
    xp = xp_of(self)
    if memory_format == "contiguous_format" and xp is np_xp:
        return wrap(self, np.array(self._data, order="C", copy=True))
    return wrap(self, xp.asarray(self._data, copy=True))


def _to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    dtype = dtype or self._dtype
    device = normalize(device) if device is not None else self._device
    target = backend(device)
    data = self._data
    if device != self._device:
        data = target.xp.asarray(to_numpy(data), device=target.array_device(device.index))
    data = target.xp.astype(data, xp_dtype(target.xp, dtype), copy=True)
    return new_tensor(data, dtype, device)


def zero_(self):
    xp = xp_of(self)
    self._data[...] = xp.zeros_like(self._data)
    return self


def fill_(self, value):
    """Every element set to ``value`` (a number, or a zero-dim tensor: ``fill_.Tensor``) in ``self``'s dtype."""
    if isinstance(value, TensorImpl):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        value = to_numpy(value._data).item()
    xp = xp_of(self)
    self._data[...] = xp.asarray(value, dtype=xp_dtype(xp, self._dtype), device=self._data.device)
    return self


def fill(self, value):
    """``torch.fill``: a new tensor like ``self``, filled with ``value``."""
    return fill_(clone(self), value)
