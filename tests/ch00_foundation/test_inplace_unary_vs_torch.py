"""The unary ops in place (``exp_``, ``sin_``, ``sigmoid_`` ...): the functional op's values written into the
tensor itself, its version bumped, its history rewritten (the node of the functional op: ``ExpBackward0``), a
saved tensor it overwrites caught at backward, and an integer tensor refused when the result is float."""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

UNARY = ["neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "rsqrt",
         "reciprocal", "sigmoid", "tanh", "sqrt", "floor", "ceil", "trunc", "round", "frac"]
VALUES = [0.5, 1.5, 2.5, -0.75, 0.0]


@pytest.mark.parametrize("name", UNARY)
def test_in_place_values_version_and_gradient(name):
    def prog(T):
        x = T.tensor(VALUES)
        y = getattr(x, name + "_")()
        a = T.tensor([0.5, 1.5, 2.5], requires_grad=True)
        b = a * 1
        getattr(b, name + "_")()
        b.sum().backward()
        return y, y is x, x._version, b.grad_fn.name(), a.grad
    assert_same(prog)


@pytest.mark.parametrize("name", UNARY)
def test_in_place_on_a_view_and_on_integers(name):
    """On a view of a non-leaf the base's history becomes CopySlices; on an int64 tensor the float result of
    exp_ & co cannot be written (neg_, abs_, sign_ and the roundings stay integers where PyTorch allows)."""
    def prog(T):
        a = T.tensor(VALUES, dtype=T.float64, requires_grad=True)
        b = a * 2
        getattr(b[1:4], name + "_")()
        b.sum().backward()
        try:
            integers = getattr(T.tensor([1, 2, 3]), name + "_")()
        except (RuntimeError, NotImplementedError) as error:
            integers = f"{type(error).__name__}: {error}"
        return b, b.grad_fn.name(), a.grad, integers
    assert_same(prog)


@pytest.mark.parametrize("name", ["exp", "sin", "sigmoid", "tanh", "sqrt", "reciprocal"])
def test_overwriting_a_saved_tensor_in_place_fails_at_backward_as_in_pytorch(name):
    """``b = a.exp(); b.<op>_()``: ExpBackward0 saved its result, now at version 1 (the error text, char for char)."""
    def prog(T):
        a = T.tensor([0.5, 1.5], requires_grad=True)
        b = a.exp()
        getattr(b, name + "_")()
        b.sum().backward()
    assert_same(prog)


def test_sign_in_place_is_a_method_only():
    def prog(T):
        return hasattr(T, "exp_"), hasattr(T, "sigmoid_"), hasattr(T, "sign_"), hasattr(T.ones(1), "sign_")
    assert_same(prog)
