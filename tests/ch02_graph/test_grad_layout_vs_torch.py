"""AccumulateGrad's first gradient: kept as ``.grad`` (no copy) when nobody else holds it and it has the
leaf's strides, else copied into the leaf's layout (NOTE [Gradient Layout Contract]); and the mm backward
formulas give a column-major input its gradient in its own layout. Seen by a learner as ``.grad``'s
strides, and as ``.grad`` sharing memory with the tensor given to ``backward``."""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same


def test_a_view_of_the_given_gradient_is_kept_and_shares_its_memory():
    """y = x.view(2, 2); y.backward(g): x.grad is a view of g (changing g changes x.grad), as in PyTorch."""
    def prog(T):
        x = T.zeros(4, requires_grad=True)
        g = T.ones(2, 2)
        x.view(2, 2).backward(g)
        g[0, 0] = 5.0
        return x.grad
    assert_same(prog)


def test_the_given_gradient_itself_is_copied_because_the_caller_holds_it():
    """x.backward(g): g is still the caller's, so x.grad is a copy."""
    def prog(T):
        x = T.zeros(3, requires_grad=True)
        g = T.ones(3)
        x.backward(g)
        g[0] = 9.0
        return x.grad
    assert_same(prog)


@pytest.mark.parametrize("shape", [(2, 3), (4, 1), (1, 5)])
def test_a_transposed_gradient_is_copied_into_the_leafs_layout(shape):
    """x.t() backward: the gradient arrives transposed; .grad gets x's strides."""
    def prog(T):
        x = T.zeros(*shape, requires_grad=True)
        g = T.ones(shape[1], shape[0])
        x.t().backward(g)
        return x.grad, x.grad.stride(), x.grad.is_contiguous()
    assert_same(prog)


@pytest.mark.parametrize("column_major_input", [False, True])
def test_linear_weight_and_input_gradients_have_their_tensors_strides(column_major_input):
    """x @ w.t() + b (nn.Linear's addmm): weight, bias and a column-major input get gradients in their layout."""
    def prog(T):
        w = T.tensor([[float(i + j) for j in range(3)] for i in range(4)], requires_grad=True)
        b = T.zeros(4, requires_grad=True)
        if column_major_input:
            x = T.tensor([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]).t().detach().requires_grad_()
        else:
            x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        out = T.addmm(b, x, w.t())
        (out * out).sum().backward()
        return w.grad, w.grad.stride(), b.grad.stride(), x.grad, x.grad.stride(), x.stride()
    assert_same(prog)


def test_a_hook_that_keeps_the_gradient_makes_the_accumulator_copy():
    """A tensor hook on the leaf that stores the gradient it saw: .grad is not that tensor's memory."""
    def prog(T):
        seen = []
        x = T.zeros(2, 2, requires_grad=True)
        x.register_hook(lambda g: seen.append(g))
        g = T.ones(4)
        x.view(4).backward(g)
        seen[0][0, 0] = 3.0
        g[1] = 7.0
        return x.grad
    assert_same(prog)


def test_an_accumulator_post_hook_still_gets_a_kept_gradient():
    """An AccumulateGrad with a post hook: the gradient view is still kept (one more expected reference)."""
    def prog(T):
        x = T.zeros(4, requires_grad=True)
        acc = x.view(4).grad_fn.next_functions[0][0]
        acc.register_hook(lambda grad_inputs, grad_outputs: None)
        g = T.ones(2, 2)
        x.view(2, 2).backward(g)
        g[0, 0] = 5.0
        return x.grad
    assert_same(prog)
