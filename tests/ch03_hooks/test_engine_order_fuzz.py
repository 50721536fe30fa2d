"""The order in which backward runs nodes (and so fires their hooks), on random graphs, against PyTorch.

Every node of a random graph gets a pre hook that records its position in a breadth-first numbering
of the graph; both libraries must record the same sequence. This pins down the engine's dependency
counting and its ready queue (highest sequence_nr first, AccumulateGrad first of all, ties broken as
std::priority_queue breaks them).
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import picotorch

torch = pytest.importorskip("torch")

UNARY = ["exp", "tanh", "sigmoid", "neg", "relu"]
BINARY = ["add", "mul", "sub"]

steps = st.lists(st.tuples(st.sampled_from(UNARY + BINARY + ["sum_to_scalar", "view", "t", "index"]),
                           st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=12)


def _build(T, program, n_leaves):
    leaves = [T.ones(2, 2, requires_grad=True) * (i + 1) if i % 2 else T.ones(2, 2, requires_grad=True)
              for i in range(n_leaves)]
    values = list(leaves)
    for op, i, j in program:
        a, b = values[i % len(values)], values[j % len(values)]
        if op in UNARY:
            values.append(getattr(a, op)())
        elif op in BINARY:
            values.append(getattr(a, op)(b))
        elif op == "sum_to_scalar":
            values.append(a.sum() * b)
        elif op == "view":
            values.append(a.reshape(4).view(2, 2))
        elif op == "t":
            values.append(a.t())
        else:
            values.append(a[0:1] * b)
    return sum(v.sum() for v in values[n_leaves:])


def _order(T, program, n_leaves, new_numbers=None):
    """Which nodes (numbered breadth-first from the root) ran, in order; optionally renumbered first.

    With ``new_numbers`` every node gets a new sequence_nr, so the order cannot depend on how many
    nodes this process made before (the two libraries' counters differ); repeated numbers exercise
    the tie-breaking of the ready queue.
    """
    root = _build(T, program, n_leaves)
    index, queue, fired = {}, [root.grad_fn], []
    while queue:
        node = queue.pop(0)
        if node is None or node in index:
            continue
        index[node] = len(index)
        node.register_prehook(lambda grads, k=index[node]: fired.append(k))
        queue.extend(n for n, _ in node.next_functions)
    for i, node in enumerate(sorted(index, key=index.get) if new_numbers else ()):
        node._set_sequence_nr(new_numbers[i % len(new_numbers)])
    root.backward()
    names = {k: n.name() for n, k in index.items()}
    return [(k, names[k]) for k in fired]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=steps, n_leaves=st.integers(1, 4))
def test_backward_runs_nodes_in_pytorchs_order(program, n_leaves):
    assert _order(picotorch, program, n_leaves) == _order(torch, program, n_leaves)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=steps, n_leaves=st.integers(1, 3), new_numbers=st.lists(st.integers(0, 20), min_size=1, max_size=8))
def test_set_sequence_nr_reorders_like_pytorch(program, n_leaves, new_numbers):
    """PR 114120's ``_set_sequence_nr``: give the nodes new numbers, then compare the order."""
    assert _order(picotorch, program, n_leaves, new_numbers) == _order(torch, program, n_leaves, new_numbers)
