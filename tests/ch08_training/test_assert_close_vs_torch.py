"""``torch.testing.assert_close`` against torch: which pairs pass, and the exact message of those that do not."""

from __future__ import annotations

import pytest

import picotorch

torch = pytest.importorskip("torch")


def outcome(t, program: str) -> str:
    try:
        return repr(eval(program, {"T": t.testing.assert_close, "torch": t}))
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return f"{type(error).__name__}: {error}".replace("picotorch", "torch")


PROGRAMS = [
    'T(torch.ones(2), [1., 1.])',
    'T(torch.ones(2), torch.zeros(2))',
    'T(torch.ones(2), torch.ones(3))',
    'T(torch.ones(2), torch.ones(2, dtype=torch.float64))',
    'T(torch.tensor([1., 2., 3.]), torch.tensor([1., 2.5, 3.]))',
    'T(torch.tensor([1, 2]), torch.tensor([1, 3]))',
    'T(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[1., 2.], [3., 4.001]]))',
    'T(1.0, 1.0)',
    'T(1.0, 1.1)',
    'T([torch.ones(2)], [torch.zeros(2)])',
    'T(torch.tensor([float("nan")]), torch.tensor([float("nan")]))',
    'T(torch.tensor([float("nan")]), torch.tensor([float("nan")]), equal_nan=True)',
    'T(torch.ones(2), torch.ones(2) + 1e-6)',
    'T(torch.ones(2), torch.ones(2) * 1.1, rtol=0.2, atol=0)',
    'T(torch.ones(2), torch.ones(2), rtol=0.1)',
    'T(torch.ones(2, 2), torch.ones(2, 2).t(), check_stride=True)',
    'T({"a": torch.ones(2)}, {"a": torch.zeros(2)})',
    'T(torch.ones(2), torch.zeros(2), msg="custom")',
    'T(torch.tensor(True), torch.tensor(False))',
    'T(torch.ones(2, requires_grad=True), torch.ones(2))',
    'T(torch.ones(2), torch.ones(2, dtype=torch.float64), check_dtype=False)',
    'T(torch.ones(2), torch.zeros(2), msg=lambda m: "X" + m[:10])',
    'T([1, 2], [1, 3])',
    'T((1, 2), [1, 2])',
    'T(True, False)',
    'T(None, None)',
    'T(None, 1)',
    'T({"a": 1}, {"b": 1})',
    'T([1], [1, 2])',
    'T(torch.tensor(1.5), torch.tensor(2.5))',
    'T(torch.tensor([3, 4], dtype=torch.uint8), torch.tensor([3, 5], dtype=torch.uint8))',
    'T(torch.arange(12.).reshape(3, 4), torch.arange(12.).reshape(3, 4) * 1.5)',
    'T(torch.ones(2), torch.ones(2).double(), check_dtype=False, rtol=0, atol=0)',
    'T(torch.ones(2, 2).t(), torch.ones(2, 2), check_stride=True)',
    'T(torch.zeros(0), torch.zeros(0))',
    'T(torch.tensor([1.]), torch.tensor([1.]), atol=1e-3)',
    'T(1, 1.0)',
    'T(2, 3)',
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_assert_close_matches_torch(program):
    assert outcome(picotorch, program) == outcome(torch, program)


def test_make_tensor_draws_as_torch():
    for dtype in ("float32", "float64", "int64", "uint8", "bool", "int8"):
        values = []
        for t in (picotorch, torch):
            t.manual_seed(3)
            values.append(t.testing.make_tensor((2, 3), dtype=getattr(t, dtype), device="cpu").tolist())
        assert values[0] == values[1], dtype
