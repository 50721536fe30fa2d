"""The binary elementwise kernels: arithmetic, comparisons, and the backward of sigmoid and tanh.

Models ``aten/src/ATen/native/BinaryOps.cpp`` (``add``, ``sub``, ``rsub``, ``mul``, ``div``,
``floor_divide``, ``remainder``, ``bitwise_and``/``bitwise_or``/``bitwise_xor``, ``minimum``/``maximum``, the
comparisons, the in-place forms ``add_``, ``sub_``, ``mul_``, ``div_`` ..., ``sigmoid_backward``,
``tanh_backward``; ``hypot``, ``logaddexp``, ``logaddexp2``, ``xlogy``, ``fmax``/``fmin``, ``copysign`` at the
end). Two neighbours sit here too, because they are binary elementwise ops built the
same way: ``pow`` (ATen's ``Pow.cpp``) and ``where`` (ATen's ``TensorCompare.cpp``).

Every kernel starts as TensorIterator does (:func:`helpers.binary_operands`: the common device, the
promoted dtype, the broadcast shape, both arrays cast), computes with the device's array library and
lays the output out as PyTorch would (:func:`layout.follow_inputs`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .device import backend, to_numpy
from .helpers import (
    as_operand,
    binary_operands,
    cast,
    common_device,
    const,
    convert,
    float_dtype,
    fused_multiply_add,
    fused_multiply_add_into,
    in_float32,
    is_reduced_float,
    np_xp,
    result_type,
    rounded_scalar,
    rounded_to,
    scalar_tensor,
    scaled,
    shape_of,
    truth,
    wrap,
    xp_of,
)
from .layout import follow_inputs
from .memory_overlap import INTERNAL_OVERLAP_MESSAGE, assert_no_partial_overlap
from .tensor_impl import TensorImpl, new_tensor

# ----------------------------------------------------------------------------- arithmetic


def add(self, other, alpha=1):
    if alpha == 1 and alpha is not True:  # the usual call: nothing to check or scale, and no closure to build
        return _binary(self, other, _add_alpha_one)

    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        alpha_ = _alpha(dtype, alpha)
        if dtype is st.bool_:
            return xp.logical_or(a, b)
        if alpha_ != 1 and is_reduced_float(dtype):
            return _add_scaled_reduced_float(xp, a, b, alpha_, dtype)
        if alpha_ != 1 and a.dtype == xp.float32:  # PyTorch's kernel: fmadd(other, alpha, self) (opmath float32)
            return fused_multiply_add(xp, b, const(xp, alpha_, b), a)
        return xp.add(a, scaled(xp, b, alpha_))
    return _binary(self, other, compute)


def _add_alpha_one(xp, a, b, dtype):
    return xp.logical_or(a, b) if dtype is st.bool_ else xp.add(a, b)


def sub(self, other, alpha=1):
    _check_bool_sub(self, other)
    if alpha == 1 and alpha is not True:
        return _binary(self, other, _subtract_alpha_one)

    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        alpha_ = _alpha(dtype, alpha)
        if alpha_ != 1 and is_reduced_float(dtype):
            return _add_scaled_reduced_float(xp, a, b, -alpha_, dtype)
        if alpha_ != 1 and a.dtype == xp.float32:  # PyTorch's sub is add with -alpha, so fused as well
            return fused_multiply_add(xp, b, const(xp, -alpha_, b), a)
        return xp.subtract(a, scaled(xp, b, alpha_))
    return _binary(self, other, compute)


def _subtract_alpha_one(xp, a, b, dtype):
    return xp.subtract(a, b)


def rsub(self, other, alpha=1):
    """``other - alpha * self`` (what ``2 - x`` calls)."""
    _check_bool_sub(self, other)

    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        return xp.subtract(b, scaled(xp, a, _alpha(dtype, alpha)))
    return _binary(self, other, compute)


def mul(self, other):
    return _binary(self, other, _multiply, scalar_in_float32=True, one_value=True)


def _multiply(xp, a, b, dtype):
    if not dtype.is_floating_point:
        return xp.logical_and(a, b) if dtype is st.bool_ else _complex_multiply(xp, a, b) if dtype.is_complex \
            else xp.multiply(a, b)
    return xp.multiply(a, b)


# NOTE [Complex products]
# PyTorch's vectorised complex product is ``(ac - bd) + (ad + bc)i``, each product rounded to the parts' dtype and
# no multiply-add fused; the scalar tail of its loop (all of a tensor shorter than a vector: 8 complex64, 4
# complex128) is C++'s ``a * c - b * d``, which the compiler fuses into ``fma(a, c, -(b * d))`` (and
# ``fma(a, d, b * c)``) for complex64 and NumPy's ``multiply`` matches for complex128. Measured against torch 2.13:
# the vectors 1002 of 1003 complex64 products (NumPy's ``multiply`` 542); the tails 55% to 100% by length (which
# rule PyTorch's scalar code follows there is not fully modelled).
_COMPLEX_VECTOR = {"complex64": 8, "complex128": 4}


def _complex_multiply(xp, a, b):
    a_re, a_im, b_re, b_im = xp.real(a), xp.imag(a), xp.real(b), xp.imag(b)
    with np.errstate(invalid="ignore", over="ignore"):
        real, imag = a_re * b_re - a_im * b_im, a_re * b_im + a_im * b_re
        shape = checks.broadcast_shapes(tuple(a.shape), tuple(b.shape))
        single = a.dtype == xp.complex64
        tail = _in_scalar_tail(xp, shape, tuple(a.shape) == tuple(b.shape) or a.ndim == 0 or b.ndim == 0, a,
                               _COMPLEX_VECTOR["complex64" if single else "complex128"])
        if bool(xp.any(tail)):
            if single:  # fma in float64: the product a * c is exact there, one rounding at the end
                wide = xp.float64
                tail_re = xp.astype(xp.astype(a_re, wide) * xp.astype(b_re, wide) - xp.astype(a_im * b_im, wide),
                                    xp.float32)
                tail_im = xp.astype(xp.astype(a_re, wide) * xp.astype(b_im, wide) + xp.astype(a_im * b_re, wide),
                                    xp.float32)
            else:
                product = xp.multiply(a, b)
                tail_re, tail_im = xp.real(product), xp.imag(product)
            real, imag = xp.where(tail, tail_re, real), xp.where(tail, tail_im, imag)
    if xp is np_xp:
        out = np.empty(np.broadcast_shapes(np.shape(a), np.shape(b)), dtype=a.dtype)
        out.real, out.imag = real, imag
        return out
    return xp.astype(real, a.dtype) + xp.astype(imag, a.dtype) * xp.asarray(1j, dtype=a.dtype, device=a.device)


def div(self, other):
    return _binary(self, other, _divide, to_float=True, scalar_in_float32=True, one_value=True)


def _divide(xp, a, b, dtype):
    return xp.divide(a, b)


def div_mode(self, other, rounding_mode=None):
    """``div`` with ``rounding_mode``: None divides as floats; 'trunc' rounds toward zero and 'floor' down, both
    in the promoted dtype (an integer stays an integer, and dividing it by zero raises)."""
    _check_rounding_mode(rounding_mode)
    if rounding_mode is None:
        return div(self, other)
    if rounding_mode == "floor":
        return floor_divide(self, other)
    return _binary(self, other, _division("div_trunc_cpu", _truncated_division))


def _check_rounding_mode(rounding_mode) -> None:
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")


def _truncated_division(xp, a, b, dtype):
    """``trunc(a / b)`` for floats, the quotient rounded to the dtype first (float16 / bfloat16 too: NOTE
    [Floor division in float16 and bfloat16]); for integers the floor quotient moved up by one where a nonzero
    remainder has the sign opposite to the divisor's."""
    if dtype.is_floating_point:
        quotient = xp.divide(a, b)
        return xp.trunc(rounded_to(xp, quotient, dtype) if is_reduced_float(dtype) else quotient)
    quotient = xp.floor_divide(a, b)
    zero = const(xp, 0, quotient)
    inexact = xp.logical_and(xp.not_equal(a - quotient * b, zero), xp.not_equal(a < zero, b < zero))
    return xp.where(inexact, quotient + const(xp, 1, quotient), quotient)


