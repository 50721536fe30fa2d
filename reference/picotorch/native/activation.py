"""``relu``, ``gelu``, ``silu``, ``softplus``, ``leaky_relu``, ``elu``, ``hardtanh`` and their gradients.

Models ``aten/src/ATen/native/Activation.cpp`` (``relu``, ``relu_``, ``threshold_backward``, ``gelu``,
``gelu_backward``, ``silu``, ``silu_backward``, ``softplus``, ``leaky_relu``, ``elu``, ``hardtanh``, each with its
backward and in-place form). The CUDA versions of ``relu`` that launch hand-written
CUDA C are in :mod:`picotorch.native.cuda.elementwise`. ``gelu`` and ``silu`` follow PyTorch's float32
steps (NOTE [GELU in float32], NOTE [SiLU in float32]); float64 is computed directly.
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .binary_ops import mul, write_inplace
from .device import to_numpy
from .distributions import generator_impl, uniform_values
from .helpers import (
    check_scalar_fits,
    convert,
    erf_float64,
    fused_multiply_add,
    in_float32,
    is_reduced_float,
    wrap,
    xp_of,
    zero_where,
)
from .layout import _c_contiguous, follow_inputs
from .tensor_compare import CLAMP_COMPLEX, clamp


def relu(self):
    """``x < 0 ? 0 : x``: a NaN stays NaN and ``-0.`` stays ``-0.`` (``NaN < 0`` and ``-0. < 0`` are false), as
    PyTorch's ``clamp_min(self, 0)`` gives; ``where(x > 0, x, 0)`` would make both ``0.``."""
    if not self._dtype.is_floating_point:
        _check_relu_dtype(self._dtype)
    xp = xp_of(self)
    data = self._data
    return wrap(self, follow_inputs(xp, zero_where(xp, data < 0, data), [data]))


def _check_relu_dtype(dtype) -> None:
    """Activation.cpp refuses bool before ``clamp_min``, which refuses complex numbers."""
    if dtype is st.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if dtype.is_complex:
        raise NotImplementedError(CLAMP_COMPLEX)


def threshold_backward(grad_output, self, threshold):
    """``self <= threshold ? 0 : grad_output``: relu's backward when ``threshold`` is 0 (a NaN lets its
    gradient through, as in ATen's ``threshold_kernel``)."""
    xp = xp_of(grad_output)
    grad = grad_output._data
    data = zero_where(xp, self._data <= threshold, grad)
    return wrap(grad_output, follow_inputs(xp, data, [grad, self._data]))


def relu_(self):
    """In place: the same ``x < 0 ? 0 : x``, so ``-0.`` stays ``-0.`` (the version bump is autograd's)."""
    if not self._dtype.is_floating_point:
        _check_relu_dtype(self._dtype)
    xp = xp_of(self)
    data = self._data
    data[...] = zero_where(xp, data < 0, data)
    return self


# ----------------------------------------------------------------------------- gelu and silu
# GELU(x) = x * Phi(x), Phi the standard normal CDF; approximate='tanh' replaces Phi(x) by
# 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). SiLU(x) = x * sigmoid(x).
_KAPPA = 0.044715
_BETA = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5  # sqrt(2 / pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def gelu(self, approximate="none"):
    _check_approximate(approximate)
    _check_floating(self, "GeluKernelImpl")
    xp, x = _float64(self)
    in_float32_steps = self._dtype is st.float32 or is_reduced_float(self._dtype)
    if approximate == "tanh":
        if in_float32_steps:
            return _rounded(self, xp, _gelu_tanh_float32(xp, x))
        return _rounded(self, xp, 0.5 * x * (1 + xp.tanh(_BETA * (x + _KAPPA * x * x * x))))
    if in_float32_steps:
        return _rounded(self, xp, _gelu_float32(xp, x))
    return _rounded(self, xp, x * 0.5 * (1 + erf_float64(xp, x * math.sqrt(0.5))))


