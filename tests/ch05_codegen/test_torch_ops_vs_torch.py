"""``torch.ops.aten``: packets, overloads, their schemas and calls, against torch.

Each program runs with ``T`` bound to picotorch and to torch; the printed results (addresses removed) or the
exception's type and text must be the same.
"""

from __future__ import annotations

import re

import pytest

import picotorch

torch = pytest.importorskip("torch")


def outcome(module, program: str) -> str:
    x = module.tensor([1., 2.], requires_grad=True)
    try:
        value = eval(program, {"T": module, "x": x})
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return f"{type(error).__name__}: {error}"
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


PROGRAMS = [
    "T.ops.aten.mul.Tensor(x, 2)", "T.ops.aten.mul(x, 2)", "T.ops.aten.mul.Scalar(x, 2)", "T.ops.aten.mul(x, x)",
    "T.ops.aten.nonexistent", "T.ops.aten.mul.nope", "T.ops.aten.add.Tensor(x, x, alpha=2)", "T.ops.aten.add.Tensor(x)",
    "T.ops.aten.relu.default(x)", "T.ops.aten.relu", "T.ops.aten.relu.default", "str(T.ops.aten.relu.default._schema)",
    "T.ops.aten.relu.default.overloadpacket", "T.ops.aten.relu.default.__name__", "T.ops.aten.add.Tensor.__name__",
    "T.ops.aten.add.Tensor._overloadname", "T.ops.aten.add.__name__", "T.ops.aten.add.Tensor.namespace",
    "T.ops.aten.relu_.default(x.detach().clone())", "T.ops.aten.sum(x)", "T.ops.aten.sum.default(x)",
    "T.ops.aten.sum.dim_IntList(T.ones(2, 2), [0])", "T.ops.aten.mul.Tensor(x)", "T.ops.aten.mul.Tensor(x, x, x)",
    "T.ops.aten.mul.Tensor(x, other=x)", "T.ops.aten.mul.Tensor(self=x, other=x)", "T.ops.aten.mul.Tensor(x, y=x)",
    "T.ops.aten.add.Tensor._schema.name", "T.ops.aten.add.Tensor._schema.overload_name",
    "T.ops.aten.add.Tensor.default", "T.ops.aten.add.Tensor.name()", "str(T.ops.aten.mul.Tensor._schema)",
    "T.ops.aten.exp.default(x).grad_fn",
    "T.ops.aten.exp.default(x).grad_fn.next_functions", "T.ops.aten.t.default(T.ones(2, 3)).shape",
    "T.ops.aten.view.default(T.ones(6), [2, 3]).shape", "[a.name for a in T.ops.aten.add.Tensor._schema.arguments]",
    "[a.kwarg_only for a in T.ops.aten.add.Tensor._schema.arguments]",
    "T.ops.aten.add.Tensor._schema.arguments[2].default_value", "isinstance(T.ops.aten.add.Tensor, T._ops.OpOverload)",
    "isinstance(T.ops.aten.add, T._ops.OpOverloadPacket)", "T.ops.aten.mm.default(T.ones(2, 3), T.ones(3, 4)).shape",
    "T.ops.aten.mm(T.ones(2, 3), T.ones(3, 4))", "T.ops.aten.mul.Tensor(x, x).grad_fn._saved_other",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_torch_ops_match_torch(program):
    ours = outcome(picotorch, program).replace("picotorch", "torch")
    assert ours == outcome(torch, program)


def test_module_reprs():
    assert repr(picotorch.ops.aten) == repr(torch.ops.aten) == "<module 'torch.ops.aten' from 'torch.ops'>"
    assert repr(picotorch.ops) == repr(torch.ops) == "<module 'torch.ops' from '_ops.py'>"
