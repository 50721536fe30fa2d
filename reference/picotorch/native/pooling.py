"""Max, average and adaptive average pooling over the last two dims, and their backwards.

Models ``aten/src/ATen/native/Pooling.cpp`` (``max_pool1d``/``max_pool2d``/``avg_pool1d``: composites that
reach ``max_pool2d_with_indices`` and ``avg_pool2d``), ``DilatedMaxPool2d.cpp``, ``AveragePool2d.cpp``,
``AdaptiveAveragePooling.cpp``, ``AdaptiveMaxPooling2d.cpp`` and ``Pool.h`` (``pooling_output_shape``,
``pool2d_shape_check``): the same output sizes (``ceil_mode`` included), checks and texts. A max window skips
its padding; it takes the first largest value in row-major order, the last NaN if it holds any, and its index
is ``h * W + w`` in the unpadded plane. An average divides by ``divisor_override``, or the window's size
clipped to the padded input (``count_include_pad``), or its count of input elements. Adaptive windows run from
``floor(i * in / out)`` to ``ceil((i + 1) * in / out)``. Sums run as the CPU kernels run them, element by element
in row-major order in the input's precision (float32 for half and bfloat16), and a backward adds each output's
share to the input in output order, so values and gradients match torch bit for bit.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .convolution import _channels_last, _result, _windows
from .device import to_numpy
from .dispatcher import ops

# ----------------------------------------------------------------------------- arguments and shapes


def _pair_arg(values, name, what, allow_empty=False):
    values = [int(values)] if isinstance(values, int) else [int(v) for v in values]
    if not (len(values) in (1, 2) or (allow_empty and not values)):
        raise RuntimeError(f"{name}: {what}")
    return values


def _pool_params(name, kernel_size, stride, padding, dilation=None):
    """The two sizes of each argument: one int stands for both; an empty stride is the kernel size."""
    kernel = _pair_arg(kernel_size, name, "kernel_size must either be a single int, or a tuple of two ints")
    stride = _pair_arg(stride, name, "stride must either be omitted, a single int, or a tuple of two ints", True)
    padding = _pair_arg(padding, name, "padding must either be a single int, or a tuple of two ints")
    kernel, padding = (kernel[0], kernel[-1]), (padding[0], padding[-1])
    stride = kernel if not stride else (stride[0], stride[-1])
    if dilation is None:
        return kernel, stride, padding, (1, 1)
    dilation = _pair_arg(dilation, name, "dilation must be either a single int, or a tuple of two ints")
    return kernel, stride, padding, (dilation[0], dilation[-1])


def pooling_output_shape(size, kernel, pad, stride, dilation, ceil_mode):
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((kernel - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    out = (size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _output_hw(input, kernel, stride, padding, dilation, ceil_mode):
    h, w = input.shape[-2:]
    return (pooling_output_shape(h, kernel[0], padding[0], stride[0], dilation[0], ceil_mode),
            pooling_output_shape(w, kernel[1], padding[1], stride[1], dilation[1], ceil_mode))


def _shape_check(input, kernel, stride, padding, dilation, out_hw):
    """``pool2d_shape_check``."""
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: "
                           f"{dilation[1]}")
    sizes = list(input.shape)
    if not ((len(sizes) == 3 and all(sizes)) or (len(sizes) == 4 and all(sizes[1:]))):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{sizes}")
    if kernel[1] // 2 < padding[1] or kernel[0] // 2 < padding[0]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {padding[1]}, "
                           f"padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
    if out_hw[0] < 1 or out_hw[1] < 1:
        planes, (h, w) = sizes[-3], sizes[-2:]
        raise RuntimeError(f"Given input size: ({planes}x{h}x{w}). Calculated output size: "
                           f"({planes}x{out_hw[0]}x{out_hw[1]}). Output size is too small")


def _as_4d(data):
    return data if data.ndim == 4 else data[None]


def _padded_to(data, padding, needed, fill):
    """``data`` (N, C, H, W) with ``padding`` in front and enough behind for ``needed`` rows and columns."""
    h, w = data.shape[-2:]
    after = (max(needed[0] - h - padding[0], 0), max(needed[1] - w - padding[1], 0))
    return np.pad(data, ((0, 0), (0, 0), (padding[0], after[0]), (padding[1], after[1])), constant_values=fill)


def _extent(out_hw, kernel, stride, dilation):
    return tuple((o - 1) * s + (k - 1) * d + 1 for o, k, s, d in zip(out_hw, kernel, stride, dilation))


def _float64(t):
    data = to_numpy(t._data)
    return data.astype(np.float64) if t._dtype.is_floating_point else data


def _opmath(t):
    """``t``'s values in the kernels' accumulation type: float32 for half and bfloat16, else the dtype itself."""
    data = to_numpy(t._data)
    return data.astype(np.float32) if t._dtype in (st.float16, st.bfloat16) else data


def _output(input, data, channels_last=None):
    out = data if input.dim() == 4 else data[0]
    return _result(input, out, _channels_last(input) if channels_last is None else channels_last)


# ----------------------------------------------------------------------------- max pooling


def _check_dtype(self, name, integers):
    """The kernels' dispatch lists: floats, plus the integers ``integers`` names (``'all'``, or int64 alone)."""
    dtype = self._dtype
    if dtype.is_floating_point or (integers == "all" and dtype is not st.bool_ and not dtype.is_complex) \
            or (integers == "int64" and dtype is st.int64):
        return
    raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.c10_name}'")


