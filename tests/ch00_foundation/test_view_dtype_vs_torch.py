"""``Tensor.view(dtype)`` against PyTorch: the same bytes read as another dtype (values, shapes, strides), the
errors for a dtype of another size, and what autograd makes of it (shared version counter, no ``_base``,
never requires grad). Expected values come from torch."""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

CASES = [
    "x.view(T.int32)", "x.view(T.float16)", "x.view(T.bfloat16)", "x.view(T.int8)", "x.view(T.uint8)[0]",
    "x.view(T.bool)", "x.view(dtype=T.int32)", "x[:, :2].view(T.int16)", "x.double().view(T.float32)",
    "x.double().view(T.int64)", "x.t().view(T.int32)", "T.tensor(1.0).view(T.int32)", "x.view(T.float32)",
    "T.arange(6).view(T.float64)", "T.arange(6, dtype=T.int16).view(T.uint8)",
    # a dtype of another size: the last dim must be contiguous, divisible, and not a 0-dim tensor
    "x.view(T.float64)", "x.t().view(T.int16)", "T.tensor(1.0).view(T.int16)", "x[:, 1:].view(T.float64)",
    "T.ones(4)[1:3].view(T.float64)", "x.view(T.int32, 2)", "x.view('a')", "x.view(2.5, 3)",
]


@pytest.mark.parametrize("case", CASES)
def test_view_dtype_values_layout_and_errors(case):
    def prog(T):
        x = T.arange(6.0).reshape(2, 3)
        out = eval(case, {"T": T, "x": x})
        return out, out.dtype, out.shape, out.stride(), out.is_contiguous()
    assert_same(prog)


def test_view_dtype_shares_memory_and_version_but_is_no_autograd_view():
    def prog(T):
        x = T.arange(6.0).reshape(2, 3).requires_grad_()
        v = x.view(T.int32)
        y = T.arange(6.0).reshape(2, 3)
        w = y.view(T.int32)
        w[0, 0] = 5
        with T.no_grad():
            n = x.view(T.int16)
        return (v.requires_grad, v.grad_fn, v.is_leaf, v._base is None, v._is_view(), w._base is None, y,
                y._version, w._version, n._base is None, n.requires_grad, x.view(T.float32).requires_grad)
    assert_same(prog)
