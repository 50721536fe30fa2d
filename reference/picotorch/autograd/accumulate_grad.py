"""``AccumulateGrad``: the node at the end of every path, which writes a leaf's ``.grad``.

Models ``torch/csrc/autograd/functions/accumulate_grad.h`` / ``.cpp`` (``AccumulateGrad``,
``accumulateGrad``) and, for the copy it makes under ``create_graph=True``,
``functions/tensor.h`` (``CopyBackwards``).

A leaf that requires grad appears in every graph that uses it as one ``AccumulateGrad`` node with
no next edges (so its ``topological_nr`` is 0) and the largest possible ``sequence_nr`` (so it runs
as soon as it is ready, NOTE [Sequence Number]). The leaf holds its node only weakly (see
``variable.grad_accumulator``, which makes this node: NOTE [Who makes a leaf's AccumulateGrad]);
the graphs that use the leaf own it.
"""

from __future__ import annotations

from ..native.dispatcher import ops
from . import variable
from .grad_mode import is_grad_enabled
from .graph import UINT64_MAX, Node
from .hooks import TensorPreHook
from .variable import collect_next_edges, requires_grad, set_history


class AccumulateGrad(Node):
    def __init__(self, variable) -> None:
        super().__init__(sequence_nr=UINT64_MAX)
        self.variable = variable
        self.add_input_metadata(variable)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def tensor_pre_hooks(self) -> list:
        # The leaf's hooks live on the tensor, not on this node: the tensor holds the node only
        # weakly, so hooks kept here would vanish with a dropped node. Read them on each call.
        hooks = self.variable._backward_hooks
        return [TensorPreHook(hooks, 0)] if hooks else []

    def apply(self, grads: list) -> list:
        new_grad = grads[0]
        if new_grad is None:
            return []
        variable = self.variable
        accumulate_grad(variable, new_grad)
        hooks = variable._post_accumulate_grad_hooks
        for hook in list(hooks.values()) if hooks else ():
            hook(variable)
        return []


def accumulate_grad(variable, new_grad) -> None:
    """``accumulateGrad``: ``.grad = new_grad`` the first time, then ``.grad += new_grad``.

    Under ``create_graph=True`` (grad mode on) the result stays connected to the graph: the first
    gradient is copied by a ``CopyBackwards`` node, later ones are added out of place
    (``AddBackward0``). Without it, the first gradient is a detached copy (PyTorch may steal the
    buffer when nobody else holds it; a copy is always safe) and later ones are added in place.
    """
    old = variable._grad
    if old is None:
        variable._grad = copy_with_history(new_grad) if is_grad_enabled() else ops.clone(new_grad).detach()
    elif is_grad_enabled():
        variable._grad = ops.add(old, new_grad)
    else:
        old._data[...] = ops.add(old, new_grad)._data
        old._version_counter.bump()


class CopyBackwards(Node):
    """The backward of a plain copy: the gradient passes through unchanged."""

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def apply(self, grads: list) -> list:
        return [grads[0] if self.should_compute_output(0) else None]


def copy_with_history(grad):
    """``clone_obey_contract`` under grad mode: a copy whose ``grad_fn`` is ``CopyBackwards``."""
    copy = ops.clone(grad).detach()
    if requires_grad(grad):
        set_history(copy, CopyBackwards(collect_next_edges(grad)))
    return copy


variable.set_accumulate_grad_class(AccumulateGrad)  # NOTE [Who makes a leaf's AccumulateGrad]
