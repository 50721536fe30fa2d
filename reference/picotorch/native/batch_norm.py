"""``native_batch_norm``, its backward, and the composites ``batch_norm`` and ``instance_norm``.

Models ``aten/src/ATen/native/Normalization.cpp`` (``_batch_norm_impl_index``'s checks, ``batch_norm_cpu``,
``batch_norm_backward_cpu``). Each channel (dim 1) is normalised over every other dim: in training by the batch's
mean and biased variance, which also move the running statistics in place (``momentum`` times the batch's mean
and *unbiased* variance, plus ``1 - momentum`` times the old value; their version counters stay); in evaluation
by the running statistics. The forward returns the batch's mean and ``1 / sqrt(var + eps)`` for the backward
(empty tensors in evaluation), stored in the input's dtype, from which the output is made as the kernel makes it:
``x * alpha + beta`` with a fused multiply-add (so float32 matches torch bit for bit; the batch statistics
themselves are summed in float64 here, in vector lanes there). ``instance_norm`` is a
batch norm of the input viewed as one sample of ``N * C`` channels, with the per-channel tensors repeated ``N``
times; in training the running statistics then take the mean over the samples of the repeated ones.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .convolution import _channels_last, _result
from .device import to_numpy
from .dispatcher import ops
from .helpers import fused_multiply_add, fused_multiply_add_float64
from .numpy_namespace import np_xp


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    num_features = input.size(1)
    if input.numel() == 0:  # a copy, not a view or an empty tensor, so the graph still reaches the input
        out = ops.clone(input)
        if weight is not None:
            out = ops.mul(out, ops.select(weight, 0, 0))
        if bias is not None:
            out = ops.add(out, ops.select(bias, 0, 0))
        return out
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            _check_features(name, num_features, t)
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            _check_features(name, num_features, t)
    return ops.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def _check_features(name, num_features, t):
    if t.numel() != num_features:
        raise RuntimeError(f"{name} should contain {num_features} elements not {t.numel()}")


def _channel(data, ndim):
    return data.reshape((1, -1) + (1,) * (ndim - 2))


def _axes(ndim):
    return (0,) + tuple(range(2, ndim))


def _f64(t):
    return None if t is None else to_numpy(t._data).astype(np.float64)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    _check_dtypes(input, weight, bias, running_mean, running_var)
    x = _f64(input)
    axes, ndim = _axes(x.ndim), x.ndim
    reduced = input._dtype in (st.float16, st.bfloat16)
    mixed = reduced and any(t is not None and t._dtype is st.float32
                            for t in (weight, bias, running_mean, running_var))
    # the statistics' dtype: the input's, float32 for a half or bfloat16 input with float32 parameters
    stats = np.float32 if mixed else st.to_numpy_dtype(input._dtype)
    if training:
        mean = x.mean(axis=axes)
        var = ((x - _channel(mean, ndim)) ** 2).mean(axis=axes)
        _update_running_stats(running_mean, running_var, mean, var, momentum, x.size // x.shape[1])
        if reduced:
            center, scale = mean.astype(stats), (1 / np.sqrt(var + eps)).astype(stats)
        else:  # 1 / sqrt(var + eps) in the input's dtype
            center = mean.astype(stats)
            scale = _in_dtype(lambda v: 1 / np.sqrt(v + _in_dtype(lambda: eps, stats)), stats, var.astype(stats))
        saved = (center, scale)
    else:
        center = to_numpy(running_mean._data)
        kind = np.float64 if input._dtype is st.float64 else np.float32
        scale = _in_dtype(lambda v: 1 / np.sqrt(v + _in_dtype(lambda: eps, kind)), kind, to_numpy(running_var._data))
        saved = (np.zeros(0), np.zeros(0))
    out = _normalized(input, x, center, scale, weight, bias, ndim, mixed or not reduced)
    return (_result(input, out, _channels_last(input)), *(_result(input, s, False, _stats_dtype(stats))
                                                          for s in saved))


def _stats_dtype(numpy_dtype):
    return st.float32 if numpy_dtype == np.float32 else None


def _in_dtype(fn, dtype, *args):
    """``fn`` computed in ``dtype`` (float32 arithmetic for a float32 kernel; half and bfloat16 in float32)."""
    kind = np.float64 if dtype == np.float64 else np.float32
    return np.asarray(fn(*(np.asarray(a).astype(kind) for a in args)), dtype=kind)


def _normalized(input, x, center, scale, weight, bias, ndim, linear_terms):
    """The kernel's arithmetic: ``alpha = scale * weight`` and ``beta = bias - center * alpha`` (one rounding) per
    channel in the parameters' dtype, then ``x * alpha + beta`` rounded once (its vectorised fmadd). A half or
    bfloat16 input without float32 parameters: ``(x - mean) * invstd`` from its stored statistics, rounded once."""
    if not linear_terms:
        out = (x - _channel(np.asarray(center, np.float64), ndim)) * _channel(np.asarray(scale, np.float64), ndim)
        if weight is not None:
            out = out * _channel(_f64(weight), ndim)
        if bias is not None:
            out = out + _channel(_f64(bias), ndim)
        return out
    kind = np.float64 if input._dtype is st.float64 else np.float32

    def fma(a, b, c):
        return fused_multiply_add_float64(np_xp, a, b, c) if kind is np.float64 else fused_multiply_add(np_xp, a, b, c)

    alpha = np.asarray(scale, kind) * (to_numpy(weight._data).astype(kind) if weight is not None else kind(1))
    beta = fma(-np.asarray(center, kind), alpha,
               to_numpy(bias._data).astype(kind) if bias is not None else np.zeros_like(alpha))
    data = to_numpy(input._data).astype(kind)
    return fma(data, _channel(alpha, ndim), _channel(beta, ndim))


def _check_dtypes(input, *params):
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{input._dtype.c10_name}'")
    reduced = input._dtype in (st.float16, st.bfloat16)
    for t in params:
        if t is not None and t._dtype is not input._dtype and not (reduced and t._dtype is st.float32):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _update_running_stats(running_mean, running_var, mean, var, momentum, count):
    """In place, as the kernel writes them (no version bump), in the buffers' dtype: ``momentum`` times the batch's
    mean (its unbiased variance), plus ``1 - momentum`` times the old value."""
    unbiased = var * count / (count - 1) if count > 1 else np.full_like(var, np.inf)
    for running, batch in ((running_mean, mean), (running_var, unbiased)):
        if running is not None:
            data = to_numpy(running._data)
            kind = data.dtype.type
            running._data[...] = kind(momentum) * batch.astype(kind) + kind(1 - momentum) * data


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                               eps, output_mask):
    """``dx = w * invstd * (g - mean(g) - xhat * mean(g * xhat))`` in training (``g * w * invstd`` in
    evaluation, where the statistics are constants); ``dweight = sum(g * xhat)``, ``dbias = sum(g)``."""
    g, x = _f64(grad_out), _f64(input)
    axes, ndim = _axes(x.ndim), x.ndim
    if train:
        center, scale = _f64(save_mean), _f64(save_invstd)
    else:
        center, scale = _f64(running_mean), 1 / np.sqrt(_f64(running_var) + eps)
    xhat = (x - _channel(center, ndim)) * _channel(scale, ndim)
    w = _channel(_f64(weight), ndim) if weight is not None else 1.0
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if train:
            dx = g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True)
        else:
            dx = g
        grad_input = _result(input, dx * w * _channel(scale, ndim), _channels_last(input))
    if output_mask[1] and weight is not None:
        grad_weight = _result(weight, (g * xhat).sum(axis=axes), False)
    if output_mask[2]:
        grad_bias = _result(input, g.sum(axis=axes), False)
    return grad_input, grad_weight, grad_bias


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = input.size(0), input.size(1)
    shape = (1, b * c) + tuple(input.shape[2:])
    weight_, bias_, mean_, var_ = (None if t is None else ops.repeat(t, [b])
                                   for t in (weight, bias, running_mean, running_var))
    out = ops.batch_norm(ops.view(ops.contiguous(input), shape), weight_, bias_, mean_, var_, use_input_stats,
                         momentum, eps, cudnn_enabled)
    for running, repeated in ((running_mean, mean_), (running_var, var_)):
        if running is not None and use_input_stats:  # (only then did the batch norm move them)
            ops.copy_(ops.alias(running), ops.mean(ops.view(repeated, (b, c)), [0], False))
    return ops.view(out, tuple(input.shape))
