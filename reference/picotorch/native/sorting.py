"""``sort``, ``argsort`` and ``topk``: the values along one dim in order, with the index each came from.

Models ``aten/src/ATen/native/Sorting.cpp``, ``cpu/SortingKernel.cpp`` and ``TopKImpl.h`` (``sort``,
``sort.stable``, ``argsort``, ``argsort.stable``, ``topk`` and its check of ``k``). NaN counts as larger than
every number: last in an ascending sort, first in a descending one.

Ties: with ``stable=True`` equal values keep their order, in both directions. Without it PyTorch's CPU sort is
``std::sort`` on (value, index) pairs, followed here step for step (``stl_algorithms.py``), except for a 1-D
integer tensor of 32768 values or more sorted ascending, which FBGEMM's radix sort sorts stably. (A build with
x86-simd-sort would sort float, double, int and long otherwise; PyTorch 2.13's CPU wheel does not use it.)
``topk`` is libstdc++'s ``std::partial_sort`` (k at most 1/64 of the dim) or ``std::nth_element`` then
``std::sort`` of the first k-1, also followed step for step wherever the result depends on it: ties, and the
order of ``sorted=False``. Rows without ties take NumPy's sort, whose result is then the same.
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from . import stl_algorithms as stl
from .device import to_numpy
from .dispatcher import ops
from .helpers import is_reduced_float, wrap, xp_of
from .tensor_factories import _strided_like


def sort(self, dim=-1, descending=False):
    return _sorted(self, dim, descending, stable=False)


def sort_stable(self, stable=None, dim=-1, descending=False):
    return _sorted(self, dim, descending, stable=bool(stable))


def topk(self, k, dim=-1, largest=True, sorted=True):
    axis = checks.wrap_dim(dim, self._data.ndim)
    size = self._data.shape[axis] if self._data.ndim > 0 else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if self._dtype is st.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if self._dtype.is_complex:  # Sorting.cpp's text, with its leading space
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    if self._data.ndim == 0:
        return _sorted(self, axis, largest)
    xp = xp_of(self)
    rows = np.moveaxis(to_numpy(self._data), axis, -1)
    if self._dtype.is_floating_point:
        rows = rows.astype(np.float64)  # exact for every float dtype; bfloat16 compares as float, as in PyTorch
    if (sorted or k * 64 <= size) and _all_distinct(rows):  # then any correct algorithm gives PyTorch's result
        values, indices = _sorted(self, axis, largest)
        first_k = xp.arange(k, device=self._data.device)
        return (wrap(self, xp.take(values._data, first_k, axis=axis)),
                wrap(indices, xp.take(indices._data, first_k, axis=axis)))
    order = np.moveaxis(_topk_rows(rows.reshape(-1, size), k, largest, sorted).reshape(rows.shape[:-1] + (k,)),
                        -1, axis)
    indices = xp.asarray(order, device=self._data.device)
    return wrap(self, xp.take_along_axis(self._data, indices, axis=axis)), wrap(self, indices, st.int64)


def _all_distinct(rows: np.ndarray) -> bool:
    """No two equal values in a row (two NaNs count as equal, as topk's comparison treats them)."""
    if rows.shape[-1] < 2 or rows.size == 0:
        return True
    ordered = np.sort(rows, axis=-1)
    return not ((ordered[..., 1:] == ordered[..., :-1]) | np.isnan(ordered[..., 1:]) & np.isnan(ordered[..., :-1])
                ).any() if rows.dtype.kind == "f" else not (ordered[..., 1:] == ordered[..., :-1]).any()


def _topk_rows(rows: np.ndarray, k: int, largest: bool, sorted: bool) -> np.ndarray:
    """TopKImpl.h on each row: (value, index) pairs partially sorted for small k, else the k-th put in place
    and the ones before it sorted (when ``sorted``), with NaN above every number."""
    less = _nan_first_greater if largest else _nan_last_less
    size = rows.shape[-1]
    order = np.empty((rows.shape[0], k), dtype=np.int64)
    if k == 0:
        return order
    for r, row in enumerate(rows.tolist()):
        queue = list(zip(row, range(size)))
        if k * 64 <= size:
            stl.partial_sort(queue, 0, k, size, less)
        else:
            stl.nth_element(queue, 0, k - 1, size, less)
            if sorted:
                stl.sort(queue, 0, k - 1, less)
        order[r] = [index for _, index in queue[:k]]
    return order


def _zero_stride(array, axis) -> bool:
    strides = getattr(array, "strides", None)  # NumPy and CuPy arrays have strides; the Array API has none
    return strides is not None and array.shape[axis] > 1 and strides[axis] == 0


def _radix_sorted(self, descending) -> bool:
    integral = not self._dtype.is_floating_point and self._dtype is not st.bool_
    return integral and self._data.ndim == 1 and not descending and self._data.shape[0] >= _RADIX_SORT_FROM


# std::sort of at most 16 elements is one insertion sort, which never moves an element past an equal one
_STABLE_UP_TO = 16


def _std_sort_rows(rows: np.ndarray, descending: bool) -> np.ndarray:
    less = _nan_first_greater if descending else _nan_last_less
    size = rows.shape[-1]
    order = np.empty(rows.shape, dtype=np.int64)
    for r, row in enumerate(rows.tolist()):
        queue = list(zip(row, range(size)))
        stl.sort(queue, 0, size, less)
        order[r] = [index for _, index in queue]
    return order


def _nan_first_greater(x, y) -> bool:
    return (x[0] != x[0] and y[0] == y[0]) or x[0] > y[0]


def _nan_last_less(x, y) -> bool:
    return (x[0] == x[0] and y[0] != y[0]) or x[0] < y[0]


# FBGEMM's radix sort (stable) replaces std::sort for a long 1-D integer tensor sorted ascending
_RADIX_SORT_FROM = 32768


def _sorted(self, dim, descending, stable=True):
    """(values, int64 indices) of a sort along ``dim``, both laid out as ``self`` (its strides when it is dense,
    else dense in their order: ``sort.stable``'s meta function)."""
    values, indices = _sorted_arrays(self, dim, descending, stable)
    return wrap(self, _strided_like(self._data, values)), wrap(self, _strided_like(self._data, indices), st.int64)


def _sorted_arrays(self, dim, descending, stable):
    """The arrays of values and indices; a zero-dim tensor is itself, at index 0."""
    xp = xp_of(self)
    axis = checks.wrap_dim(dim, self._data.ndim)
    if self._dtype.is_complex:  # Sorting.cpp's text, with its leading space
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    if self._data.ndim == 0:
        return xp.asarray(self._data, copy=True), xp.zeros((), dtype=xp.int64, device=self._data.device)
    if _zero_stride(self._data, axis):  # an expanded dim: every value equal, left in place (SortingKernel.cpp)
        size = self._data.shape[axis]
        shape = (1,) * axis + (size,) + (1,) * (self._data.ndim - axis - 1)
        positions = xp.reshape(xp.arange(size, dtype=xp.int64, device=self._data.device), shape)
        return xp.asarray(self._data, copy=True), xp.asarray(xp.broadcast_to(positions, self._data.shape), copy=True)
    if not stable and self._data.shape[axis] > _STABLE_UP_TO and not _radix_sorted(self, descending):
        rows = np.moveaxis(to_numpy(self._data), axis, -1)
        rows = rows.astype(np.float64) if self._dtype.is_floating_point else rows.astype(np.int64)
        if not _all_distinct(rows):  # ties: their order is std::sort's
            size = rows.shape[-1]
            order = _std_sort_rows(rows.reshape(-1, size), descending).reshape(rows.shape)
            indices = xp.asarray(np.moveaxis(order, -1, axis), device=self._data.device)
            return xp.take_along_axis(self._data, indices, axis=axis), indices
    keys = self._data
    if is_reduced_float(self._dtype):  # bfloat16 (ml_dtypes) sorts NaNs wrongly; float32 holds every value exactly
        keys = xp.astype(keys, xp.float32)
    order = xp.argsort(keys, axis=axis, descending=bool(descending), stable=True)
    return xp.take_along_axis(self._data, order, axis=axis), xp.astype(order, xp.int64)


# ----------------------------------------------------------------------------- argsort (composite)
# ``argsort`` is ``sort``'s indices (``Sorting.cpp``): it records no node of its own, and indices have no grad.


def argsort(self, dim=-1, descending=False):
    return ops.sort(self, dim, descending)[1]


def argsort_stable(self, stable, dim=-1, descending=False):
    return ops.sort(self, stable=stable, dim=dim, descending=descending)[1]


# ----------------------------------------------------------------------------- median, nanmedian, kthvalue
# Which of several equal values is returned follows the kernel's own tie rule (``Sorting.cpp``):
# ``median.dim`` and ``nanmedian.dim`` partition (value, index) pairs, so among equal values the one at the
# middle of their index order wins (a stable sort picks it); NaN ends a ``median`` row with its first NaN.
# ``kthvalue`` runs its own quickselect (median-of-three, Sedgewick's partition) on the row's copy and
# returns wherever the k-th element landed: that algorithm is followed step by step when the k-th value is
# tied. ``median()`` of everything returns only a value; only the sign of a zero depends on the algorithm
# there (``std::nth_element``).


def median(self):
    return _median_all(self, "median_cpu", ignore_nan=False)


def nanmedian(self):
    return _median_all(self, "median_cpu", ignore_nan=True)


def median_dim(self, dim, keepdim=False):
    return _median_along(self, dim, keepdim, "median_out", ignore_nan=False)


def nanmedian_dim(self, dim, keepdim=False):
    return _median_along(self, dim, keepdim, "median_out", ignore_nan=True)


def _check_not_bool(self, kernel, complex_too=True):
    """No kernel for bool, nor (``complex_too``) for complex numbers, which have no order."""
    if self._dtype is st.bool_ or (complex_too and self._dtype.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")


def _median_all(self, kernel, ignore_nan):
    _check_not_bool(self, kernel)
    xp = xp_of(self)
    flat = to_numpy(self._data).reshape(-1)
    nans = np.isnan(flat) if self._dtype.is_floating_point else np.zeros(flat.shape, dtype=bool)
    if flat.size == 0 or (not ignore_nan and nans.any()) or nans.all():
        value = _nan_as(self._dtype)
    else:
        kept = flat[~nans]
        value = np.partition(kept, (kept.size - 1) // 2)[(kept.size - 1) // 2]
        if value == 0 and self._dtype.is_floating_point and np.signbit(kept[kept == 0]).any():
            value = _nth_element_value(kept.tolist(), (kept.size - 1) // 2)  # which zero: std::nth_element's
    return wrap(self, xp.asarray(np.asarray(value, dtype=flat.dtype), device=self._data.device))


def _nan_as(dtype):
    """NaN converted to ``dtype`` as C++ converts it: NaN for floats, the lowest value for 32- and 64-bit
    integers, 0 for the narrower ones (the low bits of that lowest int32)."""
    if dtype.is_floating_point:
        return math.nan
    return np.iinfo(f"int{dtype.itemsize * 8}").min if dtype.itemsize >= 4 else 0


def _nth_element_value(values: list, nth: int, less=lambda a, b: a < b):
    stl.nth_element(values, 0, nth, len(values), less)
    return values[nth]


def _median_along(self, dim, keepdim, kernel, ignore_nan):
    _check_not_bool(self, kernel, complex_too=False)
    axis = checks.wrap_dim(dim, self._data.ndim)
    _check_not_bool(self, kernel)  # complex numbers: after the dim's check
    _check_reduced_size(self, axis, "median")
    rows = _rows(self, axis)
    size = rows.shape[-1]
    nans = np.isnan(rows) if self._dtype.is_floating_point else np.zeros(rows.shape, dtype=bool)
    order = np.argsort(rows, axis=-1, kind="stable")  # NaNs last, equal values in index order
    counted = size - nans.sum(axis=-1) if ignore_nan else np.full(rows.shape[:-1], size)
    middle = np.maximum(counted - 1, 0) // 2
    chosen = np.take_along_axis(order, middle[..., None], axis=-1)[..., 0]
    if not ignore_nan:
        chosen = np.where(nans.any(axis=-1), np.argmax(nans, axis=-1), chosen)  # the first NaN
    elif size > 1:  # a row of NaNs only: none is less than another, so std::nth_element's moves decide
        chosen = np.array(chosen)
        for r in np.flatnonzero(nans.all(axis=-1)):
            chosen.reshape(-1)[r] = _nth_element_value(list(range(size)), 0, lambda a, b: False)
    return _gathered(self, axis, chosen, keepdim)


def _check_reduced_size(self, axis, name):
    if self._data.ndim and self._data.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")


def kthvalue(self, k, dim=-1, keepdim=False):
    _check_not_bool(self, "kthvalue_cpu", complex_too=False)
    axis = checks.wrap_dim(dim, self._data.ndim)
    _check_reduced_size(self, axis, "kthvalue")
    size = self._data.shape[axis] if self._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    _check_not_bool(self, "kthvalue_cpu")
    rows = _rows(self, axis)
    flat = rows.reshape(-1, size)
    order = np.argsort(flat, axis=-1, kind="stable")  # NaN above every number, as the kernel's comparison
    chosen = order[:, k - 1].copy()
    kth = np.take_along_axis(flat, chosen[:, None], axis=-1)[:, 0]
    for r in np.flatnonzero(_ties(flat, kth)):
        chosen[r] = _quick_select(list(zip(flat[r].tolist(), range(size))), k - 1)
    return _gathered(self, axis, chosen.reshape(rows.shape[:-1]), keepdim)


def _ties(flat, kth):
    """The rows whose k-th value occurs more than once (NaNs are equal to each other here)."""
    if flat.size == 0:
        return np.zeros(flat.shape[0], dtype=bool)
    same = (flat == kth[:, None]) | (np.isnan(flat) & np.isnan(kth)[:, None]) if flat.dtype.kind == "f" else (
        flat == kth[:, None])
    return same.sum(axis=-1) > 1


def _quick_select(pairs: list, k: int) -> int:
    """``quick_select_template`` of ``Sorting.cpp`` on (value, index) pairs: the index that lands at ``k``."""
    def greater(a, b):  # NaN above every number
        return (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]

    def swap(i, j):
        pairs[i], pairs[j] = pairs[j], pairs[i]

    left, right = 0, len(pairs) - 1
    while right > left + 1:
        mid = (left + right) >> 1
        swap(mid, left + 1)
        if greater(pairs[left + 1], pairs[right]):
            swap(left + 1, right)
        if greater(pairs[left], pairs[right]):
            swap(left, right)
        if greater(pairs[left + 1], pairs[left]):
            swap(left + 1, left)
        i, j, pivot = left + 1, right, pairs[left]
        while True:
            i += 1
            while greater(pivot, pairs[i]):
                i += 1
            j -= 1
            while greater(pairs[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1
    if right == left + 1 and greater(pairs[left], pairs[right]):
        swap(left, right)
    return pairs[k][1]


def _rows(self, axis):
    """The values with ``axis`` last (a zero-dim tensor as one row of one), compared as float64 when floating."""
    data = to_numpy(self._data)
    rows = np.moveaxis(data.reshape(1) if data.ndim == 0 else data, axis, -1)
    return rows.astype(np.float64) if self._dtype.is_floating_point else rows


def _gathered(self, axis, chosen, keepdim):
    """(values, indices) of the elements at ``chosen`` along ``axis``, the reduced dim kept or dropped."""
    xp = xp_of(self)
    indices = np.asarray(chosen, dtype=np.int64)
    if self._data.ndim:
        indices = np.expand_dims(indices, axis)
    device_indices = xp.asarray(indices, device=self._data.device)
    values = (xp.take_along_axis(self._data, device_indices, axis=axis) if self._data.ndim
              else xp.asarray(self._data, copy=True))
    if self._data.ndim and not keepdim:
        values, device_indices = xp.squeeze(values, axis=axis), xp.squeeze(device_indices, axis=axis)
    return wrap(self, xp.asarray(values, copy=True)), wrap(self, device_indices, st.int64)


# ----------------------------------------------------------------------------- mode
# ``mode_kernel`` of ``cpu/TensorModeKernel.cpp``, per row: (value, index) pairs sorted by value with
# ``std::sort`` (followed move for move: ties and NaNs land where it puts them), then the first run strictly longer
# than every run before it wins, reported by its last pair, so among equally frequent values the smallest wins.


def mode(self, dim=-1, keepdim=False):
    axis = checks.wrap_dim(dim, self._data.ndim)
    if self._dtype.is_complex:
        _check_not_bool(self, "mode_cpu")
    _check_reduced_size(self, axis, "mode")
    rows = _rows(self, axis)
    size = rows.shape[-1]
    chosen = np.empty(rows.shape[:-1], dtype=np.int64)
    for r, row in zip(np.ndindex(chosen.shape), rows.reshape(-1, size).tolist()):
        chosen[r] = _mode_index(row)
    return _gathered(self, axis, chosen, keepdim)


def _mode_index(row: list) -> int:
    pairs = list(zip(row, range(len(row))))
    stl.sort(pairs, 0, len(pairs), lambda a, b: a[0] < b[0])
    best, best_count, count = 0, 0, 0
    for i, (value, index) in enumerate(pairs):
        count += 1
        if i == len(pairs) - 1 or value != pairs[i + 1][0]:
            if count > best_count:
                best, best_count = index, count
            count = 0
    return best
