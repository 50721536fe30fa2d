"""``gather``, ``scatter``, ``scatter_add``, ``index_select``, ``index_add`` and ``index_fill``: reading and writing
along one dim.

Models ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` (the meta functions and CPU kernels of these ops),
``aten/src/ATen/native/ScatterGatherChecks.h`` (their dtype and shape checks) and
``aten/src/ATen/native/cpu/ScatterGatherKernel.cpp`` (the bound check, "index 5 is out of bounds ...").

``gather`` and ``scatter`` pair each element of ``index`` with a position of ``self``: the element's own
coordinates, its value replacing the coordinate along ``dim``. Both are computed here on flat arrays: the
positions become offsets into ``self`` flattened, so ``gather`` is one ``take`` and ``scatter`` one write
through those offsets. A zero-dim tensor counts as one element along one dim (``ensure_nonempty_dim``).
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .device import to_numpy
from .helpers import add_at, has_scatter, row_major_copy, stored_scalar, wrap, writable_data, xp_of, zeros_array
from .tensor_factories import clone, fill_
from .tensor_impl import TensorImpl

_INDEX_DTYPES = (st.int64, st.int32)


# ----------------------------------------------------------------------------- gather


def gather(self, dim, index, sparse_grad=False):
    dim = checks.wrap_dim(dim, self._data.ndim)
    if _numel(index) == 0:  # an empty index is never checked, whatever its dtype
        return wrap(self, xp_of(self).empty(tuple(index._data.shape), dtype=self._data.dtype,
                                            device=self._data.device))
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    _check_gather_shape(self, dim, index)
    _check_bounds(index, dim, _size(self, dim))
    xp = xp_of(self)
    offsets = _offsets(xp, index, dim, _sizes(self))
    flat = xp.reshape(self._data, (-1,))
    return wrap(self, xp.reshape(xp.take(flat, xp.reshape(offsets, (-1,))), tuple(index._data.shape)))


def _check_gather_shape(self, dim, index) -> None:
    if _ndim(self) != _ndim(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(_ndim(self)):
        if d != dim and _size(index, d) > _size(self, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {_listed(index)} to be no "
                               f"larger than self {_listed(self)} apart from dimension {dim}")


# ----------------------------------------------------------------------------- scatter, scatter_add


def scatter(self, dim, index, src):
    """``src`` a tensor (``scatter.src``) or a number (``scatter.value``): a copy of ``self`` written through."""
    return scatter_(_copy_of(self), dim, index, src)


def scatter_(self, dim, index, src):
    dim = _check_scatter(self, dim, index, src)
    if _numel(index) > 0:
        _write(self, dim, index, _source(self, index, src), accumulate=False)
    return self


def scatter_add(self, dim, index, src):
    return scatter_add_(_copy_of(self), dim, index, src)


def scatter_add_(self, dim, index, src):
    dim = _check_scatter(self, dim, index, src)
    if _numel(index) > 0:
        _write(self, dim, index, _source(self, index, src), accumulate=True)
    return self


def _check_scatter(self, dim, index, src) -> int:
    """``scatter_meta_impl``: the dim, then the dtypes, then the shapes, then bounds (an empty index: src's dtype)."""
    dim = checks.wrap_dim(dim, self._data.ndim)
    if _numel(index) > 0 and index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    is_tensor = hasattr(src, "_dtype")
    if is_tensor and src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if _numel(index) == 0:
        return dim
    if _ndim(self) != _ndim(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(d != dim and _size(index, d) > _size(self, d) for d in range(_ndim(self)))
    if not wrong and is_tensor:
        wrong = any(_size(index, d) > _size(src, d) for d in range(_ndim(self)))
    if wrong:
        message = (f"Expected index {_listed(index)} to be no larger than self {_listed(self)} apart from "
                   f"dimension {dim}")
        raise RuntimeError(message + (f" and to be no larger size than src {_listed(src)}" if is_tensor else ""))
    _check_bounds(index, dim, _size(self, dim))
    return dim


def _source(self, index, src):
    """The values written, one per element of ``index``: ``src`` cut to the index's shape, or the number."""
    xp = xp_of(self)
    shape = _sizes(index)
    if not hasattr(src, "_dtype"):
        return xp.full(shape, stored_scalar(src, self._dtype), dtype=self._data.dtype, device=self._data.device)
    data = xp.reshape(src._data, _sizes(src))
    return data[tuple(slice(0, size) for size in shape)]


def _write(self, dim, index, values, accumulate: bool) -> None:
    xp = xp_of(self)
    offsets = xp.reshape(_offsets(xp, index, dim, _sizes(self)), (-1,))
    values = xp.reshape(values, (-1,))
    if has_scatter(self._data):
        in_place = self._data.flags.c_contiguous  # then the flat array is a view: writes land in self
        flat = self._data.reshape(-1) if in_place else self._data.flatten()
        if accumulate:
            add_at(flat, offsets, values)
        else:
            flat[offsets] = values
        if in_place:
            return
    else:
        flat = _write_generic(xp, xp.reshape(self._data, (-1,)), offsets, values, accumulate)
    self._data[...] = xp.reshape(flat, tuple(self._data.shape))


def _write_generic(xp, flat, offsets, values, accumulate: bool):
    """The same write with Array-API calls only (no scatter there): a one-hot table of which element lands where
    (memory grows as elements x positions: only for libraries without a scatter, such as array-api-strict).

    Adding sums each target's column; setting keeps the last element that lands on a target, as the CPU
    kernel's loop does.
    """
    hits = xp.reshape(offsets, (1, -1)) == xp.reshape(xp.arange(flat.shape[0], device=flat.device), (-1, 1))
    if accumulate:
        zero = xp.zeros((), dtype=values.dtype, device=flat.device)
        added = xp.sum(xp.where(hits, xp.reshape(values, (1, -1)), zero), axis=1, dtype=values.dtype)
        return flat + added
    order = xp.reshape(xp.arange(1, values.shape[0] + 1, device=flat.device), (1, -1))
    last = xp.max(xp.where(hits, order, xp.zeros_like(order)), axis=1)
    picked = xp.take(values, xp.clip(last - 1, 0, None))
    return xp.where(last > 0, picked, flat)


# ----------------------------------------------------------------------------- index_select, index_add


def index_select(self, dim, index):
    dim = checks.wrap_dim(dim, self._data.ndim)
    n = _numel(index)
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self._data.ndim == 0 and n != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    xp = xp_of(self)
    positions = xp.reshape(index._data, (-1,))
    if _any_outside(xp, positions, _size(self, dim)):
        raise IndexError("index out of range in self")
    if self._data.ndim == 0:
        return wrap(self, xp.reshape(xp.take(xp.reshape(self._data, (1,)), positions), ()))
    return wrap(self, xp.take(self._data, positions, axis=dim))


def index_add(self, dim, index, source, alpha=1):
    return index_add_(_copy_of(self), dim, index, source, alpha)


def index_add_(self, dim, index, source, alpha=1):
    """``self.select(dim, index[i]) += alpha * source.select(dim, i)``: a ``scatter_add`` with the index spread
    along ``source``'s other dims."""
    dim = checks.wrap_dim(dim, self._data.ndim)
    check_index_func(self, dim, index, source, "index_add")
    n = _numel(index)
    xp = xp_of(self)
    positions = xp.reshape(index._data, (-1,))
    if self._data.ndim > 1 and index._dtype is st.int64:  # the CPU kernel's strided path checks as scatter does
        _check_bounds(index, dim, _size(self, dim))
    elif _any_outside(xp, positions, _size(self, dim)):
        raise IndexError("index out of range in self")
    if n == 0:
        return self
    values = xp.reshape(source._data, _sizes(source))
    if alpha != 1:
        values = values * xp.asarray(stored_scalar(alpha, self._dtype), dtype=values.dtype, device=values.device)
    along = [1] * len(_sizes(source))
    along[dim] = n
    spread = xp.broadcast_to(xp.reshape(positions, tuple(along)), _sizes(source))
    _write(self, dim, wrap(index, spread), values, accumulate=True)
    return self


def check_index_func(self, dim, index, source, name: str) -> None:
    """``index_func_meta_impl``'s checks in its order: index_add, index_reduce."""
    n = _numel(index)
    if index._data.ndim > 1:
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: {index._data.ndim} with type: "
                         f"{index._dtype.c10_name} and size: {_listed(index)}")
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"{name}_(): Expected dtype int32/int64 for index but got: {index._dtype.c10_name}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"{name}_(): self ({self._dtype.c10_name}) and source ({source._dtype.c10_name}) "
                           "must have the same scalar type")
    if not (dim == 0 or dim < source._data.ndim):
        raise RuntimeError(f"{name}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{source._data.ndim}")
    if n != _size(source, dim):
        raise RuntimeError(f"{name}_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({_size(source, dim)}), for dim: {dim}")
    _check_same_shape_apart_from(self, source, dim)


