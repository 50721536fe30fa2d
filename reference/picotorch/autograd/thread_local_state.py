"""The thread-local state a backward carries to the worker threads that run its nodes.

Models ``aten/src/ATen/ThreadLocalState.h`` (``ThreadLocalState``, ``ThreadLocalStateGuard``) as the
engine uses it (``torch/csrc/autograd/engine.cpp``: the GraphTask's ``thread_locals_``). A node of a
device runs on that device's worker thread, not on the thread that called backward; PyTorch captures
the caller's thread-local state when the GraphTask is made and installs it around each node a worker
runs, so a hook there sees the caller's settings.

picotorch carries grad mode in the GraphTask itself. Other state of picotorch's own that lives per thread
is a ``contextvars.ContextVar`` registered here with ``propagate`` (the rank of a
``picotorch.distributed`` thread, for one). Only those are carried: as in PyTorch, a program's own
thread-local values (a ``threading.local``, a ContextVar of its own) stay on the thread that set them.
"""

from __future__ import annotations

import contextvars
import threading

__all__ = ["ThreadLocalState", "propagate"]

_PROPAGATED: list[contextvars.ContextVar] = []
_UNSET = object()


def propagate(var: contextvars.ContextVar) -> contextvars.ContextVar:
    """Register ``var`` as part of the thread-local state every backward carries to its workers."""
    _PROPAGATED.append(var)
    return var


class ThreadLocalState:
    """The registered variables' values on the thread that made it (a GraphTask's ``thread_locals``)."""

    __slots__ = ("thread", "values")

    def __init__(self) -> None:
        self.thread = threading.get_ident()  # the thread it was taken on, which needs no guard
        self.values = [(var, var.get(_UNSET)) for var in _PROPAGATED]

    def run(self, fn, *args):
        """``ThreadLocalStateGuard``: ``fn(*args)`` with the captured values set, the worker's own after."""
        tokens = [var.set(value) for var, value in self.values if value is not _UNSET]
        try:
            return fn(*args)
        finally:
            for token in reversed(tokens):
                token.var.reset(token)