def pow(self, exponent):
    if self._dtype is st.bool_ and getattr(exponent, "_dtype", None) is st.bool_:
        # a bool number exponent is 0 or 1, which PyTorch answers without the kernel (a fill or a copy)
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if self._dtype is st.bool_ and (exponent is True or exponent is False):
        # 1 is a copy and 0 a fill of ones in pow.Tensor_Scalar, so a bool tensor stays bool
        xp = xp_of(self)
        return wrap(self, xp.asarray(self._data, copy=True) if exponent else xp.ones_like(self._data))
    number = _number_value(exponent)
    if number is None:
        return _binary(self, exponent, _pow_compute)
    if not self._dtype.is_floating_point and isinstance(number, int) and number < 0 and not self._dtype.is_complex:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _binary(self, exponent, _pow_by_number(number), number_operand=False)


def _number_value(value):
    """The Python number behind a number argument (a wrapped zero-dim tensor), else None."""
    if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
        return value
    if getattr(value, "_is_wrapped_number", False) and value._dtype is not st.bool_:
        return value._data.item()
    return None


# NOTE [pow by a number]
# ``pow.Tensor_Scalar`` (Pow.cpp, PowKernel.cpp) does not always call ``pow``: exponent 0 fills ones, 1 copies;
# float32, float64 and bfloat16 send 0.5 to ``sqrt``, -0.5 to ``rsqrt``, -1 to ``reciprocal`` (so ``(-0.) ** 0.5``
# is ``-0.`` and ``(-inf) ** 0.5`` NaN, where C's ``pow`` gives ``0.`` and ``inf``), then 2, 3 and -2 multiply:
# ``x * x``, ``x * x * x``, ``1 / (x * x)``, each product rounded to the dtype. bfloat16 compares the exponent
# after rounding it to bfloat16; float16 has none of these paths: C's ``pow`` in float32, the exponent a float16.
def _pow_by_number(number):
    def compute(xp, a, b, dtype):
        if number == 0:
            return xp.ones_like(a)
        if number == 1 or not dtype.is_floating_point:
            if dtype.is_complex and number != 1:
                return _complex_pow_by_number(xp, a, b, number)
            return a if number == 1 else _pow_compute(xp, a, b, dtype)
        if dtype is st.float16:
            return _c_pow(xp, a, b)
        exponent = rounded_scalar(number, dtype) if dtype is st.bfloat16 else number
        if exponent == 0.5:
            return xp.sqrt(a)
        if exponent in (-0.5, -1):
            return xp.divide(const(xp, 1, a), xp.sqrt(a) if exponent == -0.5 else a)
        if exponent in (2, 3, -2):
            square = rounded_to(xp, a * a, dtype) if dtype is st.bfloat16 else a * a
            return square if exponent == 2 else square * a if exponent == 3 else xp.divide(const(xp, 1, a), square)
        return _float32_pow(xp, a, number) if dtype is st.float32 else xp.pow(a, b)
    return compute


def _complex_pow_by_number(xp, a, b, number):
    """A complex tensor to a number: 0.5, -0.5 and -1 are ``sqrt``, ``rsqrt`` and ``reciprocal`` (PowKernel.cpp, as
    for floats), any other power ``std::pow`` (NumPy's power agrees, unlike a tensor exponent's: NOTE [Complex
    powers])."""
    with np.errstate(all="ignore"):
        if number == 0.5:
            return xp.sqrt(a)
        if number in (-0.5, -1):
            return xp.divide(const(xp, 1, a), xp.sqrt(a) if number == -0.5 else a)
        return xp.pow(a, xp.astype(b, a.dtype))


def _float32_pow(xp, a, number):
    """float32 ``x ** number`` as PyTorch's loop computes it, in double and rounded once: its scalar tail (all of a
    zero-dim tensor) raises to the double ``number``, its vectors to ``number`` rounded to float32 (SLEEF's powf).
    Measured against torch 2.13 on 10^6 values: 98% agree for 1.5 and 2.7 (79% and 12% with NumPy's powf)."""
    wide = xp.astype(a, xp.float64)
    scalars = xp.astype(xp.pow(wide, const(xp, number, wide)), xp.float32)
    vector_exponent = float(np.float32(number))
    if vector_exponent == number or a.ndim == 0:
        return scalars
    vectors = xp.astype(xp.pow(wide, const(xp, vector_exponent, wide)), xp.float32)
    tail = _in_scalar_tail(xp, tuple(a.shape), same_shape=True, like=a)  # float32 rows go 32 at a time too
    return xp.where(tail, scalars, vectors)


def _c_pow(xp, a, b):
    """C's ``pow``: NumPy's own turns ``x ** 0.5`` into ``sqrt`` (``-0.`` for ``-0.``, NaN for ``-inf``)."""
    result = xp.pow(a, b)
    if b.ndim == 0 and float(b) == 0.5:
        result = xp.where(xp.isneginf(a), const(xp, math.inf, a), result) + const(xp, 0, a)  # -0. + 0. is 0.
    return result


