"""``native_batch_norm``, its backward, and the composites ``batch_norm`` and ``instance_norm``.

Models ``aten/src/ATen/native/Normalization.cpp`` (``_batch_norm_impl_index``'s checks, ``batch_norm_cpu``,
``batch_norm_backward_cpu``). Each channel (dim 1) is normalised over every other dim: in training by the batch's
mean and biased variance, which also move the running statistics in place (``momentum`` times the batch's mean
and *unbiased* variance, plus ``1 - momentum`` times the old value; their version counters stay); in evaluation
by the running statistics. The forward returns the batch's mean and ``1 / sqrt(var + eps)`` for the backward
(empty tensors in evaluation). Floating inputs are computed in float64 and rounded once. ``instance_norm`` is a
batch norm of the input viewed as one sample of ``N * C`` channels, with the per-channel tensors repeated ``N``
times; in training the running statistics then take the mean over the samples of the repeated ones.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .convolution import _channels_last, _result
from .device import to_numpy
from .dispatcher import ops


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
    if training:
        mean = x.mean(axis=axes)
        var = ((x - _channel(mean, ndim)) ** 2).mean(axis=axes)
        invstd = 1 / np.sqrt(var + eps)
        _update_running_stats(running_mean, running_var, mean, var, momentum, x.size // x.shape[1])
        center, scale = mean, invstd
    else:
        center, scale = _f64(running_mean), 1 / np.sqrt(_f64(running_var) + eps)
    out = (x - _channel(center, ndim)) * _channel(scale, ndim)
    if weight is not None:
        out = out * _channel(_f64(weight), ndim)
    if bias is not None:
        out = out + _channel(_f64(bias), ndim)
    stats_dtype = st.float32 if input._dtype in (st.float16, st.bfloat16) else input._dtype
    saved = (mean, invstd) if training else (np.zeros(0), np.zeros(0))
    return (_result(input, out, _channels_last(input)),
            *(_result(input, s, False, stats_dtype) for s in saved))


def _check_dtypes(input, *params):
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{input._dtype.c10_name}'")
    reduced = input._dtype in (st.float16, st.bfloat16)
    for t in params:
        if t is not None and t._dtype is not input._dtype and not (reduced and t._dtype is st.float32):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _update_running_stats(running_mean, running_var, mean, var, momentum, count):
    """In place, as the kernel writes them (no version bump): the unbiased variance moves ``running_var``."""
    if running_mean is not None:
        updated = momentum * mean + (1 - momentum) * _f64(running_mean)
        running_mean._data[...] = updated.astype(running_mean._data.dtype)
    if running_var is not None:
        unbiased = var * count / (count - 1) if count > 1 else np.full_like(var, np.inf)
        updated = momentum * unbiased + (1 - momentum) * _f64(running_var)
        running_var._data[...] = updated.astype(running_var._data.dtype)


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
