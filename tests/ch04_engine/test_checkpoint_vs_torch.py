"""``torch.utils.checkpoint`` against torch: both variants, their graphs, gradients, warnings and errors.

Each program checkpoints a layer, a small Sequential with dropout (the recomputation must draw the same mask) or a
function with a non-tensor argument, then runs backward; it returns the output, which forward hooks ran (twice
with reentrant recomputation, once with the non-reentrant one's early stop), the gradients and the warnings.
"""

from __future__ import annotations

import re
import warnings

import pytest

import picotorch

torch = pytest.importorskip("torch")


def run(t, program: str) -> str:
    t.manual_seed(0)
    nn = t.nn
    order = []
    lin = nn.Linear(3, 2)
    lin.register_forward_hook(lambda m, i, o: order.append("fwd"))
    seq = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Dropout(0.5), nn.Linear(4, 2))
    x = t.tensor([[1., -2., 0.5], [0.25, 1.5, -1.]], requires_grad=True)
    env = {"torch": t, "cp": t.utils.checkpoint, "lin": lin, "seq": seq, "x": x, "order": order, "nn": nn}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(program, env)
        result = repr([env.get("out"), order, x.grad, [p.grad for p in lin.parameters()],
                       [p.grad for p in seq.parameters()], [str(w.message) for w in caught]])
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        result = f"{type(error).__name__}: {error}"
    return re.sub(r" at 0x[0-9a-f]+", "", result).replace("picotorch", "torch")


PROGRAMS = [
    'y = cp.checkpoint(lin, x, use_reentrant=True); '
    'out = (y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions]); y.sum().backward()',
    'y = cp.checkpoint(lin, x, use_reentrant=False); '
    'out = (y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions]); y.sum().backward()',
    'y = cp.checkpoint(lin, x); out = y.grad_fn.name()',
    'y = cp.checkpoint(seq, x, use_reentrant=True); y.pow(2).sum().backward(); out = y',
    'y = cp.checkpoint(seq, x, use_reentrant=False); y.pow(2).sum().backward(); out = y',
    'y = cp.checkpoint(lambda a, k: (a * k).exp(), x, 2.0, use_reentrant=True); y.sum().backward(); out = y',
    'y = cp.checkpoint(lambda a, k: (a * k).exp(), x, 2.0, use_reentrant=False); y.sum().backward(); out = y',
    'y = cp.checkpoint(lin, x.detach(), use_reentrant=True); out = y',
    'y = cp.checkpoint(lin, x, use_reentrant=True, foo=1)',
    'y = cp.checkpoint_sequential(seq, 2, x, use_reentrant=False); y.pow(2).sum().backward(); out = y',
    'y = cp.checkpoint_sequential(seq, 2, x, use_reentrant=True); y.pow(2).sum().backward(); out = y',
    'y = cp.checkpoint(lin, x, use_reentrant=False); y.sum().backward(retain_graph=True); y.sum().backward(); out = y',
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_checkpoint_matches_torch(program):
    assert run(picotorch, program) == run(torch, program)
