"""Argument checks shared by kernels, with PyTorch's error texts.

Models ``c10/core/WrapDimMinimal.h`` (``maybe_wrap_dim``), ``aten/src/ATen/ExpandUtils.cpp``
(``infer_size``) and ``aten/src/ATen/TensorUtils.cpp`` (device checks).
"""

from __future__ import annotations

import math


def wrap_dim(dim: int, ndim: int, wrap_scalar: bool = True) -> int:
    """A possibly negative dim as an index in ``range(ndim)`` (a 0-dim tensor accepts -1 and 0, unless
    ``wrap_scalar`` is False, as for ``size(dim)`` and ``stride(dim)``: c10's ``maybe_wrap_dim``)."""
    if ndim == 0 and not wrap_scalar:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
                         f"but got {dim})")
    return dim + rank if dim < 0 else dim


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    """The shape two operands broadcast to, or PyTorch's error naming the first clash."""
    # Worked example of the rule: (2, 1, 4) and (3, 1) line up from the right as
    #   2 1 4
    #     3 1   ->  (2, 3, 4): a missing size counts as 1, and a 1 stretches to the other size.
    # BEGIN SOLUTION 0.1: return the broadcast shape of a and b, or raise PyTorch's error for the first clash
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in reversed(range(ndim)):  # from the last dim, as at::infer_size: the rightmost clash is reported
        size_a = a[len(a) - ndim + i] if len(a) - ndim + i >= 0 else 1
        size_b = b[len(b) - ndim + i] if len(b) - ndim + i >= 0 else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(f"The size of tensor a ({size_a}) must match the size of tensor b "
                               f"({size_b}) at non-singleton dimension {i}")
        out[i] = size_b if size_a == 1 else size_a
    return tuple(out)
    # END SOLUTION


def check_same_device(*tensors) -> None:
    first = None  # no list: this runs on every op, and the first two distinct devices are all we report
    for t in tensors:
        if t is None or t._is_wrapped_number or (t._data.ndim == 0 and t._device.type == "cpu"):
            continue  # CPU zero-dim tensors may mix with any device, as in PyTorch
        if first is None:
            first = t._device
        elif t._device is not first and t._device != first:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                               f"devices, {first} and {t._device}!")


def numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def infer_size(shape, numel_: int) -> tuple:
    """Resolve one ``-1`` in a view/reshape shape (``at::infer_size``)."""
    shape = tuple(map(int, shape))
    if not shape or min(shape) >= 0:  # nothing to infer, no bad size (most views): one product
        if math.prod(shape) != numel_:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel_}")
        return shape
    known, infer_at = 1, None
    for i, s in enumerate(shape):
        if s == -1:
            if infer_at is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape [{', '.join(map(str, shape))}]")
        else:
            known *= s
    if infer_at is None:
        if known != numel_:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel_}")
        return shape
    if known == 0 and numel_ == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified "
                           "dimension size -1 can be any value and is ambiguous")
    if known == 0 or numel_ % known != 0:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel_}")
    return shape[:infer_at] + (numel_ // known,) + shape[infer_at + 1:]


def check_size_nonnegative(size) -> None:
    """ATen's ``check_size_nonnegative``: every size of a new tensor is >= 0."""
    bad = next((s for s in size if s < 0), None)
    if bad is not None:
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(size)}")
