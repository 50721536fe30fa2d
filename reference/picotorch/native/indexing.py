"""Advanced indexing: ``x[idx]`` with tensor indices, and writing through them.

Models ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` (``index``, ``_index_put_impl_``, ``masked_fill_``,
``masked_select``, ``masked_scatter_``, ``take``, ``put_``, ``nonzero``). The
Python indexing that turns ``x[1:, mask]`` into these calls is ``picotorch/_C/_indexing.py``
(``torch/csrc/autograd/python_variable_indexing.cpp``). With ``accumulate=True`` repeated indices add
up (``index_put_(..., accumulate=True)``, and the backward of ``index``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .device import to_numpy
from .helpers import row_major_copy, stored_scalar, wrap, xp_of, zeros_array
from .layout import innermost_first, relaid, row_major
from .memory_overlap import assert_no_overlap
from .tensor_factories import clone
from .tensor_impl import TensorImpl
from .tensor_shape import compute_stride, expanded_shape


def index(self, indices):
    if len(indices) > self._data.ndim:  # (two ellipses in one index can get here)
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim} (got {len(indices)})")
    _check_indices(self, indices)
    try:
        data = self._data[_index_key_of(self, indices)]
    except IndexError as e:
        raise IndexError(str(e)) from None
    return wrap(self, _laid_out(self, indices, data))


def _laid_out(self, indices, data):
    """``index``'s output as its TensorIterator lays it out: ordered by the operands' strides, ``self`` restrided
    (its kept dims; 0 on the indexed ones) first, then each index tensor (on the broadcast index dims), which
    sit where the indexed dims were if those are adjacent, else first. A mask counts as ``nonzero``'s columns."""
    if type(data) is not np.ndarray or data.ndim < 2 or type(self._data) is not np.ndarray:
        return data
    per_dim = []  # for each dim of self: the index array on it, or None (kept)
    for i in indices:
        if i is None or not _is_mask(i):
            per_dim.append(None if i is None else i._data)
        else:
            per_dim += [np.empty(int(np.count_nonzero(i._data)), np.int64)] * i._data.ndim
    per_dim += [None] * (self._data.ndim - len(per_dim))
    indexed = [d for d, a in enumerate(per_dim) if a is not None]
    if not indexed:
        return row_major(data)
    broadcast = np.broadcast_shapes(*(per_dim[d].shape for d in indexed))
    kept = [("s", d) for d, a in enumerate(per_dim) if a is None]
    joint = [("b", k) for k in range(len(broadcast))]
    if indexed == list(range(indexed[0], indexed[-1] + 1)):
        dims = [k for k in kept if k[1] < indexed[0]] + joint + [k for k in kept if k[1] > indexed[-1]]
    else:
        dims = joint + kept
    own = [st // self._data.itemsize for st in self._data.strides]
    operands = [tuple(own[d] if kind == "s" else 0 for kind, d in dims)]
    joint_at = next(n for n, (kind, _) in enumerate(dims) if kind == "b")
    for d in indexed:  # expanded to the broadcast shape, then reshaped with 1s around it (``reshape_indexer``)
        index = per_dim[d]
        strides = _expanded_strides(index.shape, [st // index.itemsize for st in index.strides], broadcast)
        strides = compute_stride(broadcast, strides, (1,) * joint_at + broadcast + (1,) * (len(dims) - joint_at
                                                                                        - len(broadcast)))
        # a size-1 dim of the index against a larger one of the result is broadcast: stride 0 (compute_strides)
        operands.append(tuple(0 if kind == "s" and data.shape[n] != 1 else strides[n]
                              for n, (kind, _) in enumerate(dims)))
    order = list(reversed(innermost_first(tuple(data.shape), operands)))
    return row_major(data) if order == sorted(order) else relaid(np, data, order)


def _index_put_impl_(self, indices, values, accumulate=False, unsafe=False):
    """Write ``values`` where ``indices`` point. One value and one mask is ``masked_fill_`` (no dtype check:
    the value is converted); anything else checks, in PyTorch's order, the indices, that ``values``
    broadcasts to what they select, and that its dtype is ``self``'s."""
    if len(indices) > self._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim} (got {len(indices)})")
    mask = None if accumulate else _mask_to_fill(self, indices, values)
    if mask is not None:
        return masked_fill_(self, mask, values.item())
    for other in (values, *indices):  # before anything about the indices is checked
        assert_no_overlap(self, other)
    _check_indices(self, indices)
    key = _index_key_of(self, indices)
    data = self._data
    if not accumulate:
        _check_put_shape_and_dtype(self, tuple(data[key].shape), values)
    if accumulate and hasattr(data, "__array__") and type(data).__module__ == "numpy":
        np.add.at(data, key, values._data)
    elif accumulate and type(data).__module__.startswith("cupy"):
        import cupyx  # CuPy is imported only when a CUDA tensor exists

        cupyx.scatter_add(data, key, values._data)
    elif accumulate:
        data[key] = data[key] + values._data
    else:
        data[key] = values._data
    return self


def index_put_(self, indices, values, accumulate=False):
    return _index_put_impl_(self, indices, values, accumulate, False)


def index_put(self, indices, values, accumulate=False):
    return _index_put_impl_(clone(self), indices, values, accumulate, False)


def _mask_to_fill(self, indices, values):
    """``canDispatchToMaskedFill``: one value on the CPU and a single bool (or uint8) mask among the indices
    become ``masked_fill_`` with the mask's dimensions lined up with the ones it indexes."""
    if values._data.size != 1 or values._device.type != "cpu":
        return None
    masks = [i for i in indices if i is not None]
    if len(masks) != 1 or masks[0]._dtype not in (st.bool_, st.uint8) or masks[0]._device != self._device:
        return None
    _check_mask_shapes(self, indices)
    mask, covered = masks[0], sum(1 if i is None else i._data.ndim for i in indices)
    return wrap(mask, mask._data.reshape(tuple(mask._data.shape) + (1,) * (self._data.ndim - covered)))


def _check_put_shape_and_dtype(self, selected_shape, values) -> None:
    """``make_index_put_iterator``'s two checks."""
    value_shape = tuple(values._data.shape)
    fits = len(value_shape) <= len(selected_shape) and all(
        v in (1, s) for v, s in zip(value_shape[::-1], selected_shape[::-1]))
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_listed(value_shape)} cannot be broadcast to "
                           f"indexing result of shape {_listed(selected_shape)}")
    if values._dtype is not self._dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{self._dtype.c10_name} for the destination and {values._dtype.c10_name} for the source.")