# NOTE [GELU in float32]
# PyTorch's float32 kernels (and the float32 opmath of float16 / bfloat16) compute GELU in float32, ``erf`` and
# ``tanh`` nearly correctly rounded: ``1 + erf(x / sqrt 2)`` is exactly 0 below about -5.4 (``gelu(-7.)`` is
# ``-0.``, not -9e-12), and the tanh form's backward fuses ``kappa * x**3 + x``, ``1 - t * t`` and
# ``3 kappa * x**2 + 1`` (GCC contracts them). Measured against torch 2.13 on 2*10^4 float32 values: tanh form
# 99% forward, 99.5% backward (50% / 32% in float64); erf form 98% on a strided input (50%). A contiguous
# float32 or bfloat16 input takes oneDNN's own GELU instead (65% agree, 43% in float64; ``gelu(inf)`` is NaN
# there); the erf form's float32 backward (25%) is left in float64.
def _float32_constants(xp):
    return [xp.asarray(v, dtype=xp.float32) for v in (0.5, 1, _BETA, _KAPPA, 3)]


def _gelu_tanh_inner(xp, x32, fused):
    half, one, beta, kappa, _ = _float32_constants(xp)
    inner = beta * (fused_multiply_add(xp, kappa, x32 * x32 * x32, x32) if fused else x32 + kappa * (x32 * x32 * x32))
    return xp.astype(xp.tanh(xp.astype(inner, xp.float64)), xp.float32)


def _gelu_tanh_float32(xp, x):
    half, one, *_ = _float32_constants(xp)
    x32 = xp.astype(x, xp.float32)
    return half * x32 * (one + _gelu_tanh_inner(xp, x32, fused=False))


def _gelu_tanh_backward_float32(xp, grad, x):
    half, one, beta, kappa, three = _float32_constants(xp)
    x32 = xp.astype(x, xp.float32)
    tanh = _gelu_tanh_inner(xp, x32, fused=True)
    left_derivative = half * (one + tanh)
    tanh_derivative = fused_multiply_add(xp, -tanh, tanh, one)
    inner_derivative = beta * fused_multiply_add(xp, three * kappa, x32 * x32, one)
    return xp.astype(grad, xp.float32) * (left_derivative + half * x32 * tanh_derivative * inner_derivative)


def _gelu_float32(xp, x):
    """float32 GELU (float16 / bfloat16's float32 opmath) as PyTorch computes it: ``1 + erf`` in float32 cancels
    for very negative x (``gelu(-5.5)`` is -1.6e-07 in bfloat16, not the exact -1.1e-13)."""
    x32 = xp.astype(x, xp.float32)
    scaled = xp.astype(x32 * xp.asarray(math.sqrt(0.5), dtype=xp.float32), xp.float64)
    erf = xp.astype(erf_float64(xp, scaled), xp.float32)
    half = xp.asarray(0.5, dtype=xp.float32)
    return x32 * half * (xp.asarray(1, dtype=xp.float32) + erf)


def gelu_backward(grad_output, self, approximate="none"):
    _check_approximate(approximate)
    _check_floating(self, "GeluBackwardKernelImpl")
    xp, x = _float64(self)
    _, grad = _float64(grad_output)
    if approximate == "tanh" and (self._dtype is st.float32 or is_reduced_float(self._dtype)):
        return _rounded(self, xp, _gelu_tanh_backward_float32(xp, grad, x))
    if approximate == "tanh":
        inner = xp.tanh(_BETA * (x + _KAPPA * x * x * x))
        left_derivative = 0.5 * (1 + inner)
        right_derivative = 0.5 * x * (1 - inner * inner) * _BETA * (1 + 3 * _KAPPA * x * x)
        return _rounded(self, xp, grad * (left_derivative + right_derivative))
    cdf = 0.5 * (1 + erf_float64(xp, x * math.sqrt(0.5)))
    pdf = xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return _rounded(self, xp, grad * (cdf + x * pdf))