def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    kernel, stride, padding, dilation = _pool_params("max_pool2d", kernel_size, stride, padding, dilation)
    if self.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out_hw = _output_hw(self, kernel, stride, padding, dilation, ceil_mode)
    _shape_check(self, kernel, stride, padding, dilation, out_hw)
    _check_dtype(self, "max_pool2d", "all")
    x = _as_4d(_float64(self))
    values, indices = _max_windows(x, kernel, stride, padding, dilation, out_hw)
    return _output(self, values), _indices_tensor(self, indices)


def _indices_tensor(like, indices):
    """int64 indices, laid out as the values are."""
    return _result(like, indices if like.dim() == 4 else indices[0], _channels_last(like), st.int64)


def _max_windows(x, kernel, stride, padding, dilation, out_hw):
    """Each window's largest value and its flat index in the unpadded plane."""
    n, c, h, w = x.shape
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    needed = _extent(out_hw, kernel, stride, dilation)
    padded = _padded_to(x, padding, needed, fill)
    valid = _padded_to(np.ones((1, 1, h, w), dtype=bool), padding, needed, False)
    shape = (n, c) + tuple(out_hw) + (kernel[0] * kernel[1],)
    windows = _windows(padded, kernel, stride, dilation, out_hw).reshape(shape)
    in_input = _windows(valid, kernel, stride, dilation, out_hw).reshape((1, 1) + shape[2:])
    tap = np.argmax(windows, axis=-1)
    if x.dtype.kind == "f":
        nans = np.isnan(windows)
        last_nan = windows.shape[-1] - 1 - np.argmax(nans[..., ::-1], axis=-1)
        tap = np.where(nans.any(axis=-1), last_nan, tap)
        values = np.take_along_axis(windows, tap[..., None], axis=-1)[..., 0]
        # a window of -inf alone (or padding): the first element inside the input, as torch starts from it
        tap = np.where(values == fill, np.broadcast_to(np.argmax(in_input, axis=-1), tap.shape), tap)
    values = np.take_along_axis(windows, tap[..., None], axis=-1)[..., 0]
    rows = np.arange(out_hw[0])[:, None] * stride[0] - padding[0] + (tap // kernel[1]) * dilation[0]
    cols = np.arange(out_hw[1])[None, :] * stride[1] - padding[1] + (tap % kernel[1]) * dilation[1]
    return values, rows * w + cols


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                                     indices):
    """Each output's gradient added at the input element its window took."""
    g, idx = _as_4d(_opmath(grad_output)), _as_4d(to_numpy(indices._data))
    n, c = g.shape[:2]
    h, w = self.shape[-2:]
    grad = np.zeros((n * c, h * w), dtype=g.dtype)
    rows = np.repeat(np.arange(n * c), idx[0, 0].size).reshape(n * c, -1)
    np.add.at(grad, (rows, idx.reshape(n * c, -1)), g.reshape(n * c, -1))
    return _output(self, grad.reshape(n, c, h, w))


