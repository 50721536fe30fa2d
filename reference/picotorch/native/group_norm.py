"""``group_norm`` (the composite ``torch.group_norm`` is), ``native_group_norm`` and its backward.

Models ``aten/src/ATen/native/group_norm.cpp`` and ``cpu/group_norm_kernel.cpp``. The ``C`` channels split into
``group`` groups; each sample's group (``C / group`` channels times every spatial element, ``HxW``) is normalised by
its own mean and biased variance, then each channel is scaled by ``weight`` and shifted by ``bias``. The forward
returns the ``(N, group)`` means and ``1 / sqrt(var + eps)`` too. Floating inputs are computed in float64 and
rounded once.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .convolution import _result
from .device import to_numpy
from .dispatcher import ops


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    n, c = input.size(0), input.size(1)
    if c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    # (torch's bias message shows the weight's shape, [0] when there is no weight)
    shown = list(weight.shape) if weight is not None else [0]
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shown} and input of shape {list(input.shape)}")
    hxw = 1
    for size in input.shape[2:]:
        hxw *= size
    return ops.native_group_norm(ops.contiguous(input), weight, bias, n, c, hxw, num_groups, eps)[0]


def _f64(t):
    return None if t is None else to_numpy(t._data).astype(np.float64)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"GroupNormKernelImpl\" not implemented for '{input._dtype.c10_name}'")
    x = _f64(input).reshape(N, group, -1)
    mean = x.mean(axis=-1)
    var = ((x - mean[..., None]) ** 2).mean(axis=-1)
    rstd = 1 / np.sqrt(var + eps)
    out = ((x - mean[..., None]) * rstd[..., None]).reshape(N, C, -1)
    if weight is not None:
        out = out * _f64(weight)[:, None]
    if bias is not None:
        out = out + _f64(bias)[:, None]
    stats_dtype = st.float32 if input._dtype in (st.float16, st.bfloat16) else input._dtype
    return (_result(input, out.reshape(input.shape), False), _result(input, mean, False, stats_dtype),
            _result(input, rstd, False, stats_dtype))


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    """Per group: ``dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))`` with ``gw = grad * weight``;
    ``dweight`` and ``dbias`` sum ``grad * xhat`` and ``grad`` over the samples and spatial elements."""
    g = _f64(grad_out).reshape(N, C, -1)
    x = _f64(input).reshape(N, group, -1)
    r = _f64(rstd)[..., None]
    xhat = ((x - _f64(mean)[..., None]) * r).reshape(N, C, -1)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        gw = (g * _f64(weight)[:, None] if weight is not None else g).reshape(N, group, -1)
        xh = xhat.reshape(N, group, -1)
        dx = r * (gw - gw.mean(axis=-1, keepdims=True) - xh * (gw * xh).mean(axis=-1, keepdims=True))
        grad_input = _result(input, dx.reshape(input.shape), False)
    if output_mask[1] and weight is not None:
        grad_weight = _result(weight, (g * xhat).sum(axis=(0, 2)), False)
    if output_mask[2]:
        grad_bias = _result(input, g.sum(axis=(0, 2)), False)
    return grad_input, grad_weight, grad_bias
