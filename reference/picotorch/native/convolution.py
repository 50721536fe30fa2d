"""``convolution`` and ``convolution_backward``, and the ``conv1d``/``conv2d``/``conv_transpose`` entry points.

Models ``aten/src/ATen/native/Convolution.cpp`` (``_convolution``'s checks, ``check_shape_forward``,
``_convolution_mode``, ``_convolution_same``, ``conv2d``'s ``batchify``) and the CPU kernels it picks
(``ConvolutionMM2d.cpp``, the slow path, and oneDNN for float32): the same sums, in float64 for every floating dtype
(rounded once), so float32 results may differ from oneDNN's float32 sums in the last bits. Every spatial rank goes
one way (im2col): the zero-padded input, laid out channels-minor, is copied tap by tap into a matrix of columns, one
row per output position, which one matmul per group contracts with the filters; the weight gradient is the columns
times the output gradient, and the input gradient (also a transposed convolution's forward) adds each tap's share
back where the tap read (col2im). The output is channels-last when the input or the weight is
(``suggest_memory_format``), as oneDNN's and the slow path's are.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..c10 import scalar_type as st
from .device import to_numpy
from .dispatcher import ops
from .helpers import legacy_type_string, strides_of, xp_of
from .tensor_impl import new_tensor

# ----------------------------------------------------------------------------- the op with autograd


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    params = _params(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    stride, padding, dilation, output_padding = params
    check_types(input, weight, bias, transposed)
    if input._dtype is st.bool_:
        raise NotImplementedError(f"\"{'slow_conv_transpose2d_out_cpu' if transposed else 'slow_conv2d_cpu'}\" not "
                                  "implemented for 'Bool'")
    if transposed:
        _check_output_padding(output_padding, stride, dilation)
    x, w = _compute_dtype(input), _compute_dtype(weight)
    if transposed:
        out = _transposed(x, w, stride, padding, dilation, output_padding, groups)
    else:
        out = _forward(x, w, stride, padding, dilation, groups)
    if bias is not None:
        out += _compute_dtype(bias).reshape((-1,) + (1,) * (out.ndim - 2))
    return _result(input, out, _channels_last(input) or _channels_last(weight))


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    """The gradients the mask asks for: the input's and weight's from the same windows as the forward's; the
    bias's the output gradient summed over all but the channel dim."""
    stride, padding, dilation, output_padding = _params(input, weight, None, stride, padding, dilation, transposed,
                                                        output_padding, groups)
    g, x, w = _compute_dtype(grad_output), _compute_dtype(input), _compute_dtype(weight)
    channels_last = _channels_last(input) or _channels_last(weight)
    spatial = x.shape[2:]
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if transposed:
            gi = _forward(g, w, stride, padding, dilation, groups)
        else:
            gi = _input_grad(g, w, spatial, stride, padding, dilation, groups)
        grad_input = _result(input, gi, channels_last)
    if output_mask[1]:
        gw = _weight_grad(x, g, weight.shape[2:], stride, padding, dilation, groups, transposed)
        grad_weight = _result(weight, gw, channels_last)
    if output_mask[2]:
        grad_bias = _result(grad_output, g.sum(axis=(0,) + tuple(range(2, g.ndim))), False)
    return grad_input, grad_weight, grad_bias


# ----------------------------------------------------------------------------- the sums


def _padded(x, padding):
    if not any(padding):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding))


def _windows(x, kernel, stride, dilation, out_shape):
    """``x[n, c, *(o * stride + k * dilation)]`` as an array ``(N, C, *out_shape, *kernel)`` (a view)."""
    spatial = range(2, x.ndim)
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    view = np.lib.stride_tricks.sliding_window_view(x, extent, axis=tuple(spatial))
    cut = (slice(None),) * 2 + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out_shape, stride))
    return view[cut + tuple(slice(None, None, d) for d in dilation)]


def _out_shape(spatial, kernel, stride, padding, dilation):
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))


