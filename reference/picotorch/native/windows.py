"""The window functions: ``hann_window``, ``hamming_window``, ``blackman_window``, ``bartlett_window``,
``kaiser_window``.

Models the window factories of ``aten/src/ATen/native/TensorFactories.cpp`` (and ``kaiser_window``'s kernel in
``UnaryOpsKernel.cpp``). Each is built step by step as PyTorch builds it, with picotorch's own ops, so every step
rounds as PyTorch's kernel does (a float16 window's numbers too): an ``arange`` scaled, put through ``cos`` and
rescaled. A periodic window is the symmetric one of one more point, its last point dropped (``narrow``), below
autograd, so the result is no view. Length 0 is empty, length 1 is ``[1.]``.
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import CPU
from . import math_functions
from .device import backend, normalize, to_numpy
from .dispatcher import ops
from .helpers import convert
from .numpy_namespace import np_xp
from .resize import _TYPE_META
from .tensor_impl import new_tensor


def hann_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return hann_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def hann_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    _check("hann_window", window_length, dtype, layout, pin_memory)
    return hamming_window_periodic_alpha_beta(window_length, periodic, 0.5, 0.5, dtype, layout, device, pin_memory)


def hamming_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return hamming_window_periodic_alpha_beta(window_length, True, 0.54, 0.46, dtype, layout, device, pin_memory)


def hamming_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    return hamming_window_periodic_alpha_beta(window_length, periodic, 0.54, 0.46, dtype, layout, device,
                                              pin_memory)


def hamming_window_periodic_alpha(window_length, periodic, alpha, dtype=None, layout=None, device=None,
                                  pin_memory=None):
    return hamming_window_periodic_alpha_beta(window_length, periodic, alpha, 0.46, dtype, layout, device,
                                              pin_memory)


def hamming_window_periodic_alpha_beta(window_length, periodic, alpha, beta, dtype=None, layout=None, device=None,
                                       pin_memory=None):
    """``alpha - beta * cos(2 pi n / (N - 1))``: ``arange.mul_(2 pi / (N - 1)).cos_().mul_(-beta).add_(alpha)``."""
    def steps(n, length):
        x = ops.cos(ops.mul(n, _scalar(2 * math.pi / (length - 1), n)))
        return ops.add(ops.mul(x, _scalar(-beta, n)), _scalar(alpha, n))
    return _window("hamming_window", window_length, periodic, dtype, layout, device, pin_memory, steps)


def blackman_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return blackman_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def blackman_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``, in that association: the 0.08 term first,
    less the 0.5 term, plus 0.42."""
    def steps(n, length):
        x = ops.mul(n, _scalar(math.pi / (length - 1), n))
        four = ops.mul(ops.cos(ops.mul(x, _scalar(4, n))), _scalar(0.08, n))
        two = ops.mul(ops.cos(ops.mul(x, _scalar(2, n))), _scalar(0.5, n))
        return ops.add(ops.sub(four, two), _scalar(0.42, n))
    return _window("blackman_window", window_length, periodic, dtype, layout, device, pin_memory, steps)


def bartlett_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return bartlett_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def bartlett_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    """``2n / (N - 1)`` rising, then ``2 - 2n / (N - 1)`` from the middle on."""
    def steps(n, length):
        x = ops.mul(n, _scalar(2.0 / (length - 1), n))
        first_half = ((length - 1) >> 1) + 1
        x._data[first_half:] = ops.add(ops.mul(ops.narrow(x, 0, first_half, length - first_half), -1),
                                        _scalar(2, n))._data
        return x
    return _window("bartlett_window", window_length, periodic, dtype, layout, device, pin_memory, steps)


def kaiser_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return kaiser_window_beta(window_length, True, 12.0, dtype, layout, device, pin_memory)


def kaiser_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    return kaiser_window_beta(window_length, periodic, 12.0, dtype, layout, device, pin_memory)


def kaiser_window_beta(window_length, periodic, beta, dtype=None, layout=None, device=None, pin_memory=None):
    """``i0(beta sqrt(1 - ((n - a) / a)^2)) / i0(beta)`` with ``a = (N - 1) / 2``, in float64 here (PyTorch: the
    opmath type), rounded once."""
    def steps(n, length):
        alpha = (length - 1) / 2.0
        opmath = np.float64 if n.dtype is st.float64 else np.float32
        x = beta * np.sqrt(np.abs(1 - ((to_numpy(n._data).astype(np.float64) - alpha) / alpha) ** 2))
        values = math_functions.i0(x, opmath) / math_functions.i0(np.float64(beta), opmath)
        return new_tensor(convert(np_xp, values, n.dtype), n.dtype, CPU)
    return _window("kaiser_window", window_length, periodic, dtype, layout, device, pin_memory, steps)


# ----------------------------------------------------------------------------- the shared frame


def _window(name, window_length, periodic, dtype, layout, device, pin_memory, steps):
    dtype = _check(name, window_length, dtype, layout, pin_memory)
    if dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype.c10_name}'")
    if window_length <= 1:
        data = convert(np_xp, np.ones((window_length,)), dtype)
    else:
        length = window_length + 1 if periodic else window_length
        data = steps(new_tensor(convert(np_xp, np.arange(length, dtype=np.float64), dtype), dtype, CPU), length)
        data = data._data[:window_length]  # the periodic window's narrow, below autograd: no view
    device = normalize(device) if device is not None else CPU
    target = backend(device)
    return new_tensor(target.xp.asarray(data, device=target.array_device(device.index)), dtype, device)


def _scalar(value, like):
    """A number of the computation as ATen's window code passes it (``mul_(double)``): to a float16 or bfloat16
    window as a number of that dtype, rounded first (a Python ``mul_`` keeps it in float32); else the number."""
    if like.dtype.itemsize == 2:
        return new_tensor(convert(np_xp, np.asarray(float(value)), like.dtype), like.dtype, CPU)
    return value


def _check(name, window_length, dtype, layout, pin_memory):
    """``window_function_checks``: a dense layout, a floating dtype, a length of 0 or more."""
    resolved = dtype or st.get_default_dtype()
    if layout is not None and layout.name != "strided":
        raise RuntimeError(f"{name} is not implemented for sparse types, got: "
                           f"{_options(name, resolved, dtype, layout, pin_memory)}")
    if not (resolved.is_floating_point or resolved.is_complex):
        raise RuntimeError(f"{name} expects floating point dtypes, got: "
                           f"{_options(name, resolved, dtype, layout, pin_memory)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    return resolved


def _options(name, resolved, dtype, layout, pin_memory) -> str:
    """``TensorOptions``' ``operator<<``: what was not given says ``(default)`` (the dtype is given by the time
    any but ``hann_window`` checks it)."""
    layout_name = "Strided (default)" if layout is None else "Strided" if layout.name == "strided" else "Sparse"
    type_meta = _TYPE_META.get(resolved.name, resolved.name)
    if dtype is None and name == "hann_window":
        type_meta += " (default)"
    return (f"TensorOptions(dtype={type_meta}, device=cpu, "
            f"layout={layout_name}, requires_grad=false (default), pinned_memory={'true' if pin_memory else 'false'}, "
            "memory_format=(nullopt))")
