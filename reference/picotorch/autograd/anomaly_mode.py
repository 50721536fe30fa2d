"""Anomaly mode: each node remembers where the forward made it, and a failing backward says so.

Models ``torch/csrc/autograd/anomaly_mode.h`` / ``anomaly_mode.cpp`` (the two process-wide flags,
``AnomalyMetadata``), ``python_anomaly_mode.cpp`` (``PyAnomalyMetadata``: the forward stack and the
parent node kept in the node's ``metadata`` dict, the warnings printed on failure) and
``torch/autograd/anomaly_mode.py`` (``detect_anomaly``, ``set_detect_anomaly``). The path:

- forward, ``Node.__init__`` (``graph.py``): when anomaly mode is on, ``store_stack`` puts the Python
  stack in ``node.metadata["traceback_"]`` and ``assign_parent`` puts the node whose backward is
  running (if any: double backward) in ``node.metadata["parent_"]``;
- backward, the engine's loop (``engine.py``): when it is on, each node runs under ``evaluate_guarded``
  (PyTorch's ``NodeGuard`` and the ``catch`` in ``thread_main``): the node is the current node while
  it runs, and if it raises, ``print_stack`` warns with its forward stack and its parents' before the
  error goes on; ``evaluate_function`` checks the node's outputs for NaN (``check_nan``).

A backward with anomaly mode off never reaches this file: one flag test per node created and per node run.
"""

from __future__ import annotations

import os
import threading
import traceback
import warnings

from ..native.helpers import xp_of

__all__ = ["detect_anomaly", "set_detect_anomaly"]

ANOMALY_TRACE_KEY = "traceback_"
ANOMALY_PARENT_KEY = "parent_"


class AnomalyMode:
    """``AnomalyMode`` in anomaly_mode.h: two flags for the whole process (not per thread)."""

    enabled = False
    check_nan = True


def is_anomaly_enabled() -> bool:
    return AnomalyMode.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return AnomalyMode.check_nan


_MISSING = object()


def set_anomaly_enabled(enabled=_MISSING, check_nan=True) -> None:
    """``torch.set_anomaly_enabled``: both flags at once (the argument parser's errors for the first)."""
    if enabled is _MISSING:
        raise TypeError('set_anomaly_enabled() missing 1 required positional arguments: "enabled"')
    if not isinstance(enabled, bool):
        raise TypeError(f"set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, not "
                        f"{type(enabled).__name__}")
    AnomalyMode.enabled = enabled
    AnomalyMode.check_nan = bool(check_nan)


class detect_anomaly:
    """Turn anomaly mode on inside a ``with`` block (a context manager only, as in PyTorch)."""

    def __init__(self, check_nan=True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly mode on or off now; as a context manager, restore the previous flags on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# ----------------------------------------------------------------------------- forward: what a node remembers

class _ThreadState(threading.local):
    node = None  # the node whose backward is running on this thread (PyTorch's current_evaluating_node)


_thread_state = _ThreadState()


def current_node():
    """``get_current_node()``: the node whose backward is running on this thread, or None."""
    return _thread_state.node


def store_stack(node) -> None:
    """``PyAnomalyMetadata::store_stack``: the forward's Python stack, one string per frame."""
    node.metadata[ANOMALY_TRACE_KEY] = format_stack()


def assign_parent(node) -> None:
    """A node made while another node's backward runs (double backward) records that node as its parent."""
    parent = current_node()
    if parent is not None:
        node.metadata[ANOMALY_PARENT_KEY] = parent


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# picotorch files that stand for PyTorch's Python files: their frames show, as PyTorch's do. Every
# other picotorch file stands for C++, which has no Python frame in PyTorch's stack.
_PYTHON_FILES = ("_tensor.py", "_tensor_str.py", "autograd/__init__.py", "autograd/function.py", "nn/",
                 "optim/", "utils/")


def format_stack() -> list[str]:
    """``traceback.format_stack()`` without the frames of picotorch's stand-ins for C++."""
    frames = [f for f in traceback.extract_stack()[:-1] if not _stands_for_cpp(f.filename)]
    return traceback.format_list(frames)


def _stands_for_cpp(filename: str) -> bool:
    if not filename.startswith(_PACKAGE):
        return False
    return not filename[len(_PACKAGE):].replace(os.sep, "/").startswith(_PYTHON_FILES)


# ----------------------------------------------------------------------------- backward: running a node


def evaluate_guarded(evaluate_function, task, fn, inputs, queue) -> None:
    """``thread_main``'s ``NodeGuard`` and ``catch`` around ``evaluate_function``, in anomaly mode."""
    previous = current_node()
    _thread_state.node = fn
    try:
        evaluate_function(task, fn, inputs, queue)
    except Exception:
        print_stack(fn)
        raise
    finally:
        _thread_state.node = previous


def print_stack(node) -> None:
    """``PyAnomalyMetadata::print_stack``: one warning for the node, then one per parent up the chain."""
    metadata = node.metadata
    _warn_stack(metadata.get(ANOMALY_TRACE_KEY), node.name(), is_parent=False)
    parent = metadata.get(ANOMALY_PARENT_KEY)
    while parent is not None:
        metadata = parent.metadata
        _warn_stack(metadata.get(ANOMALY_TRACE_KEY), parent.name(), is_parent=True)
        parent = metadata.get(ANOMALY_PARENT_KEY)


def _warn_stack(stack, name: str, is_parent: bool) -> None:
    """The three texts of ``python_anomaly_mode.cpp``, each with the line of C++ that warns it."""
    if stack is None:
        message, line = (f"Error detected in {name}. No forward pass information available. Enable detect "
                         "anomaly during forward pass for more information."), 100
    elif not is_parent:
        message, line = f"Error detected in {name}. Traceback of forward call that caused the error:\n", 122
    else:
        message, line = (f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
                         "induced the previous calculation:\n"), 129
    message += "".join(stack or ())
    where = f"/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{line}"
    warnings.warn(f"{message} (Triggered internally at {where}.)", UserWarning, stacklevel=2)


def has_nan(tensor) -> bool:
    xp = xp_of(tensor)
    return bool(xp.any(xp.isnan(tensor._data)))


def check_nan(name: str, outputs: list) -> None:
    """``Function 'MulBackward0' returned nan values in its 1th output.``: the first output with a nan.

    Run after the node, before its gradients move on (``evaluate_function`` in engine.cpp). An output
    is None where no gradient flows. Worked example of the same walk: ``validate_outputs`` in
    ``engine.py`` checks each gradient in turn and names the index of the first bad one.
    """
    # BEGIN SOLUTION 4.4: raise RuntimeError naming the node and the index of the first output (not None) with a nan
    for i, output in enumerate(outputs):
        if output is not None and has_nan(output):
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")
    # END SOLUTION
