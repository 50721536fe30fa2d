"""The chapter 02 exercises. Each test fails on the stub (NotImplementedError) and passes on the
reference. Expected values were printed by PyTorch 2.13; no torch is needed to run these."""

from __future__ import annotations

import gc

import pytest

import picotorch as torch
from exercise_helpers import raised
from picotorch.autograd.graph import Edge, Node
from picotorch.viz._walk import collect

# --- 2.1: next_functions ----------------------------------------------------------------------------


@pytest.mark.exercise("2.1")
def test_next_functions_pairs_in_argument_order():
    """One (node, input_nr) pair per forward input, in argument order; None for an input that needs no grad."""
    a = torch.ones(2, requires_grad=True)
    out = a * torch.ones(2)
    (acc, nr), (missing, nr2) = out.grad_fn.next_functions
    assert acc.name() == "torch::autograd::AccumulateGrad" and nr == 0
    assert missing is None and nr2 == 0


@pytest.mark.exercise("2.1")
def test_next_functions_of_a_bare_node():
    """next_functions is a tuple with one (function, input_nr) pair per edge, None edges included."""
    child = Node()
    node = Node([Edge(child, 1), Edge(None, 0)])
    assert node.next_functions == ((child, 1), (None, 0))
    assert type(node.next_functions) is tuple


# --- 2.2: walking the graph breadth first (viz) --------------------------------------------------------

ACC = "torch::autograd::AccumulateGrad"


def walk(*roots, max_nodes=None):
    graph = collect(roots, max_nodes)
    return [n.name() for n in graph.nodes], graph.edges, graph.truncated


@pytest.mark.exercise("2.2")
def test_walk_numbers_nodes_breadth_first_and_records_every_edge():
    """Nodes breadth first from the root, each once; one edge (next, node, input_nr) per next_functions entry."""
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    y = (a * b).exp() + a
    names, edges, truncated = walk(y)
    assert names == ["AddBackward0", "ExpBackward0", ACC, "MulBackward0", ACC]
    assert edges == [("n1", "n0", 0), ("n2", "n0", 0), ("n3", "n1", 0), ("n2", "n3", 0), ("n4", "n3", 0)]
    assert truncated is False


@pytest.mark.exercise("2.2")
def test_walk_skips_inputs_that_need_no_gradient_and_reuses_shared_nodes():
    """None entries of next_functions are not edges; a node reached twice keeps its first id."""
    a = torch.ones(2, requires_grad=True)
    h = a * torch.ones(2)
    names, edges, _ = walk(h * h)
    assert names == ["MulBackward0", "MulBackward0", ACC]
    assert edges == [("n1", "n0", 0), ("n1", "n0", 0), ("n2", "n1", 0)]


@pytest.mark.exercise("2.2")
def test_walk_stops_numbering_at_max_nodes():
    """With max_nodes, nodes past the limit and their edges are left out and the graph says truncated."""
    a = torch.ones(2, requires_grad=True)
    y = (a * 2).exp()
    names, edges, truncated = walk(y, max_nodes=2)
    assert names == ["ExpBackward0", "MulBackward0"]
    assert edges == [("n1", "n0", 0)]
    assert truncated is True


@pytest.mark.exercise("2.2")
def test_walk_handles_a_graph_deeper_than_the_recursion_limit():
    """A chain of 3,000 nodes is walked with a queue, not recursion."""
    a = torch.ones(1, requires_grad=True)
    y = a
    for _ in range(3000):
        y = y * 1.0
    names, edges, _ = walk(y)
    assert len(names) == 3001 and names[-1] == ACC
    assert len(edges) == 3000 and edges[-1] == ("n3000", "n2999", 0)


# --- the weakly cached gradient accumulator (no longer an exercise: every graph building step needs it) ---


def test_expand_as_trick_gives_the_same_accumulator_while_held():
    p = torch.nn.Parameter(torch.ones(2))
    held = p.expand_as(p).grad_fn.next_functions[0][0]
    assert p.expand_as(p).grad_fn.next_functions[0][0] is held
    assert held.variable is p


def test_a_dropped_accumulator_is_replaced_and_its_hooks_never_fire():
    log = []
    p = torch.ones(2, requires_grad=True)
    p.expand_as(p).grad_fn.next_functions[0][0].register_hook(lambda gi, go: log.append("lost"))
    gc.collect()
    (p * 2).sum().backward()
    assert log == []
    assert p.grad.tolist() == [2.0, 2.0]


# --- topological_nr --------------------------------------------------------------------------------------


def test_topological_nr_is_one_more_than_the_deepest_child():
    leaf = torch.ones(2, requires_grad=True)
    x = leaf * 2
    y = (x * 3).exp() + leaf
    assert x.grad_fn.topological_nr == 1
    assert y.grad_fn.topological_nr == 4


def test_topological_nr_ignores_missing_edges():
    deep = Node([Edge(Node([Edge(Node(), 0)]), 0)])
    node = Node([Edge(None, 0), Edge(deep, 0), Edge(Node(), 0)])
    assert node.topological_nr == 3


# --- 2.3: the message when a saved tensor was modified in place ---------------------------------------------


@pytest.mark.exercise("2.3")
def test_modifying_a_saved_input_in_place_is_caught():
    """The message names the tensor's type and sizes, the output and forward op that made it, and both versions."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    y = x * x
    x.mul_(2)
    err = raised(lambda: y.sum().backward())
    assert type(err) is RuntimeError
    assert str(err) == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.FloatTensor [2]], which is output 0 of Mul, is at version 1; expected version 0 instead. "
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


@pytest.mark.exercise("2.3")
def test_modifying_a_saved_output_in_place_is_caught():
    """A saved output (exp saves its result) is named by the node that made it: output 0 of Exp."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()
    y.add_(1)
    err = raised(lambda: y.sum().backward())
    assert type(err) is RuntimeError
    assert "[torch.FloatTensor [2]], which is output 0 of Exp, is at version 1;" in str(err)


@pytest.mark.exercise("2.3")
def test_a_saved_leaf_modified_in_place_names_no_node():
    """A leaf has no node that made it, so the message has no "which is output ..." part."""
    a = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64, requires_grad=True)
    b = torch.ones(1, 3, dtype=torch.float64)
    y = a * b                 # MulBackward0 saves b (a leaf that needs no grad)
    with torch.no_grad():
        b.add_(1)
    err = raised(lambda: y.sum().backward())
    assert type(err) is RuntimeError
    assert str(err).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.DoubleTensor [1, 3]] is at version 1; expected version 0 instead. Hint:")
