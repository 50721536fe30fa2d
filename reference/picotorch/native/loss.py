"""``mse_loss``, ``smooth_l1_loss``, ``huber_loss`` and ``binary_cross_entropy_with_logits``, with their backwards.

Models ``aten/src/ATen/native/Loss.cpp``. ``reduction`` is ``at::Reduction``: 0 none, 1 mean, 2 sum
(``torch/nn/_reduction.py`` turns ``'mean'`` into 1). The binary cross entropy works on logits through
``log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))``, which neither overflows for a large ``|x|`` nor loses
``log(1 - sigmoid(x))`` to rounding, as PyTorch's kernel does. Reductions add up in float64 and round
once (PyTorch's float32 sum is a cascade of partial sums, far closer to that than to a plain loop).
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .binary_ops import check_inplace_operands
from .device import to_numpy
from .dispatcher import ops
from .helpers import (
    cast,
    common_device,
    convert,
    is_reduced_float,
    result_type,
    rounded_to,
    shape_of,
    xp_of,
)
from .layout import follow_inputs
from .tensor_impl import new_tensor

_NONE, _MEAN = 0, 1


def mse_loss(self, target, reduction=_MEAN):
    xp, dtype, a, b = _operands("mse_cpu", self, target)
    diff = a - b
    return _reduce(self, target, xp, dtype, diff * diff, reduction)


def mse_loss_backward(grad_output, self, target, reduction):
    """``norm * (self - target) * grad`` with ``norm = 2 / numel`` for ``mean``, else 2: shaped as ``self``."""
    xp, dtype, a, b = _operands("mse_backward_cpu", self, target)
    norm = 2.0 / self.numel() if reduction == _MEAN else 2.0
    g = cast(grad_output, dtype, xp)
    data = xp.broadcast_to(xp.asarray(norm, dtype=a.dtype, device=a.device) * (a - b) * g, shape_of(self))
    return new_tensor(xp.asarray(data, copy=True), dtype, common_device(self, target))


# ``smooth_l1_loss`` is quadratic below ``beta`` and linear above it (``0.5 * z * z / beta`` or ``z - 0.5 * beta``
# of ``z = |self - target|``); ``huber_loss`` is the same curve scaled by ``delta`` (``0.5 * z * z`` or
# ``delta * (z - 0.5 * delta)``). Each element is computed in the operands' dtype, as the CPU kernels do.


def smooth_l1_loss(self, target, reduction=_MEAN, beta=1.0):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    xp, dtype, a, b = _operands("smooth_l1_cpu", self, target)
    z = xp.abs(a - b)
    half, width = _in_dtype(xp, a, 0.5), _in_dtype(xp, a, beta)
    loss = xp.where(z < width, half * z * z / width if beta else z, z - half * width)
    return _reduce(self, target, xp, dtype, loss, reduction)


def huber_loss(self, target, reduction=_MEAN, delta=1.0):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    xp, dtype, a, b = _operands("huber_cpu", self, target)
    z = xp.abs(a - b)
    half, width = _in_dtype(xp, a, 0.5), _in_dtype(xp, a, delta)
    loss = xp.where(z < width, half * z * z, width * (z - half * width))
    return _reduce(self, target, xp, dtype, loss, reduction)


def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    """``norm * grad`` times ``sign(x)`` outside ``(-beta, beta)`` and ``x / beta`` inside, ``x = self - target``."""
    xp, dtype, a, b = _operands("smooth_l1_backward_cpu", self, target)
    x, g, norm = a - b, cast(grad_output, dtype, xp), _norm(xp, a, self, reduction)
    width = _in_dtype(xp, a, beta)
    with np.errstate(invalid="ignore", divide="ignore"):
        inside = norm * x * g / width
    grad = xp.where(x <= -width, -norm * g, xp.where(x >= width, norm * g, inside))
    return _shaped_as(self, target, xp, dtype, grad)


def huber_loss_backward(grad_output, self, target, reduction, delta):
    """``norm * grad * delta`` times ``sign(x)`` outside ``(-delta, delta)`` and ``norm * x * grad`` inside."""
    xp, dtype, a, b = _operands("huber_backward_cpu", self, target)
    x, g, norm = a - b, cast(grad_output, dtype, xp), _norm(xp, a, self, reduction)
    width = _in_dtype(xp, a, delta)
    grad = xp.where(x <= -width, -norm * g * width, xp.where(x >= width, norm * g * width, norm * x * g))
    return _shaped_as(self, target, xp, dtype, grad)


def _in_dtype(xp, like, value):
    return xp.asarray(value, dtype=like.dtype, device=like.device)


def _norm(xp, like, self, reduction):
    """The gradient's scale: ``1 / numel`` for ``mean``, else 1, in the operands' dtype."""
    return _in_dtype(xp, like, 1.0 / self.numel() if reduction == _MEAN else 1.0)


def _shaped_as(self, target, xp, dtype, grad):
    data = xp.broadcast_to(grad, shape_of(self))
    return new_tensor(xp.asarray(data, copy=True), dtype, common_device(self, target))


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=_MEAN):
    """``(1 - t) * x - log_sigmoid(x) * (1 + (pos_weight - 1) * t)``, times ``weight``, reduced."""
    if not (self._dtype.is_floating_point and target._dtype.is_floating_point):
        _check_bce_with_logits_dtypes(self, target)
    xp, dtype, x, t = _operands("log_sigmoid_cpu", self, target, float64=True)
    if dtype is not st.float64:
        loss = _bce_with_logits_chain(xp, dtype, x, t, weight, pos_weight)
        return _reduce(self, target, xp, dtype, loss, reduction)
    log_sigmoid = xp.minimum(x, 0.0) - xp.log1p(xp.exp(-xp.abs(x)))
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((_float64(xp, pos_weight) - 1) * t + 1)
    loss = (1 - t) * x - log_sigmoid
    if weight is not None:
        loss = loss * _float64(xp, weight)
    return _reduce(self, target, xp, dtype, loss, reduction)


def _check_bce_with_logits_dtypes(self, target):
    """PyTorch's chain refuses what its first ops refuse: ``log_sigmoid`` of an integer input, ``1 - target`` of a
    bool target, and ``(1 - target).mul_(input)`` writing a float into an integer target's dtype."""
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{self._dtype.c10_name}'")
    one_minus_target = ops.sub(ops.ones_like(target), target)  # C++ `1 - t` is a tensor of ones minus t
    check_inplace_operands(one_minus_target, self)


