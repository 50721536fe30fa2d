"""``picotorch_course.engine_view``, the replay notebook 04 shows, against what both engines really do.

The replay runs the engine's loop without calling nodes; its order must be the order in which a
real backward runs the nodes, in picotorch and in PyTorch (so the notebook's heap tables tell the
truth), and the FIFO / ``heapq`` variants must differ from it exactly where ties are broken.
"""

import graphviz
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import picotorch
from picotorch_course import engine_view as ev

torch = pytest.importorskip("torch")
LIBS = (picotorch, torch)


def branches(t):
    a, b = t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)
    x = a * b
    loss = (x.exp() + x.tanh() + a * 3).sum()
    return loss, {"a": a, "b": b, "x": x}


def cat_of_leaves(t, n=5):
    leaves = {f"p{i}": t.ones(1, requires_grad=True) for i in range(n)}
    return t.cat(list(leaves.values())).sum(), leaves


@pytest.mark.parametrize("lib", LIBS, ids=["picotorch", "torch"])
@pytest.mark.parametrize("build", [branches, cat_of_leaves])
def test_replay_is_the_real_order(lib, build):
    loss, params = build(lib)
    predicted = ev.replay_order(loss, params=params)
    assert ev.execution_order(loss, loss.backward, params) == predicted


UNARY = ["exp", "tanh", "relu", "neg"]
steps = st.lists(st.tuples(st.sampled_from([*UNARY, "add", "mul", "cat"]), st.integers(0, 30), st.integers(0, 30)),
                 min_size=1, max_size=10)


def _random_graph(t, program, n_leaves):
    values = [t.ones(2, requires_grad=True) for _ in range(n_leaves)]
    for op, i, j in program:
        a, b = values[i % len(values)], values[j % len(values)]
        if op in UNARY:
            values.append(getattr(a, op)())
        elif op == "cat":
            values.append(t.cat([a, b])[:2])
        else:
            values.append(getattr(a, op)(b))
    return sum(v.sum() for v in values[n_leaves:])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=steps, n_leaves=st.integers(1, 4))
def test_replay_predicts_both_engines_on_random_graphs(program, n_leaves):
    orders = []
    for lib in LIBS:
        loss = _random_graph(lib, program, n_leaves)
        predicted = ev.replay_order(loss)
        assert ev.execution_order(loss, loss.backward) == predicted
        orders.append(predicted)
    assert orders[0] == orders[1]


def test_fifo_and_heapq_break_ties_first_come():
    loss, params = cat_of_leaves(picotorch)
    accumulators = [f"AccumulateGrad(p{i})" for i in range(5)]
    assert ev.replay_order(loss, "fifo", params)[2:] == accumulators
    assert ev.replay_order(loss, "heapq", params)[2:] == accumulators
    assert ev.replay_order(loss, "ReadyQueue", params)[2:] == [accumulators[i] for i in (0, 2, 4, 1, 3)]
    with pytest.raises(ValueError, match="use one of ReadyQueue, fifo, heapq"):
        ev.replay(loss, "stack")


@pytest.mark.parametrize("lib", LIBS, ids=["picotorch", "torch"])
def test_dependency_counts_and_labels(lib):
    loss, params = branches(lib)
    names = ev.labels(loss, params)
    counts = {names[n]: c for n, c in ev.dependency_counts(loss).items()}
    assert counts == {"AddBackward0": 1, "AddBackward0#2": 1, "MulBackward0": 1, "ExpBackward0": 1,
                      "TanhBackward0": 1, "MulBackward0(x)": 2, "AccumulateGrad(a)": 2, "AccumulateGrad(b)": 1}


def test_topological_numbers_are_picotorchs():
    loss, _ = branches(picotorch)
    for node, nr in ev.topological_numbers(loss).items():
        assert nr == node._topological_nr_value()


def test_min_topo_nr_stops_the_count_below_it():
    loss, params = branches(picotorch)
    names = ev.labels(loss, params)
    pruned = {names[n]: c for n, c in ev.dependency_counts(loss, min_topo_nr=2).items()}
    assert pruned["MulBackward0(x)"] == 2  # counted, but topo 1 < 2: nothing below it is looked at
    assert "AccumulateGrad(a)" not in pruned and "AccumulateGrad(b)" not in pruned


def test_steps_table_shows_the_heap_after_each_pop():
    loss, params = cat_of_leaves(picotorch, 5)
    rows = [line.split() for line in ev.steps_table(loss, params=params).splitlines()]
    assert rows[0] == ["#", "pop", "pushes", "(now", "ready)", "ReadyQueue", "after", "the", "pushes"]
    assert rows[1] == ["1", "SumBackward0:1", "CatBackward0:0", "[CatBackward0:0]"]
    assert rows[3] == ["3", "Acc(p0):max", "-", "[Acc(p2):max,", "Acc(p1):max,", "Acc(p4):max,", "Acc(p3):max]"]
    assert rows[-1] == ["7", "Acc(p3):max", "-", "[]"]


def test_picture_falls_back_to_dot_source(monkeypatch):
    loss, params = branches(picotorch)
    dot = ev.draw(loss, lines=lambda n: ["extra"], params=params, highlight=lambda n: "Exp" in n.name())
    assert "ExpBackward0\\nextra" in dot.source and "orange" in dot.source

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(["dot"])

    monkeypatch.setattr(graphviz.Digraph, "pipe", missing)
    assert repr(ev.show(dot)).startswith("graphviz's `dot` was not found")