def pow_scalar_base(self, exponent):
    """``pow.Scalar``: a Python number raised to a tensor (what ``2 ** x`` calls)."""
    base = scalar_tensor(self)
    return _binary(base, exponent, _pow_compute, number_operand=False)


def floor_divide(self, other):
    return _binary(self, other, _division("div_floor_cpu", _floor_division))


def _floor_division(xp, a, b, dtype):
    return _floor_division_rounded(xp, a, b, dtype) if is_reduced_float(dtype) else xp.floor_divide(a, b)


# NOTE [Floor division in float16 and bfloat16]
# PyTorch runs ``c10::div_floor_floating`` in the tensor's own dtype: ``mod = fmod(a, b)``, ``div = (a - mod) / b``,
# one less where ``mod`` and ``b`` differ in sign, then ``floor`` (rounded up past .5), each step rounded to
# float16 / bfloat16 (``trunc`` likewise truncates the rounded quotient). NumPy's ``floor_divide`` is the same
# algorithm, so float32 and float64 agree with it; computing in float32 and rounding once does not (measured
# against torch 2.13 on 10^5 values: 100% with every step rounded, 99% / 93% for float16 / bfloat16 without).
def _floor_division_rounded(xp, a, b, dtype):
    def rounded(x):
        return rounded_to(xp, x, dtype)
    zero, one = const(xp, 0, a), const(xp, 1, a)
    mod = _fmod(xp, a, b)
    div = rounded(rounded(a - mod) / b)
    div = xp.where(xp.logical_and(mod != zero, xp.not_equal(b < zero, mod < zero)), rounded(div - one), div)
    floor = xp.floor(div)
    floor = xp.where(div - floor > const(xp, 0.5, a), rounded(floor + one), floor)
    quotient = rounded(a / b)
    result = xp.where(div != zero, floor, xp.copysign(zero, quotient))
    return xp.where(b == zero, quotient, result)


def remainder(self, other):
    """The remainder of floor division: the sign of ``other``, as Python's ``%`` (NOTE [remainder of floats])."""
    return _binary(self, other, _division("remainder_cpu", lambda xp, a, b, dtype: _remainder(xp, a, b)))


# NOTE [remainder of floats]
# PyTorch's float kernel starts from C's ``fmod`` (the sign of ``self``) and adds ``other`` to a nonzero
# remainder of the wrong sign. A zero remainder keeps fmod's sign, the dividend's: ``-4. % 2`` is ``-0.``
# and ``4. % -2`` is ``0.``, where NumPy's ``remainder`` (and Python's ``%``) give the divisor's sign.
def _remainder(xp, a, b):
    mod = xp.remainder(a, b)
    if not xp.isdtype(a.dtype, "real floating"):
        return mod
    return xp.where(mod == const(xp, 0, mod), xp.copysign(mod, a), mod)  # a nonzero one is the same in both


def fmod(self, other):
    """C's ``fmod``: the remainder of the quotient truncated toward zero, with ``self``'s sign."""
    return _binary(self, other, _division("fmod_cpu", lambda xp, a, b, dtype: _fmod(xp, a, b)))


def _fmod(xp, a, b):
    """C's ``fmod``; the Array API has none (array_api_strict lacks it), so NumPy's on a copy, moved back."""
    if hasattr(xp, "fmod"):
        return xp.fmod(a, b)
    return xp.asarray(np.fmod(to_numpy(a), to_numpy(b)), device=a.device)


def remainder_scalar_tensor(self, other):
    """``remainder.Scalar_Tensor``: a Python number modulo a tensor (what ``7 % x`` calls)."""
    return remainder(scalar_tensor(self), other)


def _division(kernel, fn):
    """A division-like ``compute``: no bools, and an integer divided by zero raises as PyTorch does."""
    def compute(xp, a, b, dtype):
        if dtype is st.bool_:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if not dtype.is_floating_point:
            if dtype.is_complex:
                raise not_implemented_for(kernel, dtype)
            if bool(xp.any(b == const(xp, 0, b))):
                raise RuntimeError("ZeroDivisionError")
        with np.errstate(all="ignore"):  # a float divided by zero is inf or nan, silently, as in PyTorch
            return fn(xp, a, b, dtype)
    return compute


def atan2(self, other):
    return _binary(self, other, _arctan2, to_float=True)


def _arctan2(xp, a, b, dtype):
    if dtype.is_complex:
        raise not_implemented_for("atan2_cpu", dtype)
    return xp.atan2(a, b)


def atan2_(self, other):
    check_inplace_operands(self, other, to_float=True)
    write_inplace(self, atan2(self, other))
    return self


def bitwise_and(self, other):
    return _binary(self, other, _bitwise("bitwise_and", lambda xp, a, b: xp.bitwise_and(a, b)))


def bitwise_or(self, other):
    return _binary(self, other, _bitwise("bitwise_or", lambda xp, a, b: xp.bitwise_or(a, b)))


def bitwise_xor(self, other):
    return _binary(self, other, _bitwise("bitwise_xor", lambda xp, a, b: xp.bitwise_xor(a, b)))


def bitwise_xor_scalar_tensor(self, other):
    """``bitwise_xor.Scalar_Tensor``: a Python number first (``torch.bitwise_xor(3, x)``)."""
    return bitwise_xor(scalar_tensor(self), other)


def bitwise_left_shift(self, other):
    return _binary(self, other, _bitwise("lshift", _left_shift, bools=False))


def bitwise_right_shift(self, other):
    return _binary(self, other, _bitwise("rshift", _right_shift, bools=False))


def bitwise_left_shift_scalar_tensor(self, other):
    """``bitwise_left_shift.Scalar_Tensor``: a Python number shifted by a tensor (what ``2 << x`` calls)."""
    return bitwise_left_shift(scalar_tensor(self), other)


def bitwise_right_shift_scalar_tensor(self, other):
    return bitwise_right_shift(scalar_tensor(self), other)


# BinaryOpsKernel.cpp's shifts: a shift by a negative count or by the bit width or more (undefined in C++) is
# defined there: left gives 0, right gives the sign's fill (-1 for a negative signed value, else 0).
def _left_shift(xp, a, b):
    out_of_range = _out_of_range_shift(xp, a, b)
    shifted = xp.bitwise_left_shift(a, xp.where(out_of_range, xp.zeros_like(b), b))
    return xp.where(out_of_range, xp.zeros_like(shifted), shifted)


