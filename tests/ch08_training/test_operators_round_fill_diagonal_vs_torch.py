"""``abs(t)``, ``+t``, ``round(decimals=)`` and ``fill_diagonal_`` against torch: values, graphs and errors."""

from __future__ import annotations

import re

import pytest

import picotorch

torch = pytest.importorskip("torch")

PROGRAMS = [
    "abs(x)", "+x", "(+x) is x", "abs(T.tensor([-2, 3]))", "+T.tensor([True])", "abs(x).grad_fn", "(-x).grad_fn",
    "T.tensor([1.2345, -2.5]).round(decimals=2)", "T.round(T.tensor([1234.5]), decimals=-2)", "x.round(decimals=1)",
    "T.round(x, decimals=1).grad_fn", "T.tensor([1, 2]).round(decimals=1)",
    "T.tensor([1.25, 2.35], dtype=T.float64).round(decimals=1)", "T.tensor([0.125, 2.675, -1.005]).round(decimals=2)",
    "T.tensor([1234.5678]).round(decimals=-3)", "T.tensor([1.5, 2.5]).round(decimals=0)",
    "T.tensor([1.25], dtype=T.float16).round(decimals=1)",
    "T.round(T.tensor([0.5, 1.5], dtype=T.bfloat16), decimals=1)",
    "T.zeros(3, 3).fill_diagonal_(5)", "T.zeros(2, 3).fill_diagonal_(5)", "T.zeros(5, 2).fill_diagonal_(5, wrap=True)",
    "T.zeros(7, 3).fill_diagonal_(1, wrap=True)", "T.zeros(7, 3).fill_diagonal_(1)",
    "T.zeros(3, 3)[:, 1:].fill_diagonal_(2)", "T.zeros(2, 2, 2).fill_diagonal_(3)",
    "T.zeros(2, 3, 4).fill_diagonal_(1)",
    "T.zeros(3).fill_diagonal_(1)", "T.zeros(3, 3, requires_grad=True).fill_diagonal_(1)",
    "T.zeros(3, 3, dtype=T.int64).fill_diagonal_(1.7)", "x.detach().clone().fill_diagonal_(0)",
    "(x * 1).fill_diagonal_(0).grad_fn", "(x * 1).fill_diagonal_(0).grad_fn.next_functions",
]


def outcome(t, program: str) -> str:
    x = t.tensor([[-1.5, 2.25], [0.125, -3.0]], requires_grad=True)
    try:
        value = repr(eval(program, {"T": t, "x": x}))
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        value = f"{type(error).__name__}: {error}"
    return re.sub(r" at 0x[0-9a-f]+", "", value).replace("picotorch", "torch")


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_torch(program):
    assert outcome(picotorch, program) == outcome(torch, program)