def _channels_minor(a):
    """``(N, C, *S)`` as a row-major ``(N, *S, C)`` array: each position's channels side by side."""
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def _tap_slices(tap, dilation, out_shape, stride):
    """Where kernel tap ``tap`` reads in the padded input, for every output position."""
    return tuple(slice(k * d, k * d + (o - 1) * s + 1, s) for k, d, o, s in zip(tap, dilation, out_shape, stride))


def _columns(x, kernel, stride, padding, dilation, out_shape):
    """im2col: ``(N * prod(out_shape), prod(kernel) * C)``, row ``(n, *i)`` holding every tap's channels, tap by
    tap, read from the zero-padded input."""
    padded = _channels_minor(_padded(x, padding))
    n, c = x.shape[0], x.shape[1]
    cols = np.empty((n,) + tuple(out_shape) + tuple(kernel) + (c,), dtype=x.dtype)
    for tap in np.ndindex(*kernel):
        cols[(slice(None),) * (1 + len(out_shape)) + tap] = padded[(slice(None),) + _tap_slices(
            tap, dilation, out_shape, stride)]
    return cols.reshape(n * int(np.prod(out_shape)), int(np.prod(kernel)) * c)


def _group_columns(cols, taps, channels, groups, grp):
    per = channels // groups
    if groups == 1:
        return cols
    return cols.reshape(cols.shape[0], taps, channels)[:, :, grp * per:(grp + 1) * per].reshape(cols.shape[0], -1)


def _filters(w, grp, groups):
    """Group ``grp``'s filters ``(O/g, C/g, *k)`` as the ``(prod(k) * C/g, O/g)`` matrix the columns multiply."""
    per = w.shape[0] // groups
    part = w[grp * per:(grp + 1) * per]
    return np.moveaxis(part, (0, 1), (-1, -2)).reshape(int(np.prod(w.shape[2:])) * w.shape[1], per)


def _forward(x, w, stride, padding, dilation, groups):
    """``out[n, o, *i] = sum over c, k of x[n, c, *(i * stride + k * dilation - padding)] * w[o, c, *k]``: the
    input's columns times each group's filter matrix."""
    kernel = w.shape[2:]
    out_shape = _out_shape(x.shape[2:], kernel, stride, padding, dilation)
    cols = _columns(x, kernel, stride, padding, dilation, out_shape)
    taps = int(np.prod(kernel))
    parts = [_group_columns(cols, taps, x.shape[1], groups, grp) @ _filters(w, grp, groups) for grp in range(groups)]
    out = parts[0] if groups == 1 else np.concatenate(parts, axis=-1)
    return np.moveaxis(out.reshape((x.shape[0],) + tuple(out_shape) + (w.shape[0],)), -1, 1)


def _input_grad(g, w, spatial, stride, padding, dilation, groups):
    """The sum's transpose: the output gradient times each group's filters gives every tap's share (col2im adds
    them where the taps read the input)."""
    n, out_shape, kernel = g.shape[0], g.shape[2:], w.shape[2:]
    per_in, per_out = w.shape[1], w.shape[0] // groups
    rows = _channels_minor(g).reshape(n * int(np.prod(out_shape)), w.shape[0])
    shares = [rows[:, grp * per_out:(grp + 1) * per_out] @ np.ascontiguousarray(_filters(w, grp, groups).T)
              for grp in range(groups)]
    shape = (n,) + tuple(out_shape) + tuple(kernel)
    shares = np.concatenate([part.reshape(shape + (per_in,)) for part in shares], axis=-1)
    buf = np.zeros((n,) + tuple(s + 2 * p for s, p in zip(spatial, padding)) + (per_in * groups,), dtype=g.dtype)
    for tap in np.ndindex(*kernel):
        buf[(slice(None),) + _tap_slices(tap, dilation, out_shape, stride)] += \
            shares[(slice(None),) * (1 + len(out_shape)) + tap]
    cut = tuple(slice(p, p + s) for p, s in zip(padding, spatial))
    return np.moveaxis(buf[(slice(None),) + cut], -1, 1)


