"""``relu``, ``gelu``, ``silu`` and their gradients.

Models ``aten/src/ATen/native/Activation.cpp`` (``relu``, ``relu_``, ``threshold_backward``, ``gelu``,
``gelu_backward``, ``silu``, ``silu_backward``). The CUDA versions of ``relu`` that launch hand-written
CUDA C are in :mod:`picotorch.native.cuda.elementwise`. ``gelu`` and ``silu`` follow PyTorch's float32
steps (NOTE [GELU in float32], NOTE [SiLU in float32]); float64 is computed directly.
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from .device import to_numpy
from .helpers import convert, fused_multiply_add, in_float32, is_reduced_float, np_xp, wrap, xp_of, zero_where
from .layout import follow_inputs


def relu(self):
    """``x < 0 ? 0 : x``: a NaN stays NaN and ``-0.`` stays ``-0.`` (``NaN < 0`` and ``-0. < 0`` are false), as
    PyTorch's ``clamp_min(self, 0)`` gives; ``where(x > 0, x, 0)`` would make both ``0.``."""
    if self._dtype is st.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")  # Activation.cpp checks before clamp_min
    xp = xp_of(self)
    data = self._data
    return wrap(self, follow_inputs(xp, zero_where(xp, data < 0, data), [data]))


def threshold_backward(grad_output, self, threshold):
    """``self <= threshold ? 0 : grad_output``: relu's backward when ``threshold`` is 0 (a NaN lets its
    gradient through, as in ATen's ``threshold_kernel``)."""
    xp = xp_of(grad_output)
    grad = grad_output._data
    data = zero_where(xp, self._data <= threshold, grad)
    return wrap(grad_output, follow_inputs(xp, data, [grad, self._data]))


def relu_(self):
    """In place: the same ``x < 0 ? 0 : x``, so ``-0.`` stays ``-0.`` (the version bump is autograd's)."""
    if self._dtype is st.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")  # Activation.cpp checks before clamp_min
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
    return _rounded(self, xp, x * 0.5 * (1 + _erf(xp, x * math.sqrt(0.5))))


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
    erf = xp.astype(_erf(xp, xp.astype(x32 * xp.asarray(math.sqrt(0.5), dtype=xp.float32), xp.float64)), xp.float32)
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
    cdf = 0.5 * (1 + _erf(xp, x * math.sqrt(0.5)))
    pdf = xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return _rounded(self, xp, grad * (cdf + x * pdf))


def silu(self):
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


_ERF = np.frompyfunc(math.erf, 1, 1)


def _erf(xp, x):
    """The error function of a float64 array: the Array API has none, so C's ``erf`` (``math.erf``) on NumPy's
    copy of the values, moved back to ``x``'s device."""
    values = np.asarray(_ERF(x if xp is np_xp else to_numpy(x)), dtype=np.float64)
    return values if xp is np_xp else xp.asarray(values, device=x.device)
