"""The shape kernels: views (``view``, ``transpose``, ``expand``, ``select``, ...), their backward, and joins.

Models ``aten/src/ATen/native/TensorShape.cpp``. A view kernel returns a tensor that shares its
input's data and version counter and remembers its base (:func:`helpers.view_of`); which views exist
decides what autograd records (``ViewBackward0``, and ``CopySlices`` when a view is written in place).
``select_backward`` and ``slice_backward`` scatter a gradient back into zeros of the input's shape;
``stack`` and ``cat`` join tensors into a new one (not a view). ``split``, ``split_with_sizes`` and
``unbind`` return several views of one input; ``flip``, ``roll``, ``rot90`` and ``repeat`` copy; ``repeat_interleave``
of a tensor of counts (``Repeat.cpp``) makes the indices that the other ``repeat_interleave`` overloads select.
``diagonal`` views a diagonal (``diagonal_backward``, ``diagonal_copy`` and ``diag_embed`` write or copy through
that view).
"""

from __future__ import annotations

import builtins  # this file defines a `slice` kernel; the built-in is builtins.slice
import math

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import CPU
from . import checks
from .device import to_numpy
from .helpers import (
    as_strided_view,
    cast,
    common_device,
    contiguous_strides,
    error_type_string,
    permute_dims,
    placed_view,
    reduce_dims,
    reshaped_view,
    restrided,
    result_type,
    row_major_copy,
    shape_of,
    storage_array,
    strided_geometry,
    strides_of,
    view_of,
    wrap,
    xp_of,
    zeros_array,
)
from .helpers import (
    storage_offset as offset_in_storage,
)
from .layout import innermost_first, non_overlapping_and_dense, relaid, row_major_strides
from .tensor_factories import clone
from .tensor_impl import new_tensor

# ----------------------------------------------------------------------------- views


def alias(self):
    return view_of(self, self._data)


def t(self):
    ndim = self._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    # a matrix's ``.T`` (every Array API namespace has it for 2-D) is one attribute read, not a transpose call
    return view_of(self, self._data.T) if ndim == 2 else view_of(self, self._data)


def transpose(self, dim0, dim1):
    ndim = self._data.ndim
    d0, d1 = checks.wrap_dim(dim0, ndim), checks.wrap_dim(dim1, ndim)
    if ndim == 0:
        return view_of(self, self._data)
    if type(self._data) is np.ndarray:
        return view_of(self, self._data.swapaxes(d0, d1))  # NumPy's own method: no call through its Python layer
    axes = list(range(ndim))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return view_of(self, permute_dims(xp_of(self), self._data, tuple(axes)))


def permute(self, dims):
    ndim = self._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {ndim} "
                           f"is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(checks.wrap_dim(d, ndim) for d in dims)
    if len(set(wrapped)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return view_of(self, permute_dims(xp_of(self), self._data, wrapped))


def view(self, size):
    return view_of(self, _viewed_data(self, size))


def _viewed_data(self, size):
    shape = checks.infer_size(size, math.prod(shape_of(self)))
    try:
        data = reshaped_view(xp_of(self), self._data, shape)
    except (ValueError, AttributeError, TypeError):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    if 1 in shape and type(data) is np.ndarray and data.size and not _plainly_row_major(self._data):
        data = _with_size_one_strides(data, compute_stride(self._data.shape, strides_of(self), shape))
    return data


def _plainly_row_major(array) -> bool:
    """Row-major, a size-1 dim's stride too: its views' strides are row-major in NumPy as in PyTorch."""
    return type(array) is np.ndarray and array.flags.c_contiguous and (1 not in array.shape
                                                                        or row_major_strides(array))


def _with_size_one_strides(data, strides):
    """``data`` with PyTorch's strides, which differ from NumPy's only on size-1 dims (no element moves)."""
    itemsize = data.itemsize
    if tuple(s * itemsize for s in strides) == data.strides:
        return data
    return np.lib.stride_tricks.as_strided(data, data.shape, [s * itemsize for s in strides],
                                           writeable=data.flags.writeable)


def compute_stride(old_shape, old_strides, new_shape) -> list:
    """``computeStride`` (TensorUtils.cpp) for a view that exists: the strides a size-1 dim gets come from the
    chunk it is in (NumPy gives it its own)."""
    if not old_shape:
        return [1] * len(new_shape)
    if 0 in old_shape:  # nothing to keep in place: the old strides when the shape stays, else row-major ones
        return list(old_strides) if tuple(old_shape) == tuple(new_shape) else list(contiguous_strides(new_shape, 1))
    new, view_d = [0] * len(new_shape), len(new_shape) - 1
    base, tensor_numel, view_numel = old_strides[-1], 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new[view_d] = view_numel * base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if d > 0:
                base, tensor_numel, view_numel = old_strides[d - 1], 1, 1
    return new




def view_dtype(self, dtype):
    """``x.view(torch.int32)``: the same bytes read as another dtype (``TensorConversions.cpp``). A dtype of
    another size rescales the last dim, which must be contiguous. The result shares the storage and the version
    counter but is no autograd view (no ``_base``) and never requires grad: its derivative is not defined."""
    old, new = self._dtype.itemsize, dtype.itemsize
    if old != new:
        _check_view_dtype(self, dtype, old, new)
    data = self._data.view(dtype._numpy)
    return new_tensor(data, dtype, self._device, version=self._version_counter)


def _check_view_dtype(self, dtype, old: int, new: int) -> None:
    what = f"to view {self._dtype.c10_name} as {dtype.c10_name} (different element sizes)"
    if self._data.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    stride = strides_of(self)[-1]
    if stride != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride}")
    if new > old:
        ratio = new // old
        if self._data.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {self._data.shape[-1]}")
        offset = offset_in_storage(self)
        if offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")