def _weight_grad(x, g, kernel, stride, padding, dilation, groups, transposed):
    """``dw[o, c, *k] = sum over n, i of g[n, o, *i] * x[n, c, *(i * stride + k * dilation - padding)]``: each
    group's output gradient times its columns; for a transposed convolution the input and output gradient swap
    roles (its weight, ``(C_in, C_out/g, *kernel)``, comes out in the same layout)."""
    if transposed:
        x, g = g, x
    cols = _columns(x, kernel, stride, padding, dilation, g.shape[2:])
    rows = _channels_minor(g).reshape(g.shape[0] * int(np.prod(g.shape[2:])), g.shape[1])
    taps, per_in, per_out = int(np.prod(kernel)), x.shape[1] // groups, g.shape[1] // groups
    parts = []
    for grp in range(groups):
        # (columns^T @ rows, transposed after: NumPy's matmul is far slower with a column-major left operand)
        grad = (_group_columns(cols, taps, x.shape[1], groups, grp).T @ rows[:, grp * per_out:(grp + 1) * per_out]).T
        parts.append(np.moveaxis(grad.reshape((per_out,) + tuple(kernel) + (per_in,)), -1, 1))
    return parts[0] if groups == 1 else np.concatenate(parts, axis=0)


def _transposed(x, w, stride, padding, dilation, output_padding, groups):
    """A transposed convolution: the input gradient of the convolution whose output ``x`` would be."""
    kernel = w.shape[2:]
    spatial = tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1
                    for n, s, p, d, k, op in zip(x.shape[2:], stride, padding, dilation, kernel, output_padding))
    # its weight, (C_in, C_out/g, *kernel), is the (O, C/g, *kernel) of the convolution it transposes
    return _input_grad(x, w, spatial, stride, padding, dilation, groups)


# ----------------------------------------------------------------------------- arguments, checks, results


def _expand(value, name, dims):
    value = [int(v) for v in value]
    if len(value) == 1:
        return value * dims
    if len(value) != dims:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} values to match the "
                           f"convolution dimensions, but got {name}={value}")
    return value


def _params(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``_convolution``'s argument checks, then ``check_shape_forward``'s; the lists expanded to the dims."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dims = weight.dim() - 2
    if dims <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    stride, padding = _expand(stride, "stride", dims), _expand(padding, "padding", dims)
    dilation, output_padding = _expand(dilation, "dilation", dims), _expand(output_padding, "output_padding", dims)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    _check_shape_forward(input, weight, bias, padding, dilation, transposed, groups)
    return stride, padding, dilation, output_padding


def _check_shape_forward(input, weight, bias, padding, dilation, transposed, groups):
    ws, k = list(weight.shape), input.dim()
    if len(ws) != k:
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {ws}, but got "
                           f"{k}-dimensional input of size {list(input.shape)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    sizes = list(input.shape)
    if transposed:
        _check_transposed(sizes, ws, bias, groups)
        return
    if sizes[1] != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{sizes} to have "
                           f"{ws[1] * groups} channels, but got {sizes[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with {ws[0]} elements, "
                           f"but got bias of size {list(bias.shape)} instead")
    padded = [n + 2 * p for n, p in zip(sizes[2:], padding)]
    extent = [d * (n - 1) + 1 for n, d in zip(ws[2:], dilation)]
    if any(p < e for p, e in zip(padded, extent)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, extent))}). Kernel size can't be greater than actual input "
                           "size")


