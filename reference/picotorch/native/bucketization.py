"""``searchsorted`` and ``bucketize``: where values would go in a sorted sequence.

Models ``aten/src/ATen/native/Bucketization.cpp`` and ``BucketizationUtils.h``: the argument checks in PyTorch's
order and texts, then per value a binary search of its row of boundaries (the last dim of ``sorted_sequence``,
or the whole of a 1-D one), ``lower_bound`` (``!(mid >= value)`` moves right) or ``upper_bound`` with ``right``
(``!(mid > value)``), so a NaN lands where those comparisons put it. Both are compared in their promoted dtype.
The result is a new contiguous int64 (``out_int32``: int32) tensor shaped like the values.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .device import to_numpy
from .helpers import as_operand, result_type, wrap


def searchsorted(sorted_sequence, self, out_int32=False, right=False, side=None, sorter=None):
    self = as_operand(self)
    _check(sorted_sequence, self, out_int32, right, side, sorter)
    right = right or side == "right"
    if sorted_sequence._dtype is st.bool_ or self._dtype is st.bool_:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    dtype = result_type(sorted_sequence, self)
    if dtype.is_complex:
        raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for '{dtype.c10_name}'")
    common = st.to_numpy_dtype(dtype)
    boundaries = to_numpy(sorted_sequence._data).astype(common)
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, to_numpy(sorter._data), axis=-1)
    values = to_numpy(self._data).astype(common)
    if boundaries.shape[-1] == 0:
        found = np.zeros(values.shape, dtype=np.int64)
    else:
        rows = boundaries.reshape(-1, boundaries.shape[-1])
        found = _binary_search(rows, values.reshape(rows.shape[0] if sorted_sequence._data.ndim > 1 else 1, -1),
                               right)
    dtype = st.int32 if out_int32 else st.int64
    return wrap(self, found.reshape(values.shape).astype(dtype._numpy, order="C"), dtype)


def _binary_search(rows, values, right):
    """``cus_lower_bound`` / ``cus_upper_bound`` on every value at once: ``rows[r]`` is searched for
    ``values[r, :]`` (one row for a 1-D sequence)."""
    start = np.zeros(values.shape, dtype=np.int64)
    end = np.full(values.shape, rows.shape[-1], dtype=np.int64)
    row = np.broadcast_to(np.arange(rows.shape[0])[:, None], values.shape)
    with np.errstate(invalid="ignore"):
        while (active := start < end).any():
            mid = start + ((end - start) >> 1)
            middle = rows[row, np.minimum(mid, rows.shape[-1] - 1)]
            goes_right = ~(middle > values) if right else ~(middle >= values)
            start = np.where(active & goes_right, mid + 1, start)
            end = np.where(active & ~goes_right, mid, end)
    return start


def _check(boundaries, values, out_int32, right, side, sorter):
    """``searchsorted_pre_check``, in its order."""
    name = "torch.searchsorted():"
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"{name} side can only be 'left' or 'right' but got {side}")
    if side == "left" and right:
        raise RuntimeError(f"{name} side and right can't be set to opposites, got side of {side} while right was "
                           f"{right}")
    if sorter is not None:
        if sorter._dtype is not st.int64:
            raise RuntimeError(f"{name} sorter must be a tensor of long dtype but got dtype {sorter._dtype.c10_name}")
        if tuple(sorter._data.shape) != tuple(boundaries._data.shape):
            raise RuntimeError(f"{name} boundary and sorter must have the same size, but got boundary tensor "
                               f"{list(boundaries._data.shape)}and got sorter tensor {list(sorter._data.shape)}")
    if boundaries._data.ndim == 0:
        raise RuntimeError(f"{name} boundaries tensor should have positive dimension, but got 0 dimension")
    if values._data.ndim == 0 and boundaries._data.ndim != 1:
        raise RuntimeError(f"{name} input value can be a scalar only when boundaries tensor dimension is 1, but we "
                           f"got boundaries tensor dim({boundaries._data.ndim}) and input value's dim(0) numel(1)")
    if boundaries._data.ndim != 1 and (boundaries._data.ndim != values._data.ndim or tuple(
            boundaries._data.shape[:-1]) != tuple(values._data.shape[:-1])):
        raise RuntimeError(f"{name} boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                           f"tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(boundaries._data.shape)} and input value tensor {list(values._data.shape)}")
    if sorter is not None and sorter._data.size and not (
            (to_numpy(sorter._data) >= 0) & (to_numpy(sorter._data) < boundaries._data.shape[-1])).all():
        raise RuntimeError(f"{name} sorter index out of range")


def bucketize(self, boundaries, out_int32=False, right=False):
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, self, out_int32, right)