def silu(self):
    if self._dtype.is_complex:  # x / (1 + exp(-x)) in complex numbers
        xp = xp_of(self)
        x = xp.astype(self._data, xp.complex128)
        with np.errstate(all="ignore"):
            return wrap(self, follow_inputs(xp, xp.astype(x / (1 + xp.exp(-x)), self._data.dtype), [self._data]))
    _check_floating(self, "silu_cpu")
    if self._dtype is st.float32 or is_reduced_float(self._dtype):
        xp, x, one, exp = _float32_sigmoid_parts(self)
        return _rounded(self, xp, x / (one + exp))
    xp, x = _float64(self)
    return _rounded(self, xp, x / (1 + xp.exp(-x)))


# NOTE [SiLU in float32]
# PyTorch's float32 kernels (and the float32 opmath of float16 / bfloat16) compute ``x / (1 + exp(-x))`` and
# ``g * s * (1 + x * (1 - s))`` in float32, ``exp`` nearly correctly rounded (SLEEF) and ``1 + x * (1 - s)``
# one fused multiply-add (GCC contracts it): so ``exp(100.)`` overflows and ``silu(-100.)`` is ``-0.``, where
# float64 gives -3.7e-42. Measured against torch 2.13 on 10^5 float32 values: forward 96% (69% in float64),
# backward 97% (42%); float16 and bfloat16 100%.
def _float32_sigmoid_parts(self):
    """``x`` and ``exp(-x)`` (computed in float64, rounded once) as float32 arrays, with a float32 one."""
    xp, x64 = _float64(self)
    return xp, in_float32(xp, self._data), xp.asarray(1, dtype=xp.float32), xp.astype(xp.exp(-x64), xp.float32)


def silu_(self):
    result = silu(self)
    self._data[...] = result._data
    return self


def silu_backward(grad_output, self):
    _check_floating(self, "silu_backward_cpu")
    if self._dtype is grad_output._dtype and (self._dtype is st.float32 or is_reduced_float(self._dtype)):
        xp, x, one, exp = _float32_sigmoid_parts(self)
        sigmoid = one / (one + exp)
        grad = in_float32(xp, grad_output._data)
        return _rounded(self, xp, grad * sigmoid * fused_multiply_add(xp, x, one - sigmoid, one))
    xp, x = _float64(self)
    _, grad = _float64(grad_output)
    sigmoid = 1 / (1 + xp.exp(-x))
    return _rounded(self, xp, grad * sigmoid * (1 + x * (1 - sigmoid)))


def _check_approximate(approximate) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _check_floating(self, kernel: str) -> None:
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")


def _float64(t):
    xp = xp_of(t)
    data = t._data
    return xp, data if data.dtype == xp.float64 else xp.astype(data, xp.float64)


def _rounded(like, xp, data):
    data = convert(xp, data, like._dtype)  # float16 / bfloat16 through float32, as PyTorch's opmath rounds
    return wrap(like, follow_inputs(xp, data, [like._data]))


# ----------------------------------------------------------------------------- softplus, leaky_relu, elu, hardtanh
# Float dtypes only (hardtanh takes integers too: it is a clamp). PyTorch's kernels compute in the dtype's opmath
# (float32 for float32, float16 and bfloat16; float64 for float64), step by step: each product and quotient is
# rounded to it, and ``exp``, ``expm1`` and ``log1p`` are nearly correctly rounded (SLEEF), which computing them in
# float64 and rounding once models (``_opmath_fn``). Measured against torch 2.13 on 2*10^4 float32 values times 3,
# steps rounded so instead of once from float64: softplus 82% -> 93% (backward 77% -> 95%), elu with alpha 0.3
# 77% -> 99.9% (backward 85% -> 96%); float16 and bfloat16 100%.


