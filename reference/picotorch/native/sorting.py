"""``sort``, ``argsort`` and ``topk``: the values along one dim in order, with the index each came from.

Models ``aten/src/ATen/native/Sorting.cpp`` and ``aten/src/ATen/native/TensorCompare.cpp`` (``sort``,
``sort.stable``, ``argsort``, ``argsort.stable``, ``topk`` and ``topk``'s meta function with its check of
``k``). NaN counts as larger than every number: last in an ascending sort, first in a descending one.

Ties: the sort here is always stable (equal values keep their order, in both directions), which is what
PyTorch promises for ``stable=True``. Without it PyTorch's CPU sort is x86-simd-sort's quicksort (float,
double, int, long) or ``std::sort``, and ``topk`` a ``std::partial_sort``/``nth_element``: tied values may
come in another order there (values always agree, indices of tied values may not), and ``topk(sorted=False)``
returns the k values in an order of its own, where picotorch returns them sorted.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from . import checks
from .dispatcher import ops
from .helpers import is_reduced_float, wrap, xp_of


def sort(self, dim=-1, descending=False):
    return _sorted(self, dim, descending)


def sort_stable(self, stable=None, dim=-1, descending=False):
    return _sorted(self, dim, descending)


def topk(self, k, dim=-1, largest=True, sorted=True):
    axis = checks.wrap_dim(dim, self._data.ndim)
    size = self._data.shape[axis] if self._data.ndim > 0 else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if self._dtype is st.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    values, indices = _sorted(self, axis, largest)
    if self._data.ndim == 0:
        return values, indices
    xp = xp_of(self)
    first_k = xp.arange(k, device=self._data.device)
    return (wrap(self, xp.take(values._data, first_k, axis=axis)),
            wrap(indices, xp.take(indices._data, first_k, axis=axis)))


def _sorted(self, dim, descending):
    """(values, int64 indices) of a stable sort along ``dim``; a zero-dim tensor is itself, at index 0."""
    xp = xp_of(self)
    axis = checks.wrap_dim(dim, self._data.ndim)
    if self._data.ndim == 0:
        return (wrap(self, xp.asarray(self._data, copy=True)),
                wrap(self, xp.zeros((), dtype=xp.int64, device=self._data.device), st.int64))
    keys = self._data
    if is_reduced_float(self._dtype):  # bfloat16 (ml_dtypes) sorts NaNs wrongly; float32 holds every value exactly
        keys = xp.astype(keys, xp.float32)
    order = xp.argsort(keys, axis=axis, descending=bool(descending), stable=True)
    values = xp.take_along_axis(self._data, order, axis=axis)
    return wrap(self, values), wrap(self, xp.astype(order, xp.int64), st.int64)


# ----------------------------------------------------------------------------- argsort (composite)
# ``argsort`` is ``sort``'s indices (``Sorting.cpp``): it records no node of its own, and indices have no grad.


def argsort(self, dim=-1, descending=False):
    return ops.sort(self, dim, descending)[1]


def argsort_stable(self, stable, dim=-1, descending=False):
    return ops.sort(self, stable=stable, dim=dim, descending=descending)[1]