def _unsafe_view(self, size):
    """A view's data and strides (with ``view``'s check) in a tensor autograd does not treat as a view."""
    if type(self._data) is not np.ndarray:  # strides are outside the Array API: other backends reshape
        return wrap(self, xp_of(self).reshape(self._data, checks.infer_size(size, math.prod(shape_of(self)))))
    return wrap(self, _viewed_data(self, size))


def expand(self, size, implicit=False):
    target = expanded_shape(self, size)
    data = self._data
    if type(data) is np.ndarray:
        return view_of(self, _expanded_view(data, target))
    return view_of(self, xp_of(self).broadcast_to(data, target))


# NOTE [expand's strides]
# ``inferExpandGeometry`` keeps a dimension's stride unless it grows from 1 (then 0); a new leading dimension of
# size 1 gets the stride a contiguous one would have (the next dim's size times its stride), a larger one 0.
# NumPy's ``broadcast_to`` zeroes every size-1 dimension it touches and makes the view read-only, so
# ``ones(3, 1).expand(3, 1).stride()`` would be (1, 0) where PyTorch says (1, 1), and ``x.expand_as(x).add_(1)``
# would fail. A zero-dim tensor expands with every stride 0. The view is built at PyTorch's strides; it is
# read-only only when it overlaps itself (a stride of 0 over more than one element), where writing is an error
# in PyTorch too.
def _expanded_view(data, target):
    strides = data.strides
    offset = len(target) - data.ndim
    out = [0] * len(target)  # a zero-dim tensor's expansion keeps these zeros everywhere, as in PyTorch
    for i in reversed(range(len(target)) if data.ndim else ()):
        if i >= offset:
            out[i] = strides[i - offset] if data.shape[i - offset] == target[i] else 0
        elif target[i] == 1:
            out[i] = target[i + 1] * out[i + 1]
    overlaps = any(stride == 0 and n > 1 for stride, n in zip(out, target))
    if not data.flags.c_contiguous:
        return np.lib.stride_tricks.as_strided(data, target, out, writeable=data.flags.writeable and not overlaps)
    view = np.ndarray(target, data.dtype, data, 0, out)  # on the array's own buffer: a tenth of as_strided's time
    if overlaps:
        view.flags.writeable = False
    return view


def expanded_shape(self, size) -> tuple:
    """The shape ``self.expand(size)`` has, or ``expand``'s error (what ``addmm`` checks its bias with)."""
    size = tuple(map(int, size))
    current = shape_of(self)
    if not current and any(s < 0 for s in size) and 0 not in size:
        # a zero-dim tensor takes the sizes as they are (inferExpandGeometry returns early); a negative one
        # then fails the element count (with a 0 among them PyTorch even makes the tensor: not modelled)
        raise RuntimeError("numel: integer multiplication overflow")
    if len(size) < len(current):
        raise RuntimeError(f"expand({error_type_string(self)}{{{list(current)}}}, size={list(size)}): "
                           "the number of sizes provided "
                           f"({len(size)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(current)})")
    return _expanded_shape(current, size)