def _check_transposed(sizes, ws, bias, groups):
    if sizes[1] != ws[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{sizes} to have {ws[0]} "
                           f"channels, but got {sizes[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                           f"{ws[1] * groups} elements, but got bias of size {list(bias.shape)} instead")


def _check_output_padding(output_padding, stride, dilation):
    """A transposed convolution's extra rows must be fewer than the stride or the dilation (per dim)."""
    if all(p < s or p < d for p, s, d in zip(output_padding, stride, dilation)):
        return
    names = ("height", "width") if len(stride) == 2 else ("width",) if len(stride) == 1 else ("depth", "height",
                                                                                                "width")
    parts = [f"output_padding_{n}: {p}" for n, p in zip(names, output_padding)]
    parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)] + [f"dilation_{n}: {v}" for n, v in zip(names,
                                                                                                         dilation)]
    raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))


def check_types(input, weight, bias, transposed=False):
    """The backend's type checks: oneDNN's (float32, half, bfloat16 inputs) name the tensor types; the slow
    path's matmul finds the weight's dtype unexpected."""
    onednn = input._dtype in (st.float32, st.float16, st.bfloat16)
    if transposed and onednn and bias is not None and bias._dtype is not input._dtype \
            and weight._dtype is input._dtype:
        raise RuntimeError(f"Input type ({legacy_type_string(input)}) and bias type ({legacy_type_string(bias)}) "
                           "should be the same or input should be a MKLDNN tensor and bias is a dense tensor")
    if input._dtype is not weight._dtype:
        if onednn:
            raise RuntimeError(f"Input type ({legacy_type_string(input)}) and weight type "
                               f"({legacy_type_string(weight)}) should be the same or input should be a MKLDNN "
                               "tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {input._dtype.c10_name} but found {weight._dtype.c10_name}")
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({_type_name(input)}) and bias type ({_type_name(bias)}) should be the same")


def _type_name(t):
    """``caffe2::TypeMeta::name()``: ``float``, ``double``, ``long int``..."""
    return _TYPE_NAMES.get(t._dtype, t._dtype.name)


_TYPE_NAMES = {st.float32: "float", st.float64: "double", st.int64: "long int", st.int32: "int",
               st.int16: "short int", st.int8: "signed char", st.uint8: "unsigned char", st.float16: "c10::Half",
               st.bfloat16: "c10::BFloat16", st.bool_: "bool"}


def _compute_dtype(t):
    """Floating point in float64 (rounded once at the end), integers as they are."""
    data = to_numpy(t._data)
    if t._dtype.is_floating_point and t._dtype is not st.float64:
        return data.astype(np.float64)
    return data


def _channels_last(t) -> bool:
    """``suggest_memory_format() == channels_last``: a 4-dim tensor whose strides order its dims N, H, W, C."""
    if t.dim() != 4:
        return False
    shape, strides = t.shape, strides_of(t)
    if strides[1] == 0:
        return False
    least = 0
    for d in (1, 3, 2, 0):
        if shape[d] == 0 or strides[d] < least:
            return False
        if d == 0 and least == strides[1]:
            return False
        least = strides[d] * max(shape[d], 1)
    return True


def _result(like, data, channels_last, dtype=None):
    """A new tensor of ``dtype`` (``like``'s) on ``like``'s device: row-major, or N, H, W, C in memory (torch's
    strides for either, size-1 dims included, which NumPy's own contiguity leaves as they fell)."""
    dtype = dtype or like._dtype
    data = np.asarray(data).astype(st.to_numpy_dtype(dtype), copy=False)
    if channels_last and data.ndim == 4:
        out = np.empty(tuple(data.shape[i] for i in (0, 2, 3, 1)), dtype=data.dtype)
        out[...] = np.moveaxis(data, 1, -1)
        out = out.transpose(0, 3, 1, 2)
    else:
        out = np.empty(data.shape, dtype=data.dtype)
        out[...] = data
    if type(like._data) is not np.ndarray:  # another device's array library: computed on the host, moved back
        out = xp_of(like).asarray(out, device=like._data.device)
    return new_tensor(out, dtype, like._device)


# ----------------------------------------------------------------------------- conv1d, conv2d (composites)