def _right_shift(xp, a, b):
    out_of_range = _out_of_range_shift(xp, a, b)
    shifted = xp.bitwise_right_shift(a, xp.where(out_of_range, xp.zeros_like(b), b))
    negative = a < const(xp, 0, a)
    fill = xp.where(negative, xp.bitwise_right_shift(a, xp.full_like(a, xp.iinfo(a.dtype).bits - 1)), xp.zeros_like(a))
    return xp.where(out_of_range, fill, shifted)


def _out_of_range_shift(xp, a, b):
    return xp.logical_or(b < const(xp, 0, b), b >= const(xp, xp.iinfo(a.dtype).bits, b))


def _bitwise(name, fn, bools=True):
    def compute(xp, a, b, dtype):
        if dtype.is_floating_point or dtype.is_complex or (dtype is st.bool_ and not bools):
            raise not_implemented_for(f"{name}_cpu", dtype)
        return fn(xp, a, b)
    return compute


def minimum(self, other):
    """The smaller element of the two (NaN if either is NaN; NOTE [Ties of maximum and minimum])."""
    return _binary(self, other, lambda xp, a, b, dtype: break_zero_ties(xp, xp.minimum(a, b), a, b, dtype, "minimum"))


def maximum(self, other):
    return _binary(self, other, lambda xp, a, b, dtype: break_zero_ties(xp, xp.maximum(a, b), a, b, dtype, "maximum"))


def _refuse_complex(dtype, name) -> None:
    """``maximum``, ``minimum``, ``fmax`` and ``fmin`` refuse complex inputs (a complex operand makes the promoted
    dtype complex)."""
    if dtype.is_complex:
        raise RuntimeError(f"{name} not implemented for complex tensors.")


# NOTE [Ties of maximum and minimum]
# Equal values are the same number except ``-0.`` and ``0.``, and there PyTorch's two loops differ: the scalar
# tail (``std::max``) keeps ``self``, the vectors (``_mm512_max_ps``) take ``other``. Its loop for maximum and
# minimum goes one vector at a time: 16 float32s, 8 float64s, 32 float16s or bfloat16s (measured on torch 2.13,
# AVX512), so a tensor smaller than that is all tail: ``maximum(-0., 0.)`` is ``-0.``. NumPy's own choice
# depends on its SIMD path, so ties of zeros are decided here, the rest is NumPy's.
_MAX_MIN_VECTOR = {"float32": 16, "float64": 8, "float16": 32, "bfloat16": 32}


def break_zero_ties(xp, result, a, b, dtype, name=None):
    """``name``: the op (maximum, minimum) whose complex operands are refused."""
    if not dtype.is_floating_point:
        _refuse_complex(dtype, name)
        return result
    equal = a == b
    if not bool(xp.any(equal)):  # no tie at all, the common case: one comparison
        return result
    ties = xp.logical_and(equal, a == const(xp, 0, a))
    shape = checks.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    flat = tuple(a.shape) == tuple(b.shape) or a.ndim == 0 or b.ndim == 0
    tail = _in_scalar_tail(xp, shape, flat, a, _MAX_MIN_VECTOR[dtype.name])
    return xp.where(ties, xp.where(tail, a, b), result)


def _binary(self, other, compute, *, to_float=False, scalar_in_float32=False, one_value=False,
            number_operand=True):
    """``number_operand=False``: a number operand is the kernel's argument, not a TensorIterator operand (``pow``
    by a number is a unary op), so it has no say in the output's layout."""
    other, dev, dtype, shape, xp, a, b = binary_operands(self, other, to_float=to_float)
    operands = [self._data, other._data] if number_operand else \
        [t._data for t in (self, other) if t._data.ndim]
    if dtype.itemsize == 2 and dtype.is_floating_point:  # is_reduced_float, inline: every binary op asks
        return _binary_reduced_float(other, compute, dev, dtype, xp, a, b, scalar_in_float32, operands)
    if one_value and (a.size >= _ONE_VALUE_FROM or b.size >= _ONE_VALUE_FROM) and _one_value(a) and _one_value(b):
        # NOTE [One value, expanded]
        value = compute(xp, a[(0,) * a.ndim], b[(0,) * b.ndim], dtype)
        return new_tensor(np.full(shape, value), dtype, dev)
    data = compute(xp, a, b, dtype)
    if type(data) is not np.ndarray:  # a NumPy scalar (zero-dim operands) or another library's array;
        data = xp.asarray(data)       # an ndarray is already one: skipping the call saves a tenth of a small op
    return new_tensor(follow_inputs(xp, data, operands), dtype, dev)


# NOTE [One value, expanded]
# ``sum`` and ``mean`` pass their gradient back as one value expanded over the input's shape (every stride 0), and
# the next op is often a product or quotient with a number (``mean``'s ``/ numel``). Every element of the result is
# then the same value, computed once: PyTorch's loop computes it once per element, NumPy's over a broadcast
# operand too (4x the time of filling the result, for a 64x512 mean). The result is row-major, as TensorIterator
# lays out an output whose inputs tell no order.
_ONE_VALUE_FROM = 4096  # elements: below, one call over the broadcast operand is faster than a fill


def _one_value(array) -> bool:
    """A NumPy array that holds one value: zero-dim, or every stride 0 (a number or a tensor expanded)."""
    return type(array) is np.ndarray and (array.ndim == 0 or (array.size > 0 and not any(array.strides)))


# NOTE [float16 and bfloat16 arithmetic]
# PyTorch's CPU kernels compute a float16 or bfloat16 op in float32 (the dtype's ``opmath`` type) and
# round the result once; NumPy has no bfloat16 arithmetic at all (ml_dtypes' ufuncs do the same
# widening, per call). Both operands are first cast to the op's dtype, as TensorIterator casts them,
# except for ``mul`` and ``div`` by a single number: their reduced-float kernels read that operand in
# float32 (``original_scalar_value<opmath_t>``), so ``x16 * 0.1`` multiplies by float32 0.1, not by
# float16 0.1 (measured against torch 2.13: 100% of 10^6 results agree with this rule, 75% without it).
def _binary_reduced_float(other, compute, dev, dtype, xp, a, b, scalar_in_float32, operands):
    a = in_float32(xp, a)
    if scalar_in_float32 and other._data.size == 1 and other._device.type == "cpu":
        b = cast(other, st.float32, xp, dev)
    else:
        b = in_float32(xp, b)
    data = xp.asarray(compute(xp, a, b, dtype))
    return new_tensor(follow_inputs(xp, convert(xp, data, dtype), operands), dtype, dev)


