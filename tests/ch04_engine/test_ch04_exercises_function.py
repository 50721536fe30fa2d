"""The chapter 04 exercise on custom Functions (4.3). Each test fails on the stub (NotImplementedError)
and passes on the reference. Expected values were printed by PyTorch 2.13; no torch is needed."""

from __future__ import annotations

import pytest

import picotorch as torch
from exercise_helpers import raised
from picotorch.autograd import Function


class Scale(Function):
    """``x * k`` for a tensor x and a number k: backward must return two gradients (None for k)."""

    returned = None  # what backward returns, set by each test

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, grad):
        return Scale.returned(grad, ctx.k)


def run(returned):
    Scale.returned = staticmethod(returned)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    Scale.apply(x, 3.0).sum().backward()
    return x


# --- 4.3: check_num_gradients -----------------------------------------------------------------------


@pytest.mark.exercise("4.3")
def test_one_gradient_per_forward_argument_passes():
    """Backward returns one gradient per forward argument (None for a number): they go to the inputs."""
    x = run(lambda g, k: (g * k, None))
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.exercise("4.3")
def test_extra_none_gradients_are_dropped():
    """Returning more gradients than arguments is fine when every extra one is None: drop them."""
    x = run(lambda g, k: (g * k, None, None, None))
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.exercise("4.3")
def test_too_few_gradients_is_an_error():
    """Fewer gradients than forward arguments: PyTorch's error names the node and both counts."""
    err = raised(lambda: run(lambda g, k: g * k))
    assert (type(err), str(err)) == (
        RuntimeError, "function ScaleBackward returned an incorrect number of gradients (expected 2, got 1)")


@pytest.mark.exercise("4.3")
def test_extra_gradients_that_are_not_none_is_an_error():
    """Extra gradients that are not all None are not dropped: the count is wrong."""
    err = raised(lambda: run(lambda g, k: (g * k, None, g)))
    assert (type(err), str(err)) == (
        RuntimeError, "function ScaleBackward returned an incorrect number of gradients (expected 2, got 3)")