def _expanded_strides(shape, strides, target) -> list:
    """``inferExpandGeometry``'s strides (a new leading dim continues the one after it; a stretched one is 0)."""
    out = [0] * len(target)
    for i in range(len(target) - 1, -1, -1):
        d = i - (len(target) - len(shape))
        size = shape[d] if d >= 0 else 1
        stride = strides[d] if d >= 0 else (target[i + 1] * out[i + 1] if i + 1 < len(target) else 1)
        out[i] = 0 if size != target[i] else stride
    return out


def _index_key_of(self, indices):
    """The key NumPy indexes with; on an empty tensor (where nothing is read or written, and PyTorch checks no
    bound) each integer index is clipped into its dim, so that NumPy's own bound check stays quiet."""
    key = _index_key(indices)
    if self._data.size:
        return key
    clipped, dim = [], 0
    for i, k in zip(indices, key):
        size = self._data.shape[dim] if dim < self._data.ndim else 1
        if i is not None and not _is_mask(i) and size:
            k = xp_of(i).clip(k, -size, size - 1)
        clipped.append(k)
        dim += i._data.ndim if i is not None and _is_mask(i) else 1
    return tuple(clipped)


def _index_key(indices):
    return tuple(slice(None) if i is None else _as_key(i) for i in indices)


def _as_key(i):
    if i._dtype is not st.uint8:
        return i._data
    warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
                  "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)",
                  UserWarning, stacklevel=6)
    return xp_of(i).astype(i._data, xp_of(i).bool)


def _check_indices(self, indices) -> None:
    """PyTorch's checks, in its order: index dtypes and mask shapes (``expandTensors``), then that the
    indices broadcast together, then each index's bound (the index kernel); never NumPy's "axis" text."""
    for i in indices:
        if i is not None and i._dtype not in (st.int64, st.int32, st.bool_, st.uint8):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    _check_mask_shapes(self, indices)
    expanded = _expanded_indices(self, indices)
    _check_broadcast(expanded)
    if self._data.size == 0:  # nothing to index: no index may be used (unless the result is empty too)
        if _selected_numel(self, indices, expanded):
            raise IndexError("index is out of bounds for dimension with size 0")
        return
    _check_bounds(expanded)


def _is_mask(i) -> bool:
    return i._dtype is st.bool_ or i._dtype is st.uint8


def _check_mask_shapes(self, indices) -> None:
    dim, shape = 0, tuple(self._data.shape)
    for i in indices:
        if i is not None and _is_mask(i):
            mask_shape = tuple(i._data.shape)
            for k, size in enumerate(mask_shape):
                if size != shape[dim + k]:
                    raise IndexError(f"The shape of the mask {_listed(mask_shape)} at index {k} does not match the "
                                     f"shape of the indexed tensor {_listed(shape)} at index {dim + k}")
        dim += 1 if i is None or not _is_mask(i) else i._data.ndim


