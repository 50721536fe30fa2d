"""Hooks on the autograd graph and the handles that remove them.

Models ``torch/utils/hooks.py`` (``RemovableHandle``) and ``torch/csrc/autograd/function_hook.h`` /
``python_hook.cpp`` (how a Python hook's return value replaces a gradient, and the checks on it).

NOTE [Hooks ordering]
When the engine is about to run a node it calls, in this order:
  1. tensor pre hooks (``Tensor.register_hook``) of the tensors whose gradients flow into the node,
  2. the retains-grad hook (``retain_grad()``), always after the tensor's other hooks, so the
     retained ``.grad`` reflects what they returned,
  3. the node's pre hooks (``Node.register_prehook``),
  then the node itself, then
  4. the node's post hooks (``Node.register_hook``), which see the inputs and outputs.
For a leaf, the node is its AccumulateGrad; after ``.grad`` is written, the tensor's
post-accumulate-grad hooks run (``Tensor.register_post_accumulate_grad_hook``). Hooks of one kind
run in registration order and each sees what the previous one returned.
"""

from __future__ import annotations

import itertools

_next_id = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks_dict: dict) -> None:
        self.hooks_dict_ref = hooks_dict
        self.id = next(_next_id)

    @classmethod
    def add(cls, hooks_dict: dict, fn) -> RemovableHandle:
        handle = cls(hooks_dict)
        hooks_dict[handle.id] = fn
        return handle

    def remove(self) -> None:
        self.hooks_dict_ref.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def hook_name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _type_string(t) -> str:
    """The legacy type name PyTorch prints in hook errors: ``CPUFloatType``."""
    device = "CUDA" if t._device.type == "cuda" else "CPU"
    return f"{device}{t._dtype.c10_name}Type"


def check_hook_result(original, result, fn):
    """What a hook returned for one gradient: None keeps it; a tensor must match it."""
    if result is None:
        return original
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not hasattr(result, "_data"):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if result._dtype is not original._dtype or result._device.type != original._device.type:
        raise RuntimeError(f"hook '{hook_name(fn)}' has changed the type of value (was "
                           f"{_type_string(original)} got {_type_string(result)})")
    if tuple(result._data.shape) != tuple(original._data.shape):
        raise RuntimeError(f"hook '{hook_name(fn)}' has changed the size of value")
    return result


class TensorPreHook:
    """Runs a tensor's hooks (a dict, in registration order) on gradient ``value_idx`` of a node."""

    def __init__(self, hooks: dict, value_idx: int) -> None:
        self.hooks = hooks
        self.value_idx = value_idx

    def __call__(self, grads: list) -> list:
        value = grads[self.value_idx]
        for fn in list(self.hooks.values()):
            value = check_hook_result(value, fn(value), fn)
        grads = list(grads)
        grads[self.value_idx] = value
        return grads


class NodePreHook:
    """Wraps ``Node.register_prehook``'s fn: ``fn(grad_outputs) -> new grad_outputs or None``."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, grads: list) -> list:
        result = self.fn(tuple(grads))
        return check_tuple_result(grads, result, self.fn, "pre-hook")


def check_tuple_result(originals: list, result, fn, kind: str) -> list:
    if result is None:
        return list(originals)
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise TypeError(f"hook '{hook_name(fn)}' has returned an incorrect number of values (got "
                        f"{len(result)}, but expected {len(originals)})")
    return [check_hook_result(o, r, fn) if r is not None else o for o, r in zip(originals, result)]