def binary_cross_entropy_with_logits_backward(grad_output, self, target, weight=None, pos_weight=None,
                                              reduction=_MEAN):
    """``(sigmoid(x) - t) * grad`` (``((pw * t + 1 - t) * sigmoid(x) - pw * t) * grad`` with ``pos_weight``)."""
    xp, dtype, x, t = _operands("sigmoid_cpu", self, target, float64=True)
    if dtype is not st.float64:
        grad = _bce_with_logits_backward_chain(xp, dtype, x, t, grad_output, weight, pos_weight, reduction,
                                               self.numel())
        return new_tensor(convert(xp, grad, dtype), dtype, common_device(self, target))
    sigmoid = 1 / (1 + xp.exp(-x))
    g = _float64(xp, grad_output)
    if pos_weight is not None:
        pw_t = _float64(xp, pos_weight) * t
        grad = ((pw_t + 1 - t) * sigmoid - pw_t) * g
    else:
        grad = (sigmoid - t) * g
    if weight is not None:
        grad = grad * _float64(xp, weight)
    if reduction == _MEAN:
        grad = grad / self.numel()
    return new_tensor(convert(xp, grad, dtype), dtype, common_device(self, target))


def _bce_with_logits_chain(xp, dtype, x, t, weight, pos_weight):
    """Below float64 PyTorch's function is a chain of tensor ops (``log_sigmoid``, ``1 - t``, ``mul_``,
    ``sub_`` ...), each computed in float32 and rounded to the dtype: the same chain here (rounding once at
    the end instead loses the float32 zeros: ``sigmoid(30.) - 1`` is 0 in float32)."""
    def rounded(a):
        return rounded_to(xp, a, dtype)
    x, t = xp.astype(x, xp.float32), xp.astype(t, xp.float32)
    log_sigmoid = rounded(_log_sigmoid_float32(xp, x))
    if pos_weight is not None:
        log_weight = rounded(rounded(rounded(_float32_of(xp, pos_weight) - 1) * t) + 1)
        log_sigmoid = rounded(log_sigmoid * log_weight)
    loss = rounded(rounded(rounded(1 - t) * x) - log_sigmoid)
    if weight is not None:
        loss = rounded(loss * _float32_of(xp, weight))
    return loss