def _check_same_shape_apart_from(self, source, dim) -> None:
    self_sizes, source_sizes = list(self._data.shape), list(source._data.shape)
    if self_sizes and source_sizes:
        del self_sizes[dim], source_sizes[dim]
    if self_sizes != source_sizes:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                           f"self.shape = {_listed(self)} source.shape = {_listed(source)}")


# ----------------------------------------------------------------------------- shared


def _offsets(xp, index, dim, self_sizes):
    """Each index element's offset into ``self`` flattened: its coordinates, ``dim``'s taken from its value."""
    sizes = _sizes(index)
    positions = xp.reshape(index._data, sizes)
    positions = xp.astype(positions, xp.int64) if index._dtype is not st.int64 else positions
    offsets = xp.zeros(sizes, dtype=xp.int64, device=positions.device)
    stride = 1
    for d in reversed(range(len(sizes))):
        if d == dim:
            coordinate = positions
        else:
            shape = [1] * len(sizes)
            shape[d] = sizes[d]
            coordinate = xp.reshape(xp.arange(sizes[d], dtype=xp.int64, device=positions.device), tuple(shape))
        offsets = offsets + coordinate * stride
        stride *= self_sizes[d]
    return offsets


def _check_bounds(index, dim, size) -> None:
    """The CPU kernel's check: the first index outside ``[0, size)``, in row-major order."""
    xp = xp_of(index)
    if not _any_outside(xp, index._data, size):
        return
    values = to_numpy(index._data).reshape(-1)
    bad = values[(values < 0) | (values >= size)][0]
    raise RuntimeError(f"index {int(bad)} is out of bounds for dimension {dim} with size {size}")


