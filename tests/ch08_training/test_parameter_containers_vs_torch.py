"""``nn.ParameterList``, ``nn.ParameterDict``, ``nn.Unflatten`` (and their neighbours) against torch: reprs,
registration, names, errors."""

from __future__ import annotations

import re

import pytest

import picotorch

torch = pytest.importorskip("torch")


def outcome(t, program: str) -> str:
    t.manual_seed(0)
    try:
        value = repr(eval(program, {"torch": t, "nn": t.nn, "P": t.nn.Parameter}))
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        value = f"{type(error).__name__}: {error}"
    return re.sub(r" at 0x[0-9a-f]+", "", value).replace("picotorch", "torch")


PROGRAMS = [
    'nn.ParameterList([P(torch.ones(2)), P(torch.zeros(2, 3))])',
    'nn.ParameterList()',
    'len(nn.ParameterList([P(torch.ones(2))]))',
    'nn.ParameterList([torch.ones(2)])[0]',
    'type(nn.ParameterList([torch.ones(2)])[0]).__name__',
    'list(dict(nn.ParameterList([P(torch.ones(2)), P(torch.ones(1))]).named_parameters()))',
    '(lambda l: (l.append(P(torch.ones(3))), l)[1])(nn.ParameterList())',
    '(lambda l: (l.extend([P(torch.ones(3))]), len(l))[1])(nn.ParameterList())',
    'nn.ParameterList([P(torch.ones(2)), 3])',
    'nn.ParameterList([P(torch.ones(2, dtype=torch.float64))])',
    'nn.ParameterDict({"a": P(torch.ones(2)), "b": P(torch.zeros(3))})',
    'nn.ParameterDict()',
    'list(nn.ParameterDict({"b": P(torch.ones(2)), "a": P(torch.ones(1))}).keys())',
    'nn.ParameterDict({"a": P(torch.ones(2))})["a"]',
    '"a" in nn.ParameterDict({"a": P(torch.ones(2))})',
    'list(dict(nn.ParameterDict({"w": P(torch.ones(2))}).named_parameters()))',
    'nn.Unflatten(1, (2, 3))',
    'nn.Unflatten(1, (2, 3))(torch.ones(4, 6)).shape',
    'nn.Unflatten(1, (2, 3))(torch.ones(4, 6, requires_grad=True)).grad_fn',
    'nn.Unflatten(1, (2, 4))(torch.ones(4, 6))',
    'nn.Flatten()(torch.ones(2, 3, 4)).shape',
    'nn.Identity(3, k=2)',
    'nn.Identity()(torch.ones(1))',
    'nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])',
    'nn.ModuleDict({"a": nn.ReLU()})',
    'nn.Sequential(nn.Linear(2, 2), nn.ParameterList([P(torch.ones(2))]))',
    '(lambda m: (setattr(m, "plist", nn.ParameterList([P(torch.ones(2))])),'
    ' [n for n, _ in m.named_parameters()])[1])(nn.Linear(1, 1))',
    'nn.utils.parameters_to_vector(nn.ParameterList([P(torch.ones(2)), P(torch.zeros(1))]))',
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_containers_match_torch(program):
    assert outcome(picotorch, program) == outcome(torch, program)
