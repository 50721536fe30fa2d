"""The optimizers' in-place pointwise kernels: ``addcmul_``, ``addcdiv_``, ``lerp_``.

Models ``aten/src/ATen/native/PointwiseOps.cpp`` (``addcmul``, ``addcdiv``) and
``aten/src/ATen/native/Lerp.cpp``, in PyTorch's order of operations and roundings on the CPU:
``addcmul`` is ``(value * tensor1) * tensor2 + self`` with the last multiply-add fused;
``addcdiv`` is ``self + (value * tensor1) / tensor2``; ``lerp`` fuses ``weight * (end - self) + self``
when ``|weight| < 0.5``, else ``(weight - 1) * (end - self) + end`` (PyTorch's ``lerp_vec``).
"""

from __future__ import annotations

import numpy as np

from .binary_ops import add, check_inplace_operands, div, mul, sub, write_inplace
from .helpers import const, fused_multiply_add, np_xp, wrap, xp_of


def addcmul_(self, tensor1, tensor2, value=1):
    arrays = _same_float_arrays(self, tensor1, tensor2)
    if arrays is not None and type(value) in (int, float):
        a, t1, t2 = arrays
        self._data[...] = fused_multiply_add(np_xp, t1 * a.dtype.type(value), t2, a)
        return self
    scaled = mul(tensor1, value)
    _write(self, _fma(self, scaled, tensor2, self))
    return self


def addcdiv_(self, tensor1, tensor2, value=1):
    arrays = _same_float_arrays(self, tensor1, tensor2)
    if arrays is not None and type(value) in (int, float):
        a, t1, t2 = arrays
        self._data[...] = a + t1 * a.dtype.type(value) / t2
        return self
    _write(self, add(self, div(mul(tensor1, value), tensor2)))
    return self


def lerp_(self, end, weight):
    arrays = _same_float_arrays(self, end)
    if arrays is not None and type(weight) in (int, float):
        a, b = arrays
        small = abs(weight) < 0.5
        factor = a.dtype.type(weight if small else weight - 1)
        self._data[...] = fused_multiply_add(np_xp, b - a, factor, a if small else b)
        return self
    diff = sub(end, self)
    if abs(weight) < 0.5:
        _write(self, _fma(self, diff, weight, self))
    else:
        _write(self, _fma(self, diff, weight - 1, end))
    return self


def _same_float_arrays(self, *others):
    """The NumPy arrays of ``self`` and ``others`` when all are float32 or float64 of one dtype and shape
    (an optimizer's update): the steps below on them directly give what the general path gives (the same
    operations in the same dtype, a number rounded to it first), without its promotion and broadcasting."""
    a = self._data
    if type(a) is not np.ndarray or a.dtype.type not in (np.float32, np.float64):
        return None
    arrays = [a]
    for other in others:
        data = other._data
        if type(data) is not np.ndarray or data.dtype != a.dtype or data.shape != a.shape or other._is_wrapped_number:
            return None
        arrays.append(data)
    return arrays


def _write(self, result) -> None:
    """Into ``self``, if the result's dtype casts to it (TensorIterator's check of an in-place output)."""
    check_inplace_operands(self, result)
    write_inplace(self, result)


def _fma(like, a, b, c):
    """``a * b + c`` (tensors, or a Python number for ``b``) in ``like``'s dtype, rounded once."""
    xp = xp_of(like)
    dtype = xp.float32 if str(like.dtype) == "torch.float32" else None
    a_data = a._data
    if dtype is None or a_data.dtype != dtype:
        return add(mul(a, b), c)
    b_data = const(xp, b, a_data) if not hasattr(b, "_data") else b._data
    return wrap(like, fused_multiply_add(xp, a_data, b_data, c._data))