def _expanded_shape(current, size):
    """``inferExpandGeometry``: from the last dimension back, so the last bad one is reported."""
    offset = len(size) - len(current)
    out = list(size)
    for i in reversed(range(len(size))):
        s, existing = size[i], current[i - offset] if i >= offset else None
        if existing is None:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        elif s == -1:
            out[i] = existing
        elif existing != s and existing != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size "
                               f"({existing}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                               f"Tensor sizes: {list(current)}")
    return tuple(out)


def unsqueeze(self, dim):
    d = checks.wrap_dim(dim, self._data.ndim + 1)
    data = xp_of(self).expand_dims(self._data, axis=d)
    if type(data) is np.ndarray and not (data.size and _plainly_row_major(self._data)):
        # ``inferUnsqueezeGeometry`` (a last dim's stride is 1); a plainly row-major input needs no help, an
        # empty one does (NumPy calls every empty array row-major and gives the new dim its own stride)
        strides = list(strides_of(self))
        strides.insert(d, 1 if d >= len(strides) else self._data.shape[d] * strides[d])
        data = _with_size_one_strides(data, strides)
    return view_of(self, data)


def squeeze(self):
    return view_of(self, _squeezed(self, range(self._data.ndim)))


def squeeze_dim(self, dim):
    return view_of(self, _squeezed(self, (checks.wrap_dim(dim, self._data.ndim),)))


def squeeze_dims(self, dim):
    return view_of(self, _squeezed(self, reduce_dims(self, dim) if len(dim) else ()))


def squeeze_(self):
    return _squeeze_inplace(self, _squeezed(self, range(self._data.ndim)))


def squeeze_dim_(self, dim):
    return _squeeze_inplace(self, _squeezed(self, (checks.wrap_dim(dim, self._data.ndim),)))


def squeeze_dims_(self, dim):
    return _squeeze_inplace(self, _squeezed(self, reduce_dims(self, dim) if len(dim) else ()))


def _squeezed(self, dims):
    shape = shape_of(self)
    if not shape:
        return self._data  # a zero-dim tensor has nothing to squeeze
    axes = tuple(d for d in dims if shape[d] == 1)
    return xp_of(self).squeeze(self._data, axis=axes) if axes else self._data


def _squeeze_inplace(self, data):
    self._data = data
    return self


def select(self, dim, index):
    ndim = self._data.ndim
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = checks.wrap_dim(dim, ndim)
    size = self._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape_of(self))} at "
                         f"dimension {d}")
    key = (builtins.slice(None),) * d + (index, ...)
    data = self._data[key]
    if not data.size and type(data) is np.ndarray:  # NumPy does not move an empty result to its element
        offset = (index % size) * strides_of(self)[d] * self._dtype.itemsize
        data = placed_view(self._data, offset, data.shape, data.strides)
    return view_of(self, data)


