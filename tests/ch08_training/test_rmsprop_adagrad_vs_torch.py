"""RMSprop and Adagrad against torch: parameters after four steps of a small model, the optimizer's repr, its
state_dict (state keys, param_groups) and the constructor's errors.

The parameters are compared with rtol 1e-5 (float32) / 1e-12 (float64): the model's matmuls sum in BLAS's order,
which may differ from PyTorch's in the last bits; the update rules themselves are PyTorch's operation for operation.
"""

from __future__ import annotations

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")


def run(t, make: str, dtype: str):
    t.manual_seed(0)
    dt = getattr(t, dtype)
    model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 1)).to(dt)
    try:
        opt = eval(make, {"torch": t})(model.parameters())
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return f"{type(error).__name__}: {error}"
    x = t.tensor(np.linspace(-1, 1, 15).reshape(5, 3), dtype=dt)
    for _ in range(4):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    sd = opt.state_dict()
    state = {k: {name: (tuple(v.shape), str(v.dtype)) for name, v in s.items()} for k, s in sd["state"].items()}
    return [p.detach().numpy() for p in model.parameters()], repr(opt), state, sd["param_groups"]


CONFIGS = [
    "lambda p: torch.optim.RMSprop(p)", "lambda p: torch.optim.RMSprop(p, lr=0.05, momentum=0.9)",
    "lambda p: torch.optim.RMSprop(p, lr=0.05, centered=True, weight_decay=0.1)",
    "lambda p: torch.optim.RMSprop(p, lr=0.05, centered=True, momentum=0.5, maximize=True)",
    "lambda p: torch.optim.Adagrad(p)",
    "lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)",
    "lambda p: torch.optim.Adagrad(p, lr=0.1, maximize=True)", "lambda p: torch.optim.RMSprop(p, lr=-1)",
    "lambda p: torch.optim.RMSprop(p, alpha=-1)", "lambda p: torch.optim.RMSprop(p, momentum=-1)",
    "lambda p: torch.optim.Adagrad(p, lr_decay=-1)", "lambda p: torch.optim.Adagrad(p, initial_accumulator_value=-1)",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make", CONFIGS)
def test_optimizer_matches_torch(make, dtype):
    ours, theirs = run(picotorch, make, dtype), run(torch, make, dtype)
    if isinstance(theirs, str):
        assert ours == theirs
        return
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-2)
    assert ours[1:] == theirs[1:]


def test_each_optimizer_class_prints_with_its_own_module():
    """``torch.optim.adamw.AdamW``, not Adam's module: every optimizer picotorch has is where torch keeps it."""
    names = [name for name in picotorch.optim.__all__ if isinstance(getattr(picotorch.optim, name), type)]
    ours = [repr(getattr(picotorch.optim, name)).replace("picotorch", "torch") for name in names]
    assert ours == [repr(getattr(torch.optim, name)) for name in names]
    assert "AdamW" in names
