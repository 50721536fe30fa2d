"""``torch.autograd.graph.get_gradient_edge`` and ``increment_version`` against PyTorch."""

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def test_gradient_edge_of_leaf_and_non_leaf():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = (x * 2).unsqueeze(0)
        leaf, inner = T.autograd.graph.get_gradient_edge(x), T.autograd.graph.get_gradient_edge(y)
        return (leaf.node.name(), leaf.output_nr, inner.node.name(), inner.output_nr,
                inner.node is y.grad_fn, type(leaf).__name__, type(leaf)._fields)
    assert_same(prog)


def test_gradient_edge_needs_requires_grad():
    assert_same(lambda T: T.autograd.graph.get_gradient_edge(T.ones(2)))


def test_increment_version_trips_the_saved_tensor_check():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = x * 1
        z = y * y
        T.autograd.graph.increment_version(y)
        return y._version, z.sum().backward()
    assert_same(prog)