def softplus(self, beta=1, threshold=20):
    _check_floating(self, "softplus_cpu")
    xp, x = _in_opmath(self)
    beta_, threshold_ = _opmath_const(xp, beta, x), _opmath_const(xp, threshold, x)
    scaled = x * beta_
    with np.errstate(over="ignore"):  # exp overflows where the linear branch is taken
        soft = _opmath_fn(xp, xp.log1p, _opmath_fn(xp, xp.exp, scaled)) / beta_
    return _rounded(self, xp, xp.where(scaled > threshold_, x, soft))


def softplus_backward(grad_output, self, beta, threshold):
    _check_floating(self, "softplus_backward_cpu")
    xp, x = _in_opmath(self)
    grad = _in_opmath(grad_output)[1]
    beta_, threshold_ = _opmath_const(xp, beta, x), _opmath_const(xp, threshold, x)
    scaled = x * beta_
    with np.errstate(over="ignore", invalid="ignore"):
        z = _opmath_fn(xp, xp.exp, scaled)
        slope = grad * z / (z + _opmath_const(xp, 1, x))
    return _rounded(self, xp, xp.where(scaled > threshold_, grad, slope))


def _opmath_const(xp, value, like):
    return xp.asarray(value, dtype=like.dtype, device=like.device)


def _opmath_fn(xp, fn, a):
    """``fn`` of a float32 (or float64) array, computed in float64 and rounded once to ``a``'s dtype."""
    if a.dtype == xp.float64:
        return fn(a)
    return xp.astype(fn(xp.astype(a, xp.float64)), a.dtype)


def leaky_relu(self, negative_slope=0.01):
    _check_floating(self, "leaky_relu_cpu")
    xp, x = _in_opmath(self)
    return _rounded(self, xp, xp.where(x > 0, x, x * _opmath_const(xp, negative_slope, x)))


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    if self_is_result and negative_slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                           "backward calculation with negative slope")
    _check_floating(self, "leaky_relu_backward_cpu")
    xp, x = _in_opmath(self)
    grad = _in_opmath(grad_output)[1]
    return _rounded(self, xp, xp.where(x > 0, grad, grad * _opmath_const(xp, negative_slope, grad)))


def _in_opmath(t):
    """``t``'s array in the dtype its kernel multiplies in: float64 stays, the others become float32 (a slope
    times x is then rounded as PyTorch's float32 kernel rounds it, not once from the exact product)."""
    xp = xp_of(t)
    return xp, t._data if t._dtype is st.float64 else in_float32(xp, t._data)


def leaky_relu_(self, negative_slope=0.01):
    write_inplace(self, leaky_relu(self, negative_slope))
    return self


def elu(self, alpha=1, scale=1, input_scale=1):
    _check_floating(self, "elu_cpu")
    xp, x = _in_opmath(self)
    negcoef = _opmath_const(xp, alpha, x) * _opmath_const(xp, scale, x)
    with np.errstate(over="ignore"):
        negative = negcoef * _opmath_fn(xp, xp.expm1, x * _opmath_const(xp, input_scale, x))
    return _rounded(self, xp, xp.where(x <= 0, negative, x * _opmath_const(xp, scale, x)))


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    if is_result and alpha < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")
    _check_floating(self_or_result, "elu_backward_cpu")
    xp, b = _in_opmath(self_or_result)
    grad = _in_opmath(grad_output)[1]
    negcoef = _opmath_const(xp, alpha, b) * _opmath_const(xp, scale, b)
    negiptcoef = _opmath_const(xp, input_scale, b)
    with np.errstate(over="ignore", invalid="ignore"):
        if is_result:  # the output of an in-place elu: exp(x) is recovered from it
            negative = grad * negiptcoef * (b + negcoef)
        else:
            negative = grad * negiptcoef * negcoef * _opmath_fn(xp, xp.exp, b * negiptcoef)
    return _rounded(self_or_result, xp, xp.where(b <= 0, negative, grad * _opmath_const(xp, scale, b)))


def elu_(self, alpha=1, scale=1, input_scale=1):
    write_inplace(self, elu(self, alpha, scale, input_scale))
    return self


