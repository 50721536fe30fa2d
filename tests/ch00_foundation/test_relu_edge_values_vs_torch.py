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
