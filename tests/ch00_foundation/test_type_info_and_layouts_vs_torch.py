"""``torch.finfo`` / ``torch.iinfo``, layouts and memory formats against PyTorch: reprs, values, types, errors.

Each program runs on both libraries (``assert_same``); the expected values always come from torch.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_of_each_floating_dtype(name):
    def prog(T):
        info = T.finfo(getattr(T, name))
        return (repr(info), str(info), info.bits, info.eps, info.max, info.min, info.tiny, info.smallest_normal,
                info.resolution, info.dtype, [type(getattr(info, a)).__name__ for a in ("eps", "max", "dtype")],
                info == T.finfo(getattr(T, name)), T.finfo(type=getattr(T, name)).eps)
    assert_same(prog, rtol=0, atol=0)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_of_each_integer_dtype(name):
    def prog(T):
        info = T.iinfo(getattr(T, name))
        return repr(info), str(info), info.bits, info.max, info.min, info.dtype, type(info.max).__name__
    assert_same(prog, rtol=0, atol=0)


def test_finfo_without_a_dtype_follows_the_default_dtype():
    def prog(T):
        before = repr(T.finfo())
        T.set_default_dtype(T.float64)
        try:
            return before, repr(T.finfo()), T.finfo().eps
        finally:
            T.set_default_dtype(T.float32)
    assert_same(prog)


@pytest.mark.parametrize("call", [
    "T.finfo(T.int32)", "T.finfo(T.bool)", "T.iinfo(T.float32)", "T.iinfo(T.bool)", "T.finfo(3)",
    "T.finfo(None)", "T.iinfo()", "T.finfo(foo=1)", "T.finfo(T.float32, T.float64)", "T.iinfo(T.int8, T.int8)",
    "hash(T.finfo(T.float32))",
])
def test_type_info_errors(call):
    def prog(T):
        return eval(call, {"T": T})
    assert_same(prog)


def test_layouts_and_memory_formats():
    def prog(T):
        x = T.ones(2, 3)
        layouts = [n for n in dir(T) if type(getattr(T, n)) is T.layout]
        formats = [n for n in dir(T) if type(getattr(T, n)) is T.memory_format]
        return (repr(T.strided), str(T.strided), x.layout, x.t().layout, x[0].layout, sorted(layouts),
                repr(T.contiguous_format), str(T.preserve_format), sorted(formats),
                T.legacy_contiguous_format is T.contiguous_format, T.strided == T.strided,
                T.empty_like(x, layout=T.strided).layout,
                x.t().contiguous(memory_format=T.contiguous_format).stride(),
                x.t().clone(memory_format=T.preserve_format).stride(),
                x.t().clone(memory_format=T.contiguous_format).stride(),
                T.zeros_like(x.t(), memory_format=T.contiguous_format).stride(),
                x.t().contiguous().stride(), x.is_contiguous(memory_format=T.contiguous_format))
    assert_same(prog)


@pytest.mark.parametrize("call", [
    "x.contiguous(memory_format='contiguous_format')", "x.clone(memory_format=T.strided)",
    "T.clone(x, memory_format='preserve_format')", "T.empty_like(x, layout='strided')",
    "T.empty_like(x, memory_format=T.strided)",
])
def test_a_memory_format_or_layout_given_as_anything_else_is_refused(call):
    def prog(T):
        return eval(call, {"T": T, "x": T.ones(2, 3)})
    assert_same(prog)