# NOTE [The scalar tail of PyTorch's vectorised loop]
# PyTorch's CPU loop runs a contiguous row in vectors of 32 float16 / bfloat16 elements and the leftover
# elements (all of them in a row shorter than 32) one by one, through a second, scalar formula. For
# ``add(x, y, alpha=a)`` the two differ: the vectors compute ``x + a * y`` fused in float32, the scalar
# loop rounds ``a * y`` to the dtype first. Measured against torch 2.13 on this rule: 100% of 18,600
# results of 31-element rows and 100% of 38,400 of 64-element rows agree (98% without the tail rule).
_VECTOR_ELEMENTS = 32


def _add_scaled_reduced_float(xp, a, b, alpha, dtype):
    """``a + alpha * b`` for float16 / bfloat16 (``a``, ``b`` in float32; ``alpha`` already in ``dtype``)."""
    alpha_array = const(xp, alpha, b)
    vectors = fused_multiply_add(xp, b, alpha_array, a)
    scalars = xp.add(a, rounded_to(xp, xp.multiply(b, alpha_array), dtype))
    shape = checks.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    if not shape:
        return scalars
    return xp.where(_in_scalar_tail(xp, shape, same_shape=tuple(a.shape) == tuple(b.shape), like=a), scalars,
                    vectors)


def _in_scalar_tail(xp, shape, same_shape, like, vector=_VECTOR_ELEMENTS):
    """Which output elements PyTorch's loop leaves to its scalar tail: one row of all elements when the
    operands have one shape (TensorIterator coalesces them), else rows along the last dim."""
    if not shape:
        return xp.asarray(True, device=like.device)
    if same_shape:
        numel = 1
        for n in shape:
            numel *= n
        flat = xp.arange(numel, device=like.device) >= (numel // vector) * vector
        return xp.reshape(flat, shape)
    row = shape[-1]
    return xp.arange(row, device=like.device) >= (row // vector) * vector


def _alpha(dtype, alpha):
    """``alpha`` as the kernel reads it: a float16 / bfloat16 kernel holds it in its own dtype."""
    return rounded_scalar(alpha, dtype) if alpha != 1 and is_reduced_float(dtype) else alpha


def _check_alpha(dtype, alpha) -> None:
    if type(alpha) is bool and dtype is not st.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not dtype.is_floating_point and not dtype.is_complex and isinstance(alpha, float) and alpha != int(alpha):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, complex) and not dtype.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _check_bool_sub(self, other) -> None:
    other_is_bool = isinstance(other, bool) or getattr(other, "_dtype", None) is st.bool_
    if self._dtype is st.bool_ and other_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if self._dtype is st.bool_ or other_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _pow_compute(xp, a, b, dtype):
    if dtype.is_floating_point or not (dtype.is_complex or bool(xp.any(b < const(xp, 0, b)))):
        return xp.pow(a, b)
    return _complex_pow(xp, a, b) if dtype.is_complex else _integer_pow(xp, a, b)


# NOTE [Complex powers]
# PyTorch's complex pow of two tensors is C's ``cpow``, which is ``cexp(b * clog(a))`` for every pair. NumPy's
# ``power`` calls ``cpow`` too, except for a real integer exponent (repeated products) and a zero base, which it
# answers itself: those elements are computed here as ``cpow`` computes them (measured against torch 2.13 on 600
# pairs: all agree this way, 95% with NumPy's power).
def _complex_pow(xp, a, b):
    with np.errstate(all="ignore"):
        result = xp.pow(a, b)
        real_b = xp.real(b)
        special = ((xp.imag(b) == 0) & (real_b == xp.round(real_b))) | (a == 0)
        if bool(xp.any(special)):
            result = xp.where(special, xp.exp(b * xp.log(a)), result)
    return result


def _integer_pow(xp, a, b):
    """``powi`` (ATen's Pow.h) for a negative exponent: 1 for a base of 1, +-1 for -1, else 0 (no error)."""
    one = const(xp, 1, a)
    powered = xp.pow(a, xp.where(b < const(xp, 0, b), const(xp, 0, b), b))
    odd = xp.remainder(b, const(xp, 2, b)) != const(xp, 0, b)
    negative_power = xp.where(a == one, one, xp.where(a == -one, xp.where(odd, -one, one), const(xp, 0, a)))
    return xp.where(b < const(xp, 0, b), negative_power, powered)


# ----------------------------------------------------------------------------- in place


def add_(self, other, alpha=1):
    check_inplace_operands(self, other)
    if alpha == 1 or not _fused_in_place(self, other, alpha):
        write_inplace(self, add(self, other, alpha))
    return self


def sub_(self, other, alpha=1):
    _check_bool_sub(self, other)
    check_inplace_operands(self, other)
    if alpha == 1 or not _fused_in_place(self, other, -alpha):
        write_inplace(self, sub(self, other, alpha))
    return self


def _fused_in_place(self, other, alpha) -> bool:
    """A float32 ``self += alpha * other`` of one shape (an optimizer's step) computed into ``self``'s memory,
    with the fused rounding ``add`` has; False when that path does not apply (nothing written)."""
    if self._dtype is not st.float32 or getattr(other, "_dtype", None) is not st.float32 \
            or type(alpha) not in (int, float):
        return False
    return fused_multiply_add_into(self._data, other._data, np.float32(alpha))


def mul_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, mul(self, other))
    return self


def div_(self, other):
    check_inplace_operands(self, other, to_float=True)
    write_inplace(self, div(self, other))
    return self


def div_mode_(self, other, rounding_mode=None):
    _check_rounding_mode(rounding_mode)
    check_inplace_operands(self, other, to_float=rounding_mode is None)
    write_inplace(self, div_mode(self, other, rounding_mode))
    return self


def pow_(self, exponent):
    number = _number_value(exponent)
    if not (self._dtype.is_floating_point or self._dtype.is_complex) and isinstance(number, int) and number < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    check_inplace_operands(self, exponent)
    write_inplace(self, pow(self, exponent))
    return self


def floor_divide_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, floor_divide(self, other))
    return self


def remainder_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, remainder(self, other))
    return self


def bitwise_and_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, bitwise_and(self, other))
    return self


def bitwise_or_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, bitwise_or(self, other))
    return self


def bitwise_xor_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, bitwise_xor(self, other))
    return self


def bitwise_left_shift_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, bitwise_left_shift(self, other))
    return self


