"""The binary elementwise kernels: arithmetic, comparisons, and the backward of sigmoid and tanh.

Models ``aten/src/ATen/native/BinaryOps.cpp`` (``add``, ``sub``, ``rsub``, ``mul``, ``div``, the
comparisons, the in-place ``add_``/``mul_``, ``sigmoid_backward``, ``tanh_backward``). Two neighbours
sit here too, because they are binary elementwise ops built the same way: ``pow`` (ATen's ``Pow.cpp``)
and ``where`` (ATen's ``TensorCompare.cpp``).

Every kernel starts as TensorIterator does (:func:`helpers.binary_operands`: the common device, the
promoted dtype, the broadcast shape, both arrays cast), computes with the device's array library and
lays the output out as PyTorch would (:func:`layout.follow_inputs`).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .device import backend
from .helpers import (
    as_operand,
    binary_operands,
    cast,
    common_device,
    const,
    result_type,
    scalar_tensor,
    scaled,
    shape_of,
    wrap,
    xp_dtype,
    xp_of,
)
from .layout import follow_inputs
from .tensor_impl import new_tensor

# ----------------------------------------------------------------------------- arithmetic


def add(self, other, alpha=1):
    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        if dtype is st.bool_:
            return xp.logical_or(a, b)
        return xp.add(a, scaled(xp, b, alpha))
    return _binary(self, other, compute)


def sub(self, other, alpha=1):
    _check_bool_sub(self, other)

    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        return xp.subtract(a, scaled(xp, b, alpha))
    return _binary(self, other, compute)


def rsub(self, other, alpha=1):
    """``other - alpha * self`` (what ``2 - x`` calls)."""
    _check_bool_sub(self, other)

    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        return xp.subtract(b, scaled(xp, a, alpha))
    return _binary(self, other, compute)


def mul(self, other):
    def compute(xp, a, b, dtype):
        return xp.logical_and(a, b) if dtype is st.bool_ else xp.multiply(a, b)
    return _binary(self, other, compute)


def div(self, other):
    return _binary(self, other, lambda xp, a, b, dtype: xp.divide(a, b), to_float=True)


def pow(self, exponent):
    return _binary(self, exponent, _pow_compute)


def pow_scalar_base(self, exponent):
    """``pow.Scalar``: a Python number raised to a tensor (what ``2 ** x`` calls)."""
    base = scalar_tensor(self)
    return _binary(base, exponent, _pow_compute)


def _binary(self, other, compute, *, to_float=False):
    other, dev, dtype, _, xp, a, b = binary_operands(self, other, to_float=to_float)
    data = compute(xp, a, b, dtype)
    if type(data) is not np.ndarray:  # a NumPy scalar (zero-dim operands) or another library's array;
        data = xp.asarray(data)       # an ndarray is already one: skipping the call saves a tenth of a small op
    return new_tensor(follow_inputs(xp, data, [self._data, other._data]), dtype, dev)


def _check_alpha(dtype, alpha) -> None:
    if not dtype.is_floating_point and isinstance(alpha, float) and alpha != int(alpha):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _check_bool_sub(self, other) -> None:
    other_is_bool = isinstance(other, bool) or getattr(other, "_dtype", None) is st.bool_
    if self._dtype is st.bool_ and other_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if self._dtype is st.bool_ or other_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _pow_compute(xp, a, b, dtype):
    if not dtype.is_floating_point and bool(xp.any(b < 0)):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return xp.pow(a, b)


# ----------------------------------------------------------------------------- in place


def add_(self, other, alpha=1):
    _write(self, add(self, other, alpha))
    return self


def mul_(self, other):
    _write(self, mul(self, other))
    return self


def _write(self, result) -> None:
    """Copy an out-of-place result into ``self``, with PyTorch's checks for an in-place op."""
    _check_inplace_dtype(self, result._dtype)
    if tuple(result._data.shape) != shape_of(self):
        raise RuntimeError(f"output with shape {list(shape_of(self))} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}")
    xp = xp_of(self)
    self._data[...] = xp.astype(result._data, xp_dtype(xp, self._dtype))


def _check_inplace_dtype(self, dtype) -> None:
    if st.promote_types(dtype, self._dtype) is not self._dtype:
        raise RuntimeError(f"result type {dtype.c10_name} can't be cast to the desired output type "
                           f"{self._dtype.c10_name}")


# ----------------------------------------------------------------------------- comparisons


def eq(self, other):
    return _compare(self, other, lambda xp, a, b: xp.equal(a, b))


def ne(self, other):
    return _compare(self, other, lambda xp, a, b: xp.not_equal(a, b))


def lt(self, other):
    return _compare(self, other, lambda xp, a, b: xp.less(a, b))


def le(self, other):
    return _compare(self, other, lambda xp, a, b: xp.less_equal(a, b))


def gt(self, other):
    return _compare(self, other, lambda xp, a, b: xp.greater(a, b))


def ge(self, other):
    return _compare(self, other, lambda xp, a, b: xp.greater_equal(a, b))


def _compare(self, other, fn):
    other, dev, _, _, xp, a, b = binary_operands(self, other)
    return new_tensor(follow_inputs(xp, xp.asarray(fn(xp, a, b)), [self._data, other._data]), st.bool_, dev)


def where(condition, self, other):
    _check_where_condition(condition)
    self, other = as_operand(self), as_operand(other)
    dev = common_device(condition, self, other)
    dtype = result_type(self, other)
    checks.broadcast_shapes(checks.broadcast_shapes(shape_of(condition), shape_of(self)), shape_of(other))
    xp = backend(dev).xp
    data = xp.where(cast(condition, st.bool_, xp, dev), cast(self, dtype, xp, dev), cast(other, dtype, xp, dev))
    return new_tensor(follow_inputs(xp, xp.asarray(data), [condition._data, self._data, other._data]), dtype, dev)


def _check_where_condition(condition) -> None:
    """``where_kernel_impl`` in TensorCompare.cpp: a bool condition; uint8 still works, with a warning."""
    if condition._dtype is st.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorCompare.cpp:621.)", UserWarning, stacklevel=2)
    elif condition._dtype is not st.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition._dtype.c10_name}")


# ----------------------------------------------------------------------------- backward of unary ops


def sigmoid_backward(grad_output, output):
    xp = xp_of(grad_output)
    one = const(xp, 1, output._data)
    return wrap(grad_output, grad_output._data * (one - output._data) * output._data)


def tanh_backward(grad_output, output):
    xp = xp_of(grad_output)
    one = const(xp, 1, output._data)
    return wrap(grad_output, grad_output._data * (one - output._data * output._data))
