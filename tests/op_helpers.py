"""What the ops-batch tests share: the input data, and what a learner sees of a tensor and of its graph."""

from __future__ import annotations

DATA = [[1.5, -2.0, 0.5, 3.0], [-0.25, 4.0, -1.0, 2.0], [0.75, -3.5, 1.25, -0.5]]
INT_DATA = [[1, -2, 0, 3], [-1, 4, 2, 2], [5, -3, 1, -2]]
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int64", "int32", "int8", "uint8", "bool"]


def _node(out):
    """What a learner sees of ``out``'s node: its name and where its edges lead."""
    fn = out.grad_fn
    return fn.name(), [(n.name() if n is not None else None, nr) for n, nr in fn.next_functions]


def _graph(out):
    """Every node under ``out``, depth first: its name and where its edges lead."""
    seen, order, stack = set(), [], [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        order.append((fn.name(), [(n.name() if n is not None else None, nr) for n, nr in fn.next_functions]))
        stack.extend(n for n, _ in reversed(fn.next_functions))
    return order


def _x(T, dtype="float32", requires_grad=False):
    """A 3x4 tensor of ``dtype``: ``DATA``, or for an integer dtype ``INT_DATA`` (its absolute values if unsigned)."""
    if dtype in INTS:
        data = [[abs(v) for v in row] for row in INT_DATA] if dtype == "uint8" else INT_DATA
        return T.tensor(data).to(getattr(T, dtype))
    x = T.tensor(DATA, dtype=getattr(T, dtype))
    return x.requires_grad_() if requires_grad else x


def _layout(t):
    return t, t.dtype, tuple(t.shape), t.stride()
