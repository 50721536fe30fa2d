"""Writing a Python number into a tensor against PyTorch: ``fill_``, ``masked_fill``, ``scatter`` (value),
``tensor[index] = number``.

PyTorch converts the number with ``Scalar::to<T>`` (``c10::checked_convert``, ``c10/util/TypeCast.h``): a
finite number beyond the dtype's range, or NaN/inf into an integer dtype, is ``value cannot be converted to
type <C++ type> without overflow``; an unsigned dtype takes a negative integer and wraps it. ``fill_`` with a
zero-dim tensor casts unchecked, and ``__setitem__`` fills float16/bfloat16 unchecked (``scalarToTensor``).
torch computes every expected value here.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

DTYPES = ["int64", "int32", "int16", "int8", "uint8", "float16", "bfloat16", "float32", "float64", "bool"]
VALUES = [2**40, -1, -255, -256, 300, 2.7, -0.5, float("nan"), float("inf"), -float("inf"), 1e6, 65504, 65505.0,
          65520.0, 1e39, float(2**63), -2**63, True, 3.4028235e38, 3.4028236e38]

WRITES = {
    "fill_": lambda T, x, v: x.fill_(v),
    "masked_fill": lambda T, x, v: x.masked_fill(T.tensor([True, False]), v),
    "masked_fill_": lambda T, x, v: x.masked_fill_(T.tensor([False, True]), v),
    "scatter": lambda T, x, v: x.scatter(0, T.tensor([1]), v),
    "setitem_int": lambda T, x, v: (x.__setitem__(0, v), x)[1],
    "setitem_mask": lambda T, x, v: (x.__setitem__(x == 0, v), x)[1],
    "setitem_slice": lambda T, x, v: (x.__setitem__(slice(1, None), v), x)[1],
}


def _all_cases(write):
    """One program per (dtype, value): every outcome, errors included, in a list."""
    def prog(T):
        out = []
        for name in DTYPES:
            for v in VALUES:
                try:
                    out.append((name, repr(v), write(T, T.zeros(2, dtype=getattr(T, name)), v)))
                except Exception as err:  # the error is part of what is compared
                    out.append((name, repr(v), type(err).__name__, str(err)))
        return out
    return prog


@pytest.mark.parametrize("name", sorted(WRITES))
def test_number_written_into_every_dtype(name):
    assert_same(_all_cases(WRITES[name]))


@pytest.mark.parametrize("v", [2**40, -1, 300, 2.7, -0.5, 1e6, 65505.0, 1e39, 3.4028236e38])
def test_fill_with_a_zero_dim_tensor_casts_unchecked(v):
    def prog(T):
        value = T.tensor(v, dtype=T.float64 if isinstance(v, float) else None)
        return [T.zeros(2, dtype=getattr(T, name)).fill_(value) for name in DTYPES if name != "bool"]
    assert_same(prog)


def test_setitem_int_beyond_int64_and_the_order_of_checks():
    def prog(T):
        out = []
        for key, v in [(0, 2**64), (5, 2**40), (5, 1.5)]:
            try:
                x = T.zeros(2, dtype=T.int32)
                x[key] = v
                out.append(x)
            except Exception as err:
                out.append((type(err).__name__, str(err)))
        return out
    assert_same(prog)