def hardtanh(self, min_val=-1, max_val=1):
    """``clamp(self, min_val, max_val)``; an integer tensor takes the bounds as integers, so the result keeps
    its dtype (PyTorch's legacy rule), and an unsigned one refuses a negative bound."""
    if self._dtype is st.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if not self._dtype.is_floating_point:
        min_val, max_val = int(min_val), int(max_val)
        if self._dtype is st.uint8 and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return clamp(self, min_val, max_val)


def hardtanh_backward(grad_output, self, min_val, max_val):
    """``grad_output`` where ``self`` lies strictly between the bounds, else 0 (a NaN lets its gradient through)."""
    xp = xp_of(grad_output)
    outside = (self._data <= min_val) | (self._data >= max_val)
    return wrap(grad_output, follow_inputs(xp, zero_where(xp, outside, grad_output._data),
                                           [grad_output._data, self._data]))


def hardtanh_(self, min_val=-1, max_val=1):
    write_inplace(self, hardtanh(self, min_val, max_val))
    return self


# ----------------------------------------------------------------------------- ops batch 8
# hardsigmoid, hardswish, hardshrink, softshrink, log_sigmoid, mish, celu, glu, threshold, _prelu_kernel and
# rrelu_with_noise (Activation.cpp, GatedLinearUnit.cpp, RreLU in Activation.cpp): each computed in the dtype's
# opmath (float32 for float32 / float16 / bfloat16), step by step as the CPU kernels write it.


def hardsigmoid(self):
    """``min(max(x + 3, 0), 6) / 6``."""
    _check_floating(self, "hardsigmoid_cpu")
    xp, x = _in_opmath(self)
    three, six, zero = (_opmath_const(xp, v, x) for v in (3, 6, 0))
    return _rounded(self, xp, xp.minimum(xp.maximum(x + three, zero), six) / six)


def hardsigmoid_(self):
    write_inplace(self, hardsigmoid(self))
    return self


def hardsigmoid_backward(grad_output, self):
    """``grad`` times one sixth strictly inside ``(-3, 3)``, else 0: the kernel's sixth is the float ``1.0f / 6.0f``,
    in float64 too."""
    _check_floating(self, "hardsigmoid_backward")
    xp, x = _in_opmath(self)
    grad = _in_opmath(grad_output)[1]
    inside = (x > -3) & (x < 3)
    one_sixth = _opmath_const(xp, float(np.float32(1) / np.float32(6)), x)
    return _rounded(self, xp, xp.where(inside, grad * one_sixth, _opmath_const(xp, 0, x)))


def hardswish(self):
    """``x * min(max(x + 3, 0), 6) / 6``."""
    _check_floating(self, "hardswish_cpu")
    xp, x = _in_opmath(self)
    three, six, zero = (_opmath_const(xp, v, x) for v in (3, 6, 0))
    return _rounded(self, xp, x * xp.minimum(xp.maximum(x + three, zero), six) / six)


def hardswish_(self):
    write_inplace(self, hardswish(self))
    return self


def hardswish_backward(grad_output, self):
    """0 up to -3, ``grad * (x / 3 + 1/2)`` strictly between -3 and 3, ``grad`` from 3 on."""
    _check_floating(self, "hardswish_backward_cpu")
    xp, x = _in_opmath(self)
    grad = _in_opmath(grad_output)[1]
    three, half, zero = (_opmath_const(xp, v, x) for v in (3, 0.5, 0))
    middle = grad * ((x / three) + half)
    return _rounded(self, xp, xp.where(x <= -three, zero, xp.where(x < three, middle, grad)))


def hardshrink(self, lambd=0.5):
    """0 inside ``[-lambd, lambd]``, else ``x`` (a NaN stays NaN)."""
    _check_floating(self, "hardshrink_cpu")
    xp, x = _in_opmath(self)
    lam = _opmath_const(xp, lambd, x)
    return _rounded(self, xp, xp.where((x >= -lam) & (x <= lam), _opmath_const(xp, 0, x), x))


