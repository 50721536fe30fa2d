"""``Tensor.new_empty``, ``new_zeros``, ``new_ones``, ``new_full``, ``new_tensor`` against PyTorch.

Each program runs on both libraries (``assert_same``: values, dtype, shape, ``requires_grad``, ``grad_fn``,
error types and texts); programs also return strides, bytes and the warnings they raised (category and text).
An empty result's strides are not compared (picotorch gives NumPy's, a known gap); ``new_empty``'s values are
not compared (uninitialised in PyTorch).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import picotorch
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "bool", "uint8", "float16"]
SIZES = [(2, 3), (0,), (2, 0, 3), ()]


def _self(T, dtype, contiguous=True):
    x = T.arange(12).reshape(3, 4).to(getattr(T, dtype))
    return x if contiguous else x.t()[:, ::2]


def _layout(t):
    return str(t.dtype), tuple(t.shape), t.stride() if t.numel() else None, t.is_contiguous(), t.requires_grad, \
        t.is_leaf, t.grad_fn


def _seen(t, values=True):
    return _layout(t), t.detach().numpy().tobytes().hex() if values else None


def _recorded(call):
    """The call's result and the warnings it raised, as (category, text)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_new_zeros_ones_empty_full_take_self_options(dtype, contiguous):
    def prog(T):
        x = _self(T, dtype, contiguous)
        seen = []
        for size in SIZES:
            seen += [_seen(x.new_zeros(size)), _seen(x.new_ones(list(size))), _seen(x.new_full(size, 1)),
                     _seen(x.new_empty(T.Size(size)), values=False), _seen(x.new_zeros(size=size))]
        return seen + [_seen(x.new_zeros(2, 3)), _seen(x.new_ones(4)), _seen(x.new_empty(2, 1), values=False)]

    assert_same(prog)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_new_factories_options(dtype):
    def prog(T):
        x = _self(T, dtype)
        return [_seen(x.new_zeros((2,), dtype=T.float64)), _seen(x.new_ones(2, dtype=T.int32)),
                _seen(x.new_full((2, 2), 7, dtype=T.uint8)), _seen(x.new_full((2,), -1, dtype=T.uint8)),
                _seen(x.new_full((2,), 2.5)), _seen(x.new_full(size=(3,), fill_value=True)),
                _seen(x.new_zeros(2, dtype=T.float32, requires_grad=True)),
                _seen(x.new_ones((2,), device="cpu", pin_memory=False)),
                _seen(x.new_empty((2,), dtype=T.float64, requires_grad=True), values=False),
                _seen(x.new_full((1,), 3.0, dtype=T.float16, requires_grad=True))]

    assert_same(prog)


def test_new_factories_ignore_self_requires_grad():
    def prog(T):
        x = T.ones(2, requires_grad=True) * 2
        return [_seen(x.new_zeros(2)), _seen(x.new_full((2,), 3)), _seen(x.new_tensor([1.0, 2.0]))]

    assert_same(prog)


@pytest.mark.parametrize("call", [
    lambda T, x: x.new_zeros(-1), lambda T, x: x.new_zeros(2, -3), lambda T, x: x.new_ones((-2,)),
    lambda T, x: x.new_empty([1, -2]), lambda T, x: x.new_full((-2,), 1), lambda T, x: x.new_zeros(2.5),
    lambda T, x: x.new_zeros("a"), lambda T, x: x.new_zeros(2, 3.5), lambda T, x: x.new_zeros((2, 3.5)),
    lambda T, x: x.new_zeros(), lambda T, x: x.new_full((2,)), lambda T, x: x.new_full((2,), "a"),
    lambda T, x: x.new_zeros(2, foo=1), lambda T, x: x.new_zeros((2,), (3,)),
    lambda T, x: x.new_zeros(2, dtype=T.int64, requires_grad=True),
    lambda T, x: x.new_full((2,), 300, dtype=T.uint8), lambda T, x: x.new_full((2,), 1.5, dtype=T.bool),
])
def test_new_factories_errors(call):
    assert_same(lambda T: call(T, T.ones(2, 3)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_new_tensor_takes_self_dtype(dtype):
    def prog(T):
        x = _self(T, dtype, contiguous=False)
        datas = [[1, 2], [[0.5, 1.0], [2.0, 3.0]], 3, True, 2.5, [], [True, False], (1, 0),
                 np.array([1, 2], dtype=np.int32), np.array([[0.25]])]
        seen = [_recorded(lambda d=d: _seen(x.new_tensor(d))) for d in datas]
        return seen + [_recorded(lambda: _seen(x.new_tensor([1, 0], dtype=T.float64))),
                       _recorded(lambda: _seen(x.new_tensor(data=[1.0], requires_grad=dtype.startswith("float"))))]

    assert_same(prog)


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8"])
def test_new_tensor_from_a_tensor_warns_and_copies(dtype):
    def prog(T):
        x = _self(T, dtype)
        source = T.arange(6.0).reshape(2, 3).t().requires_grad_()
        copy, warned = _recorded(lambda: x.new_tensor(source))
        copy_rg, warned_rg = _recorded(lambda: x.new_tensor(source * 2, dtype=T.float64, requires_grad=True))
        copy.add_(1) if copy.dtype != T.bool else None
        return [_seen(copy), warned, _seen(copy_rg), warned_rg, _seen(source)]

    assert_same(prog)


@pytest.mark.parametrize("call", [
    lambda T, x: x.new_tensor(), lambda T, x: x.new_tensor([1], 2), lambda T, x: x.new_tensor([1], foo=2),
    lambda T, x: x.new_tensor([1], data=[2]), lambda T, x: x.new_tensor([1], dtype=3),
    lambda T, x: x.new_tensor([1], device=3.5), lambda T, x: x.new_tensor([1], requires_grad=1),
    lambda T, x: x.new_tensor([1], pin_memory=False), lambda T, x: x.new_tensor("a"),
    lambda T, x: x.new_tensor([300], dtype=T.uint8),
    lambda T, x: x.new_tensor([1], dtype=T.int64, requires_grad=True),
    lambda T, x: T.ones(2, dtype=T.int8).new_tensor([200]),
])
def test_new_tensor_errors(call):
    assert_same(lambda T: call(T, T.ones(2, 3)))


# PyTorch 2.13 has no named tensors: ``names=`` is refused by every factory, in each one's parser's words
_NAMES_AND_UNKNOWN_KEYWORDS = [
    "zeros(2, names=None)", "ones(2, names=('a',))", "full((2,), 1., names=None)", "empty(2, names=None)",
    "zeros(size=(2,), names=None)", "rand(2, names=None)", "randn(2, 3, names=None)", "rand(names=None)",
    "rand(2, foo=1)", "rand(foo=1)", "rand(size=(2,), foo=1)", "rand(foo=1, bar=2)", "rand(2, generator=None, foo=1)",
]


@pytest.mark.parametrize("call", _NAMES_AND_UNKNOWN_KEYWORDS)
def test_names_and_unknown_keywords_are_refused_as_torch(call):
    def outcome(t):
        try:
            eval("t." + call, {"t": t})
        except TypeError as error:
            return str(error)
        return "no error"

    assert outcome(picotorch) == outcome(torch)
