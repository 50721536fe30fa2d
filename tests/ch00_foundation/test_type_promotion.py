"""Result dtypes of binary ops for every pair of operand kinds and dtypes, against PyTorch."""

import itertools

import pytest

import picotorch

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
PYTHON_NUMBERS = [True, 3, 2.5]


def _operand(T, kind, dtype_name):
    dtype = getattr(T, dtype_name)
    if kind == "dimensioned":
        return T.ones(2, dtype=dtype)
    return T.ones((), dtype=dtype)


def _outcome(T, op, a, b):
    try:
        return str(getattr(T, op)(a, b).dtype)
    except Exception as error:  # noqa: BLE001 - the error itself is what we compare
        return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("op", ["add", "mul", "div", "sub"])
@pytest.mark.parametrize("kinds", [("dimensioned", "dimensioned"), ("dimensioned", "zero-dim"),
                                   ("zero-dim", "dimensioned"), ("zero-dim", "zero-dim")])
def test_tensor_tensor_promotion(op, kinds):
    mismatches = []
    for da, db in itertools.product(DTYPES, DTYPES):
        ours = _outcome(picotorch, op, _operand(picotorch, kinds[0], da), _operand(picotorch, kinds[1], db))
        theirs = _outcome(torch, op, _operand(torch, kinds[0], da), _operand(torch, kinds[1], db))
        if ours != theirs:
            mismatches.append((da, db, ours, theirs))
    assert mismatches == []


@pytest.mark.parametrize("op", ["add", "mul", "div", "sub"])
@pytest.mark.parametrize("kind", ["dimensioned", "zero-dim"])
def test_tensor_python_number_promotion(op, kind):
    mismatches = []
    for dtype, number in itertools.product(DTYPES, PYTHON_NUMBERS):
        ours = _outcome(picotorch, op, _operand(picotorch, kind, dtype), number)
        theirs = _outcome(torch, op, _operand(torch, kind, dtype), number)
        if ours != theirs:
            mismatches.append((dtype, number, ours, theirs))
    assert mismatches == []
