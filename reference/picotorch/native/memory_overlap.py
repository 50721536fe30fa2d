"""Whether an op may write where it reads: ``aten/src/ATen/MemoryOverlap.cpp`` (``get_overlap_status``,
``assert_no_partial_overlap``).

An in-place op or ``copy_`` reads its inputs while it writes ``self``. If an input *is* ``self`` (the
same elements in the same order: ``x.mul_(x)``) each element is read before it is written, and the result
is well defined. If an input covers only part of ``self``'s memory, or the same memory in another order
(``x[1:].add_(x[:-1])``, ``x.t().copy_(x)``), the result would depend on the order the kernel visits the
elements: PyTorch refuses, before anything else is checked. picotorch's kernels compute a whole result
first and then write it, so they would give an answer; they refuse as PyTorch does.

When a tensor is not dense and non-overlapping (``x[::2]``) PyTorch calls the question too hard and lets
the op run; so does picotorch.
"""

from __future__ import annotations

import numpy as np

from .helpers import strides_of
from .layout import non_overlapping_and_dense

__all__ = ["INTERNAL_OVERLAP_MESSAGE", "PARTIAL_OVERLAP_MESSAGE", "assert_no_overlap", "assert_no_partial_overlap"]

# ``assert_no_internal_overlap``: an output whose elements repeat (a stride of 0)
INTERNAL_OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                            "memory location. Please clone() the tensor before performing the operation.")
PARTIAL_OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.")


def assert_no_partial_overlap(out, other) -> None:
    """Raise PyTorch's error when ``other`` (a tensor ``out``'s op reads) partly overlaps ``out``."""
    a, b = out._data, getattr(other, "_data", None)
    if a is b or type(a) is not np.ndarray or type(b) is not np.ndarray or not np.may_share_memory(a, b):
        return  # the usual case costs one bounds test
    if _partial(out, other):
        raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)


def assert_no_overlap(out, other) -> None:
    """``assert_no_overlap``: ``other`` may not share any element with ``out``, not even all of them in the
    same order (``index_put_``'s values and indices)."""
    a, b = out._data, getattr(other, "_data", None)
    if type(a) is not np.ndarray or type(b) is not np.ndarray or not np.may_share_memory(a, b):
        return
    if a.size and b.size and _dense(a) and _dense(b):
        (a_begin, a_end), (b_begin, b_end) = _byte_bounds(a), _byte_bounds(b)
        if a_begin < b_end and b_begin < a_end:
            raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)


def _partial(out, other) -> bool:
    a, b = out._data, other._data
    if a.size == 0 or b.size == 0:
        return False
    if not (_dense(a) and _dense(b)):
        return False  # too hard to tell: allowed
    (a_begin, a_end), (b_begin, b_end) = _byte_bounds(a), _byte_bounds(b)
    if a_begin == b_begin and a_end == b_end:  # the same memory: fine only in the same order
        return strides_of(out) != strides_of(other)
    return a_begin < b_end and b_begin < a_end


# NumPy 2 moved it (reading the old name raises there)
_byte_bounds = getattr(getattr(np.lib, "array_utils", None), "byte_bounds", None) or np.byte_bounds


def _dense(array: np.ndarray) -> bool:
    strides = [s // array.itemsize for s in array.strides]
    return all(s >= 0 for s in strides) and non_overlapping_and_dense(array.shape, strides)
