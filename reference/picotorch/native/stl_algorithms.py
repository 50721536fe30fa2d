"""``std::sort``, ``std::nth_element`` and ``std::partial_sort`` step for step, as libstdc++ performs them.

Models ``bits/stl_algo.h`` and ``bits/stl_heap.h`` of GCC's C++ library, which PyTorch's CPU ``topk`` calls
(``aten/src/ATen/native/TopKImpl.h``). None of them is stable: which of several equal values comes first
depends on every swap, so they are followed move for move here (on a Python list, with the caller's
``less(a, b)``). Introsort and introselect partition around the median of three, fall back to heap sort and heap
select past a depth of 2·log2(n), and leave runs of at most 16 (sort) or 3 (select) to an insertion sort.
"""

from __future__ import annotations

_THRESHOLD = 16


def sort(items: list, first: int, last: int, less) -> None:
    if first == last:
        return
    _introsort_loop(items, first, last, 2 * _lg(last - first), less)
    _final_insertion_sort(items, first, last, less)


def nth_element(items: list, first: int, nth: int, last: int, less) -> None:
    if first == last or nth == last:
        return
    depth_limit = 2 * _lg(last - first)
    while last - first > 3:
        if depth_limit == 0:
            _heap_select(items, first, nth + 1, last, less)
            items[first], items[nth] = items[nth], items[first]
            return
        depth_limit -= 1
        cut = _unguarded_partition_pivot(items, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(items, first, last, less)


def partial_sort(items: list, first: int, middle: int, last: int, less) -> None:
    _heap_select(items, first, middle, last, less)
    _sort_heap(items, first, middle, less)


def _lg(n: int) -> int:
    return n.bit_length() - 1


# ----------------------------------------------------------------------------- introsort


def _introsort_loop(items, first, last, depth_limit, less) -> None:
    while last - first > _THRESHOLD:
        if depth_limit == 0:
            partial_sort(items, first, last, last, less)
            return
        depth_limit -= 1
        cut = _unguarded_partition_pivot(items, first, last, less)
        _introsort_loop(items, cut, last, depth_limit, less)
        last = cut


def _unguarded_partition_pivot(items, first, last, less) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(items, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(items, first + 1, last, first, less)


def _move_median_to_first(items, result, a, b, c, less) -> None:
    if less(items[a], items[b]):
        if less(items[b], items[c]):
            chosen = b
        elif less(items[a], items[c]):
            chosen = c
        else:
            chosen = a
    elif less(items[a], items[c]):
        chosen = a
    elif less(items[b], items[c]):
        chosen = c
    else:
        chosen = b
    items[result], items[chosen] = items[chosen], items[result]


def _unguarded_partition(items, first, last, pivot, less) -> int:
    while True:
        while less(items[first], items[pivot]):
            first += 1
        last -= 1
        while less(items[pivot], items[last]):
            last -= 1
        if not first < last:
            return first
        items[first], items[last] = items[last], items[first]
        first += 1


def _final_insertion_sort(items, first, last, less) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(items, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(items, i, less)
    else:
        _insertion_sort(items, first, last, less)


def _insertion_sort(items, first, last, less) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        if less(items[i], items[first]):
            value = items[i]
            items[first + 1:i + 1] = items[first:i]
            items[first] = value
        else:
            _unguarded_linear_insert(items, i, less)


def _unguarded_linear_insert(items, last, less) -> None:
    value = items[last]
    previous = last - 1
    while less(value, items[previous]):
        items[last] = items[previous]
        last = previous
        previous -= 1
    items[last] = value


# ----------------------------------------------------------------------------- heaps


def _heap_select(items, first, middle, last, less) -> None:
    _make_heap(items, first, middle, less)
    for i in range(middle, last):
        if less(items[i], items[first]):
            _pop_heap(items, first, middle, i, less)


def _sort_heap(items, first, last, less) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(items, first, last, last, less)


def _pop_heap(items, first, last, result, less) -> None:
    value = items[result]
    items[result] = items[first]
    _adjust_heap(items, first, 0, last - first, value, less)


def _make_heap(items, first, last, less) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(items, first, parent, length, items[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _adjust_heap(items, first, hole, length, value, less) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(items[first + child], items[first + child - 1]):
            child -= 1
        items[first + hole] = items[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        items[first + hole] = items[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(items[first + parent], value):
        items[first + hole] = items[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    items[first + hole] = value
