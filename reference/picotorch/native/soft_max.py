"""``softmax`` and ``log_softmax`` along one dim, and their gradients.

Models ``aten/src/ATen/native/SoftMax.cpp`` (``softmax_cpu_out``, ``log_softmax_cpu_out`` and the
``*_backward_cpu_out`` kernels). Both subtract the maximum along ``dim`` before ``exp``, so a large input
does not overflow; ``log_softmax`` is ``x - max - log(sum(exp(x - max)))``, never ``log(softmax(x))``,
which would lose the small probabilities to rounding. NOTE [Matching PyTorch's float32 softmax] below says
how close float32 values come to PyTorch's. The public
``softmax(x, dim, dtype=...)`` is composite (``composite.py``): a cast, then ``_softmax``.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from . import checks
from .helpers import convert, in_float32, is_reduced_float, xp_dtype, xp_of
from .layout import follow_inputs
from .tensor_impl import new_tensor


def _softmax(self, dim, half_to_float):
    """``exp(x - max) * (1 / sum)``: PyTorch's steps (a reciprocal, then a multiply), in ``x``'s dtype."""
    xp, a, dim = _start(self, dim, half_to_float, "softmax")
    shifted = a - xp.max(a, axis=dim, keepdims=True) if a.size else a
    exps = _exp_rounded(xp, shifted)
    total = _sum_rounded(xp, exps, dim)
    return _finish(self, xp, exps * (1 / total))


def _log_softmax(self, dim, half_to_float):
    """``(x - max) - log(sum(exp(x - max)))``, in ``x``'s dtype."""
    xp, a, dim = _start(self, dim, half_to_float, "log_softmax")
    shifted = a - xp.max(a, axis=dim, keepdims=True) if a.size else a
    total = _sum_rounded(xp, _exp_rounded(xp, shifted), dim)
    if is_reduced_float(self._dtype) and dim == a.ndim - 1:
        # PyTorch's last-dim kernel for float16 / bfloat16 keeps the sum and its log in the input's dtype
        # (measured: 100% of 64,000 values agree this way, 95% when they stay float32)
        log_total = _in_dtype(xp, xp.log(_in_dtype(xp, total, self._dtype)), self._dtype)
        return _finish(self, xp, shifted - log_total)
    return _finish(self, xp, shifted - xp.log(total))


def _in_dtype(xp, a, dtype):
    """A float32 array rounded to ``dtype`` (float16 / bfloat16) and widened back, to keep computing."""
    return in_float32(xp, convert(xp, a, dtype))


# NOTE [Matching PyTorch's float32 softmax]
# PyTorch's CPU kernel works in the input's dtype with vectorised exp and sums (their lane order is the
# machine's). Measured on 2 * 10^5 float32 values against torch 2.13 (x = 3 * normal, rows of 100): NumPy in
# float32 agrees exactly on 31% (softmax) / 88% (log_softmax); everything in float64, rounded once, on
# 20% / 75%; each exp and the sum computed in float64 and rounded to float32, then PyTorch's own float32
# steps (a reciprocal times each exp; ``x - max - log(sum)``), on 60% / 92% — what the kernels here do. The
# rest differ by a unit or two in the last place.


def _exp_rounded(xp, shifted):
    return xp.astype(xp.exp(_widened(xp, shifted)), shifted.dtype)


def _sum_rounded(xp, values, axis):
    return xp.astype(xp.sum(_widened(xp, values), axis=axis, keepdims=True), values.dtype)


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """``y * (g - sum(g * y))`` along ``dim``."""
    xp, dim = xp_of(output), checks.wrap_dim(dim, output.dim())
    g, y = _widened(xp, grad_output._data), _widened(xp, output._data)
    if not y.ndim:
        return _finish(output, xp, y * (g - g * y))
    return _finish(output, xp, y * (g - xp.sum(g * y, axis=dim, keepdims=True)))


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """``g - exp(y) * sum(g)`` along ``dim``."""
    xp, dim = xp_of(output), checks.wrap_dim(dim, output.dim())
    g, y = _widened(xp, grad_output._data), _widened(xp, output._data)
    total = xp.sum(g, axis=dim, keepdims=True) if y.ndim else g
    return _finish(output, xp, g - xp.exp(y) * total)


def _start(self, dim, half_to_float, name):
    """The checks ``softmax_cpu_out`` makes, in its order; the input's array and ``dim`` wrapped."""
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    dim = checks.wrap_dim(dim, self.dim())
    if not self._dtype.is_floating_point:
        last = self.dim() == 0 or dim == self.dim() - 1
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")
    xp = xp_of(self)
    a = self._data
    if is_reduced_float(self._dtype):  # float16 / bfloat16 compute as float32 does, rounded once at the end
        a = in_float32(xp, a)
    if not a.ndim:  # a zero-dim tensor is a one-element vector along dim 0
        a = xp.reshape(a, (1,))
    return xp, a, dim


def _finish(like, xp, data):
    data = xp.reshape(data, tuple(like._data.shape))
    data = convert(xp, data, like._dtype)
    return new_tensor(follow_inputs(xp, data, [like._data]), like._dtype, like._device)


def _widened(xp, a):
    return a if a.dtype == xp.float64 else xp.astype(a, xp_dtype(xp, st.float64))
