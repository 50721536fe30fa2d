"""The memory layout of an elementwise op's output.

Models ``TensorIteratorBase::reorder_dimensions`` and the output allocation in
``aten/src/ATen/TensorIterator.cpp``: PyTorch does not always make outputs contiguous. It sorts the
dimensions by the inputs' strides (the first input that tells two dimensions apart decides; a
broadcast dimension, stride 0, tells nothing; equal strides put the smaller size innermost) and lays
the output out in that order. So ``exp(x.t())`` is transposed like its input, and whether a later
``reshape`` can be a view (``ViewBackward0``) or must copy (``CloneBackward0`` + ``UnsafeViewBackward0``)
depends on it. Array libraries without strides (the Array API has none) keep their own layout.
"""

from __future__ import annotations

import numpy


def element_strides(array, out_shape: tuple) -> tuple | None:
    """An operand's strides in elements, aligned to the output shape; broadcast dims get 0."""
    strides = getattr(array, "strides", None)
    if strides is None:
        return None
    itemsize = array.itemsize
    offset = len(out_shape) - array.ndim
    aligned = [0] * len(out_shape)
    for i, size in enumerate(array.shape):
        aligned[offset + i] = 0 if size == 1 and out_shape[offset + i] != 1 else strides[i] // itemsize
    return tuple(aligned)


def non_overlapping_and_dense(shape, strides) -> bool:
    """Every element at its own address, no gap: the strides, sorted, are the running sizes' products."""
    if 0 in shape:  # an empty tensor is contiguous, so dense (``TensorImpl::refresh_contiguous``)
        return True
    expected = 1
    for size, stride in sorted(zip(shape, strides), key=lambda pair: pair[1]):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def _should_swap(dim0: int, dim1: int, operands: list[tuple], shape: tuple) -> int:
    for strides in operands:
        s0, s1 = strides[dim0], strides[dim1]
        if s0 == 0 or s1 == 0:
            continue  # a broadcast dimension says nothing about the order
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        if shape[dim0] > shape[dim1]:
            return 1
    return 0


def innermost_first(shape: tuple, operands: list[tuple]) -> list[int]:
    """TensorIterator's ``perm_``: the dimensions from fastest- to slowest-moving (insertion sort)."""
    ndim = len(shape)
    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = _should_swap(perm[dim0], perm[dim1], operands, shape)
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def follow_inputs(xp, result, inputs: list):
    """``result`` (an elementwise op's output) laid out in memory as PyTorch would allocate it."""
    if type(result) is numpy.ndarray and (result.ndim < 2 or _row_major_like_inputs(result, inputs)):
        return result  # the usual case, asked of NumPy's flags directly (no call per input)
    shape = tuple(result.shape)
    if len(shape) < 2 or getattr(result, "strides", None) is None:
        return result
    if _is_c_contiguous(result) and all(tuple(a.shape) == shape and _is_c_contiguous(a) for a in inputs):
        return result  # TensorIterator's fast set-up: contiguous inputs of one shape, contiguous output
    operands = [s for s in (element_strides(a, shape) for a in inputs if a.ndim) if s is not None]
    if not operands:
        return result
    order = list(reversed(innermost_first(shape, operands)))  # slowest- to fastest-moving
    if order == sorted(order) and _is_c_contiguous(result):
        return result  # row-major already, e.g. beside a broadcast input (whose stride-0 dims say nothing)
    return relaid(xp, result, order)


def _row_major_like_inputs(result, inputs: list) -> bool:
    """A row-major NumPy ``result`` (of two dims or more) whose inputs are row-major arrays of its shape, or arrays
    whose every stride is 0 (one value expanded: ``sum``'s and ``mean``'s backward), which tell no order:
    TensorIterator's fast set-up, nothing to re-lay. A number (a zero-dim operand) rules the fast set-up out
    (``compute_shape``: not all operands of one shape), so the inputs' strides decide, size-1 dims included."""
    if not result.flags.c_contiguous or not result.size:  # (NumPy calls every empty array row-major)
        return False
    shape = result.shape
    number = False
    for a in inputs:
        if not a.ndim:
            number = True
        elif (a.shape != shape or not a.flags.c_contiguous) and any(a.strides):
            return False
    # Without the fast set-up the strides decide; row-major inputs tell row-major, unless a size-1 dim's stride
    # (which NumPy's flag ignores) is not the row-major one.
    return not number or 1 not in shape or all(row_major_strides(a) or not any(a.strides) for a in inputs if a.ndim)


def infer_dense_strides(shape: tuple, strides: tuple) -> tuple:
    """``empty_like``'s strides for a tensor with gaps or overlaps: its dimensions in the order its strides give
    them (TensorIterator's sort; a broadcast dimension keeps its row-major place), the gaps closed."""
    dense, step = [0] * len(shape), 1
    for dim in innermost_first(tuple(shape), [tuple(strides)]):
        dense[dim] = step
        step *= max(shape[dim], 1)
    return tuple(dense)


def row_major(array):
    """``array`` row-major with PyTorch's strides for a new tensor (a reduction's output is one, whatever
    the input's layout; NumPy's reductions keep the input's order)."""
    if type(array) is not numpy.ndarray or array.ndim < 2:
        return array
    if array.flags.c_contiguous and (1 not in array.shape or row_major_strides(array)):
        return array
    return numpy.array(array, order="C", copy=True)


def _is_c_contiguous(array) -> bool:
    flags = getattr(array, "flags", None)
    return bool(flags is None or flags["C_CONTIGUOUS"])


def relaid(xp, result, order: list[int]):
    """The same values, stored with ``order[0]`` slowest and ``order[-1]`` fastest."""
    if type(result) is numpy.ndarray and not result.size:
        return _empty_laid_out(result, order)
    inverse = [0] * len(order)
    for position, dim in enumerate(order):
        inverse[dim] = position
    permute = numpy.transpose if type(result) is numpy.ndarray else xp.permute_dims  # NumPy's own: no wrapper
    laid = _c_contiguous(permute(result, tuple(order)))
    return permute(laid, tuple(inverse))


def _empty_laid_out(result, order: list[int]):
    """An empty ``result`` with the strides TensorIterator gives an output in ``order`` (``compatible_stride``):
    each the product of the sizes inside it, a size of 0 included (row-major outputs are made by ``empty``,
    which counts a 0 as 1, and do not get here)."""
    strides, step = [0] * len(order), result.itemsize
    for dim in reversed(order):
        strides[dim] = step
        step *= result.shape[dim]
    return numpy.lib.stride_tricks.as_strided(result, result.shape, strides)


def _c_contiguous(array):
    """Row-major with every stride the running product, a size-1 dimension's too (NumPy's flag ignores those)."""
    if _is_c_contiguous(array) and row_major_strides(array):
        return array
    if type(array).__module__.startswith("cupy"):
        import cupy  # CuPy is imported only when a CUDA tensor exists

        return cupy.array(array, order="C", copy=True)
    return numpy.array(array, order="C", copy=True)


def row_major_strides(array) -> bool:
    shape, strides = array.shape, array.strides
    step = array.itemsize
    for i in range(len(shape) - 1, -1, -1):
        if strides[i] != step:
            return False
        step *= shape[i] or 1
    return True
