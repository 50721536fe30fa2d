"""``clamp`` and its one-sided forms, with numbers or tensors for the bounds.

The in-place forms with number bounds are structured kernels that check their output themselves:
their cast error names the C++ type (``long int``), the tensor forms' the ScalarType (``Long``).

Models ``aten/src/ATen/native/TensorCompare.cpp`` (``clamp``, ``clamp.Tensor``, ``clamp_min``,
``clamp_max`` and their in-place forms; ``max.dim`` and ``min.dim``; ``isnan``, ``isinf``, ``isfinite``,
``isclose`` and ``allclose`` at the end). The result has the promoted dtype of the input and the bounds (an
int tensor clamped to ``0.5`` is float); a NaN anywhere gives NaN.
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .binary_ops import break_zero_ties, check_inplace_operands, maximum, minimum, not_implemented_for, write_inplace
from .device import backend, to_numpy
from .dispatcher import ops
from .helpers import as_operand, cast, common_device, result_type, shape_of, xp_of
from .layout import follow_inputs
from .tensor_impl import new_tensor

_NO_BOUND = "torch.clamp: At least one of 'min' or 'max' must not be None"
CLAMP_COMPLEX = "clamp is not supported for complex types"


def clamp(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError(_NO_BOUND)
    kernel = "clamp_scalar_cpu" if min is not None and max is not None else (
        "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
    return _clamp(self, min, max, kernel)


def clamp_tensor(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError(_NO_BOUND)
    return _clamp(self, min, max, "clamp_cpu")


def clamp_min(self, min):
    return _clamp(self, min, None, "clamp_min_scalar_cpu" if not _is_tensor(min) else "clamp_min_cpu")


def clamp_max(self, max):
    return _clamp(self, None, max, "clamp_max_scalar_cpu" if not _is_tensor(max) else "clamp_max_cpu")


def clamp_(self, min=None, max=None):
    check_inplace_operands(self, *[b for b in (min, max) if b is not None], type_meta_names=True)
    write_inplace(self, clamp(self, min, max))
    return self


def clamp_tensor_(self, min=None, max=None):
    check_inplace_operands(self, *[b for b in (min, max) if b is not None])
    write_inplace(self, clamp_tensor(self, min, max))
    return self


def clamp_min_(self, min):
    check_inplace_operands(self, min, type_meta_names=not _is_tensor(min))
    write_inplace(self, clamp_min(self, min))
    return self


def clamp_max_(self, max):
    check_inplace_operands(self, max, type_meta_names=not _is_tensor(max))
    write_inplace(self, clamp_max(self, max))
    return self


def _is_tensor(value) -> bool:
    return getattr(value, "_is_wrapped_number", True) is False


def _clamp(self, min, max, kernel):
    bounds = [as_operand(b) for b in (min, max) if b is not None]
    dev = common_device(self, *bounds)
    dtype = result_type(self, *bounds)
    if dtype.c10_name == "Bool":
        if len(bounds) == 1 and _is_tensor(bounds[0]):  # one tensor bound is maximum / minimum, which take bools
            return maximum(self, bounds[0]) if min is not None else minimum(self, bounds[0])
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if dtype.is_complex:
        _refuse_complex(self, kernel, dtype, len(bounds) == 2, max)
    shape = shape_of(self)
    for b in bounds:
        shape = checks.broadcast_shapes(shape, shape_of(b))
    xp = backend(dev).xp
    data = cast(self, dtype, xp, dev)
    if kernel == "clamp_cpu" or _is_tensor(min) or _is_tensor(max):
        for bound, pick in ((min, xp.maximum), (max, xp.minimum)):  # maximum's rule for a tie of zeros
            if bound is not None:
                bound = cast(as_operand(bound), dtype, xp, dev)
                data = break_zero_ties(xp, pick(data, bound), data, bound, dtype)
    else:
        data = _clamp_by_numbers(xp, data, *[None if b is None else cast(as_operand(b), dtype, xp, dev)
                                             for b in (min, max)], floating=dtype.is_floating_point)
    data = xp.broadcast_to(xp.asarray(data), shape)
    operands = [self._data] + [b._data for b in (min, max) if _is_tensor(b)]  # a number bound is no operand
    return new_tensor(follow_inputs(xp, xp.asarray(data, copy=True), operands), dtype, dev)


def _refuse_complex(self, kernel, dtype, both, max):
    """Complex numbers have no order. ``clamp`` refuses a complex ``self`` or promoted dtype up front (the tensor
    form only ``self``: a complex bound reaches its kernel), the one-sided tensor forms reach ``maximum``'s
    (``minimum``'s) kernel, as does the tensor form with one bound."""
    if kernel in ("clamp_min_cpu", "clamp_max_cpu"):
        raise not_implemented_for("maximum_cpu" if kernel == "clamp_min_cpu" else "minimum_cpu", dtype)
    if kernel == "clamp_cpu" and not self._dtype.is_complex:
        raise not_implemented_for(kernel if both else "maximum_cpu" if max is None else "minimum_cpu", dtype)
    raise NotImplementedError(CLAMP_COMPLEX)


# NOTE [clamp by numbers keeps the input on a tie]
# With number bounds PyTorch's kernels compute ``std::min(std::max(x, min), max)`` (their vectorised form
# picks the same operand): ``x < min ? min : x``, then ``max < v ? max : v``. An input equal to a bound is
# kept, so ``clamp(-0., min=0.)`` is ``-0.`` (NumPy's ``maximum`` gives the bound, ``0.``), a NaN input stays
# NaN, and ``min > max`` gives ``max`` everywhere. A NaN bound makes every element NaN before this
# (``clamp`` in TensorCompare.cpp fills the result). Tensor bounds go through ``maximum``/``minimum``'s rule:
# there PyTorch's vectorised loop and its scalar tail break a tie differently (NOTE [Ties of maximum and minimum]).
def _clamp_by_numbers(xp, data, low, high, floating):
    if any(b is not None and bool(xp.isnan(b)) for b in (low, high)):
        return xp.full(tuple(data.shape), math.nan, dtype=data.dtype, device=data.device)
    if low is not None:
        data = _keep_on_tie(xp, xp.maximum(data, low), data, low, floating)
    if high is not None:
        data = _keep_on_tie(xp, xp.minimum(data, high), data, high, floating)
    return data


def _keep_on_tie(xp, result, data, bound, floating):
    """``result`` with ``data``'s own value where it equals ``bound``: only a zero bound can differ (its sign)."""
    if not floating or float(bound) != 0:
        return result
    if type(result) is np.ndarray:  # a masked copy: a fifth of where's time (a zero-dim result is a NumPy scalar)
        np.copyto(result, data, where=data == bound)
        return result
    return xp.where(data == bound, data, result)


# ----------------------------------------------------------------------------- max.dim and min.dim
# The value and the index of the largest (smallest) element along one dim: the first one among ties,
# the first NaN where there is one (its value is then NaN). PyTorch's kernel keeps a running best and
# replaces it only by a strictly greater value, so among -0. and 0. the first one is returned.


def max_dim(self, dim, keepdim=False):
    return _value_and_index(self, dim, keepdim, "max")


def min_dim(self, dim, keepdim=False):
    return _value_and_index(self, dim, keepdim, "min")


def _value_and_index(self, dim, keepdim, name):
    xp = xp_of(self)
    ndim = self._data.ndim
    axis = checks.wrap_dim(dim, ndim)
    if self._dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    if ndim == 0:  # a zero-dim tensor is its own maximum, at index 0
        return (new_tensor(xp.asarray(self._data, copy=True), self._dtype, self._device),
                new_tensor(xp.zeros((), dtype=xp.int64, device=self._data.device), st.int64, self._device))
    if self._data.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    # the value is the element at the returned index: among equal zeros, the first one's sign
    indices = xp.astype(getattr(xp, f"arg{name}")(self._data, axis=axis, keepdims=True), xp.int64)
    values = xp.take_along_axis(self._data, indices, axis=axis)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=axis), xp.squeeze(indices, axis=axis)
    return (new_tensor(xp.asarray(values), self._dtype, self._device),
            new_tensor(xp.asarray(indices), st.int64, self._device))