def _expanded_indices(self, indices) -> list[tuple]:
    """``(index array, size of the dimension it indexes, namespace)`` for each index, a mask becoming one per dimension
    it covers (the positions of its True elements, as ``nonzero`` gives them)."""
    expanded, dim = [], 0
    for i in indices:
        if i is None:
            dim += 1
        elif _is_mask(i):
            positions = xp_of(i).nonzero(i._data) if i._data.ndim else ()
            expanded += [(p, self._data.shape[dim + k], xp_of(i)) for k, p in enumerate(positions)]
            dim += i._data.ndim
        else:
            expanded.append((i._data, self._data.shape[dim], xp_of(i)))
            dim += 1
    return expanded


def _check_broadcast(expanded) -> None:
    shapes = [tuple(a.shape) for a, _, _ in expanded]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(_listed(s) for s in shapes)) from None


def _selected_numel(self, indices, expanded) -> int:
    """How many elements ``self[indices]`` has: the indices' broadcast shape times the dims they leave alone."""
    covered = sum(1 if i is None or not _is_mask(i) else i._data.ndim for i in indices)
    kept = [n for i, n in zip(indices, self._data.shape) if i is None] + list(self._data.shape[covered:])
    total = math.prod(np.broadcast_shapes(*(tuple(a.shape) for a, _, _ in expanded))) if expanded else 1
    return total * math.prod(kept)


def _check_bounds(expanded) -> None:
    """The first out-of-range index in the kernel's order (element by element, index by index); its
    dimension is its position among the (expanded) index tensors."""
    if not any(_any_out_of_range(xp, a, size) for a, size, xp in expanded):
        return
    arrays = np.broadcast_arrays(*(to_numpy(a) for a, _, _ in expanded))
    for position in range(arrays[0].size):
        for j, (array, (_, size, _)) in enumerate(zip(arrays, expanded)):
            value = int(array.flat[position])
            if not -size <= value < size:
                raise IndexError(f"index {value} is out of bounds for dimension {j} with size {size}")


def _any_out_of_range(xp, array, size: int) -> bool:
    return bool(xp.any((array < -size) | (array >= size)))


def _listed(shape) -> str:
    return f"[{', '.join(str(s) for s in shape)}]"


# ----------------------------------------------------------------------------- masked_fill (TensorAdvancedIndexing.cpp)


def masked_fill_(self, mask, value):
    """Write ``value`` (converted to ``self``'s dtype) where the bool ``mask``, broadcast to ``self``, is true; a
    tensor value (``masked_fill_.Tensor``) must be zero-dim, and its ``item()`` is written."""
    if isinstance(value, TensorImpl):
        if value._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        value = value.item()
    if mask._dtype is not st.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_TYPE_META_NAMES[mask._dtype.name]}")
    checks.check_same_device(self, mask)
    shape = tuple(self._data.shape)
    broadcast = checks.broadcast_shapes(shape, tuple(mask._data.shape))
    if broadcast != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(broadcast)}")
    xp = xp_of(self)
    fill = xp.asarray(stored_scalar(value, self._dtype), dtype=self._data.dtype, device=self._data.device)
    self._data[...] = xp.where(xp.broadcast_to(mask._data, shape), fill, self._data)
    return self


def masked_fill(self, mask, value):
    """Out of place: ``self`` expanded to the broadcast shape with ``mask``, copied, then filled."""
    xp = xp_of(self)
    shape = checks.broadcast_shapes(tuple(self._data.shape), tuple(mask._data.shape))
    result = wrap(self, row_major_copy(xp, xp.broadcast_to(self._data, shape)))  # clone(MemoryFormat::Contiguous)
    return masked_fill_(result, mask, value)


_TYPE_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                    "uint8": "unsigned char", "bool": "bool"}


# ----------------------------------------------------------------------------- masked_select, masked_scatter
# ``masked_select`` reads, and ``masked_scatter_`` writes, the elements where a bool mask is true, in the
# row-major order of the shape ``self`` and ``mask`` broadcast to (not in ``self``'s memory order).


def masked_select(self, mask):
    if mask._dtype is not st.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    checks.check_same_device(self, mask)
    xp = xp_of(self)
    shape = checks.broadcast_shapes(tuple(mask._data.shape), tuple(self._data.shape))  # expand_outplace(mask, self)
    picked = xp.broadcast_to(self._data, shape)[xp.broadcast_to(mask._data, shape)]
    return wrap(self, row_major_copy(xp, xp.reshape(picked, (-1,))))


