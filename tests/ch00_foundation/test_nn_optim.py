"""nn.Linear / ReLU / Sequential and optim.SGD against PyTorch: same graphs, same numbers."""

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")


def _names(t):
    """grad_fn name tree as nested tuples (iterative over a small graph)."""
    out, stack = [], [(t.grad_fn, 0)]
    while stack:
        node, depth = stack.pop()
        out.append((depth, node.name() if node is not None else None))
        if node is not None:
            stack.extend((n, depth + 1) for n, _ in reversed(node.next_functions))
    return out


def _copy_linear(T, src_w, src_b, bias=True):
    lin = T.nn.Linear(src_w.shape[1], src_w.shape[0], bias=bias, dtype=T.float64)
    with T.no_grad():
        lin.weight.copy_(T.tensor(src_w)) if hasattr(lin.weight, "copy_") else None
    lin.weight.data = T.tensor(src_w, dtype=T.float64)
    if bias:
        lin.bias.data = T.tensor(src_b, dtype=T.float64)
    return lin


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("input_shape", [(3,), (4, 3), (2, 4, 3)])
@pytest.mark.parametrize("input_requires_grad", [False, True])
def test_linear_graph_matches_torch(bias, input_shape, input_requires_grad):
    rng = np.random.default_rng(1)
    w, b, x = rng.standard_normal((2, 3)), rng.standard_normal(2), rng.standard_normal(input_shape)
    results = []
    for T in (picotorch, torch):
        lin = _copy_linear(T, w, b, bias)
        inp = T.tensor(x, dtype=T.float64, requires_grad=input_requires_grad)
        out = lin(inp)
        out.sum().backward()
        results.append((_names(out), out.detach().numpy(), lin.weight.grad.numpy(),
                        inp.grad.numpy() if input_requires_grad else None))
    (pn, pv, pg, pi), (tn, tv, tg, ti) = results
    assert pn == tn
    np.testing.assert_allclose(pv, tv, rtol=1e-12)
    np.testing.assert_allclose(pg, tg, rtol=1e-12)
    if input_requires_grad:
        np.testing.assert_allclose(pi, ti, rtol=1e-12)


def test_parameter_is_a_leaf_that_requires_grad_and_module_lists_parameters():
    model = picotorch.nn.Sequential(picotorch.nn.Linear(3, 4), picotorch.nn.ReLU(), picotorch.nn.Linear(4, 1))
    names = [n for n, _ in model.named_parameters()]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(p.is_leaf and p.requires_grad for p in model.parameters())
    assert repr(model) == repr(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)))


@pytest.mark.parametrize("momentum, weight_decay, nesterov", [(0, 0, False), (0.9, 0, False), (0.9, 0.01, True)])
def test_sgd_training_follows_torch(momentum, weight_decay, nesterov):
    rng = np.random.default_rng(2)
    w1, b1 = rng.standard_normal((8, 3)), rng.standard_normal(8)
    w2, b2 = rng.standard_normal((1, 8)), rng.standard_normal(1)
    x, y = rng.standard_normal((16, 3)), rng.standard_normal((16, 1))
    losses = []
    for T in (picotorch, torch):
        l1, l2 = _copy_linear(T, w1, b1), _copy_linear(T, w2, b2)
        model = T.nn.Sequential(l1, T.nn.ReLU(), l2)
        opt = T.optim.SGD(model.parameters(), lr=0.05, momentum=momentum, weight_decay=weight_decay,
                          nesterov=nesterov)
        xs, ys = T.tensor(x, dtype=T.float64), T.tensor(y, dtype=T.float64)
        run = []
        for _ in range(5):
            opt.zero_grad()
            loss = ((model(xs) - ys) ** 2).mean()
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-10)
    assert losses[0][-1] < losses[0][0]


def test_module_to_double_keeps_leaves_and_changes_dtype():
    lin = picotorch.nn.Linear(2, 2).double()
    assert lin.weight.dtype == picotorch.float64 and lin.weight.is_leaf and lin.weight.grad_fn is None
