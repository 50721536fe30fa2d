"""In-place writes into part of a tensor: ``CopySlices`` and ``AsStridedBackward0``.

Models ``torch/csrc/autograd/functions/tensor.h`` / ``tensor.cpp`` (``CopySlices``). When an in-place
op modifies a *view*, the base's values change too, so the base's history must change: the base gets
a ``CopySlices`` node, which wraps the in-place op's own node and applies it to the region of the
gradient that the view covers. The view itself is then re-derived from the new base
(``AsStridedBackward0``). The view branch of ``rebase_history`` that makes these nodes is in
``variable.py``, as in ``variable.cpp``.

``x[key] = value`` is the same story: indexing makes the view and ``copy_`` (or ``fill_``, or
``index_put_``) writes into it (``picotorch/_C/_indexing.py``), so the base's node is ``CopySlices``
around ``CopyBackwards``.

``CopySlices.apply`` takes PyTorch's steps with ops, so that under ``create_graph=True`` the gradients
it returns have PyTorch's history: a new tensor with the base's layout gets a copy of the gradient
(``CopyBackwards``), the view's region of it (``AsStridedBackward0``) is cloned (``CloneBackward0``) for
the wrapped node, and what that node returns for the view is copied back into the region (``CopySlices``).
"""

from __future__ import annotations

import numpy as np

from ..c10.layout import contiguous_format
from ..c10.scalar_type import int64
from ..native.dispatcher import ops
from ..native.helpers import as_strided_view, empty_strided, storage_offset, strided_geometry, strides_of, wrap
from ..native.layout import non_overlapping_and_dense
from ..native.tensor_impl import new_tensor
from .graph import ERR_BACKWARD_TWICE, Edge, Node, current_graph_task, node_attribute


class Region:
    """Where a view sits inside its base's storage: sizes, strides and offset, in elements, and the base's
    own sizes and strides."""

    def __init__(self, view, base) -> None:
        self.sizes, self.strides, self.offset = strided_geometry(view, base)
        self.base_shape, self.base_strides = tuple(base._data.shape), strides_of(base)

    def whole(self) -> Region:
        """The base itself, as a region of its storage."""
        region = Region.__new__(Region)
        region.sizes, region.strides, region.offset = self.base_shape, self.base_strides, 0
        region.base_shape, region.base_strides = self.base_shape, self.base_strides
        return region

    def overlaps(self) -> bool:
        """Some elements of the region share memory (a stride 0 over a size above 1, as ``expand`` makes)."""
        return not non_overlapping_and_dense(self.sizes, self.strides) and any(
            stride == 0 and size > 1 for size, stride in zip(self.sizes, self.strides))

    def extent(self) -> int:
        """How many elements of storage the region reaches into, from the storage's start."""
        if any(size == 0 for size in self.sizes):
            return 0
        return self.offset + 1 + sum((size - 1) * stride for size, stride in zip(self.sizes, self.strides))

    def of(self, tensor):
        """The region of a tensor laid out as the base, as a strided view sharing its data."""
        return as_strided_view(tensor, self.sizes, self.strides, self.offset)

    def new_base_like(self, grad, zeros: bool = False):
        """``grad.new_empty_strided(base sizes, base strides)`` (or zeros): the region is where it was."""
        return wrap(grad, empty_strided(grad, self.base_shape, self.base_strides, zeros))


