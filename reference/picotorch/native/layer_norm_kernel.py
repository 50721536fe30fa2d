"""``native_layer_norm`` and its backward (the module is not called ``layer_norm``: that name is the op's).

Models ``aten/src/ATen/native/layer_norm.cpp`` (``layer_norm_cpu``, ``layer_norm_backward_cpu``,
``_check_layer_norm_inputs``). The input splits into ``M`` rows (the leading dims) of ``N`` values (the
``normalized_shape`` dims); each row is normalised by its own mean and biased variance:
``y = (x - mean) * rstd * weight + bias`` with ``rstd = 1 / sqrt(var + eps)``. The forward returns
``mean`` and ``rstd`` too, shaped ``leading dims + (1,) * len(normalized_shape)``, for the backward.
A float32 input is computed in float64 and rounded once.
"""

from __future__ import annotations

from .helpers import convert, shape_of, xp_of
from .tensor_impl import new_tensor


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    normalized_shape = tuple(normalized_shape)
    _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for '{input._dtype.c10_name}'")
    xp, axes = xp_of(input), _normalized_axes(input, normalized_shape)
    x = _float64(xp, input._data)
    mean = xp.mean(x, axis=axes, keepdims=True) if x.size else xp.zeros(_stat_shape(input, axes), dtype=x.dtype)
    centered = x - mean
    var = xp.mean(centered * centered, axis=axes, keepdims=True) if x.size else mean
    rstd = 1 / xp.sqrt(var + eps)
    out = centered * rstd
    if weight is not None:
        out = out * _float64(xp, weight._data)
    if bias is not None:
        out = out + _float64(xp, bias._data)
    return tuple(_tensor(input, xp, a) for a in (out, mean, rstd))


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    """``dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))`` with ``gw = grad * weight``; ``dweight`` and
    ``dbias`` sum ``grad * xhat`` and ``grad`` over the leading dims. ``output_mask`` says which to compute."""
    xp, axes = xp_of(input), _normalized_axes(input, tuple(normalized_shape))
    g, x = _float64(xp, grad_out._data), _float64(xp, input._data)
    r = _float64(xp, rstd._data)
    xhat = (x - _float64(xp, mean._data)) * r
    leading = tuple(range(x.ndim - len(axes)))
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        gw = g * _float64(xp, weight._data) if weight is not None else g
        if x.size:
            dx = r * (gw - xp.mean(gw, axis=axes, keepdims=True) - xhat * xp.mean(gw * xhat, axis=axes, keepdims=True))
        else:
            dx = gw
        grad_input = _tensor(input, xp, dx)
    if output_mask[1] and weight is not None:
        grad_weight = _tensor(weight, xp, xp.sum(g * xhat, axis=leading))
    if output_mask[2] and bias is not None:
        grad_bias = _tensor(bias, xp, xp.sum(g, axis=leading))
    return grad_input, grad_weight, grad_bias


def _check_layer_norm_inputs(input, normalized_shape, weight, bias) -> None:
    if len(normalized_shape) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(normalized_shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and shape_of(t) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(shape_of(t))} and normalized_shape = {list(normalized_shape)}")
    sizes = shape_of(input)
    if len(sizes) < len(normalized_shape) or sizes[len(sizes) - len(normalized_shape):] != normalized_shape:
        expected = "".join(f", {s}" for s in normalized_shape)
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*{expected}], but got input of size{list(sizes)}")


def _normalized_axes(input, normalized_shape) -> tuple:
    ndim = input.dim()
    return tuple(range(ndim - len(normalized_shape), ndim))


def _stat_shape(input, axes) -> tuple:
    return tuple(1 if i in axes else s for i, s in enumerate(shape_of(input)))


def _float64(xp, a):
    return a if a.dtype == xp.float64 else xp.astype(a, xp.float64)


def _tensor(like, xp, data):
    return new_tensor(convert(xp, data, like._dtype), like._dtype, like._device)
