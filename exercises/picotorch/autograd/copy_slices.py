"""``CopySlices``: what ``x[key] = value`` records when gradients flow through ``x``.

Models ``torch/csrc/autograd/functions/tensor.h`` / ``tensor.cpp`` (``CopySlices``, which wraps the
backward of the in-place op applied to a view of the base). Writing into part of a tensor replaces
those elements, so the base's gradient is the incoming gradient with that region zeroed, and the
value's gradient is the incoming gradient of that region (summed back if the value was broadcast).

Simplification: PyTorch builds this for any in-place op on any view; picotorch builds it for
``__setitem__`` only, and in-place methods on views (``x[0].add_(1)``) are not modelled.
"""

from __future__ import annotations

from ..native.dispatcher import ops
from .graph import Node


class CopySlices(Node):
    def __init__(self, next_edges, index, value_shape, base_shape, mask_fn) -> None:
        super().__init__(next_edges)
        self.index = index
        self.value_shape = value_shape
        self.base_shape = base_shape
        self.mask_fn = mask_fn  # makes a tensor like the gradient: 0 inside the written region, 1 outside

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list) -> list:
        from .._C._indexing import getitem
        from .functions_manual import sum_to

        grad = grads[0]
        if grad is None:
            return [None, None]
        base_grad = ops.mul(grad, self.mask_fn(grad)) if self.should_compute_output(0) else None
        value_grad = None
        if self.should_compute_output(1):
            value_grad = sum_to(getitem(grad, self.index), self.value_shape)
        return [base_grad, value_grad]
