"""Whether operations are recorded: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

Models ``c10/core/GradMode.h`` (a thread-local flag), ``c10/core/AutogradState.h`` (multithreading) and
``torch/autograd/grad_mode.py``.
"""

from __future__ import annotations

import functools
import threading


class _ThreadState(threading.local):
    """Each thread's modes; a thread starts with both on (the class attributes: reading one costs no exception
    on a thread that never set it, as ``getattr`` with a default did on every op)."""

    enabled = True
    multithreading = True


_state = _ThreadState()


def is_grad_enabled() -> bool:
    return _state.enabled


def _set_enabled(mode: bool) -> None:
    _state.enabled = bool(mode)


class _GradModeContext:
    """A context manager that is also a decorator, like torch's ``_DecoratorContextManager``."""

    mode: bool

    def __enter__(self):
        self.prev = is_grad_enabled()
        _set_enabled(self.mode)
        return self

    def __exit__(self, *exc):
        _set_enabled(self.prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    mode = False


class enable_grad(_GradModeContext):
    mode = True


class set_grad_enabled(_GradModeContext):
    def __init__(self, mode: bool) -> None:
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        _set_enabled(self.mode)

    def __enter__(self):
        return self

    def __call__(self, fn):
        _set_enabled(self.prev)
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


def is_multithreading_enabled() -> bool:
    """``torch._C._is_multithreading_enabled``: may backward use the device threads (thread-local)."""
    return _state.multithreading


class set_multithreading_enabled(_GradModeContext):
    """Off: backward runs every node on the calling thread, whatever its device (``ready_queue`` in engine.cpp)."""

    def __init__(self, mode: bool) -> None:
        self.prev = is_multithreading_enabled()
        self.mode = bool(mode)
        _state.multithreading = self.mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.multithreading = self.prev
        return False


class inference_mode(_GradModeContext):
    """``torch.inference_mode``: here grad mode off, as ``no_grad``.

    PyTorch also marks the tensors made inside as inference tensors (``is_inference()``), which later
    refuse to be saved for backward; picotorch keeps no such mark.
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = not mode