class CopySlices(Node):
    """The base's node after an in-place op ``fn`` on one of its views."""

    def __init__(self, base_edge: Edge, region: Region, fn: Node) -> None:
        super().__init__([base_edge, *fn.next_edges[1:]])
        self.region = region
        self.fn = fn

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None] * len(self.next_edges)
        if self.fn is None:  # released by an earlier backward without retain_graph
            raise RuntimeError(ERR_BACKWARD_TWICE)
        result = self.region.new_base_like(grad)
        ops.copy_(result, grad)
        grad_slice = _as_strided(result, self.region)
        self._add_view_edge_to_exec_info()
        from_fn = self.fn.apply([ops.clone(grad_slice, memory_format=contiguous_format)])
        grad_inputs = [None] * len(self.next_edges)
        for i in range(1, len(grad_inputs)):
            if self.task_should_compute_output(i):
                grad_inputs[i] = from_fn[i]
        # no gradient from the wrapped node (a custom Function's None): none for the base either, as PyTorch
        if self.task_should_compute_output(0) and from_fn[0] is not None:
            ops.copy_(grad_slice, from_fn[0])
            grad_inputs[0] = result
        return grad_inputs

    def _add_view_edge_to_exec_info(self) -> None:
        """A pruning backward never walked into ``fn``: the node its edge 0 leads to (the view's old node) is
        not in ``exec_info``, so ``fn`` would not compute the view's gradient. Mark it needed when the base's
        gradient is (PyTorch's workaround in ``CopySlices::apply_impl``)."""
        task = current_graph_task()
        if task is None or not task.exec_info:
            return
        target = self.fn.next_edges[0].function
        if target is not None and target not in task.exec_info and self.task_should_compute_output(0):
            from .engine import ExecInfo  # the engine imports this module's importers

            task.exec_info[target] = ExecInfo(needed=True)

    def release_variables(self) -> None:
        self.fn = None  # as PyTorch: the wrapped node goes, so a second backward through here raises


def _as_strided(result, region: Region):
    """``result.as_strided(region)``: a view with its history, made by ``variable.py``, which owns views and
    their history (it hands its maker over at import: it imports this module, so this one cannot import it)."""
    return _as_strided_with_history(result, region)


_as_strided_with_history = None


def set_view_maker(fn) -> None:
    global _as_strided_with_history
    _as_strided_with_history = fn


class AsStridedBackward0(Node):
    """A view's node re-derived from its base (after an in-place op on it, on the base or on another view of
    it): its gradient goes to its region of the base."""

    def __init__(self, base_edge: Edge, region: Region, view) -> None:
        super().__init__([base_edge])
        self.region = region
        self.storage_offset = storage_offset(view)

    # what PyTorch's node saves: the view's geometry (``VariableHooks::grad_fn``: ``as_strided`` of the base
    # with the view's sizes, strides and storage offset)
    @property
    def _saved_size(self):
        return tuple(self.region.sizes)

    @property
    def _saved_stride(self):
        return tuple(self.region.strides)

    @property
    def _saved_storage_offset(self):
        return self.storage_offset

    # what PyTorch's AsStridedBackward0 shows of the as_strided call that re-derived the view
    @node_attribute
    def _saved_size(self) -> tuple:
        return tuple(self.region.sizes)

    @node_attribute
    def _saved_stride(self) -> tuple:
        return tuple(self.region.strides)

    @node_attribute
    def _saved_storage_offset(self) -> int:
        return self.region.offset

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None]
        # as_strided_backward: zeros laid out as the base, the gradient copied into the view's region, and the
        # whole base seen through as_strided; with ops, so that under create_graph the result keeps its history
        if self.region.overlaps():
            return [_as_strided(self._summed_into_storage(grad), self.region.whole())]
        storage = self.region.new_base_like(grad, zeros=True)
        ops.copy_(_as_strided(storage, self.region), grad)
        return [_as_strided(storage, self.region.whole())]

    def _summed_into_storage(self, grad):
        """A view whose elements share memory (an expanded one): a copy would keep one of the gradients that
        reach a shared element; they are summed into a flat storage (``index_add_``), as PyTorch does."""
        region = self.region
        extent = max(region.extent(), region.whole().extent())
        storage = wrap(grad, empty_strided(grad, (extent,), (1,), zeros=True))
        positions = region.offset + sum(np.indices(region.sizes, dtype=np.int64)[d] * stride
                                        for d, stride in enumerate(region.strides))
        index = new_tensor(np.asarray(positions, dtype=np.int64).reshape(-1), int64, grad._device)
        return ops.index_add_(storage, 0, index, ops.reshape(grad, [-1]))
