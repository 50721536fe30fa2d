"""The chapter 02 exercises. Each test fails on the stub (NotImplementedError) and passes on the
reference. Expected values were printed by PyTorch 2.13; no torch is needed to run these."""

from __future__ import annotations

import gc

import pytest

import picotorch as torch
from graph_helpers import raised
from picotorch.autograd.graph import Edge, Node

# --- 2.1: next_functions ----------------------------------------------------------------------------


@pytest.mark.exercise("2.1")
def test_next_functions_pairs_in_argument_order():
    a = torch.ones(2, requires_grad=True)
    out = a * torch.ones(2)
    (acc, nr), (missing, nr2) = out.grad_fn.next_functions
    assert acc.name() == "torch::autograd::AccumulateGrad" and nr == 0
    assert missing is None and nr2 == 0


@pytest.mark.exercise("2.1")
def test_next_functions_of_a_bare_node():
    child = Node()
    node = Node([Edge(child, 1), Edge(None, 0)])
    assert node.next_functions == ((child, 1), (None, 0))
    assert type(node.next_functions) is tuple


# --- 2.2: the weakly cached gradient accumulator ----------------------------------------------------


@pytest.mark.exercise("2.2")
def test_expand_as_trick_gives_the_same_accumulator_while_held():
    p = torch.nn.Parameter(torch.ones(2))
    held = p.expand_as(p).grad_fn.next_functions[0][0]
    assert p.expand_as(p).grad_fn.next_functions[0][0] is held
    assert held.variable is p


@pytest.mark.exercise("2.2")
def test_a_dropped_accumulator_is_replaced_and_its_hooks_never_fire():
    log = []
    p = torch.ones(2, requires_grad=True)
    p.expand_as(p).grad_fn.next_functions[0][0].register_hook(lambda gi, go: log.append("lost"))
    gc.collect()
    (p * 2).sum().backward()
    assert log == []
    assert p.grad.tolist() == [2.0, 2.0]


# --- 2.3: topological_nr ----------------------------------------------------------------------------


@pytest.mark.exercise("2.3")
def test_topological_nr_is_one_more_than_the_deepest_child():
    leaf = torch.ones(2, requires_grad=True)
    x = leaf * 2
    y = (x * 3).exp() + leaf
    assert x.grad_fn.topological_nr == 1
    assert y.grad_fn.topological_nr == 4


@pytest.mark.exercise("2.3")
def test_topological_nr_ignores_missing_edges():
    deep = Node([Edge(Node([Edge(Node(), 0)]), 0)])
    node = Node([Edge(None, 0), Edge(deep, 0), Edge(Node(), 0)])
    assert node.topological_nr == 3


# --- 2.4: the version check of saved tensors --------------------------------------------------------


@pytest.mark.exercise("2.4")
def test_modifying_a_saved_input_in_place_is_caught():
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


@pytest.mark.exercise("2.4")
def test_modifying_a_saved_output_in_place_is_caught():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()
    y.add_(1)
    err = raised(lambda: y.sum().backward())
    assert type(err) is RuntimeError
    assert "[torch.FloatTensor [2]], which is output 0 of Exp, is at version 1;" in str(err)
