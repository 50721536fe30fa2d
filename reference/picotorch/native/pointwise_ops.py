"""The pointwise kernels ``addcmul``/``addcdiv`` (and in place, as the optimizers use them) and ``lerp_``.

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

from . import checks
from .binary_ops import add, check_inplace_operands, div, mul, sub, write_inplace
from .helpers import (
    cast,
    common_device,
    const,
    convert,
    fused_multiply_add,
    in_float32,
    is_reduced_float,
    np_xp,
    result_type,
    shape_of,
    wrap,
    xp_of,
)
from .layout import follow_inputs
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
    if not tensor1._dtype.is_floating_point and not tensor2._dtype.is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
            "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
            "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")


def addcmul_(self, tensor1, tensor2, value=1):
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
    if _in_float32(self, end):
        _write(self, _opmath(self, lambda xp, s, e: _lerp_float32(xp, s, e, weight), end))
        return self
    arrays = _same_float_arrays(self, end)
    if arrays is not None and type(weight) in (int, float):
        a, b = arrays
        small = abs(weight) < 0.5
        factor = a.dtype.type(weight if small else _weight_minus_one(self, weight))
        self._data[...] = fused_multiply_add(np_xp, b - a, factor, a if small else b)
        return self
    diff = sub(end, self)
    if abs(weight) < 0.5:
        _write(self, _fma(self, diff, weight, self))
    else:
        _write(self, _fma(self, diff, _weight_minus_one(self, weight), end))
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


def _lerp_float32(xp, s, e, weight):
    """PyTorch's ``lerp_vec``: ``weight * (end - self) + self`` for a small weight, else
    ``(weight - 1) * (end - self) + end``, one fused multiply-add in float32."""
    diff = e - s
    w = xp.asarray(weight, dtype=xp.float32, device=s.device)  # the weight is a float32 first, then ``w - 1``
    if abs(weight) < 0.5:
        return fused_multiply_add(xp, diff, w, s)
    return fused_multiply_add(xp, diff, w - xp.asarray(1, dtype=xp.float32, device=s.device), e)
