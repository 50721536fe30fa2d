"""``torch.special``'s aliases against torch: values, the ordinary op's node, the binding's errors."""

from __future__ import annotations

import re

import pytest

import picotorch

torch = pytest.importorskip("torch")

PROGRAMS = [
    "S.expit(x)", "S.logit(x, eps=0.1)", "S.logit(x)", "S.logsumexp(x, 0)", "S.log_softmax(x, 0)", "S.softmax(x, 0)",
    "S.gammaln(x)", "S.psi(x)", "S.digamma(x)", "S.polygamma(1, x)", "S.round(x)", "S.round(x, decimals=1)",
    "S.sinc(x)", "S.xlogy(x, x)", "S.xlogy(2, x)", "S.exp2(x)", "S.expm1(x)", "S.log1p(x)", "S.erf(x)", "S.erfc(x)",
    "S.erfinv(x)", "S.expit(1)", "S.log_softmax(x, 0, dtype=T.float64)", "S.softmax(x, 0, dtype=T.float64)",
]


def outcome(t, program: str) -> str:
    x = t.tensor([0.3, 0.6], requires_grad=True)
    try:
        y = eval(program, {"T": t, "S": t.special, "x": x})
        value = [repr(y), y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions]]
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        value = f"{type(error).__name__}: {error}"
    return re.sub(r" at 0x[0-9a-f]+", "", str(value))


@pytest.mark.parametrize("program", PROGRAMS)
def test_special_matches_torch(program):
    assert outcome(picotorch, program) == outcome(torch, program)