def _batchify(input, spatial, name):
    dim = input.dim()
    if dim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but "
                           f"got input of size: {list(input.shape)}")
    batched = dim == spatial + 2
    return (input if batched else ops.unsqueeze(input, 0)), batched


def int_list(value, size):
    """An ``int[N]`` argument: one int stands for ``N`` of them (the argument parser's ``IntArrayRef``)."""
    return [int(value)] * size if isinstance(value, int) else [int(v) for v in value]


def _conv_nd(spatial, name, input, weight, bias, stride, padding, dilation, groups):
    stride, dilation = int_list(stride, spatial), int_list(dilation, spatial)
    if not isinstance(padding, str):
        padding = int_list(padding, spatial)
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({_type_name(input)}) and bias type ({_type_name(bias)}) should be the same")
    batched_input, batched = _batchify(input, spatial, name)
    if isinstance(padding, str):
        out = _convolution_mode(batched_input, weight, bias, stride, padding, dilation, groups)
    else:
        out = ops.convolution(batched_input, weight, bias, stride, padding, dilation, False, [0] * spatial, groups)
    return out if batched else ops.squeeze(out, 0)


def _conv_transpose_nd(spatial, name, input, weight, bias, stride, padding, output_padding, groups, dilation):
    batched_input, batched = _batchify(input, spatial, name)
    out = ops.convolution(batched_input, weight, bias, int_list(stride, spatial), int_list(padding, spatial),
                          int_list(dilation, spatial), True, int_list(output_padding, spatial), groups)
    return out if batched else ops.squeeze(out, 0)


def conv_transpose1d(input, weight, bias=None, stride=(1,), padding=(0,), output_padding=(0,), groups=1,
                     dilation=(1,)):
    return _conv_transpose_nd(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv_transpose2d(input, weight, bias=None, stride=(1, 1), padding=(0, 0), output_padding=(0, 0), groups=1,
                     dilation=(1, 1)):
    return _conv_transpose_nd(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv1d(input, weight, bias=None, stride=(1,), padding=(0,), dilation=(1,), groups=1):
    return _conv_nd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    return _conv_nd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def _convolution_mode(input, weight, bias, stride, padding, dilation, groups):
    if padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        return _convolution_same(input, weight, bias, stride, dilation, groups)
    if padding == "valid":
        return ops.convolution(input, weight, bias, stride, [0], dilation, False, [0], groups)
    raise RuntimeError(f"Invalid padding string: '{padding}'")


_SAME_WARNING = ("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of "
                 "the input be created (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)")
_same_warned = []  # TORCH_WARN_ONCE: the first asymmetric 'same' padding in the process warns, no other


def _convolution_same(input, weight, bias, stride, dilation, groups):
    """Half the dilated kernel's extent on each side; when that is odd, the extra row or column goes at the end
    through a ``constant_pad_nd`` of the input."""
    k = weight.dim()
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dims = k - 2
    if k != input.dim():
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{list(weight.shape)}, but got "
                           f"{input.dim()}-dimensional input of size {list(input.shape)} instead")
    for name, values in (("stride", stride), ("dilation", dilation)):
        if len(values) not in (1, dims):
            raise RuntimeError(f"{name} cannot broadcast to {dims} dimensions")
    left, right = [], []
    for i in range(dims):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight.shape[i + 2] - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    if left == right:
        return ops.convolution(input, weight, bias, stride, left, dilation, False, [0] * dims, groups)
    if not _same_warned:
        _same_warned.append(True)
        warnings.warn(_SAME_WARNING, UserWarning, stacklevel=2)
    pad = [0] * (2 * dims)
    for i in range(dims):
        delta, at = right[i] - left[i], 2 * (dims - 1 - i)
        if delta > 0:
            pad[at + 1] = delta
        else:
            pad[at] = delta
            left[i] = right[i]
    return ops.convolution(ops.constant_pad_nd(input, pad, 0), weight, bias, stride, left, dilation, False,
                           [0] * dims, groups)