def bitwise_right_shift_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, bitwise_right_shift(self, other))
    return self


def check_inplace_operands(self, *others, to_float=False, type_meta_names=False) -> None:
    """TensorIterator's set-up of an in-place op, before any kernel runs: no input may partly overlap ``self``
    (``memory_overlap.py``), and the promoted dtype must cast to ``self``'s."""
    data = self._data
    if type(data) is np.ndarray and not data.flags.writeable \
            and any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape)):
        raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)  # assert_no_internal_overlap: the output first, then its inputs
    shape, reshaped = self._data.shape, False
    for other in others:
        assert_no_partial_overlap(self, other)
        reshaped = reshaped or (isinstance(other, TensorImpl) and other._data.shape != shape)
    if reshaped:
        _check_inplace_shapes(self, others)
    if len(others) == 1 and getattr(others[0], "_dtype", None) is self._dtype and not to_float:
        return  # the common case (``w.add_(g)``, same dtypes) casts to itself: no promotion to compute
    if len(others) == 1 and type(others[0]) in (int, float, bool) and self._dtype.is_floating_point:
        return  # a Python number never widens a floating tensor (``m.mul_(0.9)``), even dividing it
    dtype = result_type(self, *[as_operand(o) for o in others])
    check_inplace_dtype(self, float_dtype(dtype) if to_float else dtype, type_meta_names)


def _check_inplace_shapes(self, others) -> None:
    """TensorIterator's ``compute_shape`` (the operands broadcast, ``self`` first) and ``mark_resize_outputs``
    (``self``, read and written, cannot grow): both before the dtype check."""
    shape = shape_of(self)
    for other in others:
        if isinstance(other, TensorImpl):
            shape = checks.broadcast_shapes(shape, shape_of(other))
    if shape != shape_of(self):
        raise RuntimeError(f"output with shape {list(shape_of(self))} doesn't match the broadcast shape {list(shape)}")


def write_inplace(self, result) -> None:
    """Copy an out-of-place result into ``self`` (its dtype checked before: ``check_inplace_operands``)."""
    if tuple(result._data.shape) != shape_of(self):
        raise RuntimeError(f"output with shape {list(shape_of(self))} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}")
    data = result._data
    if type(data) is not np.ndarray or data.dtype != self._data.dtype:  # NumPy of the same dtype: no cast
        data = convert(xp_of(self), data, self._dtype)
    self._data[...] = data


def check_inplace_dtype(self, dtype, type_meta_names=False) -> None:
    """TensorIterator's check of an in-place result: ``can_cast`` (float64 into float32 yes, float into int no).

    Structured kernels that check the output themselves (``clamp_``) name it by its C++ type instead.
    """
    if not st.can_cast(dtype, self._dtype):
        target = type_meta_name(self._dtype) if type_meta_names else self._dtype.c10_name
        raise RuntimeError(f"result type {dtype.c10_name} can't be cast to the desired output type {target}")


# caffe2::TypeMeta names (C++ type names), which some checks print instead of ScalarType names.
_TYPE_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                    "complex128": "c10::complex<double>"}


def type_meta_name(dtype) -> str:
    """The C++ type name a ``caffe2::TypeMeta`` prints for ``dtype`` (``float``, ``long int``)."""
    return _TYPE_META_NAMES[dtype.name]


# ----------------------------------------------------------------------------- comparisons


def eq(self, other):
    return _compare(self, other, lambda xp, a, b: xp.equal(a, b))


def ne(self, other):
    return _compare(self, other, lambda xp, a, b: xp.not_equal(a, b))


def lt(self, other):
    return _compare(self, other, lambda xp, a, b: xp.less(a, b), "lt_cpu")


def le(self, other):
    return _compare(self, other, lambda xp, a, b: xp.less_equal(a, b), "le_cpu")


def gt(self, other):
    return _compare(self, other, lambda xp, a, b: xp.greater(a, b), "gt_cpu")


def ge(self, other):
    return _compare(self, other, lambda xp, a, b: xp.greater_equal(a, b), "ge_cpu")


def _compare(self, other, fn, ordered=None):
    """``ordered``: the kernel's name for an order comparison, which complex numbers do not have."""
    other, dev, dtype, _, xp, a, b = binary_operands(self, other)
    if ordered is not None and dtype.is_complex:
        raise not_implemented_for(ordered, dtype)
    return new_tensor(follow_inputs(xp, xp.asarray(fn(xp, a, b)), [self._data, other._data]), st.bool_, dev)