def hardshrink_backward(grad_out, self, lambd):
    _check_floating(self, "hardshrink_backward_cpu")
    return _shrink_backward(grad_out, self, lambd)


def _shrink_backward(grad_output, self, lambd):
    """``grad`` outside ``[-lambd, lambd]``, else 0: both shrinks' backward."""
    xp, x = _in_opmath(self)
    grad = _in_opmath(grad_output)[1]
    lam = _opmath_const(xp, lambd, x)
    return _rounded(self, xp, xp.where((x >= -lam) & (x <= lam), _opmath_const(xp, 0, x), grad))


def softshrink(self, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else ``0 * x`` (so -0. for a negative x)."""
    _check_floating(self, "softshrink_check")
    _check_lambda(self, lambd)
    xp, x = _in_opmath(self)
    lam = _opmath_const(xp, lambd, x)
    return _rounded(self, xp, xp.where(x > lam, x - lam, xp.where(x < -lam, x + lam, _opmath_const(xp, 0, x) * x)))


def _check_lambda(self, lambd) -> None:
    highest = {st.float64: "1.79769e+308", st.float32: "3.40282e+38", st.float16: "65504",
               st.bfloat16: "3.38953e+38"}[self._dtype]
    if not 0 <= lambd <= float(highest):
        raise RuntimeError(f"lambda must be in range [0, {highest}] for input dtype {self._dtype.c10_name}, but "
                           f"found {lambd:g}")


def softshrink_backward(grad_output, self, lambd):
    _check_floating(self, "softshrink_backward_cpu")
    return _shrink_backward(grad_output, self, lambd)


def log_sigmoid_forward(self):
    """``(min(x, 0) - log1p(z), z)`` with ``z = exp(-|x|)``: the output and the buffer its backward reads."""
    _check_floating(self, "log_sigmoid_cpu")
    xp, x = _in_opmath(self)
    z = _opmath_fn(xp, xp.exp, -xp.abs(x))
    output = xp.minimum(x, _opmath_const(xp, 0, x)) - _opmath_fn(xp, xp.log1p, z)
    return _contiguous(self, xp, output), _contiguous(self, xp, z)  # empty_like(input, Contiguous), both


def _contiguous(like, xp, data):
    data = convert(xp, data, like._dtype)
    return wrap(like, _c_contiguous(data) if hasattr(data, "strides") else data)  # a strided library's array


def log_sigmoid_backward(grad_output, self, buffer):
    """``(max_deriv - sign * z / (1 + z)) * grad``: max_deriv 1 and sign 1 below 0, else 0 and -1."""
    _check_floating(self, "log_sigmoid_backward_cpu")
    xp, x = _in_opmath(self)
    z, grad = _in_opmath(buffer)[1], _in_opmath(grad_output)[1]
    one, zero = _opmath_const(xp, 1, x), _opmath_const(xp, 0, x)
    negative = x < zero
    max_deriv, sign = xp.where(negative, one, zero), xp.where(negative, one, -one)
    return _rounded(self, xp, (max_deriv - sign * (z / (one + z))) * grad)


def mish(self):
    """``x * tanh(log1p(exp(x)))``."""
    _check_floating(self, "mish_cpu")
    xp, x = _in_opmath(self)
    with np.errstate(over="ignore"):
        softplus = _opmath_fn(xp, xp.log1p, _opmath_fn(xp, xp.exp, x))
    return _rounded(self, xp, x * _opmath_fn(xp, xp.tanh, softplus))


def mish_(self):
    write_inplace(self, mish(self))
    return self


def mish_backward(grad_output, self):
    """``grad * (tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2))``, ``sp = log1p(exp(x))``, each step in the opmath
    dtype (the float32 kernel rounds ``1 - tanh(sp)^2`` in float32)."""
    _check_floating(self, "mish_backward_cpu")
    xp, x = _in_opmath(self)
    grad = _in_opmath(grad_output)[1]
    one = _opmath_const(xp, 1, x)
    with np.errstate(over="ignore"):
        sigmoid = one / (_opmath_fn(xp, xp.exp, -x) + one)
        tanh_softplus = _opmath_fn(xp, xp.tanh, _opmath_fn(xp, xp.log1p, _opmath_fn(xp, xp.exp, x)))
    return _rounded(self, xp, grad * (tanh_softplus + x * sigmoid * (one - tanh_softplus * tanh_softplus)))


def celu(self, alpha=1.0):
    """``elu(x, alpha, 1, 1 / alpha)``."""
    return elu(self, alpha, 1.0, _inverse_alpha(alpha))


def celu_(self, alpha=1.0):
    return elu_(self, alpha, 1.0, _inverse_alpha(alpha))


def _inverse_alpha(alpha) -> float:
    if float(alpha) == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / float(alpha)


def glu(self, dim=-1):
    """The first half of ``dim`` times the sigmoid of the second half."""
    first, second, dim = _glu_halves(self, dim)
    _check_floating(self, "glu_cpu")
    xp = xp_of(self)
    a, b = _opmath_array(xp, first, self), _opmath_array(xp, second, self)
    one = _opmath_const(xp, 1, a)
    with np.errstate(over="ignore"):
        result = a * (one / (one + _opmath_fn(xp, xp.exp, -b)))
    return _rounded(self, xp, result)


def _glu_halves(self, dim):
    if self._data.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = checks.wrap_dim(dim, self._data.ndim)
    size = self._data.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    index = [slice(None)] * self._data.ndim
    first, second = list(index), list(index)
    first[dim], second[dim] = slice(0, size // 2), slice(size // 2, size)
    return self._data[tuple(first)], self._data[tuple(second)], dim


def _opmath_array(xp, data, like):
    return data if like._dtype is st.float64 else in_float32(xp, data)


def glu_backward(grad_output, self, dim):
    """First half: ``sigmoid(b) * grad``; second half: ``(1 - sigmoid(b)) * sigmoid(b) * a * grad``."""
    first, second, dim = _glu_halves(self, dim)
    _check_floating(self, "glu_backward_cpu")
    xp = xp_of(self)
    a, b = _opmath_array(xp, first, self), _opmath_array(xp, second, self)
    grad = _opmath_array(xp, grad_output._data, grad_output)
    one = _opmath_const(xp, 1, a)
    with np.errstate(over="ignore"):
        sig = _rounded_array(xp, one / (one + _opmath_fn(xp, xp.exp, -b)), self)
    return _rounded(self, xp, xp.concat([sig * grad, (one - sig) * sig * a * grad], axis=dim))


def _rounded_array(xp, data, like):
    """An intermediate that PyTorch stores in ``like``'s dtype (a float16 sigmoid is rounded before it is used)."""
    return data if like._dtype in (st.float64, st.float32) else in_float32(xp, convert(xp, data, like._dtype))


