"""``tensor[index]``: how an index expression becomes a chain of view ops.

Models ``torch/csrc/autograd/python_variable_indexing.cpp`` (``THPVariable_getitem``): an integer
becomes ``select``, a slice ``slice``, ``None`` ``unsqueeze``, ``...`` skips dimensions, and a tensor
(or a list) switches to advanced indexing with ``index``. That is why ``x[0, 1]`` shows two
``SelectBackward0`` nodes and ``x[idx]`` an ``IndexBackward0``.
"""

from __future__ import annotations

from ..native.dispatcher import ops


def _count_dims(index) -> int:
    return sum(1 for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool))


def getitem(self, index):
    if not isinstance(index, tuple):
        index = (index,)
    if any(_is_advanced(i) for i in index):
        return _advanced(self, index)
    result, dim = self, 0
    ellipsis_span = self.dim() - _count_dims(index)
    if ellipsis_span < 0:
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    for item in index:
        result, dim = _apply_one(result, item, dim, ellipsis_span)
    if result is self:
        result = ops.slice(self, 0, 0, None, 1) if self.dim() else _alias(self)
    return result


def _alias(self):
    return ops.view(self, tuple(self.shape))


def _apply_one(result, item, dim, ellipsis_span):
    if item is Ellipsis:
        return result, dim + ellipsis_span
    if item is None:
        return ops.unsqueeze(result, dim), dim + 1
    if isinstance(item, bool):
        raise NotImplementedError("picotorch does not index with Python bools")
    if isinstance(item, int) or (hasattr(item, "__index__") and not hasattr(item, "_data")):
        return ops.select(result, dim, int(item)), dim
    if isinstance(item, slice):
        size = result.shape[dim]
        start, stop, step = item.indices(size) if item.step is None or item.step > 0 else (0, 0, 1)
        if item.step is not None and item.step <= 0:
            raise ValueError("step must be greater than zero")
        if (start, stop, step) == (0, size, 1):
            return result, dim + 1
        return ops.slice(result, dim, start, max(stop, start), step), dim + 1
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                     "valid indices (got " + type(item).__name__ + ")")


def _is_advanced(item) -> bool:
    return hasattr(item, "_data") or isinstance(item, list)


def _advanced(self, index):
    from ._factories import tensor

    indices = []
    for item in index:
        if isinstance(item, list):
            item = tensor(item)
        if hasattr(item, "_data"):
            indices.append(item)
        elif isinstance(item, slice) and item == slice(None):
            indices.append(None)
        else:
            raise NotImplementedError("picotorch mixes tensor indices only with full slices (`:`)")
    return ops.index(self, indices)