def max_pool2d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return ops.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool1d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Through ``max_pool2d_with_indices`` on the input unsqueezed at dim -2 (a window one row high)."""
    if self.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {list(self.shape)}")
    kernel, stride, padding, dilation = _pool1d_params("max_pool1d", kernel_size, stride, padding, dilation)
    output, indices = ops.max_pool2d_with_indices(ops.unsqueeze(self, -2), [1, kernel], [1, stride],
                                                  [0, padding], [1, dilation], ceil_mode)
    return ops.squeeze(output, -2), ops.squeeze(indices, -2)


def max_pool1d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _pool1d_params(name, kernel_size, stride, padding, dilation=None):
    def one(values, what, allow_empty=False):
        values = [int(values)] if isinstance(values, int) else [int(v) for v in values]
        if not (len(values) == 1 or (allow_empty and not values)):
            raise RuntimeError(f"{name}: {what}")
        return values
    kernel = one(kernel_size, "kernel_size must either be a single int, or a tuple of one int")[0]
    stride = one(stride, "stride must either be omitted, a single int, or a tuple of one int", True)
    padding = one(padding, "padding must be a single int, or a tuple of one int")[0]
    dilation = one(dilation, "dilation must be a single int, or a tuple of one int")[0] if dilation is not None else 1
    return kernel, stride[0] if stride else kernel, padding, dilation


# ----------------------------------------------------------------------------- average pooling


def avg_pool2d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    kernel, stride, padding, _ = _pool_params("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    self.size(-3)  # a 2-dim input: IndexError, as torch's avg_pool2d asks for it first
    out_hw = _output_hw(self, kernel, stride, padding, (1, 1), ceil_mode)
    _shape_check(self, kernel, stride, padding, (1, 1), out_hw)
    _check_dtype(self, "avg_pool2d", "int64")
    x = _as_4d(_opmath(self))
    padded = _padded_to(x, padding, _extent(out_hw, kernel, stride, (1, 1)), 0)
    windows = _windows(padded, kernel, stride, (1, 1), out_hw)
    sums = np.zeros(windows.shape[:4], dtype=x.dtype)
    for i in range(kernel[0]):  # the kernel's order: row by row, one element after another (padding adds 0)
        for j in range(kernel[1]):
            sums += windows[..., i, j]
    divisor = _divisors(self.shape[-2:], out_hw, kernel, stride, padding, count_include_pad, divisor_override)
    if x.dtype.kind == "f":
        return _output(self, sums / divisor.astype(x.dtype))
    return _output(self, np.sign(sums) * (np.abs(sums) // divisor))  # C++'s integer division truncates


def _divisors(hw, out_hw, kernel, stride, padding, count_include_pad, divisor_override):
    """The ``(OH, OW)`` divisors: a window's rows times its columns, each counted as torch counts them."""
    if divisor_override is not None:
        return np.full(out_hw, divisor_override, dtype=np.int64)
    counts = []
    for size, out, k, s, p in zip(hw, out_hw, kernel, stride, padding):
        start = np.arange(out) * s - p
        end = np.minimum(start + k, size + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        counts.append(end - start)
    return np.outer(*counts)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    kernel, stride, padding, _ = _pool_params("avg_pool2d", kernel_size, stride, padding)
    h, w = self.shape[-2:]
    g = _as_4d(_opmath(grad_output))
    out_hw = g.shape[-2:]
    divisor = _divisors((h, w), out_hw, kernel, stride, padding, count_include_pad, divisor_override)
    share = g / divisor.astype(g.dtype)
    needed = _extent(out_hw, kernel, stride, (1, 1))
    buf = np.zeros(g.shape[:2] + tuple(max(n, s + p) for n, s, p in zip(needed, (h, w), padding)), dtype=g.dtype)
    # taps last to first: each input element then receives its outputs' shares in the kernel's (row-major) order
    for i in reversed(range(kernel[0])):
        for j in reversed(range(kernel[1])):
            buf[..., i:i + (out_hw[0] - 1) * stride[0] + 1:stride[0],
                j:j + (out_hw[1] - 1) * stride[1] + 1:stride[1]] += share
    return _output(self, buf[..., padding[0]:padding[0] + h, padding[1]:padding[1] + w])


def avg_pool1d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    """``avg_pool2d`` on the input unsqueezed at dim -2, squeezed back."""
    if self.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(self.shape)}")
    kernel, stride, padding, _ = _pool1d_params("avg_pool1d", kernel_size, stride, padding)
    output = ops.avg_pool2d(ops.unsqueeze(self, -2), [1, kernel], [1, stride], [0, padding], ceil_mode,
                            count_include_pad)
    return ops.squeeze(output, -2)


# ----------------------------------------------------------------------------- adaptive pooling