def slice(self, dim=0, start=None, end=None, step=1):
    if self._data.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = checks.wrap_dim(dim, self._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, end, _ = builtins.slice(start, end, step).indices(self._data.shape[d])  # clamped, as torch's slice
    if end <= start and type(self._data) is np.ndarray:
        return view_of(self, _empty_slice(self, d, start, step))
    key = (builtins.slice(None),) * d + (builtins.slice(start, end, step), ...)
    return view_of(self, self._data[key])


def _empty_slice(self, d, start, step):
    """An empty slice where PyTorch's is: NumPy's starts at its array's first element and keeps the dim's
    stride; PyTorch's starts at ``start`` and multiplies the stride by the step even when nothing is left
    (NOTE [A tensor's storage is the array that owns its memory] in helpers.py)."""
    data = self._data
    shape, strides = list(data.shape), list(data.strides)
    offset = start * strides_of(self)[d] * self._dtype.itemsize
    shape[d], strides[d] = 0, strides[d] * step
    return placed_view(data, offset, shape, strides)


# NOTE [unfold's windows]
# ``unfold(d, size, step)`` views every window of ``size`` elements along ``d``, ``step`` apart: ``d`` counts the
# windows (its stride times ``step``) and a new last dim walks one window (``d``'s old stride). Windows that
# overlap (``step < size``) share memory; such a view is kept read-only here, as an expanded one (PyTorch lets an
# in-place op write there, with results that depend on its loop order: refused in picotorch).
def unfold(self, dimension, size, step):
    data = self._data
    d = checks.wrap_dim(dimension, data.ndim)
    length = data.shape[d] if data.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    windows = (length - size) // step + 1
    if getattr(data, "strides", None) is None:  # the Array API has no strided views: the windows are copied
        return wrap(self, _windows_copied(xp_of(self), data, d, windows, size, step))
    shape, strides = list(data.shape), list(strides_of(self))
    if data.ndim:
        shape[d], strides[d] = windows, strides[d] * step
    shape.append(size)
    strides.append(strides_of(self)[d] if data.ndim else 1)
    overlapping = windows > 1 and 0 < step < size
    return view_of(self, restrided(data, shape, strides, writeable=not overlapping))


def _windows_copied(xp, data, d, windows, size, step):
    data = xp.reshape(data, (1,)) if data.ndim == 0 else data
    starts = xp.reshape(xp.arange(windows, device=data.device) * step, (-1, 1))
    positions = xp.reshape(starts + xp.reshape(xp.arange(size, device=data.device), (1, -1)), (-1,))
    taken = xp.take(data, positions, axis=d)
    taken = xp.reshape(taken, data.shape[:d] + (windows, size) + data.shape[d + 1:])
    order = tuple(i for i in range(taken.ndim) if i != d + 1) + (d + 1,)
    return xp.permute_dims(taken, order)


# ----------------------------------------------------------------------------- several views of one input


def split(self, split_size, dim=0):
    """Pieces of ``split_size`` along ``dim``, the last one shorter; one empty piece of an empty dim."""
    if self._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    d = checks.wrap_dim(dim, self._data.ndim)
    size = self._data.shape[d]
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    count = max(-(-size // split_size), 1) if split_size else 1
    return tuple(_narrowed(self, d, i * split_size, min(split_size, size - i * split_size)) for i in range(count))


def split_with_sizes(self, split_sizes, dim=0):
    if self._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = checks.wrap_dim(dim, self._data.ndim)
    size, sizes = self._data.shape[d], [int(s) for s in split_sizes]
    pieces, start = [], 0
    for length in sizes:
        if length < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        pieces.append(_narrowed(self, d, start, length))
        start += length
    if start != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={sizes}")
    return tuple(pieces)


def _narrowed(self, d, start, length):
    if length == 0 and type(self._data) is np.ndarray:
        return view_of(self, _empty_slice(self, d, start, 1))
    key = (builtins.slice(None),) * d + (builtins.slice(start, start + length), ...)
    return view_of(self, self._data[key])


def unbind(self, dim=0):
    d = checks.wrap_dim(dim, self._data.ndim)
    return tuple(select(self, d, i) for i in range(_size(self, d)))


def _size(self, dim):
    """``self.size(dim)``: a zero-dim tensor has no dimension to ask about."""
    if self._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return self._data.shape[dim]


# ----------------------------------------------------------------------------- copies: flip, roll, repeat


def flip(self, dims):
    ndim = self._data.ndim
    wrapped = [checks.wrap_dim(d, ndim) for d in dims]
    for i, d in enumerate(wrapped):
        if d in wrapped[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    xp = xp_of(self)
    data = xp.flip(self._data, axis=tuple(wrapped)) if ndim and wrapped else self._data
    return wrap(self, _preserve_format(xp, xp.asarray(data, copy=True), self._data))


def _preserve_format(xp, result, source):
    """``result`` laid out as ``empty_like(source)`` lays it out (preserve format): ``source``'s order when it is
    dense and non-overlapping (what a NumPy copy keeps), else its strides' order with the gaps closed (an
    expanded input gives a row-major output)."""
    strides = getattr(source, "strides", None)
    if strides is None or source.ndim < 2:
        return result
    strides = tuple(s // source.itemsize for s in strides)
    if not source.size:  # dense whatever its strides, which NumPy's empty copy does not keep
        return np.lib.stride_tricks.as_strided(result, result.shape, source.strides)
    if non_overlapping_and_dense(source.shape, strides):
        return result
    return relaid(xp, result, list(reversed(innermost_first(tuple(source.shape), [strides]))))


def roll(self, shifts, dims=()):
    """``roll_cpu``: one dim at a time; with no dims, the flattened tensor rolled and viewed back."""
    return wrap(self, _rolled(self, self._data, tuple(shifts), tuple(dims)))


def _rolled(self, data, shifts, dims):
    xp = xp_of(self)
    if len(dims) != 1 or len(shifts) != 1:
        if not shifts:
            raise RuntimeError("`shifts` required")
        if not dims and len(shifts) == 1:
            flat = xp.reshape(data, (-1,))
            return xp.reshape(_rolled(self, flat, shifts, (0,)), tuple(data.shape))
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        for shift, dim in zip(shifts, dims):
            data = _rolled(self, data, (shift,), (dim,))
        return data
    if math.prod(data.shape) == 0:  # ``clone()`` (its strides kept), before the dim is even checked, as PyTorch
        return _preserve_format(xp, xp.asarray(data, copy=True), data)
    if data.ndim == 0:  # (any dim: roll_cpu asks the size of dim 0 before wrapping)
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    d = checks.wrap_dim(dims[0], data.ndim)
    return row_major_copy(xp, xp.roll(data, shifts[0], axis=d))  # a cat of two narrowed pieces


def repeat(self, repeats):
    """The tensor tiled ``repeats[i]`` times along dim ``i`` (leading dims of size 1 added first)."""
    repeats = tuple(int(r) for r in repeats)
    shape = shape_of(self)
    if len(repeats) < len(shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    padded = (1,) * (len(repeats) - len(shape)) + shape
    target = tuple(p * r for p, r in zip(padded, repeats))
    checks.check_size_nonnegative(target)
    xp = xp_of(self)
    # each dim p becomes (r, p): broadcast r copies in front of it, then fold the pair into one dim
    interleaved = tuple(x for p in padded for x in (1, p))
    expanded = tuple(x for p, r in zip(padded, repeats) for x in (r, p))
    data = xp.broadcast_to(xp.reshape(self._data, interleaved), expanded)
    return wrap(self, row_major_copy(xp, xp.reshape(data, target)))


# ----------------------------------------------------------------------------- backward of views


def select_backward(grad_output, input_sizes, dim, index):
    data = zeros_array(grad_output, input_sizes)
    d = checks.wrap_dim(dim, len(input_sizes))
    data[(builtins.slice(None),) * d + (index, ...)] = grad_output._data
    return wrap(grad_output, data)


def slice_backward(grad_output, input_sizes, dim, start, end, step):
    data = zeros_array(grad_output, input_sizes)
    d = checks.wrap_dim(dim, len(input_sizes))
    start, end, _ = builtins.slice(start, end, step).indices(input_sizes[d])  # clamped, as the forward slice
    data[(builtins.slice(None),) * d + (builtins.slice(start, max(start, end), step), ...)] = grad_output._data
    return wrap(grad_output, data)


def unfold_backward(grad_in, input_sizes, dim, size, step):
    """Each window's gradient added back where the window lay: the ``j``-th element of every window at once."""
    sizes = tuple(input_sizes)
    d = checks.wrap_dim(dim, len(sizes))
    data = zeros_array(grad_in, sizes or (1,))
    grad = grad_in._data if sizes else xp_of(grad_in).reshape(grad_in._data, (1, size))
    windows = grad.shape[d]
    for j in range(size):
        data[(builtins.slice(None),) * d + (builtins.slice(j, j + step * (windows - 1) + 1, step), ...)] += grad[..., j]
    return wrap(grad_in, data if sizes else xp_of(grad_in).reshape(data, ()))


# ----------------------------------------------------------------------------- joins


def stack(tensors, dim=0):
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = shape_of(tensors[0])
    for i, t in enumerate(tensors):
        if shape_of(t) != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 "
                               f"and {list(shape_of(t))} at entry {i}")
    d = checks.wrap_dim(dim, len(first) + 1)
    dtype = _join_dtype(tensors)
    xp = xp_of(tensors[0])
    dev = common_device(*tensors)
    return new_tensor(_row_major(xp, xp.stack([cast(t, dtype, xp) for t in tensors], axis=d)), dtype, dev)


def cat(tensors, dim=0):
    """Joined along ``dim`` into a new row-major tensor. A 1-D empty tensor is skipped (PyTorch's legacy
    rule): it neither sets the number of dims nor has to match; if every input is one, so is the result."""
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    parts = [t for t in tensors if shape_of(t) != (0,)]
    if not parts:  # ``dim`` is not even wrapped (legacy_cat_wrap_dim)
        dtype = _join_dtype(tensors)
        return new_tensor(zeros_array(tensors[0], (0,), dtype), dtype, common_device(*tensors))
    d = checks.wrap_dim(dim, parts[0]._data.ndim)
    for i, t in enumerate(tensors):
        _check_cat_shape(parts[0], t, d, i)
    dtype = _join_dtype(tensors)
    dev = common_device(*tensors)
    xp = xp_of(parts[0])
    return new_tensor(_row_major(xp, xp.concat([cast(t, dtype, xp) for t in parts], axis=d)), dtype, dev)


def _row_major(xp, data):
    """``data`` itself when it is row-major already, else a row-major copy: a join's output is contiguous."""
    flags = getattr(data, "flags", None)
    return data if flags is None or flags["C_CONTIGUOUS"] else row_major_copy(xp, data)


def _join_dtype(tensors):
    return st.result_type(*[(t._dtype, 2) for t in tensors])


def _check_cat_shape(ref, t, d, i) -> None:
    if shape_of(t) == (0,):
        return
    if t._data.ndim != ref._data.ndim:
        raise RuntimeError(f"Tensors must have same number of dimensions: got {ref._data.ndim} and "
                           f"{t._data.ndim}")
    for k, (a, b) in enumerate(zip(shape_of(ref), shape_of(t))):
        if k != d and a != b:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} "
                               f"but got size {b} for tensor number {i} in the list.")


# ----------------------------------------------------------------------------- _reshape_alias (issue 10, group I)


def _reshape_alias(self, size, stride):
    """``reshape``'s view of a tensor that is not row-major but can be viewed as ``size`` (``stride`` is what
    ``computeStride`` found; the array library finds the same layout)."""
    return view_of(self, reshaped_view(xp_of(self), self._data, tuple(size)))


def view_strides(self, size):
    """``at::detail::computeStride``: the strides of ``self`` viewed as ``size``, or None when a copy is needed."""
    shape = checks.infer_size(size, math.prod(shape_of(self)))
    try:
        data = reshaped_view(xp_of(self), self._data, shape)
    except (ValueError, AttributeError, TypeError):
        return None
    strides = getattr(data, "strides", None)
    if strides is None:
        return tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))
    return tuple(s // self._dtype.itemsize for s in strides)


# ----------------------------------------------------------------------------- diagonal and what is built on it


def diagonal(self, offset=0, dim1=0, dim2=1):
    """The view of the elements ``[..., i, i + offset]`` of dims ``dim1`` and ``dim2``: both dims dropped, one of
    the diagonal's length appended, its stride the sum of theirs."""
    d1, d2 = _diagonal_dims(dim1, dim2, self._data.ndim)
    if getattr(self._data, "strides", None) is None:  # an array without strides (the Array API's): a copy
        return view_of(self, _from_host(self, row_major_copy(np, _diagonal_of(to_numpy(self._data), offset, d1, d2))))
    sizes, strides = shape_of(self), strides_of(self)
    length, start = _diagonal_extent(sizes, strides, offset, d1, d2)
    kept = [d for d in range(len(sizes)) if d not in (d1, d2)]
    return as_strided_view(self, tuple(sizes[d] for d in kept) + (length,),
                           tuple(strides[d] for d in kept) + (strides[d1] + strides[d2],), start)


def _diagonal_dims(dim1, dim2, ndim):
    d1, d2 = checks.wrap_dim(dim1, ndim), checks.wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diagonal_extent(sizes, strides, offset, d1, d2):
    """The diagonal's length, and where it starts (in elements; 0 when it is empty)."""
    if offset >= 0:
        length, start = min(sizes[d1], sizes[d2] - offset), offset * strides[d2]
    else:
        length, start = min(sizes[d1] + offset, sizes[d2]), -offset * strides[d1]
    return (length, start) if length > 0 else (0, 0)


def _diagonal_of(array, offset, d1, d2):
    """The writeable diagonal view of a NumPy array (NumPy's own ``diagonal`` is read-only)."""
    length, _ = _diagonal_extent(array.shape, array.strides, offset, d1, d2)
    first = array
    if length:  # the view starts at the diagonal's first element
        d = d2 if offset >= 0 else d1
        first = array[(builtins.slice(None),) * d + (builtins.slice(abs(offset), None),)]
    kept = [d for d in range(array.ndim) if d not in (d1, d2)]
    strides = tuple(array.strides[d] for d in kept) + (array.strides[d1] + array.strides[d2],)
    return np.lib.stride_tricks.as_strided(first, tuple(array.shape[d] for d in kept) + (length,), strides)


def _from_host(like, array):
    return xp_of(like).asarray(array, device=like._data.device)


def _with_diagonal(like, sizes, values, offset, d1, d2):
    """Zeros of ``sizes`` (``like``'s dtype and device) with ``values`` written on a diagonal."""
    host = np.zeros(sizes, dtype=to_numpy(zeros_array(like, ())).dtype)
    _diagonal_of(host, offset, d1, d2)[...] = to_numpy(values._data)
    return wrap(like, host if type(like._data) is np.ndarray else _from_host(like, host))


def diagonal_backward(grad_output, input_sizes, offset, dim1, dim2):
    """Zeros of the input's shape with ``grad_output`` on the diagonal."""
    d1, d2 = _diagonal_dims(dim1, dim2, len(input_sizes))
    return _with_diagonal(grad_output, tuple(input_sizes), grad_output, offset, d1, d2)


def diagonal_copy(self, offset=0, dim1=0, dim2=1):
    return wrap(self, row_major_copy(xp_of(self), diagonal(self, offset, dim1, dim2)._data))


def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    """Zeros with ``self``'s last dim written on the diagonal of two new dims ``dim1`` and ``dim2``."""
    d1, d2 = _diagonal_dims(dim1, dim2, self._data.ndim + 1)
    side = abs(offset) + self._data.shape[-1]
    sizes = list(self._data.shape[:-1])
    sizes.insert(min(d1, d2), side)
    sizes.insert(max(d1, d2), side)
    return _with_diagonal(self, tuple(sizes), self, offset, d1, d2)
def rot90(self, k=1, dims=(0, 1)):
    """``TensorTransformations.cpp``: a quarter turn is a ``flip`` then a transposed view of the copy (its strides
    show it: ``rot90`` of a 2x3 matrix has strides ``(1, 3)``); a half turn flips both dims; no turn copies."""
    ndim = self._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = checks.wrap_dim(dims[0], ndim), checks.wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    xp = xp_of(self)
    turns = k % 4
    flipped = {0: (), 1: (d1,), 2: (d0, d1), 3: (d0,)}[turns]
    data = row_major_copy(xp, xp.flip(self._data, axis=flipped) if flipped else self._data)
    if turns % 2:
        order = list(range(ndim))
        order[d0], order[d1] = d1, d0
        data = permute_dims(xp, data, tuple(order))
    return wrap(self, data)


def repeat_interleave(repeats, output_size=None):
    """Each index ``i`` written ``repeats[i]`` times (in ``repeats``' dtype): the indices the other overloads select."""
    if repeats._data.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats._dtype not in (st.int32, st.int64):
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{repeats._dtype.c10_name}'")
    xp = xp_of(repeats)
    counts = repeats._data
    if counts.shape[0] and bool(xp.any(counts < 0)):
        raise RuntimeError("repeats can not be negative")
    total = int(xp.sum(counts))
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    positions = xp.arange(counts.shape[0], dtype=counts.dtype)
    return wrap(repeats, xp.repeat(positions, counts) if total else xp.zeros((0,), dtype=counts.dtype))


# ----------------------------------------------------------------------------- in-place views, as_strided
# ``t_``, ``transpose_``, ``unsqueeze_`` and ``as_strided_`` change ``self``'s geometry, not its data: ``self``
# takes the geometry of the view the out-of-place op would make.


def t_(self):
    ndim = self._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return _squeeze_inplace(self, t(self)._data)


def transpose_(self, dim0, dim1):
    return _squeeze_inplace(self, transpose(self, dim0, dim1)._data)


def unsqueeze_(self, dim):
    return _squeeze_inplace(self, unsqueeze(self, dim)._data)


def as_strided(self, size, stride, storage_offset=None):
    """A view of ``self``'s storage with the given geometry (``as_strided_tensorimpl`` and ``setStrided``):
    the offset counts elements from the storage's start, ``self``'s own offset when not given."""
    size, stride = tuple(size), tuple(stride)
    storage = storage_array(self)
    if type(storage) is not np.ndarray:
        return _as_strided_of_base(self, size, stride, storage_offset)
    offset = offset_in_storage(self) if storage_offset is None else storage_offset
    _check_geometry(size, stride)
    _check_in_bounds_for_storage(self, storage.nbytes, size, stride, offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = self._dtype.itemsize
    return view_of(self, placed_view(storage, offset * itemsize, size, tuple(s * itemsize for s in stride),
                                     self._data.dtype))


def _as_strided_of_base(self, size, stride, storage_offset):
    """``as_strided`` on another device's arrays: the storage is taken to be the base's array (the offset is
    found from addresses, which only NumPy's and CuPy's arrays have)."""
    root = self._base if self._base is not None else self
    offset = strided_geometry(self, root)[2] if storage_offset is None else storage_offset
    _check_geometry(size, stride)
    _check_in_bounds_for_storage(self, _storage_elements(root) * self._dtype.itemsize, size, stride, offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    return view_of(self, as_strided_view(root, size, stride, offset)._data)


def _check_geometry(size, stride):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")


def _check_in_bounds_for_storage(self, available: int, size, stride, offset):
    """``checkInBoundsForStorage``: the bytes the geometry reaches must lie inside the storage's ``available``."""
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if 0 in size:
        return
    itemsize = self._dtype.itemsize
    needed = (1 + sum((n - 1) * s for n, s in zip(size, stride))) * itemsize
    if needed + offset * itemsize > available:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed + offset * itemsize} are out of "
                           f"bounds for storage of size {available}")


def _storage_elements(root):
    data = root._data
    if data.size == 0:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(data.shape, strides_of(root)))


def is_set_to(self, tensor):
    """One storage, one offset, the same sizes and strides (NOTE [A tensor's storage is the array that owns its
    memory] in helpers.py): ``tensor`` could be ``self`` after ``self.set_(tensor)``."""
    return (storage_array(self) is storage_array(tensor) and offset_in_storage(self) == offset_in_storage(tensor)
            and shape_of(self) == shape_of(tensor) and strides_of(self) == strides_of(tensor))


def as_strided_(self, size, stride, storage_offset=None):
    return _squeeze_inplace(self, as_strided(self, size, stride, storage_offset)._data)


# ----------------------------------------------------------------------------- scatters into a copy, block_diag,
# unsafe_split. ``select_scatter``, ``slice_scatter`` and ``diagonal_scatter`` copy ``self`` (its layout kept) and
# write ``src`` where the view would look; ``unsafe_split`` is ``split`` whose pieces are not recorded as views.


def _scatter_into_copy(self, src, view_of_copy):

    out = clone(self)
    target = view_of_copy(out)
    if shape_of(target) != shape_of(src):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(shape_of(src))}, slice size = {list(shape_of(target))}")
    target._data[...] = cast(src, self._dtype, xp_of(self))
    return out


