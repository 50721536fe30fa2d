"""``AccumulateGrad``: the node at the end of every path, which writes a leaf's ``.grad``.

Models ``torch/csrc/autograd/functions/accumulate_grad.h`` / ``.cpp`` (``AccumulateGrad``,
``accumulateGrad``) and, for the copy it makes under ``create_graph=True``,
``torch/csrc/autograd/utils/grad_layout_contract.h`` (``clone_obey_contract``).

A leaf that requires grad appears in every graph that uses it as one ``AccumulateGrad`` node with
no next edges (so its ``topological_nr`` is 0) and the largest possible ``sequence_nr`` (so it runs
as soon as it is ready, NOTE [Sequence Number]). The leaf holds its node only weakly (see
``variable.grad_accumulator``, which makes this node: NOTE [Who makes a leaf's AccumulateGrad]);
the graphs that use the leaf own it.
"""

from __future__ import annotations

import sys

import numpy

from ..c10.layout import contiguous_format
from ..native.dispatcher import ops
from ..native.helpers import contiguous_strides, np_xp, xp_of
from ..native.layout import non_overlapping_and_dense
from ..native.tensor_impl import TensorImpl, new_tensor
from . import variable
from .grad_mode import is_grad_enabled
from .graph import UINT64_MAX, Node
from .hooks import TensorPreHook
from .variable import collect_next_edges, requires_grad, set_history
from .variable_type_manual import CopyBackwards


class AccumulateGrad(Node):
    _python_attributes = ("variable",)

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

    @property
    def _tensor_pre_hooks_elsewhere(self) -> bool:
        """Whether the leaf has hooks (``tensor_pre_hooks`` above): the engine asks before building the list."""
        return bool(self.variable._backward_hooks)

    def apply(self, grads: list) -> list:
        new_grad = grads[0]
        variable = self.variable
        if new_grad is not None:  # none (a custom Function's None): nothing to add, but the hooks still run
            # The references the engine's call holds: ``grads``, ``new_grad``, and the inputs list that
            # call_function keeps for post hooks when this node has some (``1 + !post_hooks().empty()``).
            accumulate_grad(variable, new_grad, 2 + bool(self._post_hooks))
        hooks = variable._post_accumulate_grad_hooks
        for hook in list(hooks.values()) if hooks else ():
            result = hook(variable)
            if result is not None:
                _refuse_post_accumulate_result(result)
        return []


def _refuse_post_accumulate_result(result) -> None:
    """A post-accumulate-grad hook returns None: what else it returns is refused (python_hook.cpp)."""
    if not isinstance(result, TensorImpl):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def accumulate_grad(variable, new_grad, num_expected_refs: int) -> None:
    """``accumulateGrad``: ``.grad = new_grad`` the first time, then ``.grad += new_grad``.

    The first time, without grad mode, the gradient itself becomes ``.grad`` (stolen, no copy) when
    nobody else holds it (``num_expected_refs``: the references the engine's own call holds) and its
    strides are the variable's (NOTE [Gradient Layout Contract]); else ``.grad`` is a copy with the
    variable's strides. So a gradient that is a view of the tensor given to ``backward`` shares its
    memory, as in PyTorch. Under ``create_graph=True`` (grad mode on) the copy stays connected to the
    graph by a ``CopyBackwards`` node, and later gradients are added out of place (``AddBackward0``);
    without it they are added in place.
    """
    old = variable._grad
    if old is None:
        if is_grad_enabled():
            variable._grad = copy_with_history(new_grad, variable)
        elif sys.getrefcount(new_grad) - 2 <= num_expected_refs and obeys_layout_contract(new_grad, variable):
            # (getrefcount counts its own argument and this frame's parameter)
            variable._grad = variable_detach(new_grad)
        else:
            variable._grad = new_tensor(clone_obey_contract(new_grad, variable), new_grad._dtype, new_grad._device)
    elif is_grad_enabled():
        variable._grad = ops.add(old, new_grad)
    else:
        old._data[...] = ops.add(old, new_grad)._data
        old._version_counter.bump()


# NOTE [Gradient Layout Contract]
# A leaf's ``.grad`` has the leaf's strides when the leaf is non-overlapping and dense (else it is
# contiguous), whatever layout the backward formulas produced: an optimizer's in-place update then walks
# both the same way. A gradient that already has those strides is kept; any other is copied into them.
# (Dimensions of size 1 may have any stride, but not 0: that is a broadcast view.)


def obeys_layout_contract(grad, variable) -> bool:
    if _same_row_major_layout(grad._data, variable._data):
        return True  # the usual case (a parameter and its gradient, both row-major), from NumPy's flags
    grad_strides, variable_strides = element_strides(grad._data), element_strides(variable._data)
    shape = grad._data.shape
    if grad_strides is None or variable_strides is None:
        return True  # an array library without strides keeps its own layout
    if not non_overlapping_and_dense(variable._data.shape, variable_strides):
        return grad_strides == contiguous_strides(shape, 1)
    for size, stride, wanted in zip(shape, grad_strides, variable_strides):
        if (size != 1 and stride != wanted) or (size == 1 and stride == 0):
            return False
    return True


def _same_row_major_layout(grad, variable) -> bool:
    """Non-empty row-major NumPy arrays of one shape and itemsize with the same strides, none 0: what the
    contract asks, answered without computing strides in elements."""
    return (type(grad) is numpy.ndarray and type(variable) is numpy.ndarray and variable.size > 0
            and variable.flags.c_contiguous and grad.shape == variable.shape and grad.itemsize == variable.itemsize
            and grad.strides == variable.strides and 0 not in grad.strides)


def clone_obey_contract(grad, variable):
    """A copy of ``grad``'s array laid out as ``variable``'s when that is dense, else contiguous."""
    xp = xp_of(grad)
    if _dense(variable._data):
        out = xp.empty_like(variable._data)  # NumPy keeps the prototype's layout (order="K")
        out[...] = grad._data
        return out
    return xp.asarray(numpy.ascontiguousarray(grad._data)) if xp is np_xp else xp.asarray(grad._data, copy=True)


def element_strides(array) -> tuple | None:
    strides = getattr(array, "strides", None)
    return None if strides is None else tuple(s // array.itemsize for s in strides)


def variable_detach(grad):
    """``new_grad.detach()``: the same array and version counter, no history."""
    return variable.tensor_data(grad)


def copy_with_history(grad, variable):
    """``clone_obey_contract`` under grad mode: ``new_empty_strided(...).copy_(grad)`` records
    ``CopyBackwards`` (no edge for the empty tensor, one for ``grad``) where the variable is dense, and
    ``clone(contiguous)`` records ``CloneBackward0`` where it is not."""
    if requires_grad(grad) and not _dense(variable._data):
        return ops.clone(grad, memory_format=contiguous_format)
    copy = new_tensor(clone_obey_contract(grad, variable), grad._dtype, grad._device)
    if not requires_grad(grad):
        return copy
    set_history(copy, CopyBackwards(collect_next_edges(None, grad), (grad._dtype, grad._device)))
    return copy


def _dense(array) -> bool:
    strides = element_strides(array)
    return strides is not None and non_overlapping_and_dense(array.shape, strides)


variable.set_accumulate_grad_class(AccumulateGrad)  # NOTE [Who makes a leaf's AccumulateGrad]
