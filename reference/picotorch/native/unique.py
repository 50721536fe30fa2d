"""``_unique2``, ``unique_dim`` and ``unique_consecutive``: the distinct values of a tensor (or its distinct slices
along a dim), where each element went, and how often each value occurs.

Models ``aten/src/ATen/native/Unique.cpp`` on CPU: its ``unique`` always sorts (``sorted=False`` gives the same
sorted result), NaN equals nothing, so every NaN is a value of its own, last; among equal values (``-0.`` and
``0.``) the first in a stable sort stands for all. Outputs not asked for are empty int64 tensors. The slices of
``unique_dim`` are ordered lexicographically and built along dim 0, then moved back into place, so their strides
are those of a permuted contiguous tensor.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .device import to_numpy
from .helpers import wrap


def _tensor(like, array, dtype=None):
    """A tensor on ``like``'s device around the NumPy ``array`` (as it is: its strides are kept)."""
    return wrap(like, array, dtype)


def _index(like, array):
    return _tensor(like, np.asarray(array, dtype=np.int64), st.int64)


def _empty_index(like):
    return _index(like, np.zeros(0, dtype=np.int64))


def _check_dtype(self, kernel) -> None:
    if self._dtype.is_complex:  # unique sorts, and complex numbers have no order
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")


def _unique2(self, sorted=True, return_inverse=False, return_counts=False):
    _check_dtype(self, "unique")
    flat = to_numpy(self._data).reshape(-1)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = _run_starts(ordered != np.roll(ordered, 1) if ordered.size else np.zeros(0, bool))
    values = _tensor(self, np.ascontiguousarray(ordered[starts]))
    return values, *_inverse_and_counts(self, order, starts, flat.size, return_inverse, return_counts,
                                        tuple(self._data.shape))


def _run_starts(differs):
    """Where each run of equal values begins in a sorted row (``differs[i]``: element i is not element i-1)."""
    if differs.size:
        differs[0] = True
    return np.flatnonzero(differs)


def _inverse_and_counts(like, order, starts, size, return_inverse, return_counts, inverse_shape):
    group = np.cumsum(np.isin(np.arange(size), starts)) - 1  # the run each sorted position is in
    inverse = _empty_index(like)
    if return_inverse:
        positions = np.empty(size, dtype=np.int64)
        positions[order] = group
        inverse = _index(like, positions.reshape(inverse_shape))
    counts = _index(like, np.diff(np.append(starts, size))) if return_counts else _empty_index(like)
    return inverse, counts


def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        return _unique_slices(self, dim, False, return_inverse, return_counts, consecutive=True)
    _check_dtype(self, "unique")
    flat = to_numpy(self._data).reshape(-1)
    starts = _run_starts(flat != np.roll(flat, 1) if flat.size else np.zeros(0, bool))
    values = _tensor(self, np.ascontiguousarray(flat[starts]))
    return values, *_inverse_and_counts(self, np.arange(flat.size), starts, flat.size, return_inverse,
                                        return_counts, tuple(self._data.shape))


def unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False):
    return _unique_slices(self, dim, sorted, return_inverse, return_counts, consecutive=False)


def _unique_slices(self, dim, sorted, return_inverse, return_counts, consecutive):
    _check_dtype(self, "unique_dim")
    axis = checks.wrap_dim(dim, self._data.ndim, wrap_scalar=False)
    data = to_numpy(self._data)
    if data.size == 0:
        if any(size == 0 for d, size in enumerate(data.shape) if d != axis):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        return _tensor(self, np.ascontiguousarray(data)), _empty_index(self), _empty_index(self)
    moved = np.moveaxis(data, axis, 0)
    rows = np.ascontiguousarray(moved).reshape(moved.shape[0], -1)
    if consecutive:
        order = np.arange(rows.shape[0])
    else:
        order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
    ordered = rows[order]
    differs = (ordered != np.roll(ordered, 1, axis=0)).any(axis=1)
    starts = _run_starts(differs)
    kept = np.ascontiguousarray(ordered[starts]).reshape((starts.size,) + moved.shape[1:])
    values = _tensor(self, np.moveaxis(kept, 0, axis))
    return values, *_inverse_and_counts(self, order, starts, rows.shape[0], return_inverse, return_counts,
                                        (rows.shape[0],))