def _any_outside(xp, data, size) -> bool:
    return bool(xp.any((data < 0) | (data >= size)))


def _copy_of(self):
    """The functional op's output: allocated contiguous (``set_output_raw_strided`` with no strides), then filled."""
    return wrap(self, row_major_copy(xp_of(self), self._data))


def _ndim(t) -> int:
    return max(t._data.ndim, 1)


def _sizes(t) -> tuple:
    return tuple(t._data.shape) if t._data.ndim else (1,)


def _size(t, d) -> int:
    """``ensure_nonempty_size``: 1 for a zero-dim tensor, else ``t.size(d)`` with its dim check."""
    if t._data.ndim == 0:
        return 1
    return t._data.shape[checks.wrap_dim(d, t._data.ndim)]


def _numel(t) -> int:
    return checks.numel(t._data.shape)


def _listed(t) -> str:
    return "[" + ", ".join(str(s) for s in t._data.shape) + "]"


__all__ = ["gather", "index_add", "index_add_", "index_select", "scatter", "scatter_", "scatter_add", "scatter_add_"]


# ----------------------------------------------------------------------------- index_fill


def index_fill(self, dim, index, value):
    return index_fill_(clone(self), dim, index, value)  # in the input's layout (``MemoryFormat::Preserve``)


def index_fill_(self, dim, index, value):
    """``self.select(dim, i).fill_(value)`` for each ``i`` of ``index`` (a value tensor must be 0-dim: its item)."""
    if isinstance(value, TensorImpl) and value._data.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    if index._dtype is not st.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if not self._dtype.is_complex and (isinstance(value, complex) or getattr(value, "_dtype", st.float64).is_complex):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    ndim = max(self._data.ndim, 1)  # a 0-dim self counts as one element along one dim
    dim = checks.wrap_dim(dim, ndim)
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    xp = xp_of(self)
    size = self._data.shape[dim] if self._data.ndim else 1
    positions = to_numpy(index._data).reshape(-1)
    for i in positions:
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    one = fill_(wrap(self, zeros_array(self, ())), to_numpy(value._data).item() if isinstance(value, TensorImpl)
                else value)
    target = writable_data(self)
    chosen = xp.reshape(xp.asarray(positions % max(size, 1), device=target.device), (-1, 1))
    hit = xp.any(chosen == xp.reshape(xp.arange(size, device=target.device), (1, -1)), axis=0)
    along = tuple(size if d == dim else 1 for d in range(self._data.ndim))
    target[...] = xp.where(xp.reshape(hit, along), one._data, target)
    return self


# ----------------------------------------------------------------------------- index_copy
# ``self.select(dim, index[i]) = source.select(dim, i)``, with the checks of index_copy's meta function in its order.


def index_copy(self, dim, index, source):
    return index_copy_(clone(self), dim, index, source)


def index_copy_(self, dim, index, source):
    dim = checks.wrap_dim(dim, max(self._data.ndim, 1))
    if index._data.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index._data.ndim})")
    n = _numel(index)
    if source._data.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source._data.ndim != self._data.ndim and source._data.ndim != 0 and self._data.ndim != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source._data.ndim}), destination dimensionality "
                         f"({self._data.ndim})")
    if index._dtype is not st.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index._dtype.c10_name}")
    if self._dtype is not source._dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{self._dtype.c10_name} and (source) {source._dtype.c10_name}")
    self_slice = [s for d, s in enumerate(self._data.shape) if d != dim]
    source_slice = [s for d, s in enumerate(source._data.shape) if d != dim]
    if self_slice != source_slice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {_shape_text(self_slice)} at dimension {dim} and source slice shape: "
                           f"{_shape_text(source_slice)} at dimension 0.")
    if source._data.ndim and n != source._data.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source._data.shape[dim]})")
    size = self._data.shape[dim] if self._data.ndim else 1
    positions = to_numpy(index._data).reshape(-1)
    for i in positions:
        if not 0 <= i < size:
            raise IndexError(f"index_copy_(): index {i} is out of bounds for dimension {dim} with size {size}")
    target = np.moveaxis(writable_data(self), dim, 0) if self._data.ndim else writable_data(self).reshape(1)
    values = np.moveaxis(to_numpy(source._data), dim, 0) if source._data.ndim else to_numpy(source._data).reshape(1)
    for i, p in enumerate(positions):
        target[p] = values[i]
    return self


def _shape_text(sizes) -> str:
    """A ``std::vector`` streamed by c10's ``operator<<``: ``2 3``."""
    return " ".join(str(s) for s in sizes)
