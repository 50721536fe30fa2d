"""Watching the dispatcher: the keys of a call, and a trace of each call and redispatch.

Models the key extraction of ``aten/src/ATen/core/dispatch/DispatchKeyExtractor.h`` and the
``TORCH_SHOW_DISPATCH_TRACE`` printout of ``Dispatcher.cpp`` (``_print_dispatch_trace``). A call's
key set is the union of its tensor arguments' sets, minus the keys the thread excludes and those the
operator falls through; its highest-priority key picks the kernel. With requires_grad or without, in
grad mode or in ``no_grad``, a CPU call starts at ``AutogradCPU``: the autograd kernel always runs,
and it is the kernel that looks at grad mode and requires_grad before recording anything.

    >>> import picotorch
    >>> a, b = picotorch.ones(2, requires_grad=True), picotorch.ones(2)
    >>> with picotorch._C._dispatch_trace(file=sys.stdout):
    ...     c = a * b
     [call] op=[aten::mul.Tensor], key=[AutogradCPU]
      [redispatch] op=[aten::mul.Tensor], key=[CPU]

PyTorch prints this only in debug builds (its release wheels compile it out). picotorch's trace
costs nothing when off: it is a profiler hook (``sys.setprofile``) that sees the generated functions
being entered, so the ordinary call path carries no check at all.
"""

from __future__ import annotations

import contextlib
import sys

from ..c10.dispatch_key import (
    AFTER_AUTOGRAD,
    BACKENDS,
    DEFAULT_EXCLUDED,
    DispatchKey,
    DispatchKeySet,
    tensor_key_set,
)
from .dispatcher import OPERATOR_OF_CODE, kernel_for
from .operator_entry import OperatorEntry
from .tensor_impl import TensorImpl


def key_set_of(tensor: TensorImpl) -> DispatchKeySet:
    """``torch._C._dispatch_keys(t)``: the keys a tensor carries, from its device alone."""
    return tensor_key_set(tensor._device.type)


def tls_local_exclude_set() -> DispatchKeySet:
    """The keys this thread excludes: the autocast keys (autocast is off; picotorch has none)."""
    return DEFAULT_EXCLUDED


def dispatch_key_set(entry: OperatorEntry, arguments) -> DispatchKeySet:
    """The keys a call of ``entry`` with ``arguments`` dispatches on; the highest one runs.

    Tensors count, alone or in a list (``Tensor[]``); numbers and None do not. The worked example
    beside it is :func:`key_set_of`, one tensor's keys.
    """
    # BEGIN SOLUTION 5.1: union the tensor arguments' key sets, minus the excluded and the fallthrough keys
    keys = DispatchKeySet()
    for value in arguments:
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, TensorImpl):
                keys = keys | key_set_of(item)
    return keys - tls_local_exclude_set() - entry.fallthrough_keys()
    # END SOLUTION


# ----------------------------------------------------------------------------- the trace


class _Trace:
    """The profiler hook: a ``[call]`` line when a registered function is entered, a ``[redispatch]``
    line when it asks ``kernel_for`` for its backend kernel; indented one space per nesting level."""

    def __init__(self, file):
        self.file = file
        self.depth = 0
        self.calls = []  # [frame, entry, key set, levels of redispatch] of each operator being run

    def __call__(self, frame, event, arg):
        if event == "call":
            entry = OPERATOR_OF_CODE.get(frame.f_code)
            if entry is not None:
                self.enter(frame, entry)
            elif frame.f_code is _KERNEL_FOR and self.calls and self.calls[-1][3] == 0:
                self.redispatch(self.calls[-1])
        elif event == "return" and self.calls and self.calls[-1][0] is frame:
            self.depth -= 1 + self.calls.pop()[3]

    def enter(self, frame, entry: OperatorEntry) -> None:
        keys = dispatch_key_set(entry, _arguments(frame))
        self.calls.append([frame, entry, keys, 0])
        self.depth += 1
        self.show("[call]", entry, keys)

    def redispatch(self, call) -> None:
        """The autograd kernel redispatches below autograd (``ks & after_autograd_keyset``); for an
        in-place or view op that is ADInplaceOrView, whose kernel redispatches once more, to the backend."""
        keys = call[2] & AFTER_AUTOGRAD
        while keys.highestPriorityTypeId() not in _BACKEND_KEYS:
            call[3] += 1
            self.depth += 1
            self.show("[redispatch]", call[1], keys)
            keys = keys.remove(keys.highestPriorityTypeId())
        call[3] += 1
        self.depth += 1
        self.show("[redispatch]", call[1], keys)

    def show(self, label: str, entry: OperatorEntry, keys: DispatchKeySet) -> None:
        print(f"{' ' * self.depth}{label} op=[{entry.name}], key=[{keys.highestPriorityTypeId().name}]",
              file=self.file or sys.stderr)


_KERNEL_FOR = kernel_for.__code__
_BACKEND_KEYS = {DispatchKey[b] for b in BACKENDS} | {DispatchKey.Undefined}


def _arguments(frame) -> list:
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return [frame.f_locals[name] for name in names]


@contextlib.contextmanager
def dispatch_trace(file=None):
    """Print the key of every operator call and redispatch on this thread (to stderr, as PyTorch)."""
    previous = sys.getprofile()
    sys.setprofile(_Trace(file))
    try:
        yield
    finally:
        sys.setprofile(previous)