def masked_scatter_(self, mask, source):
    """Write ``source``'s first elements (row-major) where ``mask``, expanded to ``self``'s shape, is true."""
    if self._dtype is not source._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{self._dtype.c10_name} and {source._dtype.c10_name}")
    if mask._dtype is st.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                      "please use a mask with dtype torch.bool instead.", UserWarning, stacklevel=2)
    if mask._dtype is not st.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype.c10_name}")
    checks.check_same_device(self, mask, source)
    shape = tuple(self._data.shape)
    expanded_shape(mask, shape)  # expand's error when the mask does not expand to self
    xp = xp_of(self)
    where = xp.broadcast_to(mask._data, shape)
    count = int(xp.sum(xp.astype(where, xp.int64)))
    values = xp.reshape(source._data, (-1,))
    if count > values.shape[0]:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    self._data[where] = values[:count]
    return self


def masked_scatter(self, mask, source):
    """Out of place: ``self`` expanded with ``mask`` to their broadcast shape, copied row-major, then written."""
    xp = xp_of(self)
    shape = checks.broadcast_shapes(tuple(mask._data.shape), tuple(self._data.shape))
    result = wrap(self, row_major_copy(xp, xp.broadcast_to(self._data, shape)))
    return masked_scatter_(result, mask, source)


def masked_scatter_backward(grad_output, mask, sizes):
    """``source``'s gradient: ``grad`` where the mask is true, padded with zeros to ``source``'s size."""
    picked = masked_select(grad_output, mask)._data
    xp = xp_of(grad_output)
    missing = math.prod(sizes) - picked.shape[0]
    if missing > 0:
        picked = xp.concat([picked, zeros_array(grad_output, (missing,))])
    return wrap(grad_output, xp.reshape(picked, tuple(sizes)))


# ----------------------------------------------------------------------------- take, put_
# Both treat ``self`` as flat, in its row-major (logical) order; a negative index counts from the end.


def take(self, index):
    if index._dtype is not st.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype.c10_name}")
    checks.check_same_device(self, index)
    numel = math.prod(self._data.shape)
    positions = to_numpy(index._data)
    if numel == 0 and positions.size:
        raise IndexError("take(): tried to take from an empty tensor")
    _check_flat_bounds(positions, numel)
    xp = xp_of(self)
    flat = xp.reshape(self._data, (-1,))
    chosen = xp.asarray(positions.reshape(-1) % max(numel, 1), device=self._data.device)
    return wrap(self, row_major_copy(xp, xp.reshape(xp.take(flat, chosen), positions.shape)))


def put_(self, index, source, accumulate=False):
    """``self.flatten()[index] = source`` (or ``+=`` with ``accumulate``, repeated indices adding up)."""
    if index._dtype is not st.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index._dtype.c10_name}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{self._dtype.c10_name} and source.dtype = {source._dtype.c10_name}")
    if source._data.size != index._data.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._data.size}, index.numel() = {index._data.size}")
    checks.check_same_device(self, index, source)
    positions = to_numpy(index._data).reshape(-1)
    if positions.size == 0:
        return self
    numel = math.prod(self._data.shape)
    if numel == 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    _check_flat_bounds(positions, numel)
    on_host = type(self._data) is np.ndarray
    target = self._data if on_host else np.array(to_numpy(self._data))  # the Array API has no scatter: on the host
    where = np.unravel_index(positions % numel, target.shape)
    values = to_numpy(source._data).reshape(-1)
    if accumulate:
        np.add.at(target, where, values)
    else:
        target[where] = values  # a repeated index keeps its last value, as the CPU loop writes in order
    if not on_host:
        self._data[...] = xp_of(self).asarray(target, device=self._data.device)
    return self


def put(self, index, source, accumulate=False):
    return put_(clone(self), index, source, accumulate)  # in the input's layout (``MemoryFormat::Preserve``)


def _check_flat_bounds(positions, numel) -> None:
    """The first index out of range, in the kernel's order."""
    outside = (positions < -numel) | (positions >= numel)
    for value in positions[outside].reshape(-1)[:1]:
        if not -numel <= value < numel:
            raise IndexError(f"out of range: tried to access index {value} on a tensor of {numel} elements.")
def nonzero(self):
    """The indices of the non-zero elements, one row each, in row-major order (int64).

    PyTorch's CPU kernel writes them dim by dim, so the ``(count, ndim)`` result has strides ``(1, count)``; a
    zero-dim tensor has one element and no dims: ``(1, 0)`` or ``(0, 0)``.
    """
    xp = xp_of(self)
    data = self._data
    if data.ndim == 0:
        coords = xp.zeros((0, int(bool(to_numpy(data) != 0))), dtype=xp.int64)
    else:
        coords = xp.stack([xp.astype(c, xp.int64) for c in xp.nonzero(data)])
    if coords.shape[1] == 0 and type(coords) is np.ndarray:  # (NumPy gives an empty array row-major strides)
        return wrap(self, np.lib.stride_tricks.as_strided(coords, (0, data.ndim), (coords.itemsize, 0)), st.int64)
    return wrap(self, xp.permute_dims(coords, (1, 0)), st.int64)