def _bce_with_logits_backward_chain(xp, dtype, x, t, grad_output, weight, pos_weight, reduction, numel):
    """The backward's chain of tensor ops (``sigmoid``, ``sub``, ``mul_`` by the gradient, ``div_`` by the count),
    each rounded to float32 / float16 / bfloat16 as PyTorch's ops are."""
    def rounded(a):
        return rounded_to(xp, a, dtype)
    sigmoid = rounded(_sigmoid_float32(xp, x))
    x, t = xp.astype(x, xp.float32), xp.astype(t, xp.float32)
    if pos_weight is not None:
        pw_t = rounded(_float32_of(xp, pos_weight) * t)
        grad = rounded(rounded(rounded(rounded(pw_t + 1) - t) * sigmoid) - pw_t)
    else:
        grad = rounded(sigmoid - t)
    grad = rounded(grad * _float32_of(xp, grad_output))
    if weight is not None:
        grad = rounded(grad * _float32_of(xp, weight))
    if reduction == _MEAN:
        grad = grad / xp.asarray(numel, dtype=xp.float32)
    return grad


def _log_sigmoid_float32(xp, x):
    """PyTorch's float32 log_sigmoid kernel, ``min(x, 0) - log1p(exp(-|x|))``, each function's result a float32."""
    e = xp.astype(xp.exp(-xp.abs(_as_float64(xp, x))), xp.float32)
    return xp.minimum(x, xp.asarray(0.0, dtype=xp.float32)) - xp.astype(xp.log1p(_as_float64(xp, e)), xp.float32)


def _sigmoid_float32(xp, x):
    """PyTorch's float32 sigmoid, ``1 / (1 + exp(-x))`` in float32: below -88.7 ``exp`` overflows and gives 0."""
    with np.errstate(over="ignore"):
        e = xp.astype(xp.exp(-x), xp.float32)
    return 1 / (1 + e)


def _float32_of(xp, t):
    return xp.astype(t._data, xp.float32)


def _operands(kernel, self, target, float64=False):
    """TensorIterator's set-up of a binary loss: the promoted dtype (floating, or PyTorch's error), both
    arrays broadcast, in that dtype or in float64."""
    dtype = result_type(self, target)
    checks.broadcast_shapes(shape_of(self), shape_of(target))
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.c10_name}'")
    xp = xp_of(self)
    if float64:
        return xp, dtype, _float64(xp, self), _float64(xp, target)
    return xp, dtype, cast(self, dtype, xp), cast(target, dtype, xp)


def _reduce(self, target, xp, dtype, loss, reduction):
    if is_reduced_float(dtype) and reduction == _MEAN and loss.size:  # a float32 sum over the count, as ``mean``
        loss = xp.astype(xp.sum(_as_float64(xp, loss)), xp.float32) / xp.asarray(loss.size, dtype=xp.float32)
    elif reduction == _MEAN:
        loss = xp.mean(_as_float64(xp, loss)) if loss.size else xp.asarray(float("nan"), device=loss.device)
    elif reduction != _NONE:
        loss = xp.sum(_as_float64(xp, loss))
    return new_tensor(convert(xp, xp.asarray(loss), dtype), dtype, common_device(self, target))


def _float64(xp, t):
    return _as_float64(xp, t._data)


def _as_float64(xp, a):
    return a if a.dtype == xp.float64 else xp.astype(a, xp.float64)


# ----------------------------------------------------------------------------- ops batch 8
# binary_cross_entropy (Loss.cpp's CPU kernel), soft_margin_loss and multi_margin_loss (LossMultiMargin.cpp): each
# with its own backward node. The other losses of the batch are composites (``composite.py``).
_SUM = 2
_BCE_EPSILON = float(np.float32(1e-12))  # Loss.cpp's EPSILON is a float, in double too


def binary_cross_entropy(self, target, weight=None, reduction=_MEAN):
    """``(t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)``, times ``weight``, reduced; every ``x`` and ``t``
    must lie in ``[0, 1]``."""
    xp, x, t = _bce_operands(self, target)
    _check_bce_range(xp, x, t)
    hundred = -_in_dtype(xp, x, 100)
    with np.errstate(divide="ignore"):
        log1m = xp.maximum(_opmath_log(xp, xp.log1p, -x), hundred)
        logx = xp.maximum(_opmath_log(xp, xp.log, x), hundred)
    loss = _rounded_like(xp, (t - 1) * log1m - t * logx, self._dtype)
    if weight is not None:
        _check_inplace_shape(shape_of(self), shape_of(weight))  # ``loss.mul_(weight)``
        loss = _rounded_like(xp, loss * _opmath(xp, weight), self._dtype)
    return _laid_out_like_input(self, xp, _reduce(self, self, xp, self._dtype, loss, reduction), reduction)


