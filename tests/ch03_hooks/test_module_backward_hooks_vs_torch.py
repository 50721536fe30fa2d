"""Module backward hooks (full, pre, the old non-full kind and the global ones) against torch.

Each program builds the same model in picotorch and in torch, registers hooks that log what they see (module
class, gradient shapes and values) and may change gradients, runs forward and backward, and returns the log,
the leaves' gradients, the graph's node names and the warnings; or the exception's type and text.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")


def _shape(g):
    return None if g is None else (tuple(g.shape), np.round(g.detach().numpy().astype(np.float64), 6).tolist())


def _setup(t):
    t.manual_seed(0)
    nn = t.nn
    log = []

    def full(m, gin, gout):
        log.append(("full", type(m).__name__, [_shape(g) for g in gin], [_shape(g) for g in gout]))

    def pre(m, gout):
        log.append(("pre", type(m).__name__, [_shape(g) for g in gout]))

    def doubling(m, gin, gout):
        log.append(("doubling", type(m).__name__))
        return tuple(None if g is None else g * 2 for g in gin)

    def halving_pre(m, gout):
        log.append(("halving_pre", type(m).__name__))
        return tuple(g / 2 for g in gout)

    def old(m, gin, gout):
        log.append(("old", type(m).__name__, [_shape(g) for g in gin], [_shape(g) for g in gout]))

    class TwoInputs(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)

        def forward(self, a, scale, b):
            return self.lin(a) * scale + b, b.sum()

    return {"T": t, "nn": nn, "log": log, "full": full, "pre": pre, "doubling": doubling, "halving_pre": halving_pre,
            "old": old, "TwoInputs": TwoInputs,
            "seq": nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1)),
            "x": t.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]], requires_grad=True),
            "x0": t.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]])}


def run(t, program: str):
    env = _setup(t)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(program, env)
            out = env.get("out")
        result = [env["log"], [str(w.message) for w in caught]]
        if out is not None:
            result.append(out.grad_fn.name() if out.grad_fn is not None else None)
        for name in ("x",):
            result.append(_shape(env[name].grad))
        result.append([_shape(p.grad) for p in env["seq"].parameters()])
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        result = f"{type(error).__name__}: {error}"
    return re.sub(r" at 0x[0-9a-f]+", "", str(result)).replace("picotorch", "torch")


PROGRAMS = [
    # full hooks and pre-hooks, logged in backward order
    "seq[0].register_full_backward_hook(full); seq[2].register_full_backward_hook(full)\n"
    "out = seq(x); out.sum().backward()",
    "seq[1].register_full_backward_hook(full); seq[2].register_full_backward_pre_hook(pre)\n"
    "out = seq(x); out.sum().backward()",
    "seq.register_full_backward_hook(full); seq[0].register_full_backward_hook(full)\n"
    "out = seq(x); out.sum().backward()",
    # no input requires grad: the output node calls the hook, with a warning
    "seq[0].register_full_backward_hook(full); seq[0].register_full_backward_pre_hook(pre)\n"
    "out = seq(x0); out.sum().backward()",
    # hooks that change gradients
    "seq[2].register_full_backward_hook(doubling); out = seq(x); out.sum().backward()",
    "seq[0].register_full_backward_hook(doubling); out = seq(x); out.sum().backward()",
    "seq[2].register_full_backward_pre_hook(halving_pre); out = seq(x); out.sum().backward()",
    "seq[2].register_full_backward_pre_hook(halving_pre, prepend=True); seq[2].register_full_backward_pre_hook(pre)\n"
    "out = seq(x); out.sum().backward()",
    "seq[1].register_full_backward_hook(full); seq[1].register_full_backward_hook(doubling, prepend=True)\n"
    "out = seq(x); out.sum().backward()",
    # several inputs, a non-tensor one, and a tuple output
    "m = TwoInputs(); m.register_full_backward_hook(full); m.register_full_backward_pre_hook(pre)\n"
    "b = T.ones(2, 2, requires_grad=True); y, s = m(x, 3.0, b); out = y; (y.sum() + s * 2).backward()",
    "m = TwoInputs(); m.register_full_backward_hook(full)\n"
    "b = T.ones(2, 2); y, s = m(x, 3.0, b); out = y; y.sum().backward()",
    # removing, and grad mode off
    "h = seq[0].register_full_backward_hook(full); h.remove(); out = seq(x); out.sum().backward()",
    "seq[0].register_full_backward_hook(full)\nwith T.no_grad():\n    out = seq(x)\nlog.append(out.requires_grad)",
    # the old kind and its warnings
    "seq[0].register_backward_hook(old); out = seq(x); out.sum().backward()",
    "seq[1].register_backward_hook(old); out = seq(x); out.sum().backward()",
    "seq.register_backward_hook(old); out = seq(x); out.sum().backward()",
    "m = TwoInputs(); m.register_backward_hook(old); y, s = m(x, 3.0, T.ones(2, 2)); out = y; y.sum().backward()",
    # errors
    "seq[0].register_backward_hook(old); seq[0].register_full_backward_hook(full)",
    "seq[0].register_full_backward_hook(full); seq[0].register_backward_hook(old)",
    "seq[2].register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))\nout = seq(x); out.sum().backward()",
    "seq[2].register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))\nout = seq(x); out.sum().backward()",
    "seq[0].register_full_backward_hook(lambda m, gi, go: (go[0],))\nout = seq(x0); out.sum().backward()",
    # global hooks
    "h = T.nn.modules.module.register_module_full_backward_hook(full)\n"
    "try:\n    out = seq(x); out.sum().backward()\nfinally:\n    h.remove()",
    "h = T.nn.modules.module.register_module_forward_hook(lambda m, i, o: log.append(('gfwd', type(m).__name__)))\n"
    "h2 = T.nn.modules.module.register_module_forward_pre_hook(lambda m, i: log.append(('gpre', type(m).__name__)))\n"
    "try:\n    out = seq(x)\nfinally:\n    h.remove(); h2.remove()",
    "h = T.nn.modules.module.register_module_full_backward_pre_hook(pre)\n"
    "try:\n    out = seq(x); out.sum().backward()\nfinally:\n    h.remove()",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_module_backward_hooks_match_torch(program):
    assert run(picotorch, program) == run(torch, program)


def test_the_graph_gets_the_hook_nodes():
    def graph(t):
        lin = t.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda m, gi, go: None)
        y = lin(t.ones(1, 2, requires_grad=True))
        node = y.grad_fn
        names = []
        while node is not None:
            names.append(node.name())
            nexts = [n for n, _ in node.next_functions if n is not None]
            node = nexts[0] if nexts else None
        return names, type(y.grad_fn).__name__

    assert graph(picotorch) == graph(torch)
