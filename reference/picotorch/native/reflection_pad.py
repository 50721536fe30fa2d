"""Padding by reflection and by replication: ``reflection_pad{1,2,3}d`` and ``replication_pad{1,2,3}d``.

Models ``aten/src/ATen/native/ReflectionPad.cpp``, ``aten/src/ATen/native/ReplicationPadding.cpp`` and the shared
input check of ``aten/src/ATen/native/Padding.h`` (``check_valid_input``). ``F.pad(x, pad, mode='reflect')``
calls them (``pad`` in composite.py, as ``_pad_enum`` in PadNd.cpp); ``mode='circular'`` is ``_pad_circular``,
built from slices and copies, also in composite.py.

Each padded dim is one index map from output positions to input positions, ``before`` positions ahead of the
input's first: reflection mirrors around the edge element (``-1`` reads ``1``), replication clamps to it (``-1``
reads ``0``). A negative amount cuts instead (the map starts inside the input). The output gathers along the
padded dims one after the other; the backward adds each output gradient into the input position it was read
from (``index_add`` along each dim, last dim first), so an edge element read several times gets their sum.
"""

from __future__ import annotations

from .helpers import add_at, has_scatter, xp_of
from .tensor_impl import new_tensor

_REFLECT, _REPLICATE = "reflection", "replication"


def reflection_pad1d(self, padding):
    return _pad(self, padding, 1, _REFLECT)


def reflection_pad2d(self, padding):
    return _pad(self, padding, 2, _REFLECT)


def reflection_pad3d(self, padding):
    return _pad(self, padding, 3, _REFLECT)


def replication_pad1d(self, padding):
    return _pad(self, padding, 1, _REPLICATE)


def replication_pad2d(self, padding):
    return _pad(self, padding, 2, _REPLICATE)


def replication_pad3d(self, padding):
    return _pad(self, padding, 3, _REPLICATE)


def reflection_pad1d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 1, _REFLECT)


def reflection_pad2d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 2, _REFLECT)


def reflection_pad3d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 3, _REFLECT)


def replication_pad1d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 1, _REPLICATE)


def replication_pad2d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 2, _REPLICATE)


def replication_pad3d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 3, _REPLICATE)


# ----------------------------------------------------------------------------- the shared kernel


def _pad(self, padding, dims, kind):
    maps = _index_maps(self, padding, dims, kind)
    xp, data = xp_of(self), self._data
    first = data.ndim - dims
    for i, index in enumerate(maps):
        data = xp.take(data, xp.asarray(index, device=data.device), axis=first + i)
    return new_tensor(xp.asarray(data, copy=True) if data is self._data else data, self._dtype, self._device)


def _pad_backward(grad_output, self, padding, dims, kind):
    maps = _index_maps(self, padding, dims, kind)
    xp = xp_of(grad_output)
    grad = grad_output._data
    first = grad.ndim - dims
    for i in reversed(range(dims)):
        grad = _sum_into(xp, grad, first + i, self._data.shape[first + i], maps[i])
    return new_tensor(grad, grad_output._dtype, grad_output._device)


def _sum_into(xp, grad, axis, size, index):
    """``grad`` along ``axis`` added into ``size`` positions, output position ``j`` into ``index[j]``, in order of
    ``j`` (PyTorch's loop; ``np.add.at``'s order)."""
    shape = list(grad.shape)
    shape[axis] = size
    summed = xp.zeros(tuple(shape), dtype=grad.dtype, device=grad.device)
    positions = xp.asarray(index, device=grad.device)
    if has_scatter(summed):
        add_at(xp.moveaxis(summed, axis, 0), positions, xp.moveaxis(grad, axis, 0))
        return summed
    # the Array API has no scatter: a one-hot table of which output goes where
    hits = xp.reshape(xp.arange(size, device=grad.device), (-1, 1)) == xp.reshape(positions, (1, -1))
    moved = xp.moveaxis(grad, axis, -1)
    return xp.moveaxis(xp.matmul(moved, xp.astype(xp.permute_dims(hits, (1, 0)), grad.dtype)), -1, axis)


def _index_maps(self, padding, dims, kind):
    """For each padded dim (outermost first), the input position each output position reads."""
    padding = [int(p) for p in padding]
    if len(padding) != 2 * dims:
        raise RuntimeError(f"padding size is expected to be {2 * dims}")
    _check_valid_input(self, dims)
    if self._dtype.name == "bool":
        raise NotImplementedError(f"\"{kind}_pad{dims}d\" not implemented for 'Bool'")
    sizes = tuple(self._data.shape)
    first = len(sizes) - dims
    pairs = [(padding[2 * (dims - 1 - i)], padding[2 * (dims - 1 - i) + 1]) for i in range(dims)]  # outermost first
    if kind == _REFLECT:
        _check_reflection_amounts(sizes, first, pairs)
    _check_output_size(sizes, first, pairs)
    return [_index_map(sizes[first + i], before, after, kind) for i, (before, after) in enumerate(pairs)]


def _index_map(size, before, after, kind):
    positions = range(-before, size + after)
    if kind == _REFLECT:
        return [-p if p < 0 else 2 * (size - 1) - p if p >= size else p for p in positions]
    return [min(max(p, 0), size - 1) for p in positions]


def _check_valid_input(self, dims):
    """``check_valid_input``: a batch of any size (0 too) or none; every other dim non-empty."""
    sizes = tuple(self._data.shape)
    batch_mode = len(sizes) == dims + 2
    rest = sizes[1:] if batch_mode else sizes
    if 0 in rest:
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(sizes)}")


def _check_reflection_amounts(sizes, first, pairs):
    """Reflection cannot reach past the far edge: each amount is below its dim's size (argument 4 is the last dim's
    pair, 6 the one before, 8 the one before that)."""
    for i in reversed(range(len(pairs))):
        before, after = pairs[i]
        dim = first + i
        if not (before < sizes[dim] and after < sizes[dim]):
            argument = 4 + 2 * (len(pairs) - 1 - i)
            raise RuntimeError(f"Argument #{argument}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({before}, {after}) at dimension {dim} of input "
                               f"{list(sizes)}")


def _check_output_size(sizes, first, pairs):
    outputs = [sizes[first + i] + before + after for i, (before, after) in enumerate(pairs)]
    if len(pairs) == 1 and outputs[0] < 1:
        raise RuntimeError(f"input (W: {sizes[first]}) is too small. Calculated output W: {outputs[0]}")
    if min(outputs) < 0:
        names = "DHW"[3 - len(pairs):]
        given = ", ".join(f"{n}: {sizes[first + i]}" for i, n in enumerate(names))
        calculated = " ".join(f"{n}: {o}" for n, o in zip(names, outputs))
        raise RuntimeError(f"input ({given} ) is too small. Calculated output {calculated}")
