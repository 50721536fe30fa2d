"""In-place writes into part of a tensor: ``CopySlices`` and ``AsStridedBackward0``.

Models ``torch/csrc/autograd/functions/tensor.h`` / ``tensor.cpp`` (``CopySlices``). When an in-place
op modifies a *view*, the base's values change too, so the base's history must change: the base gets
a ``CopySlices`` node, which wraps the in-place op's own node and applies it to the region of the
gradient that the view covers. The view itself is then re-derived from the new base
(``AsStridedBackward0``). The view branch of ``rebase_history`` that makes these nodes is in
``variable.py``, as in ``variable.cpp``.

``x[key] = value`` is the same story with ``copy_`` as the in-place op: PyTorch records it as
``CopySlices`` whose wrapped function is the copy's backward (zero for the old values, the region of
the gradient for ``value``); :class:`SetItemSlices` is that case.
"""

from __future__ import annotations

from ..native.dispatcher import ops
from ..native.helpers import as_strided_view, strided_geometry, wrap, zeros_array
from .functions_manual import sum_to
from .graph import Edge, Node


class Region:
    """Where a view sits inside its base's storage: sizes, strides and offset, in elements."""

    def __init__(self, view, base) -> None:
        self.sizes, self.strides, self.offset = strided_geometry(view, base)
        self.base_shape = tuple(base.shape)

    def of(self, tensor):
        """The region of a base-shaped tensor, as a strided view sharing its data."""
        return as_strided_view(tensor, self.sizes, self.strides, self.offset)


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
        result = ops.clone(grad)
        region = self.region.of(result)
        from_fn = self.fn.apply([ops.clone(region)])
        if from_fn[0] is not None:
            region._data[...] = from_fn[0]._data
        else:
            region._data[...] = 0
        return [result, *from_fn[1:]]

    def release_variables(self) -> None:
        self.fn.release_variables()


class AsStridedBackward0(Node):
    """A view's node re-derived from its base (after an in-place op on it, on the base or on another view of
    it): its gradient goes to its region of the base."""

    def __init__(self, base_edge: Edge, region: Region) -> None:
        super().__init__([base_edge])
        self.region = region

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None]
        base_grad = wrap(grad, zeros_array(grad, self.region.base_shape))
        self.region.of(base_grad)._data[...] = grad._data
        return [base_grad]


class SetItemSlices(Node):
    """``x[key] = value``: CopySlices around a copy (old values get no gradient, value gets the region)."""

    def __init__(self, next_edges, value_shape, *, region_of, mask_fn, on_view: bool = True) -> None:
        super().__init__(next_edges)
        self.value_shape = value_shape
        # Both come from the indexing code above (python_variable_indexing), which knows the index:
        self.region_of = region_of  # grad -> grad[index], the part of the gradient that reached value
        self.mask_fn = mask_fn  # makes a tensor like the gradient: 0 inside the written region, 1 outside
        self.on_view = on_view

    def name(self) -> str:
        # Indexing only with tensors writes straight into the tensor (index_put_): no view, no CopySlices.
        return "torch::autograd::CopySlices" if self.on_view else "IndexPutBackward0"

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None, None]
        base_grad = ops.mul(grad, self.mask_fn(grad)) if self.should_compute_output(0) else None
        value_grad = None
        if self.should_compute_output(1):
            value_grad = self.region_of(grad)
            if tuple(value_grad.shape) != tuple(self.value_shape):  # a broadcast value (validate_outputs' sum_to)
                value_grad = sum_to(value_grad, self.value_shape)
        return [base_grad, value_grad]
