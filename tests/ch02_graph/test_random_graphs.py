"""Random programs (hypothesis) build the same graph in picotorch and in PyTorch.

A program is a list of steps over a pool of tensors (two leaves that require grad, one constant):
each step applies an op to pool members and appends the result. Compared: the graph structure of
every result (names, edges, input_nr, sharing) and the gradients a backward through all of them gives.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_helpers import graph_structure, same

UNARY = ["exp", "tanh", "sigmoid", "relu", "neg", "t", "clone", "sum0", "unsqueeze", "double", "mul2", "radd"]
BINARY = ["add", "sub", "mul", "div", "stack", "mm"]


def apply(t, op, x, y):
    ops = {
        "exp": lambda: x.exp(), "tanh": lambda: x.tanh(), "sigmoid": lambda: x.sigmoid(), "relu": lambda: x.relu(),
        "neg": lambda: -x, "t": lambda: x.t(), "clone": lambda: x.clone(),
        "sum0": lambda: x.sum(0, keepdim=True).expand(2, 2),
        "unsqueeze": lambda: x.unsqueeze(0)[0], "double": lambda: x.double().float(), "mul2": lambda: x * 2,
        "radd": lambda: 1 + x, "add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
        "div": lambda: x / (y * y + 1), "stack": lambda: t.stack([x, y]).sum(0), "mm": lambda: x.mm(y),
    }
    return ops[op]()


step = st.tuples(st.sampled_from(UNARY + BINARY), st.integers(0, 99), st.integers(0, 99))


@settings(max_examples=60, deadline=None)
@given(st.lists(step, min_size=1, max_size=8))
def test_random_programs_build_the_same_graphs(steps):
    def prog(t):
        a = t.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        b = t.tensor([[1.5, 0.5], [-0.5, 1.0]], requires_grad=True)
        pool = [a, b, t.tensor([[1.0, 2.0], [3.0, 4.0]])]
        for op, i, j in steps:
            pool.append(apply(t, op, pool[i % len(pool)], pool[j % len(pool)]))
        outs = [p for p in pool[3:] if p.requires_grad]
        shapes = [graph_structure(p) for p in pool[3:]]
        if outs:
            sum(o.sum() for o in outs).backward()
        grads = [None if g is None else g.tolist() for g in (a.grad, b.grad)]
        return shapes, grads

    same(prog)