def adaptive_avg_pool2d(self, output_size):
    output_size = [int(v) for v in output_size]
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}}}")
    if output_size == [1, 1]:
        return ops.mean(self, [-1, -2], True)
    return ops._adaptive_avg_pool2d(self, output_size)


def _check_adaptive(self, name, got="but got"):
    if self.dim() not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, {got} {list(self.shape)}")
    for d in range(1, self.dim()):
        if self.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(self.shape)} with dimension {d} being empty")


def _adaptive_avg_pool2d(self, output_size):
    """Each window summed element by element in row-major order, then divided by its rows and its columns."""
    _check_adaptive(self, "adaptive_avg_pool2d")
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for '{self._dtype.c10_name}'")
    x = _as_4d(_opmath(self))
    out = np.empty(x.shape[:2] + tuple(output_size), dtype=x.dtype)
    for (i, (r0, r1)), (j, (c0, c1)) in _adaptive_windows(x.shape[-2:], output_size):
        total = np.zeros(x.shape[:2], dtype=x.dtype)
        for r in range(r0, r1):
            for c in range(c0, c1):
                total += x[:, :, r, c]
        out[:, :, i, j] = total / x.dtype.type(r1 - r0) / x.dtype.type(c1 - c0)
    return _output(self, out)


def _adaptive_windows(hw, output_size):
    """Every output position with its window's rows and columns, in row-major order."""
    rows = [(i, _adaptive_range(i, hw[0], output_size[0])) for i in range(output_size[0])]
    cols = [(j, _adaptive_range(j, hw[1], output_size[1])) for j in range(output_size[1])]
    return [(row, col) for row in rows for col in cols]


def _adaptive_range(i, size, out):
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_avg_pool2d_backward(grad_output, self):
    """Each output's gradient, divided by its window's rows and columns, added over the window, output by output."""
    g = _as_4d(_opmath(grad_output))
    h, w = self.shape[-2:]
    grad = np.zeros(g.shape[:2] + (h, w), dtype=g.dtype)
    for (i, (r0, r1)), (j, (c0, c1)) in _adaptive_windows((h, w), g.shape[-2:]):
        share = g[:, :, i, j] / g.dtype.type(r1 - r0) / g.dtype.type(c1 - c0)
        grad[:, :, r0:r1, c0:c1] += share[:, :, None, None]
    return _output(self, grad)


def adaptive_avg_pool1d(self, output_size):
    output_size = [int(v) for v in output_size]
    if len(output_size) != 1:
        raise RuntimeError("adaptive_avg_pool1d: output_size should have 1 element, but got "
                           f"{len(output_size)} elements")
    if self.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d() argument 'input' (position 1) must be 2D or 3D, but got "
                           f"{self.dim()}D")
    return ops.squeeze(ops.adaptive_avg_pool2d(ops.unsqueeze(self, -2), [1, output_size[0]]), -2)


def adaptive_max_pool2d(self, output_size):
    output_size = [int(v) for v in output_size]
    if len(output_size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    _check_adaptive(self, "adaptive_max_pool2d", "but got:")
    _check_dtype(self, "adaptive_max_pool2d", None)
    x = _as_4d(_float64(self))
    n, c, h, w = x.shape
    values = np.empty((n, c) + tuple(output_size), dtype=x.dtype)
    indices = np.empty((n, c) + tuple(output_size), dtype=np.int64)
    for i in range(output_size[0]):
        r0, r1 = (i * h) // output_size[0], -((-(i + 1) * h) // output_size[0])
        for j in range(output_size[1]):
            c0, c1 = (j * w) // output_size[1], -((-(j + 1) * w) // output_size[1])
            window = x[..., r0:r1, c0:c1].reshape(n, c, -1)
            tap = np.argmax(window, axis=-1)
            if x.dtype.kind == "f":
                nans = np.isnan(window)
                tap = np.where(nans.any(axis=-1), window.shape[-1] - 1 - np.argmax(nans[..., ::-1], axis=-1), tap)
            values[..., i, j] = np.take_along_axis(window, tap[..., None], axis=-1)[..., 0]
            indices[..., i, j] = (r0 + tap // (c1 - c0)) * w + c0 + tap % (c1 - c0)
    return _output(self, values), _indices_tensor(self, indices)


def adaptive_max_pool2d_backward(grad_output, self, indices):
    return max_pool2d_with_indices_backward(grad_output, self, None, None, None, None, None, indices)
