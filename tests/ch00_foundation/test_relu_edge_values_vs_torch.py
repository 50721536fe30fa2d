"""relu and its backward on the values where ``where(x > 0, x, 0)`` goes wrong: NaN stays NaN (and passes
its gradient), ``-0.`` keeps its sign; every float dtype, with and without a graph."""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

EDGE = [float("nan"), -0.0, 0.0, -1.5, 2.0, float("-inf"), float("inf")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(7,), (7, 3)])
def test_relu_keeps_nan_and_negative_zero_and_its_gradient_lets_nan_through(dtype, shape):
    """Values, signs of zeros, and the gradient of relu at NaN, -0., 0., negatives and infinities."""
    def prog(T):
        data = [[v] * shape[1] for v in EDGE] if len(shape) == 2 else EDGE
        x = T.tensor(data, dtype=getattr(T, dtype), requires_grad=True)
        y = T.relu(x)
        y.backward(T.ones_like(y))
        print(y, x.grad)
        return y, 1 / y.detach(), x.grad  # 1 / -0. is -inf: the sign of each zero shows
    assert_same(prog)


def test_relu_of_integers_matches():
    """Integer relu: the same values and dtype (no gradient)."""
    assert_same(lambda T: T.relu(T.tensor([-3, 0, 4])))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("repeats", [1, 5])  # 49 and 1225 elements: both of zero_where's paths
def test_relu_backward_passes_every_incoming_gradient_bit_for_bit_or_zero(dtype, transposed, repeats):
    """``threshold_backward`` on every pair of an edge value of relu's output and an edge value of the incoming
    gradient: a NaN, an infinity or a ``-0.`` of the gradient passes unchanged where the output is not <= 0, and
    every gradient becomes ``+0.`` where it is (never ``0 * g``, which would be NaN or ``-0.``); with a
    transposed input too, whose gradient keeps its layout."""
    def prog(T):
        edge = EDGE * repeats
        n = len(edge)
        x = T.tensor([[v] * n for v in edge], dtype=getattr(T, dtype))
        x = (x.t() if transposed else x).detach().requires_grad_()
        y = T.relu(x)
        gradient = T.tensor([edge] * n, dtype=getattr(T, dtype))
        y.backward(gradient.t() if transposed else gradient)
        return y, x.grad, 1 / x.grad, x.grad.stride()
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "float16", "float64"])
@pytest.mark.parametrize("repeats", [1, 200])
def test_relu_in_place_keeps_negative_zero_and_integers(dtype, repeats):
    """``relu_`` in place: the same values as ``relu``, in the input itself."""
    def prog(T):
        values = [0, 3, 255, 1] if dtype == "uint8" else ([-3, 0, 5, -1, 7] if dtype.startswith("int") else EDGE)
        x = T.tensor(values * repeats, dtype=getattr(T, dtype))
        y = x.relu_()
        return x, 1 / x if dtype.startswith("float") else x, y is x
    assert_same(prog)
