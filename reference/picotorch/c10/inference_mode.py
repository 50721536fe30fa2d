"""Inference mode's thread-local flag: is this thread inside ``torch.inference_mode()``?

Models ``c10/core/InferenceMode.h`` (``InferenceMode::is_enabled``, which reads the inference-mode bit of
``c10/core/AutogradState.h``). The context manager is ``autograd/grad_mode.py``'s ``inference_mode``; the flag
sits down here because ``TensorImpl`` reads it: a tensor made while it is on is an *inference tensor*, one with
no version counter (``native/tensor_impl.py``).
"""

from __future__ import annotations

import threading


class _ThreadState(threading.local):
    enabled = False  # a class attribute: a thread that never entered inference mode reads it without an error


state = _ThreadState()  # hot paths read ``state.enabled`` (a call costs more than the read)


def is_enabled() -> bool:
    return state.enabled


def set_enabled(mode: bool) -> None:
    state.enabled = mode