def select_scatter(self, src, dim, index):
    return _scatter_into_copy(self, src, lambda out: select(out, dim, index))


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return _scatter_into_copy(self, src, lambda out: slice(out, dim, start, end, step))


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return _scatter_into_copy(self, src, lambda out: diagonal(out, offset, dim1, dim2))


def block_diag(tensors):
    """The tensors (a zero-dim one as 1x1, a vector as one row) along the diagonal of a zero matrix of their
    promoted dtype."""
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    if not tensors:

        dtype = st.get_default_dtype()
        return new_tensor(np.zeros((1, 0), dtype=st.to_numpy_dtype(dtype)), dtype, CPU)

    dtype = result_type(*tensors)
    xp = xp_of(tensors[0])
    blocks = [xp.reshape(t._data, (1,) * (2 - t._data.ndim) + tuple(t._data.shape)) for t in tensors]
    rows, cols = sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)
    out = zeros_array(tensors[0], (rows, cols), dtype)
    r = c = 0
    for t, b in zip(tensors, blocks):
        out[r:r + b.shape[0], c:c + b.shape[1]] = xp.reshape(cast(t, dtype, xp), b.shape)
        r, c = r + b.shape[0], c + b.shape[1]
    return new_tensor(out, dtype, common_device(*tensors))


def unsafe_split(self, split_size, dim=0):
    return tuple(new_tensor(piece._data, self._dtype, self._device) for piece in split(self, split_size, dim))


def unsafe_split_with_sizes(self, split_sizes, dim=0):
    return tuple(new_tensor(piece._data, self._dtype, self._device)
                 for piece in split_with_sizes(self, split_sizes, dim))
