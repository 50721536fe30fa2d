"""``gradcheck``, ``gradgradcheck``, ``autograd.functional`` and the legacy ``Variable``, against torch.

Each program runs with the same functions, custom Functions and inputs in picotorch and in torch; the printed result
(addresses removed), the warnings, or the exception's type and text must be the same. A failing gradcheck prints
both Jacobians, so the numbers it finds by finite differences are compared too.
"""

from __future__ import annotations

import re
import warnings

import pytest

import picotorch

torch = pytest.importorskip("torch")


def environment(module) -> dict:
    class Bad(module.autograd.Function):  # backward forgets the factor 2
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    class Good(module.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y.exp(), x.sum()

        @staticmethod
        def backward(ctx, g1, g2):
            x, y = ctx.saved_tensors
            return g1 * y.exp() + g2, g1 * x * y.exp()

    class NotMul(module.autograd.Function):  # backward ignores grad_output
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 0 + 2

    f64 = module.float64
    return {"torch": module, "G": module.autograd.gradcheck, "GG": module.autograd.gradgradcheck,
            "F": module.autograd.functional, "Bad": Bad, "Good": Good, "NotMul": NotMul,
            "x": module.tensor([1., 2., 3.], dtype=f64, requires_grad=True),
            "y": module.tensor([0.5, -1., 0.25], dtype=f64, requires_grad=True),
            "m": module.tensor([[1., 2.], [3., 4.]], dtype=f64, requires_grad=True),
            "v": module.tensor([1., 2., 3.], dtype=f64), "w": module.tensor([0.5, -1.], dtype=f64)}


def outcome(module, program: str) -> str:
    """The program's result; grad mode is put back after it (``set_grad_enabled(False)`` sets it on creation)."""
    was_enabled = module.is_grad_enabled()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = repr(eval(program, environment(module)))
        result += " warnings=" + str([str(w.message) for w in caught])
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        result = f"{type(error).__name__}: {error}"
    finally:
        module.set_grad_enabled(was_enabled)
    return re.sub(r" at 0x[0-9a-f]+", "", result).replace("picotorch", "torch")


GRADCHECK = [
    'G(Bad.apply, (x,))',
    'G(Bad.apply, x)',
    'G(Good.apply, (x, y))',
    'G(NotMul.apply, (x,))',
    'G(lambda a: a * a, (x,))',
    'G(Bad.apply, (x,), raise_exception=False)',
    'G(lambda a: a, (torch.ones(2),))',
    'G(lambda a, b: (a @ b.T, a.sum()), (m, m))',
    'G(lambda a: a.exp(), (m,), eps=1e-3, atol=1e-9, rtol=1e-9)',
    'G(lambda a: a.exp(), (m,), eps=1e-3, atol=1e-9, rtol=1e-9, raise_exception=False)',
    'G(lambda a: a.detach(), (x,))',
    'G(lambda a: (a.detach() * 2).sum(), (x,))',
    'G(lambda a: a.expand(2, 3), (x,))',
    'G(lambda a: a * 2, (x.expand(2, 3),))',
    'G(lambda a: a.relu(), (y,))',
    'G(lambda a: a.abs(), (y,))',
    'G(lambda a: a.float() * 2, (x,))',
    'G(lambda a, k: a * k, (x, 3))',
    'G(lambda a: torch.linalg.det(a), (m,))',
    'GG(lambda a: a * a * a, (x,))',
    'GG(lambda a: a.exp().sum(), (x,))',
    'GG(Bad.apply, (x,), torch.ones(3, dtype=torch.float64))',
    'GG(Bad.apply, (x,), torch.ones(3, dtype=torch.float64), raise_exception=False)',
    'G(lambda a: a * a, (x,), fast_mode=True)',
    'G(lambda a: a * a, (x,), check_undefined_grad=False)',
]

FUNCTIONAL = [
    'F.jacobian(lambda a: a ** 2, v)',
    'F.jacobian(lambda a, b: a.sum() * b, (v, w))',
    'F.jacobian(lambda a: (a.exp(), a.sum()), v)',
    'F.jacobian(lambda a: a * 0 + 1, v)',
    'F.jacobian(lambda a: v * 2, w)',
    'F.jacobian(lambda a: v * 2, w, strict=True)',
    'F.jacobian(lambda a: a ** 3, v, create_graph=True)',
    'F.jacobian(lambda a: a ** 3, v, create_graph=True)[0].grad_fn',
    'F.jacobian(lambda a: 3, v)',
    'F.jacobian(lambda a: a, [v])',
    'F.jacobian(lambda a: a, 3)',
    'F.jacobian(lambda a: a, (v, 3))',
    'F.hessian(lambda a: (a ** 3).sum(), v)',
    'F.hessian(lambda a, b: (a.sum() * b ** 2).sum(), (v, w))',
    'F.hessian(lambda a: a ** 3, v)',
    'F.hessian(lambda a: (a ** 3, a), v)',
    'F.vjp(lambda a: a ** 2, v, torch.ones(3, dtype=torch.float64))',
    'F.vjp(lambda a: (a ** 2).sum(), v)',
    'F.vjp(lambda a: a ** 2, v)',
    'F.vjp(lambda a: a ** 2, v, torch.ones(2, dtype=torch.float64))',
    'F.vjp(lambda a, b: a.sum() * b, (v, w), torch.ones(2, dtype=torch.float64))',
    'F.jvp(lambda a: a ** 2, v, torch.ones(3, dtype=torch.float64))',
    'F.jvp(lambda a: a.exp(), torch.tensor(2.), )',
    'F.jvp(lambda a, b: a.sum() * b, (v, w), (torch.ones(3, dtype=torch.float64), torch.ones(2, dtype=torch.float64)))',
    'F.jvp(lambda a, b: a.sum() * b, (v, w), (torch.ones(3, dtype=torch.float64),))',
    'F.vhp(lambda a: (a ** 3).sum(), v, torch.ones(3, dtype=torch.float64))',
    'F.hvp(lambda a: (a ** 3).sum(), v, torch.ones(3, dtype=torch.float64))',
    'F.hvp(lambda a: a ** 3, v, torch.ones(3, dtype=torch.float64))',
    'F.vhp(lambda a: (a * 2).sum(), v, torch.ones(3, dtype=torch.float64), strict=True)',
    'F.vjp(lambda a: a.detach(), v, torch.ones(3, dtype=torch.float64), strict=True)',
    "F.jacobian(lambda a: a ** 2, v, strategy='v')",
    'v.requires_grad',
    'torch.autograd.Variable(v, requires_grad=True)',
    'torch.autograd.Variable(3)',
    'isinstance(v, torch.autograd.Variable)',
    'torch.autograd.Variable(torch.tensor([1]), requires_grad=True)',
    'torch.autograd.Variable()',
    'torch.set_grad_enabled(True)',
    'torch.autograd.set_grad_enabled(False).__exit__(None, None, None)',
    'torch.is_grad_enabled()',
]


@pytest.mark.parametrize("program", GRADCHECK)
def test_gradcheck_matches_torch(program):
    assert outcome(picotorch, program) == outcome(torch, program)


@pytest.mark.parametrize("program", FUNCTIONAL)
def test_functional_and_variable_match_torch(program):
    assert outcome(picotorch, program) == outcome(torch, program)
