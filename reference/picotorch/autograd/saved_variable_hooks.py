"""The pack / unpack hooks of saved tensors, and the stack of default hooks ``saved_tensors_hooks`` pushes.

Models ``aten/src/ATen/SavedTensorHooks.cpp`` (``SavedTensorDefaultHooks``: a per-thread stack of
hook pairs, and the switch that disables it), ``torch/csrc/autograd/saved_variable_hooks.h`` and
``python_saved_variable_hooks.cpp`` (``PySavedVariableHooks``: one pair of hooks and the packed
object of one saved tensor). The user's side, ``saved_tensors_hooks`` and ``save_on_cpu``, is in
``graph.py``; ``SavedVariable`` (``variable.py``) calls the hooks. When no hooks are pushed, saving a
tensor asks ``get_default_hooks()`` once and gets None.
"""

from __future__ import annotations

import threading

from ..native.tensor_impl import TensorImpl


class _State(threading.local):
    """Per thread: the stack of (pack_hook, unpack_hook) pairs, and the message that disables pushing.

    Defaults live on the class, so reading them never goes through a failed lookup (each tensor a
    forward op saves asks ``get_default_hooks()``: it must stay cheap when no hooks are pushed).
    """

    disabled_error_message: str | None = None

    def __init__(self) -> None:
        self.stack: list = []


_state = _State()


def push_hooks(pack_hook, unpack_hook) -> None:
    """``_push_saved_tensors_default_hooks``: the innermost pair is the one used."""
    if _state.disabled_error_message is not None:
        raise RuntimeError(_state.disabled_error_message)
    _state.stack.append((pack_hook, unpack_hook))


def pop_hooks() -> None:
    _state.stack.pop()


def get_default_hooks() -> PySavedVariableHooks | None:
    """The hooks a tensor saved now gets: a fresh holder for the innermost pair, or None."""
    stack = _state.stack
    return PySavedVariableHooks(*stack[-1]) if stack else None


def get_disabled_error_message() -> str | None:
    return _state.disabled_error_message


def disable(message: str) -> None:
    """``SavedTensorDefaultHooks::disable``: while a message is set, pushing hooks raises it; so does disabling
    while hooks are pushed (the message stays set: the caller's ``finally`` restores the previous one)."""
    _state.disabled_error_message = message
    if _state.stack:
        raise RuntimeError(message)


def enable() -> None:
    _state.disabled_error_message = None


class PySavedVariableHooks:
    """One saved tensor's pair of hooks, and what its pack hook returned (``data``)."""

    __slots__ = ("pack_hook", "unpack_hook", "data")

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self.data = None

    def call_pack_hook(self, tensor) -> None:
        self.data = self.pack_hook(tensor)

    def call_unpack_hook(self):
        """The unpack hook's result, which must be a tensor (a TypeError names what it was instead)."""
        result = self.unpack_hook(self.data)
        if not isinstance(result, TensorImpl):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(result).__name__}")
        return result
