"""New tensors from a tensor: ``zeros_like``, ``ones_like``, ``full_like``, ``empty_like``, ``new_empty``,
``new_zeros``, ``new_ones``, ``new_full``, ``clone``, ``_to_copy``, ``zero_``; and ``eye``.

Models ``aten/src/ATen/native/TensorFactories.cpp`` (``zeros_like``, ``ones_like``, ``full_like``,
``empty_like``, ``new_*``, ``clone``, ``eye``) with
neighbours: ``_to_copy`` (what ``.to(dtype, device)`` calls; ATen's ``TensorConversions.cpp``),
and ``zero_``, ``fill_``, ``fill`` (ATen's ``Fill.cpp``). The factories that make a tensor from
nothing (``torch.zeros``, ``torch.tensor``) are ``picotorch/_C/_factories.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import CPU
from .checks import check_size_nonnegative
from .device import backend, normalize, to_numpy
from .helpers import (
    check_scalar_fits,
    convert,
    is_reduced_float,
    restrided,
    shape_of,
    stored_scalar,
    wrap,
    writable_data,
    xp_dtype,
    xp_of,
)
from .layout import infer_dense_strides, non_overlapping_and_dense
from .numpy_namespace import np_xp
from .tensor_impl import TensorImpl, new_tensor


def zeros_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _preserving_layout(self, 0, dtype, device, memory_format)


def ones_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _preserving_layout(self, 1, dtype, device, memory_format)


def _filled_like(self, value, dtype, device):
    """A new tensor shaped like ``self``, filled with ``value``, on ``device`` (default: ``self``'s)."""
    return _full(shape_of(self), value, dtype, device, self)


def _full(size, value, dtype, device, like):
    """A contiguous ``size`` tensor of ``value``, in ``like``'s dtype and on its device unless given."""
    dtype = dtype or like._dtype
    device = normalize(device) if device is not None else like._device
    target = backend(device)
    if target.xp is np_xp:  # array-api-compat's full is NumPy's behind a Python wrapper (half its time)
        return new_tensor(np.full(size, value, dtype=xp_dtype(np_xp, dtype)), dtype, device)
    data = target.xp.full(size, value, dtype=xp_dtype(target.xp, dtype), device=target.array_device(device.index))
    return new_tensor(data, dtype, device)


def _fill_value(fill_value, dtype):
    """``fill_``'s value: it must fit the dtype, and is cast as C++ casts (-1 is 255 in uint8)."""
    check_scalar_fits(fill_value, dtype)
    return convert(np_xp, np.asarray(fill_value), dtype)[()]


def full_like(self, fill_value, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    """``empty_like`` + ``fill_``: the value must fit the dtype, which is ``self``'s unless given."""
    return _preserving_layout(self, _fill_value(fill_value, dtype or self._dtype), dtype, device, memory_format)


def empty_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _preserving_layout(self, 0, dtype, device, memory_format)  # zeros: NumPy's memory is not PyTorch's


def _preserving_layout(self, value, dtype, device, memory_format):
    """Like ``_filled_like``, but laid out as ``empty_like``'s ``preserve_format`` lays it: ``self``'s strides when
    ``self`` is dense and non-overlapping, else dense in the order of ``self``'s strides (``infer_dense_strides``)."""
    result = _filled_like(self, value, dtype, device)
    strides = getattr(self._data, "strides", None)
    if memory_format not in (None, "preserve_format") or strides is None or self._data.ndim < 2 \
            or (result._device is not self._device and result._device != self._device) \
            or xp_of(result) is not np_xp:
        return result  # (fewer than two dims: a dense layout has one order, the new tensor's)
    shape, strides = self._data.shape, tuple(s // self._data.itemsize for s in strides)
    if not non_overlapping_and_dense(shape, strides):
        strides = infer_dense_strides(shape, strides)
    if strides != tuple(s // result._data.itemsize for s in result._data.strides):
        # (only then: NumPy's zeros come from calloc's untouched pages, 4x faster than filling a copy)
        result._data = _with_strides(result._data, strides)
    return result


def _with_strides(array: np.ndarray, strides: tuple) -> np.ndarray:
    """A copy of ``array`` in a new buffer, at the given strides (in elements): PyTorch's ``empty_strided``."""
    buffer = np.empty(array.size, dtype=array.dtype)
    laid = np.lib.stride_tricks.as_strided(buffer, array.shape, [s * array.itemsize for s in strides])
    laid[...] = array
    return laid


def eye(n, dtype=None, layout=None, device=None, pin_memory=None):
    return eye_m(n, n, dtype, layout, device, pin_memory, checked="n")


def eye_m(n, m, dtype=None, layout=None, device=None, pin_memory=None, checked="nm"):
    """An ``n`` x ``m`` matrix, ones on the diagonal, in the default dtype unless given."""
    for name, size in zip(checked, (n, m)):
        if size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    dtype = dtype or st.get_default_dtype()
    device = normalize(device) if device is not None else CPU
    target = backend(device)
    data = target.xp.eye(n, m, dtype=xp_dtype(target.xp, dtype), device=target.array_device(device.index))
    return new_tensor(data, dtype, device)


def tril_indices(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None):
    """The (row, col) coordinates of a ``row`` x ``col`` matrix's lower triangle (up to diagonal ``offset``),
    row by row, as a ``2 x N`` tensor."""
    return _triangle_indices(row, col, offset, dtype, device, "tril_indices", np.tril_indices)


def triu_indices(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None):
    return _triangle_indices(row, col, offset, dtype, device, "triu_indices", np.triu_indices)


def _triangle_indices(row, col, offset, dtype, device, name, np_indices):
    dtype = st.int64 if dtype is None or dtype == "long" else dtype  # the schema's default is long
    if dtype not in (st.int32, st.int64):  # AT_DISPATCH_INDEX_TYPES
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.c10_name}'")
    for label, size in (("row", row), ("col", col)):
        if size < 0:
            raise RuntimeError(f"{label} must be non-negative, got{size}")
    rows, cols = np_indices(row, offset, col)
    device = normalize(device) if device is not None else CPU
    target = backend(device)
    data = target.xp.asarray(np.stack([rows, cols]).astype(dtype._numpy), device=target.array_device(device.index))
    return new_tensor(data, dtype, device)


def new_empty(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return _new_filled(self, size, 0, dtype, device)  # zeros: NumPy's memory is not PyTorch's


def new_zeros(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return _new_filled(self, size, 0, dtype, device)


def new_ones(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return _new_filled(self, size, 1, dtype, device)


def new_full(self, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    """``full`` with ``self``'s dtype and device unless given: the value must fit the dtype, as ``full_like``."""
    return _new_filled(self, size, _fill_value(fill_value, dtype or self._dtype), dtype, device)


def new_empty_strided(self, size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    """``empty_strided`` with ``self``'s dtype and device unless given; zeros, as ``new_empty``."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    check_size_nonnegative(size)
    if any(s < 0 for s in stride):  # computeStorageNbytes, on unsigned sizes
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    result = _full((extent,), 0, dtype, device, self)
    result._data = restrided(result._data, size, stride)
    return result


def _new_filled(self, size, value, dtype, device):
    """A contiguous ``size``-shaped tensor filled with ``value``, in ``self``'s dtype and on its device unless
    given (``new_*`` take only the options from ``self``, never its shape or strides)."""
    size = tuple(size)
    check_size_nonnegative(size)
    return _full(size, value, dtype, device, self)


def clone(self, memory_format=None):
    """A copy in the input's layout, or row-major for ``contiguous_format`` (what ``contiguous()`` asks)."""
    xp = xp_of(self)
    if memory_format == "contiguous_format" and xp is np_xp:
        return wrap(self, np.array(self._data, order="C", copy=True))
    return wrap(self, _strided_like(self._data, xp.asarray(self._data, copy=True)))


def _to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    dtype = dtype or self._dtype
    device = normalize(device) if device is not None else self._device
    target = backend(device)
    if device != self._device:
        return _to_device(self, dtype, device, target)
    if dtype is self._dtype:
        return new_tensor(_strided_like(self._data, target.xp.asarray(self._data, copy=True)), dtype, device)
    return new_tensor(_strided_like(self._data, convert(target.xp, self._data, dtype)), dtype, device)


def _strided_like(source, copy):
    """``copy`` at ``source``'s strides when ``source`` is dense (``empty_like``'s ``preserve_format``), size-1
    dimensions' strides included: NumPy's order-keeping copy gives those its own strides. (An empty tensor is
    contiguous, so dense, whatever its strides.)"""
    if type(copy) is not np.ndarray or copy.ndim < 2 or (copy.size and source.flags.c_contiguous
                                                         and 1 not in source.shape):
        return copy  # (row-major with no size-1 dim: NumPy's copy has the same strides)
    want = tuple(st // source.itemsize for st in source.strides)
    if not (copy.size == 0 or non_overlapping_and_dense(source.shape, want)):
        want = infer_dense_strides(source.shape, want)  # gaps or repeats (an expanded input): dense, in its order
    if tuple(st // copy.itemsize for st in copy.strides) == want:
        return copy
    return _with_strides(copy, want)


def _to_device(self, dtype, device, target):
    """Convert on the host, then move: a device whose library lacks ``self``'s dtype (bfloat16) still gets
    the converted copy, and one lacking the target dtype says so (``xp_dtype``)."""
    xp_dtype(target.xp, dtype)
    host = to_numpy(self._data)
    if dtype is not self._dtype:
        host = convert(np_xp, host, dtype)
    return new_tensor(target.xp.asarray(host, copy=True, device=target.array_device(device.index)), dtype, device)


def zero_(self):
    xp = xp_of(self)
    writable_data(self)[...] = xp.zeros_like(self._data)
    return self


def fill_(self, value):
    """Every element set to ``value`` (a number, or a zero-dim tensor: ``fill_.Tensor``) in ``self``'s dtype."""
    if isinstance(value, TensorImpl):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        xp = xp_of(self)
        host = convert(np_xp, to_numpy(value._data), self._dtype)  # a tensor's value is cast unchecked, as copy_
        # on the value's device PyTorch copies it (copy_ refuses an expanded self); elsewhere it fills its item()
        target = self._data if value._device == self._device else writable_data(self)
        target[...] = xp.asarray(host, device=self._data.device)
        return self
    xp = xp_of(self)
    if is_reduced_float(self._dtype):
        if not (self._device.type == "cpu" and math.prod(self._data.shape) == 1):
            check_scalar_fits(value, self._dtype)  # one CPU element takes ``scalar_fill``'s unchecked path
        elif isinstance(value, complex):  # which reads the number as a double, checked
            check_scalar_fits(value, st.float64)
        # a Python number becomes Half / BFloat16 through float, as in C++
        value = float(np.float32(value.real if isinstance(value, complex) else value))
    else:
        value = stored_scalar(value, self._dtype)  # a number must fit (``Scalar::to<T>``)
    writable_data(self)[...] = xp.asarray(value, dtype=xp_dtype(xp, self._dtype), device=self._data.device)
    return self


def fill(self, value):
    """``torch.fill``: a new tensor like ``self``, filled with ``value``."""
    return fill_(clone(self), value)