def threshold(self, threshold, value):
    """``x <= threshold ? value : x``, both numbers taken in the tensor's dtype (an integer tensor stays one)."""
    return _threshold(self, threshold, value)


def _threshold(self, threshold, value):
    if self._dtype is st.bool_ or self._dtype.is_complex:
        raise NotImplementedError(f"\"threshold_cpu\" not implemented for '{self._dtype.c10_name}'")
    xp = xp_of(self)
    if self._dtype.is_floating_point:
        _, x = _in_opmath(self)
        limit, fill = _opmath_const(xp, threshold, x), _opmath_const(xp, value, x)
        return _rounded(self, xp, xp.where(x <= limit, fill, x))
    x = self._data
    limit, fill = (_integer_scalar(xp, v, x.dtype, self._dtype) for v in (threshold, value))
    return wrap(self, follow_inputs(xp, xp.where(x <= limit, fill, x), [x]))


def _integer_scalar(xp, value, xp_dtype, dtype):
    """A Scalar cast to an integer dtype as ``Scalar::to<T>`` does: checked against the range, then truncated."""
    check_scalar_fits(value, dtype)
    return xp.asarray(np.asarray(int(value)).astype(st.to_numpy_dtype(dtype)), dtype=xp_dtype)


def threshold_(self, threshold, value):
    write_inplace(self, _threshold(self, threshold, value))
    return self


