"""Complex tensors: building them from parts, taking them apart, and conjugating.

Models ``aten/src/ATen/native/ComplexHelper.h`` (``view_as_real``, ``view_as_complex``),
``aten/src/ATen/native/TensorFactories.cpp`` (``complex``, ``polar``) and the complex parts of
``aten/src/ATen/native/UnaryOps.cpp`` (``real``, ``imag``, ``angle``, ``conj``, ``_conj_physical``, ``sgn``).

A complex64 element is two float32 side by side, so a complex tensor and its real view share one storage:
``view_as_real`` gives a float tensor with one more dim of size 2 (stride 1), and ``real`` / ``imag`` select
index 0 / 1 of that dim. Every stride of the real view is twice the complex one, in elements of half the size.

NOTE [Conjugation is lazy in PyTorch]
PyTorch's ``conj()`` of a complex tensor copies nothing: it returns a view with the *conjugate bit* set
(``is_conj()``), and the kernels that read it conjugate on the fly; ``resolve_conj()`` materialises it. NumPy
has no such bit, so picotorch's ``_conj`` writes the conjugated values into a new array and sets the bit on
the result: values, ``is_conj()``, ``ConjBackward0`` and ``resolve_conj()``'s ``CloneBackward0`` are PyTorch's,
but the result is not a view of its input (``_base`` is None, and writing into it does not change the input).
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .dispatcher import ops
from .helpers import (
    _as_strided_of,
    const,
    float_dtype,
    strides_of,
    view_of,
    wrap,
    xp_dtype,
    xp_of,
)
from .layout import follow_inputs
from .tensor_impl import new_tensor

_PARTS_DTYPES = (st.float16, st.float32, st.float64)


# ----------------------------------------------------------------------------- views between complex and real


def view_as_real(self):
    """A float view of a complex tensor: one more dim of size 2 holding (real, imaginary)."""
    if not self._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if is_conj(self):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    return _view_as_real_physical(self)


def _view_as_real_physical(self):
    data = self._data
    if getattr(data, "strides", None) is None:  # an array without strides (the Array API's): a copy
        xp = xp_of(self)
        return view_of(self, xp.stack([xp.real(data), xp.imag(data)], axis=-1), dtype=self._dtype.to_real())
    real_part = data.real  # a view: every stride of the complex array, half the itemsize
    parts = _as_strided_of(data)(real_part, shape=tuple(data.shape) + (2,),
                                 strides=tuple(real_part.strides) + (real_part.itemsize,))
    return view_of(self, parts, dtype=self._dtype.to_real())


def view_as_complex(self):
    """A complex view of a float tensor whose last dim holds (real, imaginary) pairs, with ``ComplexHelper.h``'s
    checks in its order: the dtype, a dim to fold, its size 2 and stride 1, even strides and an even offset."""
    if self._dtype not in _PARTS_DTYPES:
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {self._dtype.c10_name}")
    sizes, strides = tuple(self._data.shape), strides_of(self)
    if not sizes:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if sizes[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    complex_dtype = self._dtype.to_complex()
    st.to_numpy_dtype(complex_dtype)  # complex32 has no NumPy type: say so
    xp, data = xp_of(self), self._data
    if getattr(data, "strides", None) is None:  # an array without strides (the Array API's): a copy
        return view_of(self, _from_parts(xp, data[..., 0], data[..., 1], complex_dtype), dtype=complex_dtype)
    return view_of(self, data.view(xp_dtype(xp, complex_dtype))[..., 0], dtype=complex_dtype)


def _from_parts(xp, re, im, complex_dtype):
    """A new complex array ``re + i im`` (broadcast)."""
    target = xp_dtype(xp, complex_dtype)
    if hasattr(re, "strides"):  # NumPy, CuPy: write each part in place
        out = xp.empty(np.broadcast_shapes(tuple(re.shape), tuple(im.shape)), dtype=target, device=re.device)
        out.real[...] = re
        out.imag[...] = im
        return out
    return xp.astype(re, target) + xp.astype(im, target) * xp.asarray(1j, dtype=target, device=re.device)


# ----------------------------------------------------------------------------- parts of a complex tensor


def real(self):
    """``view_as_real(self)[..., 0]`` for a complex tensor (``SelectBackward0`` over ``ViewAsRealBackward0``);
    a real tensor is its own real part."""
    if not self._dtype.is_complex:
        return self
    return _part(self, 0)


def imag(self):
    if not self._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _part(self, 1)


def _part(self, index):
    if is_conj(self):  # PyTorch reads the bit; picotorch's conjugated values are already in memory
        self = ops.resolve_conj(self)
    pairs = ops.view_as_real(self)
    return ops.select(pairs, pairs.dim() - 1, index)  # the last dim by number: SelectBackward0 saves it


def complex(real, imag):
    """``real + i imag``, broadcast; both parts one float dtype (``complex_check_dtype``)."""
    _check_parts(real, imag)
    return _combine(real, imag, lambda xp, re, im: (re, im))


def polar(abs, angle):
    """``abs * (cos(angle) + i sin(angle))``, computed in the parts' dtype as PyTorch's kernel does."""
    _check_parts(abs, angle)
    return _combine(abs, angle, lambda xp, r, t: (xp.multiply(r, xp.cos(t)), xp.multiply(r, xp.sin(t))))


def _check_parts(a, b):
    if a._dtype not in _PARTS_DTYPES or b._dtype not in _PARTS_DTYPES:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{a._dtype.c10_name} and {b._dtype.c10_name}")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"Expected object of scalar type {a._dtype.c10_name} but got scalar type "
                           f"{b._dtype.c10_name} for second argument")


def _combine(a, b, parts):
    xp = xp_of(a)
    checks.broadcast_shapes(tuple(a._data.shape), tuple(b._data.shape))  # shapes that do not broadcast: its error
    complex_dtype = a._dtype.to_complex()
    with np.errstate(invalid="ignore", over="ignore"):
        re, im = parts(xp, a._data, b._data)
    return new_tensor(_from_parts(xp, re, im, complex_dtype), complex_dtype, a._device)


# ----------------------------------------------------------------------------- angle, sgn, abs


def angle(self):
    """The argument of each element; for real numbers pi where negative, else 0 (NaN kept), in floating point."""
    xp = xp_of(self)
    if self._dtype.is_complex:
        data = xp.atan2(xp.imag(self._data), xp.real(self._data))
        return new_tensor(follow_inputs(xp, data, [self._data]), self._dtype.to_real(), self._device)
    dtype = float_dtype(self._dtype)
    x = self._data
    values = xp.where(x < const(xp, 0, x), xp.asarray(math.pi, dtype=xp_dtype(xp, dtype)),
                      xp.zeros((), dtype=xp_dtype(xp, dtype)))
    if dtype.is_floating_point and self._dtype.is_floating_point:
        values = xp.where(xp.isnan(x), x, values)
    return new_tensor(follow_inputs(xp, xp.asarray(values, dtype=xp_dtype(xp, dtype)), [self._data]), dtype,
                      self._device)


def complex_sgn(self):
    """``z / |z|``, 0 where ``z`` is 0."""
    xp = xp_of(self)
    data = self._data
    magnitude = xp.abs(data)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = xp.where(magnitude == 0, xp.zeros((), dtype=data.dtype, device=data.device),
                          data / xp.astype(magnitude, data.dtype))
    return wrap(self, follow_inputs(xp, xp.asarray(values, dtype=data.dtype), [data]))


def complex_abs(self):
    """``|z|``, a real tensor of the parts' dtype."""
    xp = xp_of(self)
    return new_tensor(follow_inputs(xp, xp.abs(self._data), [self._data]), self._dtype.to_real(), self._device)


# ----------------------------------------------------------------------------- conjugation


def is_conj(self):
    return self._dtype.is_complex and getattr(self, "_is_conj", False)


def conj(self):
    """A real tensor is its own conjugate (``self``, no node); a complex one goes through ``_conj``."""
    if not self._dtype.is_complex:
        return self
    return ops._conj(self)


def _conj(self):
    """The conjugate with the conjugate bit set (NOTE [Conjugation is lazy in PyTorch])."""
    result = _conj_physical(self)
    result._is_conj = not is_conj(self)
    return result


def _conj_physical(self):
    xp = xp_of(self)
    return wrap(self, follow_inputs(xp, xp.conj(self._data), [self._data]))


def conj_physical(self):
    if not self._dtype.is_complex:
        return self
    return ops._conj_physical(self)


def resolve_neg(self):
    return self  # picotorch has no negative bit: a tensor is never a lazy negation


def resolve_conj(self):
    """``self`` unless its conjugate bit is set; then a copy without it (``CloneBackward0``)."""
    if not is_conj(self):
        return self
    result = ops.clone(self)
    result._is_conj = False
    return result
