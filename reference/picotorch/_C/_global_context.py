"""Process-wide settings: the intra-op thread count and the deterministic-algorithms flag.

Models ``torch/csrc/Module.cpp`` (``THPModule_setNumThreads``, ``THPModule_getNumThreads``,
``THPModule_setDeterministicAlgorithms`` ...) and the flags of ``aten/src/ATen/Context.h``. picotorch computes on
one thread whatever the count says (NumPy's own threads are NumPy's business); the count is kept so that a program
reads back what it set. No picotorch kernel is nondeterministic, so the flag never makes one raise.
"""

from __future__ import annotations

import os

_state = {"num_threads": None, "deterministic": False, "warn_only": False}


def get_num_threads() -> int:
    """The intra-op thread count: ``OMP_NUM_THREADS``, else the machine's cores, until set."""
    if _state["num_threads"] is None:
        env = os.environ.get("OMP_NUM_THREADS", "")
        return int(env) if env.isdigit() and int(env) > 0 else os.cpu_count() or 1
    return _state["num_threads"]


def set_num_threads(n) -> None:
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _state["num_threads"] = n


def _set_deterministic_algorithms(mode, *, warn_only=False) -> None:
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def _get_deterministic_algorithms() -> bool:
    return _state["deterministic"]


def _get_deterministic_algorithms_warn_only() -> bool:
    return _state["warn_only"]