def _prelu_kernel(self, weight):
    """``x > 0 ? x : weight * x``, ``weight`` broadcast to ``x``."""
    _check_floating(self, "prelu_cpu")
    xp = xp_of(self)
    x, w = _opmath_array(xp, self._data, self), _opmath_array(xp, weight._data, weight)
    return _rounded(self, xp, xp.where(x > 0, x, w * x))


def _prelu_kernel_backward(grad_output, self, weight):
    """``(x > 0 ? grad : weight * grad, x > 0 ? 0 : x * grad)``, both of the broadcast shape (autograd sums the
    second down to the weight's)."""
    _check_floating(self, "prelu_backward_cpu")
    xp = xp_of(self)
    x, w = _opmath_array(xp, self._data, self), _opmath_array(xp, weight._data, weight)
    grad = _opmath_array(xp, grad_output._data, grad_output)
    positive = x > 0
    grad_input = xp.where(positive, grad, w * grad)
    grad_weight = xp.where(positive, _opmath_const(xp, 0, x), x * grad)
    return _rounded(self, xp, grad_input), _rounded(self, xp, grad_weight)


def rrelu_with_noise(self, noise, lower=0.125, upper=1 / 3, training=False, generator=None):
    """Training: each ``x <= 0`` times its own draw of ``uniform(lower, upper)`` (kept in ``noise``, 1 elsewhere);
    otherwise ``leaky_relu`` with the slope ``(lower + upper) / 2`` (``noise`` untouched)."""
    if tuple(self._data.shape) != tuple(noise._data.shape):
        raise RuntimeError(f"noise tensor shape must match self tensor shape. Got self.shape = "
                           f"{list(self._data.shape)} noise.shape = {list(noise._data.shape)}")
    if not training:  # leaky_relu_out into ``empty_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT)``
        result = leaky_relu(self, (float(lower) + float(upper)) / 2)
        return _contiguous(self, xp_of(self), result._data)
    if self._dtype is st.float16 or not self._dtype.is_floating_point:  # float, double and bfloat16 only
        raise NotImplementedError(f"\"rrelu_with_noise_out_cpu\" not implemented for '{self._dtype.c10_name}'")
    xp, x = _in_opmath(self)
    low, high = (float(xp.asarray(v, dtype=x.dtype)) for v in (lower, upper))  # opmath_t, then double
    flat = np.asarray(to_numpy(x)).reshape(-1)
    negative = flat <= 0
    gen = generator_impl(generator)
    with gen.mutex:
        draws = uniform_values(gen, int(negative.sum()), st.float64, low, high)
    r = np.ones(flat.shape, dtype=flat.dtype)
    r[negative] = draws.astype(flat.dtype)
    r = xp.asarray(r.reshape(x.shape))
    noise._data[...] = convert(xp, r, noise._dtype)
    return _contiguous(self, xp, xp.where(xp.asarray(negative.reshape(x.shape)), x * r, x))


def rrelu_with_noise_(self, noise, lower=0.125, upper=1 / 3, training=False, generator=None):
    write_inplace(self, rrelu_with_noise(self, noise, lower, upper, training, generator))
    return self


def rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training, self_is_result):
    """``grad * noise`` in training (when ``upper - lower`` exceeds 1e-6), else leaky_relu's backward."""
    if training and float(upper) - float(lower) > 1e-6:
        return mul(grad_output, noise)
    return leaky_relu_backward(grad_output, self, (float(lower) + float(upper)) / 2, self_is_result)