def _check_inplace_shape(shape, other) -> None:
    broadcast = checks.broadcast_shapes(shape, other)
    if tuple(broadcast) != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(broadcast)}")


def _bce_operands(self, target):
    """TensorIterator's set-up with the loss (``empty_like(input)``) as output: one dtype for all, a float one."""
    if target._dtype is not self._dtype:
        raise RuntimeError(f"Found dtype {target._dtype.c10_name} but expected {self._dtype.c10_name}")
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{self._dtype.c10_name}'")
    xp = xp_of(self)
    return xp, _opmath(xp, self), _opmath(xp, target)


def _check_bce_range(xp, x, t) -> None:
    """The kernel checks element by element, the input before the target (a NaN is out of range)."""
    bad_input, bad_target = ~((x >= 0) & (x <= 1)), ~((t >= 0) & (t <= 1))
    bad = np.asarray(_to_host(bad_input | bad_target)).reshape(-1)
    if bad.any():
        first = int(np.argmax(bad))
        which = "input" if np.asarray(_to_host(bad_input)).reshape(-1)[first] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")


def binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction=_MEAN):
    """``grad * (x - t) / max((1 - x) * x, 1e-12)``, times ``weight``, over ``numel`` for ``mean``."""
    xp, x, t = _bce_operands(self, target)
    one = _in_dtype(xp, x, 1)
    grad = _opmath(xp, grad_output) * (x - t) / xp.maximum((one - x) * x, _in_dtype(xp, x, _BCE_EPSILON))
    grad = _rounded_like(xp, xp.broadcast_to(grad, tuple(x.shape)), self._dtype)
    if weight is not None:
        grad = _rounded_like(xp, grad * _opmath(xp, weight), self._dtype)
    if reduction == _MEAN:
        grad = grad / _in_dtype(xp, grad, self.numel())
    return new_tensor(convert(xp, xp.asarray(grad, copy=True), self._dtype), self._dtype, self._device)


def soft_margin_loss(self, target, reduction=_MEAN):
    """``log1p(exp(-x * t))``, in the input's dtype (``neg_out(output, input).mul_(target).exp_().log1p_()``)."""
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {self._dtype.c10_name}")
    _check_inplace_shape(shape_of(self), shape_of(target))  # ``neg_out(output, input).mul_(target)``
    xp = xp_of(self)
    x, t = _opmath(xp, self), _opmath(xp, target)
    with np.errstate(over="ignore"):
        scaled = _rounded_like(xp, -x * t, self._dtype)
        loss = _rounded_like(xp, _opmath_log(xp, xp.log1p, _opmath_log(xp, xp.exp, scaled)), self._dtype)
    return _laid_out_like_input(self, xp, _reduce(self, target, xp, self._dtype, loss, reduction), reduction)


def soft_margin_loss_backward(grad_output, self, target, reduction):
    """``-norm * t * z / (1 + z) * grad`` with ``z = exp(-t * x)``, ``norm`` 1 / numel for ``mean``."""
    xp = xp_of(self)
    x, t = _opmath(xp, self), _opmath(xp, target)
    norm = _in_dtype(xp, x, 1.0 / self.numel() if reduction == _MEAN else 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        z = _opmath_log(xp, xp.exp, -t * x)
        grad = (t * z) * -norm / (z + 1) * _opmath(xp, grad_output)
    grad = xp.broadcast_to(grad, shape_of(self))
    return new_tensor(convert(xp, xp.asarray(grad, copy=True), self._dtype), self._dtype, self._device)


def multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=_MEAN):
    """Per sample: the sum over the other classes ``d`` of ``max(0, margin - x[y] + x[d])`` (squared for p=2,
    times ``weight[y]``), over the number of classes; then reduced (in double, as the CPU kernel accumulates)."""
    nframe, dim, x, y, w = _multi_margin_setup(self, target, p, weight)
    xp = xp_of(self)
    losses = []
    for n in range(nframe):
        total = np.zeros((), dtype=x.dtype)
        for d in range(dim):
            if d == y[n]:
                continue
            z = x.dtype.type(margin) - x[n, y[n]] + x[n, d]
            if z > 0:
                h = z if p == 1 else z * z
                total = total + (h * w[y[n]] if w is not None else h)
        losses.append(total / x.dtype.type(dim))
    if reduction == _NONE and target._data.ndim > 0:
        out = np.asarray(losses, dtype=x.dtype)
    else:
        out = np.asarray(sum(float(v) for v in losses))
        if reduction == _MEAN:
            out = out / nframe
    return new_tensor(convert(xp, xp.asarray(out), self._dtype), self._dtype, self._device)


