"""Helpers for the differential tests of chapters 02-03: run one program on picotorch and on torch and
compare what a learner can see of the graphs it built.

``graph_structure`` walks a graph iteratively (graphs may be deeper than Python's recursion limit)
and describes it by names and edges only, numbering nodes in breadth-first discovery order, so two
graphs compare equal exactly when they have the same shape, the same names, the same ``input_nr``
on every edge and the same sharing of nodes.
"""

from __future__ import annotations

from collections import deque

import pytest

import picotorch

torch = pytest.importorskip("torch")

LIBS = (picotorch, torch)


def graph_structure(*roots) -> tuple:
    """``(root ids, [(name, [(child id or None, input_nr), ...]), ...])`` for tensors or nodes."""
    ids: dict[int, int] = {}
    order: list = []
    queue: deque = deque()

    def visit(node):
        if node is None:
            return None
        if id(node) not in ids:
            ids[id(node)] = len(order)
            order.append(node)
            queue.append(node)
        return ids[id(node)]

    tops = [visit(getattr(r, "grad_fn", r) if hasattr(r, "grad_fn") else r) for r in roots]
    nodes = []
    while queue:
        node = queue.popleft()
        nodes.append((node.name(), [(visit(fn), int(nr)) for fn, nr in node.next_functions]))
    return tops, nodes


def leaves_of(root, named: dict) -> list:
    """For every AccumulateGrad reachable from ``root``: the name of its ``.variable`` in ``named``."""
    found, seen, stack = [], set(), [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if hasattr(node, "variable"):
            found.append(next((k for k, v in named.items() if v is node.variable), "?"))
        stack.extend(fn for fn, _ in node.next_functions)
    return sorted(found)


def outcome(prog, lib):
    """What ``prog(lib)`` returned, or the (type name, message) of what it raised."""
    try:
        return prog(lib)
    except Exception as err:  # the error is part of the observed behaviour
        return ("raised", type(err).__name__, str(err))


def close(ours, theirs, rel: float = 1e-5, atol: float = 1e-5) -> bool:
    """Equal, except that floats may differ in the last bits (NumPy and PyTorch round differently).

    ``atol`` covers values near zero made by cancellation (float32 ``a - b`` inside an ``mm``), whose
    last-bit differences are large relative to the value itself.
    """
    if isinstance(ours, float) and isinstance(theirs, float):
        return ours == theirs or abs(ours - theirs) <= atol + rel * max(abs(ours), abs(theirs))
    if isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple)):
        return type(ours) is type(theirs) and len(ours) == len(theirs) and all(
            close(a, b, rel, atol) for a, b in zip(ours, theirs))
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return ours.keys() == theirs.keys() and all(close(ours[k], theirs[k], rel, atol) for k in ours)
    return ours == theirs


def rounded(value, digits: int = 5):
    """Floats rounded to ``digits`` significant places, inside lists, tuples and dicts (NumPy and
    PyTorch may round the last bit differently)."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, (list, tuple)):
        return type(value)(rounded(v, digits) for v in value)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    return value


def same(prog):
    """Run ``prog`` on both libraries; assert the outcomes are equal and return picotorch's."""
    ours, theirs = outcome(prog, picotorch), outcome(prog, torch)
    assert close(ours, theirs), f"\npicotorch: {rounded(ours)}\ntorch:     {rounded(theirs)}"
    return ours
