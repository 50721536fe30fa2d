"""The pointwise kernels ``addcmul``/``addcdiv`` (and in place, as the optimizers use them), ``lerp`` and ``lerp_``.

Models ``aten/src/ATen/native/PointwiseOps.cpp`` (``addcmul``, ``addcdiv``) and
``aten/src/ATen/native/Lerp.cpp``, in PyTorch's order of operations and roundings on the CPU:
``addcmul`` is ``(value * tensor1) * tensor2 + self`` with the last multiply-add fused;
``addcdiv`` is ``self + (value * tensor1) / tensor2``; ``lerp`` fuses ``weight * (end - self) + self``
when ``|weight| < 0.5``, else ``(weight - 1) * (end - self) + end`` (PyTorch's ``lerp_vec``).
The out-of-place ``addcmul``/``addcdiv`` run the in-place steps on a new tensor holding ``self``, promoted and
broadcast as TensorIterator allocates the output.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .binary_ops import add, check_inplace_operands, div, mul, type_meta_name, write_inplace
from .checks import broadcast_shapes
from .helpers import (
    cast,
    common_device,
    const,
    convert,
    fused_multiply_add,
    fused_multiply_add_float64,
    in_float32,
    is_reduced_float,
    np_xp,
    result_type,
    shape_of,
    wrap,
    xp_of,
)
from .layout import follow_inputs
from .memory_overlap import assert_no_partial_overlap
from .tensor_impl import new_tensor


def addcmul(self, tensor1, tensor2, value=1):
    return addcmul_(_output_holding_self(self, tensor1, tensor2), tensor1, tensor2, value)


def addcdiv(self, tensor1, tensor2, value=1):
    _check_addcdiv_operands(tensor1, tensor2)
    return addcdiv_(_output_holding_self(self, tensor1, tensor2), tensor1, tensor2, value)


def _output_holding_self(self, tensor1, tensor2):
    """A new tensor of the three operands' promoted dtype and broadcast shape, laid out as TensorIterator
    lays out an output, holding ``self``'s values: the in-place kernel then adds the product into it."""
    dev = common_device(self, tensor1, tensor2)
    dtype = result_type(self, tensor1, tensor2)
    shape = checks.broadcast_shapes(checks.broadcast_shapes(shape_of(self), shape_of(tensor1)), shape_of(tensor2))
    xp = xp_of(self)
    data = xp.asarray(xp.broadcast_to(cast(self, dtype, xp, dev), shape), copy=True)
    return new_tensor(follow_inputs(xp, data, [self._data, tensor1._data, tensor2._data]), dtype, dev)


def _check_addcdiv_operands(tensor1, tensor2) -> None:
    if not _inexact(tensor1) and not _inexact(tensor2):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
            "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
            "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")


def _inexact(t) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


def addcmul_(self, tensor1, tensor2, value=1):
    _check_overlap(self, tensor1, tensor2)
    if _in_float32(self, tensor1, tensor2):
        _write(self, _opmath(self, lambda xp, s, a, b: _times(xp, value, a) * b + s, tensor1, tensor2))
        return self
    arrays = _same_float_arrays(self, tensor1, tensor2)
    if arrays is not None and type(value) in (int, float):
        a, t1, t2 = arrays
        self._data[...] = fused_multiply_add(np_xp, t1 * a.dtype.type(value), t2, a)
        return self
    scaled = mul(tensor1, value)
    _write(self, _fma(self, scaled, tensor2, self))
    return self


def addcdiv_(self, tensor1, tensor2, value=1):
    _check_addcdiv_operands(tensor1, tensor2)
    _check_overlap(self, tensor1, tensor2)
    if _in_float32(self, tensor1, tensor2):
        _write(self, _opmath(self, lambda xp, s, a, b: s + _times(xp, value, a) / b, tensor1, tensor2))
        return self
    arrays = _same_float_arrays(self, tensor1, tensor2)
    if arrays is not None and type(value) in (int, float):
        a, t1, t2 = arrays
        self._data[...] = a + t1 * a.dtype.type(value) / t2
        return self
    _write(self, add(self, div(mul(tensor1, value), tensor2)))
    return self


def lerp_(self, end, weight):
    """``lerp_.Scalar`` and ``lerp_.Tensor``; an optimizer's update (one dtype and shape, a number) skips the
    general path's checks, promotion and broadcasting."""
    _check_overlap(self, end, weight)
    arrays = _same_float_arrays(self, end) if type(weight) in (int, float) else None
    if arrays is not None and arrays[0].dtype == np.float32:
        a, b = arrays
        small = abs(weight) < 0.5
        factor = a.dtype.type(weight if small else _weight_minus_one(self, weight))
        self._data[...] = fused_multiply_add(np_xp, b - a, factor, a if small else b)
        return self
    _write(self, lerp(self, end, weight))
    return self