def _multi_margin_setup(self, target, p, weight):
    ndim = self._data.ndim
    shape = list(shape_of(self))
    if not ((ndim == 2 and shape[1] != 0) or (ndim == 1 and shape[0] != 0) or ndim == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {shape}")
    nframe = 1 if ndim <= 1 else shape[0]
    dim = 1 if ndim == 0 else shape[0] if ndim == 1 else shape[1]
    if not (target._data.ndim <= 1 and target.numel() == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got "
                           f"{list(shape_of(target))}. Input has shape {shape}.")
    if weight is not None and not (weight._data.ndim <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(shape_of(weight))}")
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    if self._dtype not in (st.float32, st.float64):
        raise NotImplementedError(f"\"multi_margin_loss_cpu_kernel\" not implemented for '{self._dtype.c10_name}'")
    if target._dtype is not st.int64:
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.c10_name}")
    if weight is not None and weight._dtype is not self._dtype:
        raise RuntimeError(f"expected scalar type {self._dtype.c10_name} but found {weight._dtype.c10_name}")
    opmath = np.float64 if self._dtype is st.float64 else np.float32
    x = np.asarray(_to_host(self._data), dtype=opmath).reshape(nframe, dim)
    y = np.asarray(_to_host(target._data)).reshape(-1)
    if ((y < 0) | (y >= dim)).any():
        raise RuntimeError("target out of range")
    w = None if weight is None else np.asarray(_to_host(weight._data), dtype=opmath).reshape(-1)
    return nframe, dim, x, y, w


def multi_margin_loss_backward(grad_output, self, target, p, margin, weight=None, reduction=_MEAN):
    """``g`` (``2 g z`` for p=2) times ``weight[y]`` for each class with a positive margin term, their negated sum
    at the target class; ``g = 1 / dim`` (``1 / (nframe * dim)`` for ``mean``); then times the gradient."""
    nframe, dim, x, y, w = _multi_margin_setup(self, target, p, weight)
    g = x.dtype.type(1.0 / (nframe * dim) if reduction == _MEAN else 1.0 / dim)
    grad = np.zeros_like(x)
    for n in range(nframe):
        at_target = x.dtype.type(0)
        for d in range(dim):
            if d == y[n]:
                continue
            z = x.dtype.type(margin) - x[n, y[n]] + x[n, d]
            if z > 0:
                h = g if p == 1 else 2 * g * z
                if w is not None:
                    h = h * w[y[n]]
                at_target = at_target - h
                grad[n, d] = h
        grad[n, y[n]] = at_target
    upstream = np.asarray(_to_host(grad_output._data), dtype=x.dtype)
    grad = grad * (upstream.reshape(-1, 1) if reduction == _NONE and upstream.ndim > 0 else upstream)
    xp = xp_of(self)
    data = convert(xp, xp.asarray(grad.reshape(shape_of(self))), self._dtype)
    return new_tensor(data, self._dtype, self._device)


def _opmath(xp, t):
    """``t``'s array in its opmath dtype (float32 for float32 / float16 / bfloat16)."""
    return t._data if t._dtype is st.float64 else xp.astype(t._data, xp.float32)


def _laid_out_like_input(self, xp, out, reduction):
    """An unreduced loss is TensorIterator's output of ``empty_like(input)``: laid out as the input is."""
    if reduction != _NONE:
        return out
    return new_tensor(follow_inputs(xp, out._data, [self._data]), out._dtype, out._device)


def _opmath_log(xp, fn, a):
    """``fn`` of a float32 / float64 array, computed in float64 and rounded once to ``a``'s dtype."""
    return fn(a) if a.dtype == xp.float64 else xp.astype(fn(xp.astype(a, xp.float64)), a.dtype)


def _rounded_like(xp, a, dtype):
    """A float32 intermediate rounded as PyTorch stores it in ``dtype`` (float16 / bfloat16), kept in float32."""
    return rounded_to(xp, a, dtype) if is_reduced_float(dtype) else a


def _to_host(a):
    return to_numpy(a)
