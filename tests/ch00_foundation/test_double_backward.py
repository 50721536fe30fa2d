"""create_graph=True: backward formulas are recorded (they are picotorch ops), so gradients of
gradients match PyTorch's, and so does the grad_fn of the first gradient."""

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")

FUNCTIONS = {
    "pow3": lambda T, x: x ** 3, "tanh": lambda T, x: x.tanh(), "sigmoid": lambda T, x: x.sigmoid(),
    "exp": lambda T, x: x.exp(), "mm": lambda T, x: x @ x, "relu": lambda T, x: x.relu() * x,
    "div": lambda T, x: 1 / (x + 3), "log": lambda T, x: (x * x + 1).log(), "mean_dim": lambda T, x: (x * x).mean(0),
    "sum_broadcast": lambda T, x: x * x.sum(1, keepdim=True), "expand": lambda T, x: x[0:1].expand(3, 2) ** 2,
    "select": lambda T, x: x[1] ** 2, "cat": lambda T, x: T.cat([x, x * x]) ** 2,
    "where": lambda T, x: T.where(x > 0, x ** 2, x ** 3), "pow_tensor": lambda T, x: (x * x + 1) ** x,
    "to_copy": lambda T, x: x.float() ** 2, "addmm": lambda T, x: T.addmm(x, x, x),
}


def _second_order(T, name):
    x = T.tensor([[0.3, -1.2], [0.7, 2.0]], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(FUNCTIONS[name](T, x).sum(), x, create_graph=True)
    (h,) = T.autograd.grad((g * g).sum(), x)
    return g.grad_fn.name(), g.detach().numpy(), h.numpy()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_grad_of_grad_matches_torch(name):
    (ours_name, *ours), (theirs_name, *theirs) = _second_order(picotorch, name), _second_order(torch, name)
    assert ours_name == theirs_name
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=1e-6)
