"""Whether operations are recorded: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

Models ``c10/core/GradMode.h`` (a thread-local flag), ``c10/core/AutogradState.h`` (multithreading),
``c10/core/InferenceMode.h`` (the guard; its flag is ``c10/inference_mode.py``) and ``torch/autograd/grad_mode.py``.
"""

from __future__ import annotations

import functools
import threading

from ..c10 import inference_mode as c10_inference_mode


class _ThreadState(threading.local):
    """Each thread's modes; a thread starts with them on (the class attributes: reading one costs no exception
    on a thread that never set it, as ``getattr`` with a default did on every op)."""

    enabled = True  # do ops record? grad mode on and not in inference mode (which excludes the autograd keys)
    grad_mode = True  # what ``torch.is_grad_enabled()`` says: ``enable_grad`` inside inference mode turns it on
    multithreading = True


_state = _ThreadState()


def is_grad_enabled() -> bool:
    """Whether ops record a graph: every autograd kernel asks this (``torch.is_grad_enabled()`` is
    ``grad_mode_enabled``, which differs only inside inference mode)."""
    return _state.enabled


def grad_mode_enabled() -> bool:
    """``torch.is_grad_enabled()``: ``GradMode::is_enabled``."""
    return _state.grad_mode


grad_mode_enabled.__name__ = grad_mode_enabled.__qualname__ = "is_grad_enabled"  # as torch.is_grad_enabled prints


def _set_enabled(mode: bool) -> None:
    _state.grad_mode = bool(mode)
    _state.enabled = _state.grad_mode and not c10_inference_mode.state.enabled


class _GradModeContext:
    """A context manager that is also a decorator, like torch's ``_DecoratorContextManager``."""

    mode: bool

    def __enter__(self):
        self.prev = grad_mode_enabled()
        _set_enabled(self.mode)
        return self

    def __exit__(self, *exc) -> None:
        _set_enabled(self.prev)  # None: an exception goes on, as torch's __exit__ returns None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class _NoParamContext(_GradModeContext):
    """torch's ``_NoParamDecoratorContextManager``: ``@no_grad`` works bare, as ``@no_grad()`` does."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamContext):
    mode = False


class enable_grad(_NoParamContext):
    mode = True


class set_grad_enabled(_GradModeContext):
    def __init__(self, mode: bool) -> None:
        self.prev = grad_mode_enabled()
        self.mode = bool(mode)
        _set_enabled(self.mode)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

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

    def __exit__(self, *exc) -> None:
        _state.multithreading = self.prev


class inference_mode(_GradModeContext):
    """``torch.inference_mode(mode=True)``: grad mode off, and every tensor made inside is an inference tensor
    (NOTE [Inference tensors have no version counter], native/tensor_impl.py). ``inference_mode(False)`` is
    normal mode with grad mode *on*, wherever it is used (``c10::InferenceMode``'s guard sets both).
    Usable bare as a decorator (``@inference_mode``), as torch's is."""

    def __new__(cls, mode_or_function=True):
        if mode_or_function is None or isinstance(mode_or_function, bool):
            return super().__new__(cls)
        return cls()(mode_or_function)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self):
        self.prev = (grad_mode_enabled(), c10_inference_mode.is_enabled(), _state.multithreading)
        enabled = bool(self.mode)
        c10_inference_mode.set_enabled(enabled)
        _set_enabled(not enabled)
        _state.multithreading = not enabled
        return None

    def __exit__(self, *exc):
        grad, inference, multithreading = self.prev
        c10_inference_mode.set_enabled(inference)
        _set_enabled(grad)
        _state.multithreading = multithreading

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__(self.mode)


def is_inference_mode_enabled(*args) -> bool:
    """``torch.is_inference_mode_enabled()``."""
    if args:
        raise TypeError(f"torch.is_inference_mode_enabled() takes no arguments ({len(args)} given)")
    return c10_inference_mode.is_enabled()
