"""``torch._C._dispatch_*``: the dispatcher as Python sees it.

Models ``torch/csrc/utils/python_dispatch.cpp`` (the helpers a learner uses to look at the
dispatcher) and the ``DispatchKey``/``DispatchKeySet`` bindings of ``torch/csrc/Module.cpp``:

    _dispatch_keys(t)                       the keys a tensor carries
    _dispatch_dump("aten::mul.Tensor")      the kernels registered for an operator, by key
    _dispatch_dump_table("aten::mul.Tensor")  the computed table: which kernel runs for each key
    _dispatch_has_kernel_for_dispatch_key   registered to that key itself?
    _dispatch_tls_local_exclude_set()       the keys this thread excludes
    _dispatch_trace()                       (picotorch's) print each call's key, as PyTorch's debug
                                            builds do with TORCH_SHOW_DISPATCH_TRACE=1
"""

from __future__ import annotations

from ..c10.dispatch_key import DispatchKey, DispatchKeySet
from ..native.dispatch_trace import dispatch_trace, key_set_of, tls_local_exclude_set
from ..native.dispatcher import ENTRIES

__all__ = ["DispatchKey", "DispatchKeySet", "_dispatch_keys", "_dispatch_dump", "_dispatch_dump_table",
           "_dispatch_has_kernel_for_dispatch_key", "_dispatch_tls_local_exclude_set",
           "_dispatch_tls_is_dispatch_key_excluded", "_dispatch_trace"]


def _dispatch_keys(tensor) -> DispatchKeySet:
    return key_set_of(tensor)


def _dispatch_dump(name: str) -> str:
    """``name: ...``, ``schema: ...`` and one line per registered key; ``""`` for an unknown operator."""
    entry = ENTRIES.get(name)
    return entry.dump_state() if entry is not None else ""


def _dispatch_dump_table(name: str) -> str:
    entry = ENTRIES.get(name)
    return entry.dump_computed_table() if entry is not None else ""


def _dispatch_has_kernel_for_dispatch_key(name: str, key) -> bool:
    return ENTRIES[name].has_kernel_for_dispatch_key(_parse_key(key))


def _dispatch_tls_local_exclude_set() -> DispatchKeySet:
    return tls_local_exclude_set()


def _dispatch_tls_is_dispatch_key_excluded(key) -> bool:
    return tls_local_exclude_set().has(_parse_key(key))


_dispatch_trace = dispatch_trace


def _parse_key(key) -> DispatchKey:
    if isinstance(key, DispatchKey):
        return key
    try:
        return DispatchKey[key]
    except KeyError:
        raise RuntimeError(f"could not parse dispatch key: {key}") from None
