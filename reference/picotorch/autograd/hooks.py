"""How the engine calls the hooks a user registered, and what a hook may return.

Models ``torch/csrc/autograd/python_hook.cpp`` (``PyFunctionTensorPreHook``, ``PyFunctionPreHook``,
``PyFunctionPostHook``, ``_call_hooks``, ``check_result``, ``check_single_result``),
``function_hook.h`` and ``custom_function.cpp`` (``check_variable_result``). The handle a
registration returns is ``picotorch.utils.hooks.RemovableHandle`` (``torch/utils/hooks.py``).

NOTE [Hooks ordering]
When the engine is about to run a node it calls, in this order:
  1. the tensor pre hooks (``Tensor.register_hook``) of the tensors whose gradients flow into the
     node, in registration order;
  2. the retains-grad hook (``retain_grad()``), always after the tensor's other hooks, so the
     retained ``.grad`` reflects what they returned;
  3. the node's pre hooks (``Node.register_prehook``);
then the node itself, then
  4. the node's post hooks (``Node.register_hook``), which see the node's outputs and inputs.
For a leaf the node is its AccumulateGrad: its tensor pre hooks are the leaf's own hooks (kept on
the tensor, not the node, because the tensor holds the node only weakly); after ``.grad`` has been
written, the leaf's post-accumulate-grad hooks run (``Tensor.register_post_accumulate_grad_hook``).
When ``autograd.grad(inputs=...)`` captures a gradient at a node it does not need to run, steps 1
and 2 still happen (the captured value is what the hooks returned), steps 3 and 4 do not.
Hooks of one kind run in registration order and each sees what the previous one returned.
"""

from __future__ import annotations

from collections import OrderedDict

from ..native.helpers import error_type_string
from ..native.tensor_impl import TensorImpl
from ..utils.hooks import RemovableHandle

__all__ = ["RemovableHandle", "TensorPreHook", "call_node_hooks", "check_single_result", "new_hooks_dict"]


def new_hooks_dict() -> OrderedDict:
    """Hooks live in an OrderedDict keyed by handle id: insertion order is registration order."""
    return OrderedDict()


def hook_name(fn) -> str:
    """``hook_name`` in python_hook.cpp: the hook's ``__name__``, if it is a string."""
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def check_single_result(original, result, fn) -> None:
    """What one returned value may be: None (keep), or a tensor of the same type and size."""
    if result is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, TensorImpl):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    check_variable_result(original, result, hook_name(fn))


def check_variable_result(original, result, name: str) -> None:
    if result._dtype is not original._dtype or result._device.type != original._device.type:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"{error_type_string(original)} got {error_type_string(result)})")
    if tuple(result._data.shape) != tuple(original._data.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def check_result(original: tuple, result, fn) -> None:
    """What a node hook may return instead of a tuple of gradients (see check_single_result above)."""
    # BEGIN SOLUTION 3.2: a tuple (TypeError), of the same length (RuntimeError), each value checked
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(original):
        raise RuntimeError(f"hook '{hook_name(fn)}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(original)})")
    for old, new in zip(original, result):
        check_single_result(old, new, fn)
    # END SOLUTION


def call_hooks(hooks: OrderedDict, args: list) -> bool:
    """``_call_hooks``: call each hook on ``args``; a returned value replaces ``args[0]``.

    Iterates over a copy, so a hook may remove itself (or another) while running. Returns whether
    any hook replaced ``args[0]``. A tuple result replaces the whole tuple: a ``None`` inside it
    becomes a missing gradient, while a hook returning ``None`` itself changes nothing.
    """
    modified = False
    # BEGIN SOLUTION 3.1: call every hook on args; a non-None result (checked) replaces args[0]
    for fn in list(hooks.values()):
        result = fn(*args)
        if result is None or result is args[0]:
            continue
        if type(args[0]) is tuple:
            check_result(args[0], result, fn)
        else:
            check_single_result(args[0], result, fn)
        args[0] = result
        modified = True
    # END SOLUTION
    return modified


class TensorPreHook:
    """``PyFunctionTensorPreHook``: a tensor's hooks, run on gradient ``value_idx`` of its node."""

    def __init__(self, hooks: OrderedDict, value_idx: int) -> None:
        self.hooks = hooks
        self.value_idx = value_idx

    def __call__(self, grads: list) -> list:
        args = [grads[self.value_idx]]
        if not call_hooks(self.hooks, args):
            return grads
        grads = list(grads)
        grads[self.value_idx] = args[0]
        return grads


def call_node_pre_hooks(hooks: OrderedDict, grads: list) -> list:
    """``PyFunctionPreHook``: ``fn(grad_outputs) -> new grad_outputs or None``."""
    args = [tuple(grads)]
    return list(args[0]) if call_hooks(hooks, args) else grads


def call_node_post_hooks(hooks: OrderedDict, outputs: list, inputs: list) -> list:
    """``PyFunctionPostHook``: ``fn(grad_inputs, grad_outputs) -> new grad_inputs or None``."""
    args = [tuple(outputs), tuple(inputs)]
    return list(args[0]) if call_hooks(hooks, args) else outputs


def call_node_hooks(kind: str, hooks: OrderedDict | None, *grads: list) -> list:
    """Run a node's ``"pre"`` or ``"post"`` hooks (if any) and return the gradients they leave."""
    if not hooks:
        return grads[0]
    if kind == "pre":
        return call_node_pre_hooks(hooks, grads[0])
    return call_node_post_hooks(hooks, grads[0], grads[1])
