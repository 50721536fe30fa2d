"""Bad input to ``backward`` and ``grad``: PyTorch's exception type and text, and an engine that still works.

Models the checks of ``torch/autograd/__init__.py`` (``_make_grads``, ``backward``, ``grad``),
``torch/csrc/autograd/python_engine.cpp`` and ``engine.cpp`` (``validate_outputs``, a hook that raises).
Each program runs on picotorch and on PyTorch (``difftest.assert_same``): same result or same error.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def test_backward_on_a_non_scalar_without_a_gradient():
    assert_same(lambda T: (T.ones(3, requires_grad=True) * 2).backward())


def test_backward_with_a_gradient_of_the_wrong_shape():
    assert_same(lambda T: (T.ones(3, requires_grad=True) * 2).backward(T.ones(2)))


def test_backward_with_an_integer_gradient_is_cast():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        (x * 2).backward(T.ones(3, dtype=T.int64))
        return x.grad
    assert_same(prog)


def test_backward_with_more_gradients_than_tensors_uses_the_first():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        (x * 2).sum().backward([T.ones(()), T.ones(())])
        return x.grad
    assert_same(prog)


def test_backward_with_fewer_gradients_than_tensors():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        T.autograd.backward([(x * 2).sum(), (x * 3).sum()], [T.ones(())])
    assert_same(prog)


def test_errors_come_in_pytorch_order_shape_before_requires_grad():
    assert_same(lambda T: T.ones(3).backward(T.ones(2)))


def test_backward_with_a_gradient_that_is_not_a_tensor():
    assert_same(lambda T: (T.ones(3, requires_grad=True) * 2).backward([1.0, 2.0, 3.0]))


def test_backward_on_a_tensor_that_does_not_require_grad():
    assert_same(lambda T: T.ones(3).sum().backward())


def test_backward_on_an_integer_scalar_output():
    assert_same(lambda T: T.ones(3, dtype=T.int64).sum().backward())


def test_backward_twice_without_retain_graph():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    assert_same(prog)


def test_backward_twice_with_retain_graph_accumulates():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    assert_same(prog)


def test_grad_with_an_unused_input():
    def prog(T):
        x, unused = T.ones(2, requires_grad=True), T.ones(2, requires_grad=True)
        return T.autograd.grad((x * 2).sum(), [x, unused])
    assert_same(prog)


def test_grad_with_an_unused_input_allowed():
    def prog(T):
        x, unused = T.ones(2, requires_grad=True), T.ones(2, requires_grad=True)
        return T.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert_same(prog)


def test_grad_with_an_unused_input_materialized():
    def prog(T):
        x, unused = T.ones(2, requires_grad=True), T.ones(2, requires_grad=True)
        return T.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert_same(prog)


def test_grad_for_an_input_that_does_not_require_grad():
    def prog(T):
        x, plain = T.ones(2, requires_grad=True), T.ones(2)
        return T.autograd.grad((x * plain).sum(), [x, plain])
    assert_same(prog)


def test_grad_of_an_output_that_does_not_require_grad():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        return T.autograd.grad(T.ones(2).sum(), [x])
    assert_same(prog)


def test_grad_checks_the_outputs_before_the_inputs():
    """Neither requires grad: the engine's run_backward names the output first."""
    def prog(T):
        x = T.tensor([1.0, 2.0])
        return T.autograd.grad(x.sum(), x)
    assert_same(prog)


def test_grad_with_grad_outputs_of_the_wrong_shape():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        return T.autograd.grad(x * 2, [x], grad_outputs=[T.ones(3)])
    assert_same(prog)


def test_backward_with_empty_inputs():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        (x * 2).sum().backward(inputs=[])
    assert_same(prog)


def test_a_hook_that_raises_leaves_the_engine_usable():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda grad: 1 / 0)
        try:
            y.sum().backward()
        except ZeroDivisionError as error:
            first = f"{type(error).__name__}: {error}"
        z = (x * 3).sum()
        z.backward()
        return first, x.grad
    assert_same(prog)


def test_a_hook_returning_the_wrong_shape():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda grad: T.ones(3))
        y.sum().backward()
    assert_same(prog)


def test_a_node_post_hook_returning_the_wrong_count():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = x * 2
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0], grad_inputs[0]))
        y.sum().backward()
    assert_same(prog)
