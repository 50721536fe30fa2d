"""Keeping CPython's cyclic garbage collector from rescanning a big autograd graph again and again.

No PyTorch file models this one: PyTorch's graph (``Node``, ``Edge``, ``SavedVariable`` in
``torch/csrc/autograd/``) is C++ held by reference counts, invisible to Python's collector. picotorch's
graph is made of Python objects, which is what makes it readable, and this module is what that costs.

NOTE [The cyclic GC and big graphs]
CPython (3.11 to 3.13) runs a full collection, a scan of every container object alive, whenever the
objects that survived since the last full one exceed a quarter of all long-lived objects. A forward
pass adds about seven such objects per op (the node, its edge and metadata lists, saved tensors), so
while one graph of N ops is built the interpreter scans the whole heap about log1.25(N) times, and the
cost per op grows with N (measured on the chain of bench/bench_engine.py, per op: nothing at N = 1e3,
2.8 us at 1e4, 5.8 us at 1e5, when the op itself costs about 9 us).

Those scans find nothing in the graph: it holds no reference cycle (a node keeps only the data of an
output it saved, never the output; a leaf keeps its accumulator weakly), and reference counting frees
it as soon as the last tensor goes. So the policy below watches the collector (``gc.callbacks``):

- after a full collection that freed almost nothing while the calling thread built many nodes since the
  previous one, it raises the third threshold (how many second-generation collections come before a
  full one) to ``MAX_THRESHOLD2``: the first full collection of a big graph is the only one it pays;
- once no node has been built for ten second-generation collections in a row (a backward builds none,
  so it does not count), or a full collection finds real garbage, or the program set thresholds of its
  own, it puts back the thresholds it found (and never touches the program's own).

Young cycles (a hook whose closure holds its tensor) are still found by the first two generations,
which keep their thresholds; old ones by the full collections, which still run, less often while the
graph grows. ``set_enabled(False)`` turns the policy off.
"""

from __future__ import annotations

import gc

from .graph import peek_sequence_nr

MAX_THRESHOLD2 = 640  # full collections at most every 640 second-generation ones (default 10)
IDLE_COLLECTIONS = 10  # that many second-generation collections without a new node: step back
MIN_NODES_BUILT = 1_000  # fewer nodes between two full collections: not a big graph, leave the GC alone


class _State:
    enabled = True
    found: tuple | None = None  # the thresholds before the policy raised them
    raised: tuple | None = None  # what the policy set (if the program sets others, hands off)
    nodes_at_last_check = 0  # the sequence number at the last second-generation or full collection
    nodes_at_last_full = 0  # ... at the last full collection
    idle_collections = 0  # second-generation collections in a row with no node built in between


def set_enabled(enabled: bool) -> None:
    _State.enabled = bool(enabled)
    if not enabled:
        _restore()


def is_enabled() -> bool:
    return _State.enabled


def _on_collection(phase: str, info: dict) -> None:
    if phase != "stop" or not _State.enabled or info["generation"] == 0:
        return
    current = gc.get_threshold()
    if _State.raised is not None and current != _State.raised:
        _State.found = _State.raised = None  # the program chose its own thresholds
    nodes = peek_sequence_nr()
    built_lately, _State.nodes_at_last_check = nodes - _State.nodes_at_last_check, nodes
    if info["generation"] == 1:
        _State.idle_collections = 0 if built_lately else _State.idle_collections + 1
        if _State.idle_collections >= IDLE_COLLECTIONS:
            _restore()  # no graph has been built for a while (a backward builds none: it may take a few)
        return
    built, _State.nodes_at_last_full = nodes - _State.nodes_at_last_full, nodes
    if built >= MIN_NODES_BUILT and info["collected"] + info["uncollectable"] < built // 100:
        _raise(current)
    else:
        _restore()


def _raise(current: tuple) -> None:
    if _State.found is None:
        _State.found = current
    raised = (current[0], current[1], max(MAX_THRESHOLD2, _State.found[2]))
    _State.raised = raised
    gc.set_threshold(*raised)


def _restore() -> None:
    if _State.found is not None and gc.get_threshold() == _State.raised:
        gc.set_threshold(*_State.found)
    _State.found = _State.raised = None


gc.callbacks.append(_on_collection)
