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


@pytest.mark.parametrize("numel", [0, 1, 3])
def test_fill_of_one_cpu_element_leaves_reduced_floats_unchecked(numel):
    """``fill_`` of a single CPU element takes ``scalar_fill``: float16/bfloat16 then overflow to inf."""
    def prog(T):
        out = []
        for name in DTYPES:
            for v in (65505.0, 65520.0, 1e6, 1e39, 3.4028236e38, float("nan"), 300):
                try:
                    out.append(T.zeros(numel, dtype=getattr(T, name)).fill_(v))
                except RuntimeError as err:
                    out.append(str(err))
        return out
    assert_same(prog)


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


# ----------------------------------------------------------------------------- cat's legacy rule, output layouts


def _layout(t):
    return (t, tuple(t.stride()) if t.numel() else "empty", t.is_contiguous(), t._base is not None)


CATS = {
    "all_legacy_empty": lambda T: T.cat([T.tensor([]), T.tensor([], dtype=T.int64)]),
    "all_legacy_empty_any_dim": lambda T: T.cat([T.tensor([]), T.tensor([], dtype=T.float64)], 5),
    "all_legacy_empty_grad": lambda T: T.cat([T.tensor([]).requires_grad_(), T.tensor([])], -3),
    "legacy_empty_between": lambda T: T.cat([T.ones(2, 3), T.tensor([]), T.ones(2, 2)], 1),
    "legacy_empty_first_sets_nothing": lambda T: T.cat([T.tensor([]), T.ones(2, 3)], -1),
    "zero_dim_before_dim_check": lambda T: T.cat([T.tensor(1.0), T.ones(2)], 4),
    "zero_dim_after_legacy_empty": lambda T: T.cat([T.tensor([]), T.tensor(1.0)]),
    "zero_dim_second": lambda T: T.cat([T.ones(2), T.tensor(1.0)], 5),
    "dims_mismatch_after_legacy": lambda T: T.cat([T.tensor([]), T.ones(2), T.ones(2, 3)]),
    "transposed_inputs": lambda T: T.cat([T.ones(2, 3).t(), T.zeros(2, 3).t()], 1),
    "permuted_4d": lambda T: T.cat([T.ones(1, 2, 3, 4).permute(0, 2, 3, 1)] * 2),
    "permuted_3d_mixed": lambda T: T.cat([T.ones(2, 3, 4).transpose(0, 2), T.ones(4, 3, 1)], 2),
    "promoted": lambda T: T.cat([T.ones(2, 3, dtype=T.int32).t(), T.ones(3, 1, dtype=T.float16)], 1),
    "stack_transposed": lambda T: T.stack([T.ones(2, 3).t(), T.zeros(2, 3).t()], 2),
    "stack_transposed_dim0": lambda T: T.stack([T.arange(6.0).reshape(2, 3).t()] * 2),
}


@pytest.mark.parametrize("name", sorted(CATS))
def test_cat_and_stack_legacy_empty_rule_and_contiguous_output(name):
    assert_same(lambda T: _layout(CATS[name](T)))


def test_cat_gradient_through_a_legacy_empty_tensor():
    def prog(T):
        x = T.arange(3.0, requires_grad=True)
        e = T.tensor([], requires_grad=True)
        y = T.cat([e, x.t(), e])
        (y * T.tensor([1.0, -2.0, 3.0])).sum().backward()
        return y, x.grad, e.grad
    assert_same(prog)


OUT_OF_PLACE = {
    "masked_fill": lambda T, x: x.masked_fill(T.tensor([True, False, True]), -1.0),
    "masked_fill_broadcast_self": lambda T, x: x.masked_fill(T.ones(2, 4, 3, dtype=T.bool), 5.0),
    "scatter_value": lambda T, x: x.scatter(0, T.tensor([[0, 1]]), 9.0),
    "scatter_src": lambda T, x: x.scatter(1, T.tensor([[0], [2]]), T.ones(2, 1)),
    "scatter_add": lambda T, x: x.scatter_add(0, T.tensor([[3, 3]]), T.ones(1, 2)),
    "index_add": lambda T, x: x.index_add(1, T.tensor([2, 0]), T.ones(4, 2)),
    "gather": lambda T, x: x.gather(0, T.zeros(4, 3, dtype=T.long)),
    "index_select": lambda T, x: x.index_select(1, T.tensor([2, 0])),
}


@pytest.mark.parametrize("name", sorted(OUT_OF_PLACE))
def test_functional_indexing_ops_allocate_contiguous_outputs(name):
    def prog(T):
        x = T.arange(12.0).reshape(3, 4).t().requires_grad_()
        y = OUT_OF_PLACE[name](T, x)
        (y * T.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
        return _layout(y), x.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- slices in tensor[index]

SLICES = {
    "step_zero": lambda T: T.ones(3)[::0],
    "step_zero_second_dim": lambda T: T.ones(3, 2)[:, ::0],
    "step_negative": lambda T: T.ones(3)[::-1],
    "zero_dim_slice": lambda T: T.tensor(1.0)[0:1],
    "zero_dim_full_slice": lambda T: T.tensor(1.0)[:],
    "zero_dim_after_ellipsis": lambda T: T.tensor(1.0)[..., :],
    "zero_dim_after_none": lambda T: T.tensor(1.0)[None, :],
    "zero_dim_after_select": lambda T: T.ones(2)[0, :],
    "setitem_step_zero": lambda T: T.ones(3).__setitem__(slice(None, None, 0), 1.0),
    "setitem_zero_dim_slice": lambda T: T.tensor(2.0).__setitem__(slice(0, 1), 1.0),
}


@pytest.mark.parametrize("name", sorted(SLICES))
def test_slice_errors(name):
    assert_same(SLICES[name])
