"""The chapter 03 exercises. Each test fails on the stub (NotImplementedError) and passes on the
reference. Expected values were printed by PyTorch 2.13; no torch is needed to run these."""

from __future__ import annotations

import pytest

import picotorch as torch
from exercise_helpers import raised

# --- 3.1: _call_hooks -------------------------------------------------------------------------------


@pytest.mark.exercise("3.1")
def test_each_tensor_hook_sees_what_the_previous_returned():
    """Hooks run in registration order; a returned tensor replaces the gradient, None keeps it."""
    log = []
    a = torch.ones(2, requires_grad=True)
    b = a * 1
    b.register_hook(lambda g: g + 1)
    b.register_hook(lambda g: log.append(g.tolist()))  # None: keep the gradient
    b.register_hook(lambda g: g * 3)
    b.sum().backward()
    assert log == [[2.0, 2.0]]
    assert a.grad.tolist() == [6.0, 6.0]


@pytest.mark.exercise("3.1")
def test_a_tensor_hook_of_another_size_is_refused():
    """A hook's result is checked: another size raises PyTorch's error naming the hook."""
    a = torch.ones(2, requires_grad=True)
    b = a * 2

    def grow(grad):
        return torch.ones(3)

    b.register_hook(grow)
    err = raised(lambda: b.sum().backward())
    assert (type(err), str(err)) == (RuntimeError, "hook 'grow' has changed the size of value")


# --- 3.2: check_result for node hooks ---------------------------------------------------------------


@pytest.mark.exercise("3.2")
def test_node_pre_hook_must_return_a_tuple():
    """A node hook must return a tuple: anything else is a TypeError."""
    b = torch.ones(2, requires_grad=True) * 2
    b.grad_fn.register_prehook(lambda go: go[0])
    err = raised(lambda: b.sum().backward())
    assert (type(err), str(err)) == (TypeError, "expected tuple, but hook returned 'Tensor'")


@pytest.mark.exercise("3.2")
def test_node_post_hook_must_return_one_value_per_input():
    """A node hook must return as many values as it received."""
    b = torch.ones(2, requires_grad=True) * 2

    def post(grad_inputs, grad_outputs):
        return (grad_inputs[0],) * 3

    b.grad_fn.register_hook(post)
    err = raised(lambda: b.sum().backward())
    assert (type(err), str(err)) == (
        RuntimeError, "hook 'post' has returned an incorrect number of values (got 3, but expected 2)")


@pytest.mark.exercise("3.2")
def test_node_hook_values_are_checked_one_by_one():
    """Each value of a node hook's tuple is checked; a None slot cannot become a tensor."""
    b = torch.ones(2, requires_grad=True) * 2
    b.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))  # the second input needs no gradient
    err = raised(lambda: b.sum().backward())
    assert (type(err), str(err)) == (RuntimeError, "can't replace a None gradient with a non-None value")


# --- 3.3: tensor pre hooks, then retains-grad hooks -------------------------------------------------


@pytest.mark.exercise("3.3")
def test_retained_grad_reflects_tensor_hooks_registered_later():
    """Tensor hooks run before the retains-grad hook, whatever the registration order."""
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    b.retain_grad()
    b.register_hook(lambda g: g * 10)
    b.sum().backward()
    assert b.grad.tolist() == [10.0, 10.0]
    assert a.grad.tolist() == [20.0, 20.0]


@pytest.mark.exercise("3.3")
def test_tensor_hooks_fire_for_a_captured_input_of_autograd_grad():
    """autograd.grad(inputs=) still runs the tensor hooks of a captured input, not its node's hooks."""
    log = []
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    b.register_hook(lambda g: log.append("tensor") or g * 2)
    b.grad_fn.register_prehook(lambda g: log.append("pre"))
    (grad,) = torch.autograd.grad((b * 3).sum(), [b])
    assert log == ["tensor"]  # the pruned node's own hooks do not fire
    assert grad.tolist() == [6.0, 6.0]


# --- 3.4: the retains-grad hook ---------------------------------------------------------------------


@pytest.mark.exercise("3.4")
def test_retained_grad_is_a_copy_and_accumulates():
    """retain_grad stores a clone the first time and adds later gradients to it."""
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    b.retain_grad()
    (b * 3).sum().backward(retain_graph=True)
    first = b.grad
    assert first.tolist() == [3.0, 3.0] and first.grad_fn is None
    (b * 3).sum().backward()
    assert b.grad.tolist() == [6.0, 6.0]


@pytest.mark.exercise("3.4")
def test_retain_grad_follows_the_tensor_through_an_in_place_op():
    """After an in-place op, .grad holds the gradient of the tensor's new value."""
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    b.retain_grad()
    b.mul_(3)
    (b * 5).sum().backward()
    assert b.grad.tolist() == [5.0, 5.0]
