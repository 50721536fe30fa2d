"""``flatten`` against PyTorch: shapes, the graph (a view, or a copy when the strides forbid one), the tensor
itself for a one-dim range, a zero-dim input, and the errors."""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same


@pytest.mark.parametrize("dims", [(), (1,), (0, 1), (-2, -1), (1, 2), (0, -1), (2, 2)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_flatten_shapes_graphs_and_gradients(dims, layout):
    """x.flatten(*dims) and torch.flatten(x, *dims): values, grad_fn, gradient."""
    def prog(T):
        x = T.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = x.transpose(0, 2) if layout == "transposed" else x
        out = y.flatten(*dims)
        (out * out).sum().backward()
        return out, T.flatten(y, *dims).shape, x.grad
    assert_same(prog)


def test_a_one_dim_range_returns_the_tensor_itself():
    """flatten(1, 1) is the same Python object, as in PyTorch."""
    assert_same(lambda T: (lambda x: x.flatten(1, 1) is x)(T.ones(2, 3)))


@pytest.mark.parametrize("case", ["zero-dim", "empty", "start after end", "out of range"])
def test_edges_and_errors(case):
    """A zero-dim tensor becomes one element; an empty one stays empty; bad dims raise PyTorch's errors."""
    def prog(T):
        x = T.ones(2, 3, 4)
        if case == "zero-dim":
            return T.tensor(3.0).flatten(), T.tensor(3.0).flatten(0, 0)
        if case == "empty":
            return T.zeros(0, 3).flatten()
        if case == "start after end":
            return x.flatten(2, 1)
        return x.flatten(0, 5)
    assert_same(prog)