def _check_overlap(self, *inputs) -> None:
    for t in inputs:  # TensorIterator's check, before any other (a number is skipped)
        assert_no_partial_overlap(self, t)


def lerp(self, end, weight):
    """``lerp.Scalar`` / ``lerp.Tensor``: ``self + weight * (end - self)``, computed in the dtype's ``opmath`` type
    as PyTorch's ``lerp_vec``: ``weight * (end - self) + self`` for ``|weight| < 0.5``, else
    ``(weight - 1) * (end - self) + end``, each one fused multiply-add."""
    tensor_weight = hasattr(weight, "_data")
    _check_lerp_dtypes(self, end, weight if tensor_weight else None)
    operands = [self, end] + ([weight] if tensor_weight else [])
    shape = ()
    for t in operands:
        shape = broadcast_shapes(shape, tuple(t._data.shape))
    if not self._dtype.is_floating_point:
        if self._dtype.is_complex:
            return _complex_lerp(self, end, weight, tensor_weight, shape, operands)
        kernel = "lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")
    xp = xp_of(self)
    if self._dtype.is_complex:
        return _complex_lerp(xp, self, end, weight, shape, operands)
    s, e = (xp.broadcast_to(_in_opmath(xp, t, self._dtype), shape) for t in (self, end))
    if tensor_weight:  # a zero-dim weight of another dtype is first cast to self's, as TensorIterator does
        w = _in_opmath(xp, weight, self._dtype)
    else:
        w = xp.asarray(weight, dtype=s.dtype, device=s.device)
    diff = e - s
    one = xp.asarray(1, dtype=s.dtype, device=s.device)
    fma = fused_multiply_add_float64 if s.dtype == xp.float64 else fused_multiply_add
    values = xp.where(xp.abs(w) < 0.5, fma(xp, diff, w, s), fma(xp, diff, w - one, e))
    values = convert(xp, xp.asarray(values), self._dtype)
    return wrap(self, follow_inputs(xp, values, [t._data for t in operands]))


def _complex_lerp(self, end, weight, tensor_weight, shape, operands):
    """Lerp.h's complex form: ``self + weight * (end - self)`` for ``|weight| < 0.5``, else
    ``end - (end - self) * (1 - weight)``."""
    xp = xp_of(self)
    s, e = (xp.broadcast_to(t._data, shape) for t in (self, end))
    w = convert(xp, weight._data, self._dtype) if tensor_weight else xp.asarray(weight, dtype=s.dtype,
                                                                                  device=s.device)
    diff = e - s
    one = xp.asarray(1, dtype=s.dtype, device=s.device)
    values = xp.where(xp.abs(w) < 0.5, s + w * diff, e - diff * (one - w))
    return wrap(self, follow_inputs(xp, xp.asarray(values, dtype=s.dtype), [t._data for t in operands]))


def _in_opmath(xp, t, dtype):
    """``t``'s array as ``dtype``, then in that dtype's ``opmath`` type (float64 stays, the others compute in
    float32)."""
    data = convert(xp, t._data, dtype) if t._dtype is not dtype else t._data
    return data if dtype is st.float64 else in_float32(xp, data)


def _check_lerp_dtypes(self, end, weight) -> None:
    """``end`` has ``self``'s dtype; so has a tensor weight, unless it is zero-dim (read as a number)."""
    if end._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {type_meta_name(self._dtype)} for `end` but got dtype "
                           f"{type_meta_name(end._dtype)}")
    if weight is not None and weight._dtype is not self._dtype and weight._data.ndim != 0:
        raise RuntimeError(f"expected dtype {type_meta_name(self._dtype)} for `weight` but got dtype "
                           f"{type_meta_name(weight._dtype)}")


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


def _weight_minus_one(self, weight):
    """``weight - 1`` as the kernel computes it: the weight is first a float32 for a float32 tensor
    (0.9 - 1 is -0.100000024 there, not -0.1)."""
    if str(self.dtype) == "torch.float32":
        return float(np.float32(weight)) - 1.0  # float64 holds this exactly; rounded to float32 by _fma's const
    return weight - 1


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


# NOTE [float16 and bfloat16 in the optimizers' kernels]
# For float16 / bfloat16 PyTorch's ``addcmul``, ``addcdiv`` and ``lerp`` kernels read every operand and the
# scalar into float32 (their ``opmath`` type), compute the whole expression there, and round once; rounding
# each step to the dtype (``mul`` then ``add``) would differ on a third of ``lerp``'s results.
def _in_float32(self, *others) -> bool:
    return is_reduced_float(self._dtype) and all(o._dtype is self._dtype for o in others)


def _opmath(self, compute, *others):
    xp = xp_of(self)
    arrays = [in_float32(xp, t._data) for t in (self, *others)]
    return wrap(self, convert(xp, xp.asarray(compute(xp, *arrays)), self._dtype))


def _times(xp, value, a):
    return a if value == 1 else xp.multiply(xp.asarray(value, dtype=xp.float32, device=a.device), a)