# ----------------------------------------------------------------------------- isnan, isinf, isfinite
# Bool results, never differentiable. Integer and bool tensors are never NaN nor infinite.


def isnan(self):
    return _bool_result(self, xp_of(self).isnan)


def isinf(self):
    return _bool_result(self, xp_of(self).isinf)


def isfinite(self):
    return _bool_result(self, xp_of(self).isfinite)


def _bool_result(self, test):
    xp = xp_of(self)
    if self._dtype.is_floating_point or self._dtype.is_complex:
        data = test(self._data)
    else:
        data = xp.full(tuple(self._data.shape), test is xp.isfinite, dtype=xp.bool, device=self._data.device)
    return new_tensor(xp.asarray(data), st.bool_, self._device)


# ----------------------------------------------------------------------------- isclose, allclose
# |self - other| <= atol + |rtol * other|, elementwise, in the operands' own float dtype (rtol and atol are
# numbers, which do not promote a float tensor) or in the default dtype for integers; equal values are close
# even when infinite.


def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{self._dtype.c10_name} did not match {other._dtype.c10_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_number(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_number(atol)}")
    close = ops.eq(self, other)
    if equal_nan and self._dtype.is_floating_point:
        close = ops.bitwise_or_(close, ops.bitwise_and_(ops.isnan(self), ops.isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    # the difference is taken in the default dtype for integers ("-" of uint8 would wrap) and bool ("-" refuses it)
    default = st.get_default_dtype()
    if not self._dtype.is_floating_point:
        other = ops._to_copy(other, dtype=default)  # int - float: the difference is a float too
        if self._dtype is st.bool_:
            self = ops._to_copy(self, dtype=default)
    allowed_error = ops.add(ops.abs(ops.mul(other, rtol)), atol)
    actual_error = ops.abs(ops.sub(self, other))
    # in place, as PyTorch: the result's _version counts these writes
    return ops.bitwise_or_(close, ops.bitwise_and_(ops.isfinite(actual_error), ops.le(actual_error, allowed_error)))


def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{self._dtype.c10_name} did not match {other._dtype.c10_name}")
    close = ops.isclose(self, other, rtol, atol, equal_nan)
    return bool(xp_of(close).all(close._data))


def _number(value) -> str:
    """A double as ``c10`` prints it in an error: ``-1``, ``-0.5``."""
    return f"{value:g}"


# ----------------------------------------------------------------------------- isposinf, isneginf, isreal, isin
# Bool results, never differentiable. ``isreal`` of a real tensor is all true, laid out as ``self``
# (``ones_like``); ``isin`` compares in the promoted dtype (NaN is in nothing) and returns a new contiguous tensor.


def isposinf(self):
    _check_not_complex(self, "isposinf")
    return _bool_result(self, lambda data: data == math.inf)


def isneginf(self):
    _check_not_complex(self, "isneginf")
    return _bool_result(self, lambda data: data == -math.inf)


def _check_not_complex(self, name) -> None:
    if self._dtype.is_complex:
        raise RuntimeError(f"{name} does not support complex inputs.")


def isreal(self):
    """A complex element is real when its imaginary part is 0."""
    if self._dtype.is_complex:
        return ops.eq(ops.imag(self), 0)
    return ops.ones_like(self, dtype=st.bool_)


def isin(elements, test_elements, assume_unique=False, invert=False):
    elements, test_elements = as_operand(elements), as_operand(test_elements)
    for t in (elements, test_elements):
        if t._dtype is st.bool_ or t._dtype.is_complex:
            raise RuntimeError(f"Unsupported input type encountered for isin(): {t._dtype.c10_name}")
    common = st.to_numpy_dtype(result_type(elements, test_elements))
    found = np.isin(to_numpy(elements._data).astype(common), to_numpy(test_elements._data).astype(common),
                    invert=invert)
    return new_tensor(xp_of(elements).asarray(found.reshape(elements._data.shape)), st.bool_, elements._device)