def not_implemented_for(kernel, dtype) -> NotImplementedError:
    """``AT_DISPATCH``'s error for a dtype the kernel was not compiled for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.c10_name}'")


# ----------------------------------------------------------------------------- logical ops
# Any dtype: zero is false, anything else (NaN too) true. The result is bool; in place it is written back
# into ``self``'s dtype (``x.logical_and_(y)`` on floats holds 0. and 1.).


def logical_and(self, other):
    return _compare(self, other, lambda xp, a, b: xp.logical_and(truth(xp, a), truth(xp, b)))


def logical_or(self, other):
    return _compare(self, other, lambda xp, a, b: xp.logical_or(truth(xp, a), truth(xp, b)))


def logical_xor(self, other):
    return _compare(self, other, lambda xp, a, b: xp.logical_xor(truth(xp, a), truth(xp, b)))


def logical_and_(self, other):
    write_inplace(self, logical_and(self, other))
    return self


def logical_or_(self, other):
    write_inplace(self, logical_or(self, other))
    return self


def logical_xor_(self, other):
    write_inplace(self, logical_xor(self, other))
    return self


def where(condition, self, other):
    _check_where_condition(condition)
    self, other = as_operand(self), as_operand(other)
    dev = common_device(condition, self, other)
    dtype = result_type(self, other)
    checks.broadcast_shapes(checks.broadcast_shapes(shape_of(condition), shape_of(self)), shape_of(other))
    xp = backend(dev).xp
    data = xp.where(cast(condition, st.bool_, xp, dev), cast(self, dtype, xp, dev), cast(other, dtype, xp, dev))
    return new_tensor(follow_inputs(xp, xp.asarray(data), [condition._data, self._data, other._data]), dtype, dev)


_WHERE_UINT8_WARNED: list = []


def _check_where_condition(condition) -> None:
    """``where_kernel_impl`` in TensorCompare.cpp: a bool condition; uint8 still works, with a warning."""
    if condition._dtype is st.uint8:
        if _WHERE_UINT8_WARNED:
            return  # TORCH_WARN_ONCE: the first such call in the process warns, no other
        _WHERE_UINT8_WARNED.append(True)
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorCompare.cpp:621.)", UserWarning, stacklevel=2)
    elif condition._dtype is not st.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition._dtype.c10_name}")


# ----------------------------------------------------------------------------- backward of unary ops


def sigmoid_backward(grad_output, output):
    if output._dtype.is_complex:  # the slope conjugated, as PyTorch's complex kernel: grad * conj((1 - y) * y)
        xp, y = xp_of(output), output._data
        return wrap(grad_output, grad_output._data * xp.conj((const(xp, 1, y) - y) * y))
    if grad_output._dtype is st.float16:  # PyTorch's float16 kernel rounds each step to float16 (measured: 100%)
        xp = xp_of(grad_output)
        return wrap(grad_output, grad_output._data * (const(xp, 1, output._data) - output._data) * output._data)
    xp, g, y = _opmath_operands(grad_output, output)
    one = const(xp, 1, y)
    return _opmath_result(grad_output, xp, g * (one - y) * y)


def tanh_backward(grad_output, output):
    """``grad * (1 - y * y)``, the parenthesis one fused multiply-add in float32 (and float16 / bfloat16's float32
    opmath), as PyTorch's compiled kernel computes it: measured 100% of 10^5 float32 values (70% unfused).
    float64 is fused too in PyTorch, not here (68% agree)."""
    if output._dtype.is_complex:  # the slope conjugated, as PyTorch's complex kernel: grad * conj(1 - y * y)
        xp = xp_of(output)
        y = output._data
        return wrap(grad_output, grad_output._data * xp.conj(const(xp, 1, y) - y * y))
    xp, g, y = _opmath_operands(grad_output, output)
    if y.dtype != xp.float32:  # float64: fusing would need more than double (long double: 14x the time)
        return _opmath_result(grad_output, xp, g * (const(xp, 1, y) - y * y))
    if xp is np_xp:  # y * y is exact in double: 1 - y * y there, rounded once, is the fused result
        wide = y.astype(np.float64)
        np.multiply(wide, wide, out=wide)
        np.subtract(1.0, wide, out=wide)
        return _opmath_result(grad_output, xp, np.multiply(g, wide.astype(np.float32)))
    return _opmath_result(grad_output, xp, g * fused_multiply_add(xp, -y, y, const(xp, 1, y)))


def _opmath_operands(grad_output, output):
    """The arrays a backward kernel computes with: float16 / bfloat16 widened to float32."""
    xp = xp_of(grad_output)
    if is_reduced_float(grad_output._dtype):
        return xp, in_float32(xp, grad_output._data), in_float32(xp, output._data)
    return xp, grad_output._data, output._data


def _opmath_result(like, xp, data):
    return wrap(like, convert(xp, data, like._dtype) if is_reduced_float(like._dtype) else data)


# ----------------------------------------------------------------------------- ops batch 5
# hypot, logaddexp and logaddexp2 have floating kernels only (an integer tensor is refused, not promoted); xlogy
# and copysign promote integers to the default float; fmax and fmin keep any dtype. Each step PyTorch rounds to the
# dtype is rounded here too (the library functions in float64, NOTE [Rounding float32 functions as PyTorch does]).


def hypot(self, other):
    return _binary(self, other, _floating_only("hypot", lambda xp, a, b: _in_float64(xp, xp.hypot, a, b)))


def logaddexp(self, other):
    return _binary(self, other, _logaddexp)


def _logaddexp(xp, a, b, dtype):
    if dtype.is_floating_point:
        return _log_add(xp, a, b, xp.exp, None)
    if dtype.is_complex:
        return complex_log_add(xp, a, b)
    raise not_implemented_for("logaddexp_cpu", dtype)


def complex_log_add(xp, a, b):
    """LogAddExp.h's complex ``log(e^a + e^b)``: ``max + log1p(exp(min - max))``, min and max by the real part
    (a NaN part makes both parts NaN), in complex128 and rounded once; an infinite real part keeps the larger
    operand."""
    dtype = a.dtype
    a, b = xp.astype(a, xp.complex128), xp.astype(b, xp.complex128)
    with np.errstate(all="ignore"):
        a_low = xp.real(a) < xp.real(b)
        low, high = xp.where(a_low, a, b), xp.where(a_low, b, a)
        result = xp.where(xp.isinf(xp.real(low)), high, high + xp.log1p(xp.exp(low - high)))
        nan = xp.asarray(complex(math.nan, math.nan), dtype=xp.complex128, device=a.device)
        result = xp.where(xp.isnan(a) | xp.isnan(b), nan, result)
    return xp.astype(result, dtype)


def logaddexp2(self, other):
    def compute(xp, a, b):
        return _log_add(xp, a, b, lambda d: xp.pow(const(xp, 2, d), d), 1 / math.log(2))
    return _binary(self, other, _floating_only("logaddexp2", compute))


def _log_add(xp, a, b, exp, scale):
    """``max(a, b) + log1p(exp(-|a - b|))`` (times ``scale`` for base 2), each step in the dtype; equal
    infinities give themselves, not NaN."""
    with np.errstate(invalid="ignore"):
        largest = xp.maximum(a, b)
        tail = _in_float64(xp, xp.log1p, _in_float64(xp, exp, xp.negative(xp.abs(xp.subtract(a, b)))))
        if scale is not None:
            tail = xp.multiply(tail, const(xp, scale, tail))
        return xp.where(xp.isinf(a) & (a == b), a, xp.add(largest, tail))


def _in_float64(xp, fn, *arrays):
    """``fn`` of the arrays computed in float64 and rounded once to their dtype."""
    dtype = arrays[0].dtype
    if dtype == xp.float64:
        return fn(*arrays)
    return xp.astype(fn(*[xp.astype(a, xp.float64) for a in arrays]), dtype)


def _floating_only(name, fn):
    def compute(xp, a, b, dtype):
        if not dtype.is_floating_point:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dtype.c10_name}'")
        return fn(xp, a, b)
    return compute


def xlogy(self, other):
    """``self * log(other)``: 0 where ``self`` is 0 (even for ``other`` 0 or inf), NaN where ``other`` is NaN."""
    if not isinstance(self, TensorImpl):
        self = scalar_tensor(self)
    return _binary(self, other, _xlogy, to_float=True)


def _xlogy(xp, a, b, dtype):
    a, b = _real_operands(a, b, dtype, "xlogy_cpu")
    with np.errstate(divide="ignore", invalid="ignore"):
        product = xp.multiply(a, _in_float64(xp, xp.log, b))
        return xp.where(xp.isnan(b), b, xp.where(a == 0, const(xp, 0, a), product))


def fmax(self, other):
    """The larger of the two, a NaN losing to a number (C's ``fmax``)."""
    return _binary(self, other, lambda xp, a, b, dtype: _fmax_fmin(xp, np.fmax, xp.maximum, a, b, dtype, "fmax"))


def fmin(self, other):
    return _binary(self, other, lambda xp, a, b, dtype: _fmax_fmin(xp, np.fmin, xp.minimum, a, b, dtype, "fmin"))


def _fmax_fmin(xp, numpy_fn, fn, a, b, dtype, name):
    if not dtype.is_floating_point:
        _refuse_complex(dtype, name)
        return fn(a, b)
    if xp is np_xp:
        return numpy_fn(a, b)
    return xp.where(xp.isnan(a), b, xp.where(xp.isnan(b), a, fn(a, b)))


def copysign(self, other):
    return _binary(self, other, lambda xp, a, b, dtype: xp.copysign(*_real_operands(a, b, dtype, "copysign_cpu")),
                   to_float=True)


def nextafter(self, other):
    return _binary(self, other, _next_after)


def nextafter_(self, other):
    return _float_in_place(self, other, nextafter, to_float=False)


def _next_after(xp, a, b, dtype):
    """C's ``nextafter`` in the dtype itself: float16 and bfloat16 step by their own last bit, not float32's (the
    operands arrive here as float32, exactly)."""
    if not dtype.is_floating_point:
        raise not_implemented_for("nextafter_cpu", dtype)
    device = None if xp is np_xp else a.device
    a, b = to_numpy(a), to_numpy(b)
    if dtype is st.float16:
        result = np.nextafter(a.astype(np.float16), b.astype(np.float16)).astype(np.float32)
    elif dtype is st.bfloat16:
        result = _bfloat16_next_after(a, b)
    else:
        result = np.nextafter(a, b)
    return xp.asarray(result) if device is None else xp.asarray(result, device=device)


def _bfloat16_next_after(a, b):
    """bfloat16's bits are float32's upper half: one step of the 16-bit pattern (toward ``b``), then back."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(b, np.float32))
    bits = (a.view(np.uint32) >> 16).astype(np.int64)
    step = np.where((a < b) == (a > 0), 1, -1)
    stepped = ((bits + step) << 16).astype(np.uint32).view(np.float32)
    tiny = np.copysign(np.array(2 ** -133, np.float32), b)  # the smallest bfloat16 subnormal, toward b
    result = np.where(a == 0, tiny, stepped)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), np.where(a == b, b, result)).astype(np.float32)


def _real_operands(a, b, dtype, kernel):
    """``(a, b)`` for a kernel compiled for real dtypes only."""
    if dtype.is_complex:
        raise not_implemented_for(kernel, dtype)
    return a, b


def hypot_(self, other):
    return _float_in_place(self, other, hypot, to_float=False)


def xlogy_(self, other):
    return _float_in_place(self, other, xlogy, to_float=True)


def copysign_(self, other):
    return _float_in_place(self, other, copysign, to_float=True)


def _float_in_place(self, other, op, to_float):
    check_inplace_operands(self, other, to_float=to_float)
    write_inplace(self, op(self, other))
    return self


# ----------------------------------------------------------------------------- ops batch 8: in-place comparisons,
# fmod_, heaviside, gcd, lcm, ldexp. A comparison in place writes its bools into ``self``'s dtype (0 and 1), whatever
# that dtype, with no promotion check; its nodes (``EqBackward0``) give zero gradients.


def _compare_(compare):
    def kernel(self, other):
        write_inplace(self, compare(self, other))
        return self
    kernel.__name__ = kernel.__qualname__ = compare.__name__ + "_"
    return kernel


eq_, ne_, lt_, le_, gt_, ge_ = (_compare_(f) for f in (eq, ne, lt, le, gt, ge))


def fmod_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, fmod(self, other))
    return self


def heaviside(self, values):
    """0 where ``self`` < 0, ``values`` where it is 0, 1 where it is > 0 (NaN counts as not above 0)."""
    _check_heaviside(self, values)
    return _binary(self, values, _heaviside)


def _heaviside(xp, a, b, dtype):
    zero = const(xp, 0, a)
    return xp.where(a == zero, b, xp.astype(a > zero, a.dtype))


def _check_heaviside(self, values) -> None:
    if self._dtype.is_complex or values._dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if self._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def heaviside_(self, values):
    _check_heaviside(self, values)
    check_inplace_operands(self, values)
    write_inplace(self, heaviside(self, values))
    return self


def gcd(self, other):
    return _binary(self, other, _integer_only("gcd_cpu", lambda xp, a, b: np.gcd(a, b)))


def lcm(self, other):
    return _binary(self, other, _integer_only("lcm_cpu", _lcm))


def _lcm(xp, a, b):
    g = np.gcd(a, b)
    with np.errstate(all="ignore"):
        return np.where(g == 0, 0, np.abs(a // np.where(g == 0, 1, g) * b)).astype(a.dtype)


def _integer_only(kernel, fn):
    def compute(xp, a, b, dtype):
        if dtype.is_floating_point or dtype is st.bool_ or dtype.is_complex:
            raise not_implemented_for(kernel, dtype)
        return xp.asarray(fn(xp, to_numpy(a), to_numpy(b)), device=a.device) if xp is not np_xp else fn(xp, a, b)
    return compute


def gcd_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, gcd(self, other))
    return self


def lcm_(self, other):
    check_inplace_operands(self, other)
    write_inplace(self, lcm(self, other))
    return self


def ldexp(self, other):
    """``self * 2 ** other``, in the promoted dtype, or the default float dtype when that is integral."""
    return _binary(self, other, _ldexp, to_float=True)


def _ldexp(xp, a, b, dtype):
    with np.errstate(over="ignore"):
        return a * xp.pow(const(xp, 2, a), b)


def ldexp_(self, other):
    """``ldexp_out(self, self, other)``, which checks the cast in its own words before ``mul_`` runs."""
    dtype = float_dtype(result_type(self, other))
    if not dtype.is_complex and not st.can_cast(dtype, self._dtype):  # (a complex result: TensorIterator's text)
        raise RuntimeError(f"ldexp can't be cast to the desired output type {self._dtype.c10_name}")
    check_inplace_operands(self, other, to_float=True)
    write_inplace(self, ldexp(self, other))
    return self
