"""``AccumulateGrad``: the node at the end of every path, which writes a leaf's ``.grad``.

Models ``torch/csrc/autograd/functions/accumulate_grad.h`` / ``.cpp``.
"""

from __future__ import annotations

from .graph import UINT64_MAX, Node
from .grad_mode import is_grad_enabled
from .hooks import TensorPreHook


class AccumulateGrad(Node):
    def __init__(self, variable) -> None:
        super().__init__(sequence_nr=UINT64_MAX)  # NOTE [Sequence Number]: leaves run first
        self.variable = variable
        self.add_input_metadata(variable)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def tensor_pre_hooks(self) -> list:
        # The hooks live on the tensor, not on this node: the tensor holds the node only weakly, so
        # they must survive the node being dropped and re-created (read them lazily, as PyTorch does).
        hooks = self.variable._hooks
        return [TensorPreHook(hooks, 0)] if hooks else []

    def apply(self, grads: list) -> list:
        new_grad = grads[0]
        if new_grad is None:
            return []
        variable = self.variable
        accumulate_grad(variable, new_grad)
        for hook in list((variable._post_accumulate_grad_hooks or {}).values()):
            hook(variable)
        return []


def accumulate_grad(variable, new_grad) -> None:
    """``.grad = new_grad`` the first time, then ``.grad += new_grad`` (out of place under create_graph)."""
    from ..native.dispatcher import ops

    old = variable._grad
    if old is None:
        variable._grad = new_grad if is_grad_enabled() else ops.clone(new_grad).detach()
    elif is_grad_enabled():
        variable._grad = ops.add(old, new_grad)
    else:
        old._data[...] = ops.add(old, new_grad)._data
