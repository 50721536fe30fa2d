"""Exercise 5.3: add an operator, ``log10``, by its YAML entries alone, then regenerate.

The learner writes ``log10``'s entry in ``native_functions.yaml`` and its formula in
``derivatives.yaml`` (the kernel, ``native/unary_ops.py``'s ``log10``, is written already) and runs
``python -m picotorchgen``. These tests compare what the new op does with PyTorch: values and dtypes,
``grad_fn``'s name, gradients (first and second order) and the argument parser's errors. The expected
values were printed by PyTorch 2.13 (float64 inputs, exact to the digits shown), so no torch is needed;
the last test runs the same programs on torch too when it is installed.

Until both entries are generated, every test fails with ``Exercise 5.3: ...`` and says what to do.
"""

from __future__ import annotations

import math

import pytest

import picotorch
from picotorch_course.difftest import assert_same

TODO = ("add log10's entry to native_functions.yaml and its formula to derivatives.yaml (see log2's), "
        "then run python -m picotorchgen")


def log10(x):
    """``picotorch.log10(x)``, or the exercise's own error while the op is not generated yet."""
    if not hasattr(picotorch, "log10"):
        raise NotImplementedError(f"Exercise 5.3: picotorch has no log10 yet: {TODO}")
    return picotorch.log10(x)


def log10_with_node(x):
    """``log10(x)`` for an ``x`` that requires grad; fails when no backward node was recorded."""
    y = log10(x)
    assert y.grad_fn is not None, (
        "log10 of a tensor that requires grad has no grad_fn: is its formula in derivatives.yaml, under "
        "the same schema as in native_functions.yaml, and did you run python -m picotorchgen since?")
    return y


def f64(values, requires_grad=False):
    return picotorch.tensor(values, dtype=picotorch.float64, requires_grad=requires_grad)


@pytest.mark.exercise("5.3")
def test_log10_values_and_dtypes():
    """picotorch.log10 computes log base 10; an integer tensor gives float32, as PyTorch's float ops do."""
    assert log10(f64([0.5, 1.0, 10.0, 123.0])).tolist() == pytest.approx(
        [-0.3010299956639812, 0.0, 1.0, 2.089905111439398], rel=1e-15)
    ints = log10(picotorch.tensor([1, 10, 100]))
    assert ints.dtype is picotorch.float32 and ints.tolist() == [0.0, 1.0, 2.0]
    assert log10(picotorch.tensor([True, False])).tolist() == [0.0, -math.inf]


@pytest.mark.exercise("5.3")
def test_log10_is_a_function_and_a_method():
    """variants: function, method gives both picotorch.log10(x) and x.log10()."""
    x = f64([2.0, 1000.0])
    log10(x)
    assert hasattr(x, "log10"), "picotorch.log10 exists but Tensor.log10 does not: which variants did you declare?"
    assert log10(x).tolist() == x.log10().tolist() == pytest.approx([0.3010299956639812, 3.0], rel=1e-15)


@pytest.mark.exercise("5.3")
def test_log10_edge_values():
    """log10(0) is -inf, of a negative number nan, of inf inf (PyTorch's values)."""
    out = log10(picotorch.tensor([0.0, -1.0, math.inf])).tolist()
    assert out[0] == -math.inf and math.isnan(out[1]) and out[2] == math.inf


@pytest.mark.exercise("5.3")
def test_log10_records_Log10Backward0():
    """The node is named from the schema's name as PyTorch names it: Log10Backward0."""
    y = log10_with_node(f64([10.0], requires_grad=True))
    assert y.grad_fn.name() == "Log10Backward0"
    assert type(y.grad_fn).__name__ == "Log10Backward0"
    assert repr(y) == "tensor([1.], dtype=torch.float64, grad_fn=<Log10Backward0>)"


@pytest.mark.exercise("5.3")
def test_log10_gradient():
    """d log10(x)/dx = 1 / (x ln 10): the formula divides grad by self * 2.3025850929940456."""
    x = f64([0.5, 1.0, 10.0, 123.0], requires_grad=True)
    log10_with_node(x).backward(f64([1.0, 2.0, 3.0, 4.0]))
    assert x.grad.tolist() == pytest.approx(
        [0.8685889638065037, 0.8685889638065037, 0.13028834457097557, 0.014123397785471606], rel=1e-14)


@pytest.mark.exercise("5.3")
def test_log10_second_derivative():
    """The formula is made of ops (ops.div, ops.mul), so create_graph=True records it: d2/dx2 = -1 / (x^2 ln 10)."""
    x = f64([2.0], requires_grad=True)
    (g,) = picotorch.autograd.grad(log10_with_node(x), x, create_graph=True)
    assert g.grad_fn is not None and g.grad_fn.name() == "DivBackward0"
    (g2,) = picotorch.autograd.grad(g, x)
    assert g2.tolist() == pytest.approx([-0.10857362047581295], rel=1e-14)


@pytest.mark.exercise("5.3")
@pytest.mark.parametrize(("call", "message"), [
    (lambda: picotorch.log10("a"), "log10(): argument 'input' (position 1) must be Tensor, not str"),
    (lambda: picotorch.log10(f64([1.0]), 2), "log10() takes 1 positional argument but 2 were given"),
    (lambda: picotorch.log10(), 'log10() missing 1 required positional arguments: "input"'),
])
def test_log10_argument_errors(call, message):
    """The generated binding parses log10(Tensor self) as PyTorch does: TypeError, the same text."""
    log10(f64([1.0]))  # the op must exist first
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message


def _program(torch):
    x = torch.tensor([0.25, 3.0, 1e-3, 7.5], dtype=torch.float64, requires_grad=True)
    y = torch.log10(x)
    print(y)
    y.backward(torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64))
    print(x.grad)
    print(torch.tensor([1.0, 2.0, 1000.0]).log10(), torch.log10(torch.tensor([1, 10, 100])))
    print(torch.log10(torch.tensor([100.0, 0.5], dtype=torch.float16)))
    return y, x


@pytest.mark.exercise("5.3")
def test_log10_same_as_torch():
    """Run on picotorch and on torch (when installed): prints, values, grad_fn and .grad the same."""
    log10(f64([1.0]))
    pytest.importorskip("torch")
    assert_same(_program, rtol=1e-12, atol=0)
    assert_same(lambda torch: torch.log10(torch.tensor([1.0]), torch.tensor([2.0])))
