"""The eighth ops batch against PyTorch: reductions and search. unique (``_unique2``, ``unique_dim``),
unique_consecutive, bincount, histc, searchsorted, bucketize, isin, isposinf, isneginf, isreal, unravel_index.

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``,
gradients, error types and texts. The expected values always come from torch; the comparison is exact
(``rtol=0``) unless a program says otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

from op_helpers import _graph, _layout
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _exact(prog):
    return assert_same(prog, rtol=0, atol=0)


def _layouts(result):
    """Each tensor of a tuple (or the tensor) with its dtype, shape and strides."""
    return [_layout(t) for t in result] if isinstance(result, tuple) else _layout(result)


# ----------------------------------------------------------------------------- unique, unique_consecutive

INTS_2D = [[1, 2], [1, 2], [0, 5], [1, 2]]

UNIQUE = [
    lambda T: T.unique(T.tensor([3, 1, 2, 3, 1])),
    lambda T: T.unique(T.tensor([3, 1, 2, 3, 1]), sorted=False),
    lambda T: T.unique(T.tensor([3, 1, 2, 3, 1]), return_inverse=True),
    lambda T: T.unique(T.tensor([3, 1, 2, 3, 1]), return_counts=True),
    lambda T: T.unique(T.tensor([3, 1, 2, 3, 1]), True, True, True),
    lambda T: T.unique(T.tensor([[3, 1], [2, 3]]), return_inverse=True, return_counts=True),
    lambda T: T.unique(T.tensor([[3., 1.], [2., 3.]]).t(), return_inverse=True),
    lambda T: T.unique(T.tensor([True, False, True]), return_counts=True),
    lambda T: T.unique(T.tensor([3, 1, 3], dtype=T.float16)),
    lambda T: T.unique(T.tensor([3, 1, 3], dtype=T.int8), return_inverse=True),
    lambda T: T.unique(T.tensor(3.0), return_inverse=True, return_counts=True),
    lambda T: T.unique(T.zeros(0, 3), return_inverse=True, return_counts=True),
    lambda T: T.unique(T.tensor([float("nan"), 1.0, float("nan")]), return_counts=True, return_inverse=True),
    lambda T: T.unique(T.tensor([-0.0, 0.0, 0.0, -0.0]), return_counts=True),
    lambda T: T.unique(T.tensor([0.0, -0.0]), return_counts=True),
    lambda T: T.unique(T.tensor(INTS_2D), dim=0, return_inverse=True, return_counts=True),
    lambda T: T.unique(T.tensor(INTS_2D), dim=1, return_inverse=True, return_counts=True),
    lambda T: T.unique(T.tensor(INTS_2D), dim=-2, sorted=False),
    lambda T: T.unique(T.tensor([[3, 1], [1, 3]]).t(), dim=1, return_inverse=True),
    lambda T: T.unique(T.tensor([[[1, 0], [1, 0]], [[0, 1], [1, 0]], [[1, 0], [1, 0]]]), dim=2, return_counts=True),
    lambda T: T.unique(T.ones(3, 2, 4), dim=1, return_inverse=True, return_counts=True),
    lambda T: T.unique(T.zeros(0, 3), dim=0, return_inverse=True, return_counts=True),
    lambda T: T.unique(T.zeros(2, 0), dim=0),
    lambda T: T.unique(T.tensor([[1, 2]]), dim=2),
    lambda T: T.unique(T.tensor(3), dim=0),
    lambda T: T.tensor([3, 1, 3]).unique(return_counts=True),
    lambda T: T.tensor([[3, 1], [3, 1]]).unique(dim=0, return_inverse=True),
    lambda T: T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True),
    lambda T: T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1, 2])),
    lambda T: T.unique_consecutive(T.tensor([[1, 1], [2, 2]]), return_inverse=True),
    lambda T: T.unique_consecutive(T.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), dim=0, return_inverse=True,
                                   return_counts=True),
    lambda T: T.unique_consecutive(T.tensor([[1, 1, 2], [1, 1, 2]]), dim=1, return_counts=True),
    lambda T: T.unique_consecutive(T.ones(3, 2, 4), dim=1, return_inverse=True, return_counts=True),
    lambda T: T.unique_consecutive(T.tensor(2.0), return_inverse=True, return_counts=True),
    lambda T: T.unique_consecutive(T.tensor([float("nan"), float("nan")]), return_counts=True),
    lambda T: T.tensor([3, 3, 1, 3]).unique_consecutive(return_counts=True, return_inverse=True),
    lambda T: T.unique_consecutive(T.tensor([1, 2]), dim=3),
    lambda T: hasattr(T, "unique_dim"),
    lambda T: [_layout(t) for t in T._unique2(T.tensor([[3, 1], [2, 3]]))],
]


@pytest.mark.parametrize("program", UNIQUE)
def test_unique_values_layout_and_errors(program):
    _exact(lambda T: _layouts(program(T)) if not isinstance(program(T), (bool, list)) else program(T))


@pytest.mark.parametrize("call", [
    lambda T, x: T.unique(x),
    lambda T, x: T.unique(x, return_inverse=True, return_counts=True)[0],
    lambda T, x: x.unique(dim=0),
    lambda T, x: T.unique_consecutive(x),
    lambda T, x: T.unique_consecutive(x, dim=0),
])
def test_unique_graph_and_its_missing_derivative(call):
    def prog(T):
        x = T.tensor([3.0, 1.0, 2.0, 3.0, 1.0], requires_grad=True)
        y = call(T, x)
        graph = _graph(y)
        try:
            y.sum().backward()
        except NotImplementedError as e:
            return graph, str(e)
    _exact(prog)


# ----------------------------------------------------------------------------- bincount, histc

BINCOUNT = [
    lambda T: T.bincount(T.tensor([1, 1, 3])),
    lambda T: T.bincount(T.tensor([1, 1, 3]), minlength=7),
    lambda T: T.bincount(T.tensor([1, 1, 3]), weights=T.tensor([0.5, 1, 2.0])),
    lambda T: T.bincount(T.tensor([1, 1, 3]), T.tensor([0.5, 1, 2.0], dtype=T.float64), 2),
    lambda T: T.bincount(T.tensor([1, 1, 3]), weights=T.tensor([1, 2, 3])),
    lambda T: T.bincount(T.tensor([1, 1, 3]), weights=T.tensor([1, 2, 3], dtype=T.float16)),
    lambda T: T.bincount(T.tensor([1, 2], dtype=T.uint8), T.tensor([1.0, 2.0], dtype=T.float64)),
    lambda T: T.bincount(T.tensor([4, 0], dtype=T.int32)),
    lambda T: T.bincount(T.tensor([], dtype=T.int64), minlength=3),
    lambda T: T.bincount(T.tensor([], dtype=T.int64)),
    lambda T: T.bincount(T.tensor([], dtype=T.int64), T.tensor([]), minlength=3),
    lambda T: T.tensor([1, 2, 2]).bincount(),
    lambda T: T.bincount(T.tensor([-1, 2])),
    lambda T: T.bincount(T.tensor([[1]])),
    lambda T: T.bincount(T.tensor(3)),
    lambda T: T.bincount(T.tensor([1.0])),
    lambda T: T.bincount(T.tensor([True, False])),
    lambda T: T.bincount(T.tensor([1, 2]), minlength=-1),
    lambda T: T.bincount(T.tensor([-1, 2]), minlength=-1),
    lambda T: T.bincount(T.tensor([1, 2]), T.tensor([1.0])),
    lambda T: T.bincount(T.tensor([1, 2]), T.tensor([[1.0, 2.0]])),
]


@pytest.mark.parametrize("program", BINCOUNT)
def test_bincount(program):
    _exact(lambda T: _layout(program(T)))


def test_bincount_of_weights_that_require_grad_has_no_derivative():
    def prog(T):
        w = T.tensor([0.5, 1, 2.0], requires_grad=True)
        y = T.bincount(T.tensor([1, 1, 3]), weights=w)
        graph = _graph(y)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return _layout(y), graph, str(e)
    _exact(prog)


HISTC = [
    lambda T: T.histc(T.tensor([1.0, 2, 1]), bins=4, min=0, max=3),
    lambda T: T.histc(T.tensor([1.0, 2, 1, 5, -1]), bins=4),
    lambda T: T.histc(T.tensor([1.0, 2, 1, 5, -1], dtype=T.float64), 3, -1, 4),
    lambda T: T.histc(T.tensor([[0.1, 0.25], [0.3, 0.99]]).t(), bins=10, min=0, max=1),
    lambda T: T.histc(T.arange(100, dtype=T.float32) / 7, bins=13),
    lambda T: T.histc(T.arange(50, dtype=T.float64).sin(), bins=7, min=-0.5, max=0.5),
    lambda T: T.tensor([1.0, 2, 1]).histc(bins=2),
    lambda T: T.histc(T.tensor([2.0, 2.0]), bins=4),
    lambda T: T.histc(T.tensor([], dtype=T.float64), bins=4),
    lambda T: T.histc(T.tensor([1.0, 2, 1], requires_grad=True), bins=4, min=0, max=3),
    lambda T: T.histc(T.tensor([1, 2, 1]), bins=4, min=0, max=3),
    lambda T: T.histc(T.tensor([1.0, 2, 1]), bins=-1),
    lambda T: T.histc(T.tensor([1.0, 2, 1]), bins=4, min=3, max=0),
    lambda T: T.histc(T.tensor([1.0, float("inf")]), bins=4),
]


@pytest.mark.parametrize("program", HISTC)
def test_histc(program):
    _exact(lambda T: _layout(program(T)))


# ----------------------------------------------------------------------------- searchsorted, bucketize

SEQ = [1, 3, 5, 7, 9]

SEARCH = [
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9, 0, 10])),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9, 0, 10]), right=True),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), side="right", out_int32=True),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), side="left"),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), side="right", right=True),
    lambda T: T.searchsorted(T.tensor(SEQ), 5),
    lambda T: T.searchsorted(T.tensor(SEQ), 5.5, right=True),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor(4)),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3.0, 6.5, 9.0])),
    lambda T: T.searchsorted(T.tensor(SEQ, dtype=T.float64), T.tensor([3.0, 6.0], dtype=T.float32)),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6], dtype=T.int32)),
    lambda T: T.searchsorted(T.tensor([1, 3, 3, 3, 5]), T.tensor([3, 3]), right=True),
    lambda T: T.searchsorted(T.tensor([[1, 3], [2, 4]]), T.tensor([[2], [3]])),
    lambda T: T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([[0, 3, 7], [4, 4, 1]]), right=True),
    lambda T: T.searchsorted(T.tensor([9, 1, 5]), T.tensor([4, 10, 0]), sorter=T.tensor([1, 2, 0])),
    lambda T: T.searchsorted(T.tensor([[9, 1, 5]]), T.tensor([[4, 5]]), sorter=T.tensor([[1, 2, 0]]), right=True),
    lambda T: T.searchsorted(T.tensor([1.0, float("nan")]), T.tensor([float("nan"), 2.0])),
    lambda T: T.searchsorted(T.tensor([1.0, float("nan")]), T.tensor([float("nan"), 2.0]), right=True),
    lambda T: T.searchsorted(T.tensor([], dtype=T.int64), T.tensor([1, 2])),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3.0, 6, 9], requires_grad=True)),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), side="left", right=True),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), side="lft"),
    lambda T: T.searchsorted(T.tensor([[1, 3], [2, 4]]), T.tensor([[2], [3], [5]])),
    lambda T: T.searchsorted(T.tensor([[1, 3], [2, 4]]), T.tensor([2, 3])),
    lambda T: T.searchsorted(T.tensor([[1, 3], [2, 4]]), 3),
    lambda T: T.searchsorted(T.tensor(3), T.tensor([3, 6, 9])),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3]), sorter=T.tensor([0, 1, 2, 3, 4], dtype=T.int32)),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3]), sorter=T.tensor([0, 1, 2, 3])),
    lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([3]), sorter=T.tensor([0, 1, 2, 3, 7])),
    lambda T: T.searchsorted(T.tensor([True, False]), T.tensor([True])),
    lambda T: T.bucketize(T.tensor([[3, 6], [9, 1]]), T.tensor(SEQ)),
    lambda T: T.bucketize(T.tensor([[3, 6], [9, 1]]), T.tensor(SEQ), right=True, out_int32=True),
    lambda T: T.bucketize(T.tensor([[3.0, 6.0], [9.0, 1.0]]).t(), T.tensor(SEQ)),
    lambda T: T.bucketize(4, T.tensor(SEQ)),
    lambda T: T.bucketize(4.5, T.tensor(SEQ), right=True),
    lambda T: T.bucketize(T.tensor([1]), T.tensor([[1, 2]])),
    lambda T: T.bucketize(T.tensor([1]), T.tensor(1)),
]


@pytest.mark.parametrize("program", SEARCH)
def test_searchsorted_and_bucketize(program):
    _exact(lambda T: _layout(program(T)))


# ----------------------------------------------------------------------------- isin, isposinf, isneginf, isreal

PREDICATES = [
    lambda T: T.isin(T.tensor([1, 2, 3, 4]), T.tensor([2, 4])),
    lambda T: T.isin(T.tensor([1, 2, 3, 4]), T.tensor([2, 4]), invert=True),
    lambda T: T.isin(T.tensor([1, 2, 3]), T.tensor([1, 1, 2]), assume_unique=True),
    lambda T: T.isin(T.tensor([1, 2, 3, 4]), 2),
    lambda T: T.isin(T.tensor([1, 2, 3, 4]), 2, invert=True),
    lambda T: T.isin(T.tensor([1.0, 2.0]), 2.5),
    lambda T: T.isin(2, T.tensor([1, 2])),
    lambda T: T.isin(3, T.tensor([1, 2]), invert=True),
    lambda T: T.isin(T.tensor([1, 2, 3]), T.tensor([2.5, 3.0])),
    lambda T: T.isin(T.tensor([1, 2, 3], dtype=T.uint8), T.tensor([2, 3], dtype=T.int8)),
    lambda T: T.isin(T.tensor([[1.0, 2.0]]), T.tensor([2.0, 5.0], dtype=T.float64)),
    lambda T: T.isin(T.tensor([1.0, float("nan")]), T.tensor([float("nan")])),
    lambda T: T.isin(T.tensor([1.0, float("nan")]), T.tensor([float("nan")]), invert=True),
    lambda T: T.isin(T.tensor([[1, 2], [3, 4]]), T.tensor([[1], [4]]), invert=True),
    lambda T: T.isin(T.ones(2, 3).t(), T.tensor([1.0])),
    lambda T: T.isin(T.tensor(2), T.tensor([2])),
    lambda T: T.isin(T.tensor([1.0, 2.0], requires_grad=True), T.tensor([2.0])),
    lambda T: T.isin(T.tensor([1.0, 2.0]), T.tensor([True])),
    lambda T: T.isin(T.tensor([True]), T.tensor([1.0, 2.0])),
    lambda T: T.isposinf(T.tensor([1.0, -float("inf"), float("inf"), float("nan")])),
    lambda T: T.isneginf(T.tensor([1.0, -float("inf"), float("inf"), float("nan")], dtype=T.float64)),
    lambda T: T.isneginf(T.tensor([1.0, -float("inf")], dtype=T.bfloat16)),
    lambda T: T.isposinf(T.tensor([1.0, float("inf")], dtype=T.float16)),
    lambda T: T.isposinf(T.ones(2, 3).t()),
    lambda T: T.isposinf(T.tensor([1, 2])),
    lambda T: T.isneginf(T.tensor([True, False])),
    lambda T: T.tensor([1.0, -float("inf")], requires_grad=True).isneginf(),
    lambda T: T.tensor([1.0, float("inf")]).isposinf(),
    lambda T: T.isreal(T.tensor([1.0, 2.0])),
    lambda T: T.isreal(T.ones(2, 3).t()),
    lambda T: T.isreal(T.tensor(2)),
    lambda T: T.tensor([1.0], requires_grad=True).isreal(),
]


@pytest.mark.parametrize("program", PREDICATES)
def test_isin_isposinf_isneginf_isreal(program):
    _exact(lambda T: _layout(program(T)))


# ----------------------------------------------------------------------------- unravel_index

UNRAVEL = [
    lambda T: T.unravel_index(T.tensor([4, 1]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([[4, 1], [0, 5]]), [2, 3]),
    lambda T: T.unravel_index(T.tensor(4), (2, 3)),
    lambda T: T.unravel_index(T.tensor([4, 1]), 3),
    lambda T: T.unravel_index(T.tensor([7]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([-1]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([3], dtype=T.int32), (2, 2, 2)),
    lambda T: T.unravel_index(T.tensor([3]), (2, 0)),
    lambda T: T.unravel_index(T.tensor([4.0]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([True]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([4]), (2, -3)),
    lambda T: T.unravel_index(T.tensor([4]), (2, 3.0)),
    lambda T: T.unravel_index(T.tensor([4]), 3.0),
]


@pytest.mark.parametrize("program", UNRAVEL)
def test_unravel_index(program):
    _exact(lambda T: _layouts(program(T)))


# ----------------------------------------------------------------------------- logcumsumexp, mode, renorm

def _leaf(T, rows, dtype="float64"):
    return T.tensor(rows, dtype=getattr(T, dtype), requires_grad=True)


def _saved(fn, names):
    """The node's saved values a learner can read (tensors as data, numbers as they are)."""
    return [getattr(fn, name) for name in names]


MATRIX = [[1.5, -2.0, 0.5, 3.0], [-0.25, 4.0, -1.0, 2.0], [0.75, -3.5, 1.25, -0.5]]


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logcumsumexp_values_graph_saved_and_double_backward(dim, dtype):
    def prog(T):
        x = _leaf(T, MATRIX, dtype)
        y = T.logcumsumexp(x, dim)
        up = T.tensor([[1.0, -2.0, 0.5, 0.0], [0.0, 3.0, -1.0, 2.0], [-0.5, 1.0, 0.0, 1.0]], dtype=x.dtype)
        g, = T.autograd.grad(y, x, up, create_graph=True)
        return (_layout(y), _graph(y), _saved(y.grad_fn, ["_saved_dim", "_saved_self", "_saved_result"]),
                _layout(g), _graph(g), T.autograd.grad((g * g).sum(), x))
    # float32: the second derivative subtracts nearly equal exps, whose last bits follow each library's exp and log
    assert_same(prog, rtol=1e-12 if dtype == "float64" else 1e-4, atol=1e-12)


LOGCUMSUMEXP = [
    lambda T: T.logcumsumexp(T.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), 0),
    lambda T: T.logcumsumexp(T.tensor([-float("inf"), -float("inf"), 1.0, float("inf"), 2.0]), 0),
    lambda T: T.logcumsumexp(T.tensor([1.0, float("nan"), 2.0]), 0),
    lambda T: T.logcumsumexp(T.tensor([1.0, 2.0, 30.0], dtype=T.float16), 0),
    lambda T: T.logcumsumexp(T.tensor([1.0, 2.0, 30.0], dtype=T.bfloat16), -1),
    lambda T: T.logcumsumexp(T.tensor(2.0), 0),
    lambda T: T.logcumsumexp(T.zeros(0, 3), 0),
    lambda T: T.tensor([1.0, 2.0]).logcumsumexp(0),
    lambda T: T.logcumsumexp(T.tensor(2.0), 1),
    lambda T: T.logcumsumexp(T.tensor([1.0, 2.0]), 1),
    lambda T: T.logcumsumexp(T.tensor([1, 2]), 0),
    lambda T: T.logcumsumexp(T.tensor([True]), 0),
]


@pytest.mark.parametrize("program", LOGCUMSUMEXP)
def test_logcumsumexp_special_values_dtypes_and_errors(program):
    assert_same(lambda T: _layout(program(T)), rtol=1e-6, atol=0)


MODE = [
    lambda T: T.mode(T.tensor([[1, 2, 2, 3, 3], [5, 5, 1, 1, 0]]), 1),
    lambda T: T.mode(T.tensor([[1, 2, 2, 3, 3], [5, 5, 1, 1, 0]]).t(), 0, keepdim=True),
    lambda T: T.mode(T.tensor([3.0, 1.0, 3.0, 1.0, 2.0])),
    lambda T: T.mode(T.tensor([3.0, 1.0, 3.0, 1.0, 2.0]), keepdim=True),
    lambda T: T.mode(T.tensor([[4, 1, 4, 2, 1, 4, 3, 3, 2, 1, 0, 2, 4, 1, 3, 3, 2, 0, 1, 4, 2, 2, 3]]), 1),
    lambda T: T.mode(T.tensor(3.0)),
    lambda T: T.mode(T.tensor([float("nan"), 1.0, float("nan")])),
    lambda T: T.mode(T.tensor([True, False, True])),
    lambda T: T.mode(T.tensor([-0.0, 0.0, 0.0])),
    lambda T: T.mode(T.zeros(2, 0), 0),
    lambda T: T.mode(T.zeros(2, 0), 1),
    lambda T: T.mode(T.zeros(2, 3), 2),
    lambda T: T.tensor([[1, 1], [2, 0]]).mode(dim=0),
    lambda T: repr(T.mode(T.tensor([1, 1, 2]))),
    lambda T: T.mode(T.tensor([1, 1, 2])).indices,
]


@pytest.mark.parametrize("program", MODE)
def test_mode_values_indices_and_errors(program):
    _exact(lambda T: (lambda r: r if isinstance(r, str) else (
        [_layout(t) for t in r] + [type(r).__name__] if isinstance(r, tuple) else _layout(r)))(program(T)))


@pytest.mark.parametrize("keepdim", [False, True])
def test_mode_graph_saved_and_gradient(keepdim):
    def prog(T):
        x = _leaf(T, [[1.0, 2.0, 2.0, 3.0], [5.0, 5.0, 1.0, 0.0]])
        values, indices = T.mode(x, 1, keepdim)
        g, = T.autograd.grad(values, x, T.ones_like(values) * 3, create_graph=True)
        return (_layout(values), _layout(indices), _graph(values),
                _saved(values.grad_fn, ["_saved_dim", "_saved_keepdim", "_saved_indices", "_saved_self_sym_sizes"]),
                _layout(g), _graph(g))
    _exact(prog)


RENORM = [
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, 0, 3),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, 1, 5),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]), float("inf"), 1, 2),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64), 3, -1, 2.5),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float16), 2, 0, 3),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), 2, 0, 3),
    lambda T: T.renorm(T.arange(24, dtype=T.float32).reshape(2, 3, 4), 2, 1, 10),
    lambda T: T.renorm(T.zeros(2, 3), 2, 0, 0),
    lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).renorm(2, 0, 3),
    lambda T: (lambda x: (x.renorm_(2, 0, 3), x._version))(T.tensor([[1.0, 2.0], [3.0, 4.0]])),
    lambda T: T.renorm(T.tensor([[1, 2], [3, 4]]), 2, 0, 3),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]), -1, 0, 3),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, 0, 3),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, 0, -3),
    lambda T: T.renorm(T.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, 0, -2.5),
    lambda T: T.renorm(T.tensor([1.0, 2.0]), 2, 0, 3),
    lambda T: T.renorm(T.tensor(2.0), 2, 0, 3),
    lambda T: T.renorm(T.ones(2, 2), 2, 2, 3),
]


@pytest.mark.parametrize("program", RENORM)
def test_renorm_values_and_errors(program):
    assert_same(lambda T: (lambda r: [_layout(r[0]), r[1]] if isinstance(r, tuple) else _layout(r))(program(T)),
                rtol=1e-6, atol=0)


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 3.0), (1, 1, 4.0), (3, -1, 2.0), (2, 1, 100.0)])
def test_renorm_graph_saved_and_double_backward(p, dim, maxnorm):
    def prog(T):
        x = _leaf(T, MATRIX)
        y = T.renorm(x, p, dim, maxnorm)
        up = T.tensor([[1.0, -2.0, 0.5, 0.0], [0.0, 3.0, -1.0, 2.0], [-0.5, 1.0, 0.0, 1.0]], dtype=x.dtype)
        g, = T.autograd.grad(y, x, up, create_graph=True)
        return (_layout(y), _graph(y), _saved(y.grad_fn, ["_saved_p", "_saved_dim", "_saved_maxnorm", "_saved_self"]),
                _layout(g), T.autograd.grad((g * g).sum(), x))
    assert_same(prog, rtol=1e-10, atol=1e-12)


def test_renorm_in_place_on_a_leaf_and_on_a_non_leaf():
    def prog(T):
        x = _leaf(T, MATRIX)
        try:
            x.renorm_(2, 0, 1.0)
        except RuntimeError as e:
            error = str(e)
        y = x * 1
        y.renorm_(2, 0, 1.0)
        y.sum().backward()
        return error, _layout(y), _graph(y), x.grad
    assert_same(prog, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- trapezoid, trapz, cumulative_trapezoid,
# vander, cov, corrcoef (composites: their graphs are the ops torch builds them from)

def _composite(fn, *shapes):
    """A program: ``fn(T, *leaves)`` on float64 leaves, with its graph, first and second derivatives."""
    def prog(T):
        xs = [T.tensor(((T.arange(int(np.prod(s)), dtype=T.float64).reshape(s) * 0.37) % 1.3 - 0.4).tolist(),
                       dtype=T.float64, requires_grad=True) for s in shapes]
        y = fn(T, *xs)
        firsts = T.autograd.grad((y * y).sum(), xs, create_graph=True, allow_unused=True)
        used = [(x, g) for x, g in zip(xs, firsts) if g is not None]
        seconds = T.autograd.grad(sum((g * g).sum() for _, g in used), [x for x, _ in used], allow_unused=True)
        return _layout(y), _graph(y), firsts, [_graph(g) for _, g in used], seconds
    return prog


COMPOSITES = {
    "trapezoid": _composite(lambda T, y: T.trapezoid(y), (3, 4)),
    "trapezoid_dim0": _composite(lambda T, y: T.trapezoid(y, dim=0), (3, 4)),
    "trapezoid_dx": _composite(lambda T, y: T.trapezoid(y, dx=0.5), (3, 4)),
    "trapezoid_dx_int": _composite(lambda T, y: T.trapezoid(y, dx=2, dim=-2), (3, 4)),
    "trapezoid_x1d": _composite(lambda T, y, x: T.trapezoid(y, x), (3, 4), (4,)),
    "trapezoid_x1d_dim0": _composite(lambda T, y, x: T.trapezoid(y, x, dim=0), (3, 4), (3,)),
    "trapezoid_x2d": _composite(lambda T, y, x: T.trapezoid(y, x), (3, 4), (3, 4)),
    "trapezoid_x_padded": _composite(lambda T, y, x: T.trapezoid(y, x, dim=1), (2, 3, 4), (3, 4)),
    "trapezoid_1d": _composite(lambda T, y: T.trapezoid(y), (5,)),
    "trapz_x": _composite(lambda T, y, x: T.trapz(y, x), (3, 4), (4,)),
    "trapz_dx": _composite(lambda T, y: T.trapz(y, dx=2.5), (3, 4)),
    "cumulative_trapezoid": _composite(lambda T, y: T.cumulative_trapezoid(y), (3, 4)),
    "cumulative_trapezoid_dx": _composite(lambda T, y: T.cumulative_trapezoid(y, dx=0.5, dim=0), (3, 4)),
    "cumulative_trapezoid_x": _composite(lambda T, y, x: T.cumulative_trapezoid(y, x), (3, 4), (4,)),
    "cumulative_trapezoid_x2d": _composite(lambda T, y, x: T.cumulative_trapezoid(y, x, dim=0), (3, 4), (3, 4)),
    "vander": _composite(lambda T, x: T.vander(x), (4,)),
    "vander_N": _composite(lambda T, x: T.vander(x, N=3, increasing=True), (4,)),
    "vander_N1": _composite(lambda T, x: T.vander(x, 1), (4,)),
    "vander_N0": _composite(lambda T, x: T.vander(x, N=0) + 0, (4,)),
    "cov": _composite(lambda T, x: T.cov(x), (3, 5)),
    "cov_1d": _composite(lambda T, x: T.cov(x), (5,)),
    "cov_correction0": _composite(lambda T, x: x.cov(correction=0), (3, 5)),
    "cov_fweights": _composite(lambda T, x: T.cov(x, fweights=T.tensor([1, 2, 0, 3, 1])), (2, 5)),
    "cov_aweights": _composite(lambda T, x, a: T.cov(x, aweights=a.abs() + 0.1), (2, 5), (5,)),
    "cov_both": _composite(lambda T, x, a: T.cov(x, correction=2, fweights=T.tensor([1, 2, 1, 3, 1]),
                                                aweights=a.abs() + 0.1), (2, 5), (5,)),
    "corrcoef": _composite(lambda T, x: T.corrcoef(x), (3, 5)),
    "corrcoef_1d": _composite(lambda T, x: x.corrcoef(), (5,)),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composites_values_graphs_and_double_backward(name):
    # sums and mm: the reduction order may differ in the last bit
    assert_same(COMPOSITES[name], rtol=1e-12, atol=1e-14)


COMPOSITE_EDGES = [
    lambda T: T.trapezoid(T.zeros(3, 0)),
    lambda T: T.trapezoid(T.zeros(3, 0), dim=0),
    lambda T: T.trapezoid(T.zeros(3, 0), T.zeros(0)),
    lambda T: T.trapezoid(T.tensor([[1, 2, 4], [3, 5, 9]])),
    lambda T: T.trapezoid(T.tensor([[1, 2, 4], [3, 5, 9]]), dx=2),
    lambda T: T.trapezoid(T.tensor([1, 2, 4]), T.tensor([1, 3, 4])),
    lambda T: T.trapezoid(T.tensor([1.0, 2.0, 4.0]), T.tensor([1, 3, 4])),
    lambda T: T.trapezoid(T.tensor([1.0, 2.0, 4.0], dtype=T.float32), T.tensor([1.0, 3.0, 4.0], dtype=T.float64)),
    lambda T: T.trapezoid(T.tensor([True, False])),
    lambda T: T.trapezoid(T.tensor([1.0, 2.0]), T.tensor([True, False])),
    lambda T: T.trapezoid(T.tensor([1.0, 2.0]), dx=True),
    lambda T: T.trapezoid(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0, 3.0])),
    lambda T: T.trapezoid(T.ones(2, 3), T.ones(2, 2)),
    lambda T: T.trapezoid(T.ones(2, 3), dim=2),
    lambda T: T.trapezoid(T.tensor(1.0)),
    lambda T: T.trapz(T.tensor([1, 2, 4])),
    lambda T: T.cumulative_trapezoid(T.tensor([1, 2, 4])),
    lambda T: T.cumulative_trapezoid(T.zeros(3, 0)),
    lambda T: T.cumulative_trapezoid(T.tensor([1.0])),
    lambda T: T.cumulative_trapezoid(T.tensor([True, False])),
    lambda T: T.cumulative_trapezoid(T.tensor([1.0, 2.0]), dx=True),
    lambda T: T.cumulative_trapezoid(T.tensor([1.0, 2.0]), T.tensor([1.0])),
    lambda T: T.vander(T.tensor([1, 2, 3], dtype=T.int8)),
    lambda T: T.vander(T.tensor([True, False])),
    lambda T: T.vander(T.tensor([2.0, 3.0], dtype=T.float16), N=4),
    lambda T: T.vander(T.tensor([], dtype=T.float64)),
    lambda T: T.vander(T.ones(3), N=0),
    lambda T: T.vander(T.ones(2, 2)),
    lambda T: T.vander(T.tensor(2.0)),
    lambda T: T.vander(T.ones(2), N=-1),
    lambda T: T.cov(T.tensor([[1, 2, 4], [3, 5, 9]])),
    lambda T: T.cov(T.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], dtype=T.float32)),
    lambda T: T.cov(T.tensor([[1.0, 2.0]]), correction=3),
    lambda T: T.cov(T.tensor([[1.0], [2.0]])),
    lambda T: T.cov(T.tensor([[1.0], [2.0]]), fweights=T.tensor([2])),
    lambda T: T.cov(T.tensor([[1], [2]]), aweights=T.tensor([2.0])),
    lambda T: T.cov(T.tensor([[1.0], [2.0]]), aweights=T.tensor([2.0])),
    lambda T: T.cov(T.tensor(3.0)),
    lambda T: T.cov(T.ones(2, 2, 2)),
    lambda T: T.cov(T.tensor([True, False])),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([[1, 1, 1]])),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([1.0, 1.0, 1.0])),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([1, 1])),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([1, -1, 1])),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([0, 0, 0])),
    lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1, 1, 1])),
    lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([[1.0, 1.0, 1.0]])),
    lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1.0, -1.0, 1.0])),
    lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1.0, 1.0])),
    lambda T: T.corrcoef(T.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])),
    lambda T: T.corrcoef(T.tensor([[1, 2, 4], [3, 3, 3]])),
    lambda T: T.corrcoef(T.tensor([2.0, 2.0, 2.0])),
    lambda T: T.corrcoef(T.tensor([1.0, 2.0, 2.0])),
    lambda T: T.corrcoef(T.ones(2, 2, 2)),
]


@pytest.mark.parametrize("program", COMPOSITE_EDGES)
def test_composites_dtypes_edges_and_errors(program):
    assert_same(lambda T: _layout(program(T)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("program", [
    lambda T: T.trapezoid(T.tensor(1.0), T.tensor([1.0])),
    lambda T: T.trapezoid(T.tensor(1.0), dim=0),
    lambda T: T.cumulative_trapezoid(T.tensor(1.0)),
    lambda T: T.cumulative_trapezoid(T.tensor(1.0), T.tensor([1.0])),
])
def test_integration_of_a_zero_dim_tensor(program):
    assert_same(lambda T: _layout(program(T)))


# ----------------------------------------------------------------------------- det, logdet, slogdet, inverse,
# matrix_power (an LU factorisation: values compared at rtol 1e-12, LAPACK's blocked kernels may round differently)

SPD = [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]
NEG = [[0.5, 2.0, 1.0], [1.0, -1.0, 3.0], [2.0, 0.0, 1.5]]  # needs row swaps; negative determinant


def _linalg(fn, rows, saved=()):
    def prog(T):
        A = T.tensor(rows, dtype=T.float64, requires_grad=True)
        out = fn(T, A)
        y = out[1] if isinstance(out, tuple) else out
        first, = T.autograd.grad(y.sum(), A, retain_graph=True)
        g, = T.autograd.grad(y.sum(), A, create_graph=True)  # (its graph is torch's linalg_solve's: not modelled)
        return ((type(out).__name__, [_layout(t) for t in out]) if isinstance(out, tuple) else _layout(out),
                _graph(y), [_layout(getattr(y.grad_fn, n)) for n in saved], first, g.detach(),
                T.autograd.grad((g * g).sum(), A))
    return prog


LINALG = {
    "det": _linalg(lambda T, A: T.det(A), SPD, ["_saved_A", "_saved_LU", "_saved_pivots", "_saved_result"]),
    "det_neg": _linalg(lambda T, A: A.det(), NEG, ["_saved_LU", "_saved_pivots"]),
    "linalg_det_batch": _linalg(lambda T, A: T.linalg.det(T.stack([A, A * 2])), NEG),
    "det_transposed": _linalg(lambda T, A: T.det(A.t()), NEG, ["_saved_LU"]),
    "logdet": _linalg(lambda T, A: T.logdet(A), SPD),
    "logdet_neg": _linalg(lambda T, A: A.logdet(), NEG),
    "slogdet": _linalg(lambda T, A: T.slogdet(A), NEG, ["_saved_A", "_saved_LU", "_saved_pivots", "_saved_sign"]),
    "linalg_slogdet": _linalg(lambda T, A: T.linalg.slogdet(A), SPD),
    "slogdet_method": _linalg(lambda T, A: A.slogdet(), SPD),
    "inverse": _linalg(lambda T, A: T.inverse(A), NEG, ["_saved_inverse"]),
    "inverse_method": _linalg(lambda T, A: A.inverse(), SPD),
    "linalg_inv": _linalg(lambda T, A: T.linalg.inv(A), NEG),
    "linalg_inv_ex": _linalg(lambda T, A: T.linalg.inv_ex(A), NEG),
    "inv_batch": _linalg(lambda T, A: T.linalg.inv(T.stack([A, A.t()])), NEG),
    "matrix_power_0": _linalg(lambda T, A: T.matrix_power(A, 0), NEG),
    "matrix_power_1": _linalg(lambda T, A: A.matrix_power(1), NEG),
    "matrix_power_2": _linalg(lambda T, A: T.matrix_power(A, 2), NEG),
    "matrix_power_3": _linalg(lambda T, A: T.matrix_power(A, 3), NEG),
    "matrix_power_6": _linalg(lambda T, A: T.matrix_power(A, 6), NEG),
    "matrix_power_7": _linalg(lambda T, A: T.linalg.matrix_power(A, 7), NEG),
    "matrix_power_-1": _linalg(lambda T, A: T.matrix_power(A, -1), NEG),
    "matrix_power_-5": _linalg(lambda T, A: T.matrix_power(A, -5), SPD),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_values_graphs_saved_and_gradients(name):
    assert_same(LINALG[name], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("rows", [[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]],
                                  [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]], [[0.0] * 3] * 3])
def test_det_and_slogdet_gradients_of_singular_matrices(rows):
    """torch 2.13 gives det's gradient at an exactly singular matrix as zeros, slogdet's as the infinities of the
    inverse's zero pivot."""
    def prog(T):
        A = T.tensor(rows, dtype=T.float64, requires_grad=True)
        d = T.det(A)
        d.backward()
        B = T.tensor(rows, dtype=T.float64, requires_grad=True)
        sign, logabsdet = T.linalg.slogdet(B)
        logabsdet.backward()
        return _layout(d), A.grad, _layout(sign), _layout(logabsdet), B.grad
    assert_same(prog, rtol=1e-10, atol=1e-12)


LINALG_EDGES = [
    lambda T: T.det(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda T: T.det(T.zeros(0, 0)),
    lambda T: T.det(T.tensor([[0.0, 1.0], [1.0, 0.0]])),
    lambda T: T.det(T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float32).expand(2, 2, 2)),
    lambda T: T.logdet(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda T: T.logdet(T.tensor([[-2.0, 1.0], [1.0, 3.0]])),
    lambda T: T.slogdet(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda T: T.slogdet(T.zeros(2, 2, dtype=T.float64)),
    lambda T: T.slogdet(T.zeros(0, 0)),
    lambda T: T.linalg.slogdet(T.tensor([[-2.0, 1.0], [1.0, 3.0]])),
    lambda T: T.inverse(T.zeros(0, 0)),
    lambda T: T.inverse(T.tensor([[2.0, 1.0], [1.0, 3.0]]).t()),
    lambda T: T.linalg.inv_ex(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda T: T.linalg.inv_ex(T.stack([T.tensor([[1.0, 2.0], [2.0, 4.0]]), T.zeros(2, 2), T.eye(2)])),
    lambda T: T.linalg.inv_ex(T.zeros(3, 3)),
    lambda T: T.linalg.inv_ex(T.tensor([[0.0, 1.0], [1.0, 0.0]])),
    lambda T: T.matrix_power(T.tensor([[1, 2], [3, 4]]), 3),
    lambda T: T.matrix_power(T.tensor([[1, 2], [3, 4]], dtype=T.int8), 0),
    lambda T: T.matrix_power(T.ones(2, 2, dtype=T.bool), 0),
    lambda T: T.matrix_power(T.zeros(2, 0, 0), 5),
    lambda T: T.matrix_power(T.tensor(SPD).t(), 0),
    lambda T: T.matrix_power(T.tensor(SPD).t(), 1),
]


@pytest.mark.parametrize("program", LINALG_EDGES)
def test_linalg_edges(program):
    assert_same(lambda T: (lambda r: ([type(r).__name__] + [_layout(t) for t in r]) if isinstance(r, tuple)
                           else _layout(r))(program(T)), rtol=1e-6, atol=1e-7)


LINALG_ERRORS = [
    lambda T: T.linalg.inv(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda T: T.inverse(T.stack([T.eye(2), T.zeros(2, 2)])),
    lambda T: T.linalg.inv_ex(T.stack([T.eye(2), T.zeros(2, 2)]), check_errors=True),
    lambda T: T.linalg.inv_ex(T.zeros(2, 2), check_errors=True),
    lambda T: T.matrix_power(T.zeros(2, 2), -1),
    lambda T: T.matrix_power(T.ones(2, 2, dtype=T.int64), -1),
    lambda T: T.matrix_power(T.ones(3), 2),
    lambda T: T.matrix_power(T.ones(2, 3), 2),
    lambda T: T.linalg.matrix_power(T.ones(2, 3), 0),
]
for _name in ["det", "logdet", "slogdet", "inverse", "linalg.det", "linalg.slogdet", "linalg.inv", "linalg.inv_ex"]:
    for _make in [lambda T: T.ones(2, 3), lambda T: T.ones(3), lambda T: T.ones(2, 2, dtype=T.int64),
                  lambda T: T.ones(2, 2, dtype=T.float16), lambda T: T.ones(2, 2, dtype=T.bfloat16),
                  lambda T: T.tensor(1.0)]:
        LINALG_ERRORS.append(lambda T, _name=_name, _make=_make: eval("T." + _name)(_make(T)))


@pytest.mark.parametrize("program", LINALG_ERRORS)
def test_linalg_errors(program):
    assert_same(program)


def test_linalg_error_is_a_runtime_error_named_as_torch():
    def prog(T):
        try:
            T.linalg.inv(T.zeros(2, 2))
        except T.linalg.LinAlgError as e:
            return type(e).__name__, isinstance(e, RuntimeError), T.linalg.LinAlgError.__name__, str(e)
    assert_same(prog)


# ----------------------------------------------------------------------------- cdist: _cdist_forward (CdistBackward0)
# or, for p == 2 with more than 25 rows or compute_mode 'use_mm_for_euclid_dist', _euclidean_dist's matmul form
# (EuclideanDistBackward0). The matmul form's zero distances are sqrt(rounding error) ~1e-8, whose bits follow
# the BLAS summation order: compared with atol 1e-7.

def _rows(T, *shape):
    n = int(np.prod(shape))
    return (T.arange(n, dtype=T.float64).reshape(shape) * 0.37 % 1.3).requires_grad_()


CDIST_SHAPES = [((3, 4), (2, 4)), ((30, 3), (5, 3)), ((2, 3, 4), (1, 5, 4)), ((2, 27, 2), (2, 3, 2))]
CDIST_MODES = ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, 0.5, 1.5, float("inf")])
@pytest.mark.parametrize("shapes", CDIST_SHAPES, ids=[str(s) for s in CDIST_SHAPES])
@pytest.mark.parametrize("mode", CDIST_MODES)
def test_cdist_values_graph_saved_and_gradients(p, shapes, mode):
    def prog(T):
        a, b = _rows(T, *shapes[0]), _rows(T, *shapes[1])
        y = T.cdist(a, b, p=p, compute_mode=mode)
        saved = [getattr(y.grad_fn, n) for n in ("_saved_p",) if hasattr(y.grad_fn, n)]
        return (_layout(y), _graph(y), saved, T.autograd.grad((y * y).sum(), [a, b]))
    assert_same(prog, rtol=1e-9, atol=1e-7)


@pytest.mark.parametrize("program", [
    lambda T: T.cdist(T.ones(3), T.ones(2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 4)),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.int64), T.ones(2, 3, dtype=T.int64)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), p=-1),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), compute_mode="x"),
    lambda T: T.cdist(T.zeros(0, 3), T.ones(2, 3)),
    lambda T: T.cdist(T.zeros(2, 0), T.ones(4, 0)),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.float64), T.ones(2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3, dtype=T.float64)),
    lambda T: T.cdist(T.ones(2, 2, 3), T.ones(3, 1, 4, 3)),
    lambda T: T.cdist(T.ones(2, 2, 3), T.ones(3, 4, 3)),
    lambda T: T.cdist(T.tensor([[0.0, 1.0], [2.0, 2.0]]).t(), T.tensor([[1.0, 1.0]]), p=1),
    lambda T: _graph(T.cdist(T.zeros(0, 3, requires_grad=True), T.ones(2, 3))),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.float32), T.ones(40, 3, dtype=T.float32)),
])
def test_cdist_edges_and_errors(program):
    assert_same(lambda T: (lambda r: _layout(r) if isinstance(r, T.Tensor) else r)(program(T)), atol=1e-6)


def test_cdist_double_backward_is_not_implemented():
    def prog(T):
        a, b = _rows(T, 3, 2), _rows(T, 2, 2)
        y = T.cdist(a, b, p=1)
        g, = T.autograd.grad(y.sum(), a, create_graph=True)
        graph = _graph(g)
        try:
            g.sum().backward()
        except RuntimeError as e:
            return graph, str(e)
    assert_same(prog)


# ----------------------------------------------------------------------------- quantile, nanquantile

QROWS = [[1.0, 5.0, 2.0, 8.0, 4.0], [3.0, -1.0, 4.0, 0.0, 2.5], [7.0, 6.0, 9.0, 2.0, 6.5]]
QNAN = [[1.0, 5.0, 2.0, 8.0, 4.0], [3.0, float("nan"), 4.0, 0.0, 2.5], [float("nan")] * 5]


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q", [0.3, 0.5, 1.0, "tensor", "vector"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (1, False), (0, True), (-1, True)])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_values_graphs_and_gradients(interpolation, q, dim, keepdim, name):
    def prog(T):
        x = T.tensor(QROWS, dtype=T.float64, requires_grad=True)
        qq = (T.tensor(0.25, dtype=T.float64) if q == "tensor" else
              T.tensor([0.1, 0.5, 0.75], dtype=T.float64) if q == "vector" else q)
        y = getattr(T, name)(x, qq, dim=dim, keepdim=keepdim, interpolation=interpolation)
        z = getattr(x, name)(qq, dim, keepdim, interpolation=interpolation)
        return _layout(y), _graph(y), _layout(z), T.autograd.grad((y * y).sum(), x)
    assert_same(prog, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("program", [
    lambda T: T.quantile(T.tensor(QNAN), 0.5, dim=1),
    lambda T: T.nanquantile(T.tensor(QNAN), 0.5, dim=1),
    lambda T: T.nanquantile(T.tensor(QNAN), T.tensor([0.25, 0.5]), dim=1, keepdim=True),
    lambda T: T.quantile(T.tensor(QNAN), 0.5),
    lambda T: T.nanquantile(T.tensor(QNAN), 0.5, interpolation="nearest"),
    lambda T: T.quantile(T.tensor(2.0), 0.5),
    lambda T: T.quantile(T.tensor(2.0), 0.5, dim=0, keepdim=True),
    lambda T: T.quantile(T.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), 0.4, dim=0),
    lambda T: T.quantile(T.tensor(QROWS), 1.5),
    lambda T: T.quantile(T.tensor(QROWS), -0.5),
    lambda T: T.quantile(T.tensor(QROWS), 0.5, interpolation="foo"),
    lambda T: T.quantile(T.tensor([[1, 2]]), 0.5),
    lambda T: T.quantile(T.tensor([[1, 2]]), 0.5, interpolation="foo"),
    lambda T: T.quantile(T.tensor(QROWS), T.tensor([0.5], dtype=T.float64)),
    lambda T: T.quantile(T.tensor(QROWS), T.tensor([[0.5]])),
    lambda T: T.quantile(T.tensor(QROWS), T.tensor([-0.5, 0.5])),
    lambda T: T.quantile(T.zeros(0), 0.5),
    lambda T: T.quantile(T.tensor(QROWS), 0.5, dim=2),
    lambda T: T.quantile(T.tensor(QROWS, dtype=T.float16), 0.5),
])
def test_quantile_nans_edges_and_errors(program):
    assert_same(lambda T: _layout(program(T)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("program", [
    lambda T: (lambda x: (x.unsqueeze_(1), x._version, x.stride()))(T.ones(2, 3)),
    lambda T: (lambda x: (x.transpose_(0, 1), x._version, x.stride()))(T.ones(2, 3)),
    lambda T: (lambda x: (x.unsqueeze_(-1), x.stride()))(T.ones(2, 3).t()),
    lambda T: (lambda x: (x.transpose_(0, -1), x.stride()))(T.ones(2, 3, 4)),
    lambda T: T.ones(2, 3).unsqueeze_(3),
    lambda T: T.ones(2, 3).transpose_(0, 2),
    lambda T: T.ones(2, 3, requires_grad=True).unsqueeze_(0),
    lambda T: T.ones(2, 3, requires_grad=True).transpose_(0, 1),
    lambda T: (lambda x: (lambda y: (y.unsqueeze_(0).transpose_(0, 2), _graph(y),
                                     T.autograd.grad((y * T.arange(6.0).reshape(3, 2, 1)).sum(), x)))(x * 2))(
        T.ones(2, 3, requires_grad=True)),
])
def test_unsqueeze_and_transpose_in_place(program):
    assert_same(lambda T: (lambda r: [(_layout(t) if isinstance(t, T.Tensor) else t) for t in r]
                           if isinstance(r, tuple) else _layout(r))(program(T)))


# ----------------------------------------------------------------------------- scatter_reduce (ScatterReduceBackward0)

SR_SELF = [[1.0, 2.0, 0.0, 4.0], [3.0, -1.0, 2.0, 2.0]]
SR_SRC = [[5.0, 2.0, 7.0, 0.0, 1.0], [2.0, 2.0, -3.0, 4.0, 0.0]]
SR_INDEX = [[0, 1, 0, 1, 3], [2, 2, 0, 2, 1]]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [1, 0])
def test_scatter_reduce_values_graph_saved_and_gradients(reduce, include_self, dim):
    def prog(T):
        x = T.tensor(SR_SELF, dtype=T.float64, requires_grad=True)
        src = T.tensor(SR_SRC, dtype=T.float64, requires_grad=True)
        index = T.tensor(SR_INDEX) if dim == 1 else T.tensor([[1, 0, 1, 0], [1, 1, 0, 0]])
        y = x.scatter_reduce(dim, index, src if dim == 1 else src[:, :4], reduce, include_self=include_self)
        fn = y.grad_fn
        saved = [getattr(fn, n) for n in ("_saved_dim", "_saved_include_self", "_saved_index", "_saved_reduce",
                                          "_saved_self", "_saved_src", "_saved_result")]
        up = T.arange(1.0, 9.0, dtype=T.float64).reshape(2, 4)
        return _layout(y), _graph(y), saved, T.autograd.grad(y, [x, src], up)
    assert_same(prog, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("program", [
    lambda T: T.scatter_reduce(T.tensor([1, 2, 3, 4]), 0, T.tensor([0, 1, 0, 1]), T.tensor([5, 6, 7, 9]), "mean"),
    lambda T: T.tensor([1, 2, 3, 4]).scatter_reduce(0, T.tensor([0, 1, 0, 1]), T.tensor([5, 6, 7, 9]), "amax",
                                                    include_self=False),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(0, T.tensor([0, 0]), T.tensor([float("nan"), 1.0]), "amin"),
    lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).t().scatter_reduce(1, T.tensor([[1], [1]]), T.ones(2, 1), "sum"),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(0, T.tensor([], dtype=T.int64), T.tensor([]), "prod"),
    lambda T: (lambda x: (x.scatter_reduce_(0, T.tensor([0, 0, 1]), T.tensor([2.0, 3.0, 4.0]), "prod"),
                          x._version))(T.tensor([1.0, 2.0, 3.0])),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(0, T.tensor([0, 1]), T.ones(2), "foo"),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(0, T.tensor([0, 1]), T.ones(2, dtype=T.float64), "foo"),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(0, T.tensor([0.0, 1.0]), T.ones(2), "sum"),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(1, T.tensor([0, 1]), T.ones(2), "foo"),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(0, T.tensor([0, 5]), T.ones(2), "sum"),
    lambda T: T.tensor([1.0, 2.0]).scatter_reduce(0, T.tensor([[0, 1]]), T.ones(2), "sum"),
    lambda T: T.scatter_reduce(T.tensor([1.0, 2.0]), 0, T.tensor([0, 1]), T.ones(2), reduce="amax"),
])
def test_scatter_reduce_dtypes_edges_and_errors(program):
    assert_same(lambda T: (lambda r: [(_layout(t) if isinstance(t, T.Tensor) else t) for t in r]
                           if isinstance(r, tuple) else _layout(r))(program(T)), rtol=1e-6, atol=1e-7)


def test_scatter_reduce_in_place_on_a_non_leaf():
    def prog(T):
        x = T.tensor(SR_SELF, dtype=T.float64, requires_grad=True)
        src = T.tensor(SR_SRC, dtype=T.float64, requires_grad=True)
        y = x * 1
        y.scatter_reduce_(1, T.tensor(SR_INDEX), src, "amax", include_self=False)
        y.sum().backward()
        return _layout(y), _graph(y), x.grad, src.grad
    assert_same(prog, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- index_reduce (IndexReduceBackward0)

IR_SELF = [[1.0, 2.0], [3.0, 0.0], [5.0, 6.0]]
IR_SOURCE = [[10.0, 2.0], [30.0, 40.0], [2.0, 0.0], [5.0, 6.0]]


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_values_graph_saved_and_gradients(reduce, include_self):
    def prog(T):
        x = T.tensor(IR_SELF, dtype=T.float64, requires_grad=True)
        source = T.tensor(IR_SOURCE, dtype=T.float64, requires_grad=True)
        y = x.index_reduce(0, T.tensor([0, 2, 0, 2]), source, reduce, include_self=include_self)
        saved = [getattr(y.grad_fn, n) for n in ("_saved_dim", "_saved_include_self", "_saved_index",
                                                 "_saved_reduce", "_saved_self", "_saved_source", "_saved_result")]
        up = T.arange(1.0, 7.0, dtype=T.float64).reshape(3, 2)
        return _layout(y), _graph(y), saved, T.autograd.grad(y, [x, source], up)
    assert_same(prog, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([1, 2, 3]).index_reduce(0, T.tensor([0, 0]), T.tensor([4, 6]), "mean"),
    lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).t().index_reduce(1, T.tensor([1, 1]), T.ones(2, 2), "amax"),
    lambda T: T.index_reduce(T.tensor(IR_SELF), 1, T.tensor([1], dtype=T.int32), T.ones(3, 1), reduce="amin",
                             include_self=False),
    lambda T: (lambda x: (x.index_reduce_(0, T.tensor([1]), T.tensor([[2.0, 3.0]]), "prod"), x._version))(
        T.tensor(IR_SELF)),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([0, 2, 0]), T.ones(3, 2), "sum"),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([0.0, 2.0, 0.0]), T.ones(3, 2), "prod"),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([0, 2, 0]), T.ones(3, 2, dtype=T.float64), "prod"),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([[0, 2, 0]]), T.ones(3, 2), "prod"),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([0, 1]), T.ones(3, 2), "prod"),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([0, 5, 1]), T.ones(3, 2), "prod"),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([-1, 0, 1]), T.ones(3, 2), "prod"),
    lambda T: T.tensor(IR_SELF).index_reduce(2, T.tensor([0, 2, 0]), T.ones(3, 2), "prod"),
    lambda T: T.tensor(IR_SELF).index_reduce(0, T.tensor([0, 2, 0]), T.ones(3, 1), "prod"),
    lambda T: T.zeros(3, 2).index_reduce(1, T.tensor([0]), T.ones(1), "prod"),  # dim beyond source's: RuntimeError
])
def test_index_reduce_dtypes_edges_and_errors(program):
    assert_same(lambda T: (lambda r: [(_layout(t) if isinstance(t, T.Tensor) else t) for t in r]
                           if isinstance(r, tuple) else _layout(r))(program(T)), rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------- torch.gradient (a composite of slices,
# subs, divs and a cat; seven overloads by the form of spacing and dim)

GRAD_ROWS = [[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 8.0], [0.0, 1.0, 0.0, 1.0]]


def _coords(T, *values, grad=False):
    return T.tensor(list(values), dtype=T.float64, requires_grad=grad)


GRADIENT_CALLS = {
    "default": lambda T, y: T.gradient(y),
    "dim": lambda T, y: T.gradient(y, dim=1),
    "dim_negative": lambda T, y: T.gradient(y, dim=-2),
    "spacing": lambda T, y: T.gradient(y, spacing=2.0),
    "spacing_int_dims": lambda T, y: T.gradient(y, spacing=2, dim=[0, 1]),
    "dims": lambda T, y: T.gradient(y, dim=[1]),
    "spacing_list": lambda T, y: T.gradient(y, spacing=[2.0, 0.5]),
    "spacing_tuple_dims": lambda T, y: T.gradient(y, spacing=(2.0, 3), dim=[1, 0]),
    "edge_order_2": lambda T, y: T.gradient(y, edge_order=2),
    "edge_order_2_dim": lambda T, y: T.gradient(y, spacing=0.5, dim=1, edge_order=2),
    "coordinates": lambda T, y: T.gradient(y, spacing=[_coords(T, 0.0, 1.0, 3.0),
                                                       _coords(T, 0.0, 0.5, 2.0, 2.5)]),
    "coordinates_dim": lambda T, y: T.gradient(y, spacing=[_coords(T, 0.0, 0.5, 2.0, 2.5)], dim=1, edge_order=2),
    "coordinates_dims": lambda T, y: T.gradient(y, spacing=[_coords(T, 0.0, 0.5, 2.0, 2.5, grad=True)], dim=[1]),
    "coordinates_edge_2": lambda T, y: T.gradient(y, spacing=[_coords(T, 0.0, 1.0, 3.0),
                                                              _coords(T, 0.0, 0.5, 2.0, 2.5)], edge_order=2),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CALLS))
def test_gradient_values_graphs_and_backward(name):
    def prog(T):
        y = T.tensor(GRAD_ROWS, dtype=T.float64, requires_grad=True)
        parts = GRADIENT_CALLS[name](T, y)
        loss = sum(((p * p) * (i + 1)).sum() for i, p in enumerate(parts))
        return type(parts).__name__, [_layout(p) for p in parts], [_graph(p) for p in parts], T.autograd.grad(loss, y)
    assert_same(prog, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("program", [
    lambda T: T.gradient(T.tensor([1, 4, 9, 16])),
    lambda T: T.gradient(T.tensor([1.0, 4.0, 9.0], dtype=T.float32).expand(2, 3), dim=1),
    lambda T: T.gradient(T.tensor([1, 4, 9, 16], dtype=T.uint8)),
    lambda T: T.gradient(T.tensor(GRAD_ROWS), edge_order=3),
    lambda T: T.gradient(T.tensor(GRAD_ROWS), spacing=[1.0]),
    lambda T: T.gradient(T.tensor(GRAD_ROWS), spacing=[1.0], dim=[0, 1]),
    lambda T: T.gradient(T.tensor(GRAD_ROWS), dim=[0, 0]),
    lambda T: T.gradient(T.tensor(GRAD_ROWS), dim=2),
    lambda T: T.gradient(T.ones(2, 5), edge_order=2),
    lambda T: T.gradient(T.ones(3, 5), spacing=[T.ones(2, 2)], dim=0),
    lambda T: T.gradient(T.ones(3, 5), spacing="x"),
])
def test_gradient_dtypes_and_errors(program):
    assert_same(lambda T: [_layout(p) for p in program(T)], rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------- out= of the search ops


def _into(call, out_of):
    def prog(T):
        out = out_of(T)
        result = call(T, out)
        return result is out, _layout(out), out._version
    return prog


OUT_PROGRAMS = [
    _into(lambda T, o: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), out=o), lambda T: T.empty(3, dtype=T.int64)),
    _into(lambda T, o: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), out=o), lambda T: T.empty(3, dtype=T.int32)),
    _into(lambda T, o: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), out_int32=True, out=o),
          lambda T: T.empty(3, dtype=T.int32)),
    _into(lambda T, o: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), out_int32=True, out=o),
          lambda T: T.empty(3, dtype=T.int64)),
    _into(lambda T, o: T.searchsorted(T.tensor(SEQ), T.tensor([[3, 6, 9]]), right=True, out=o),
          lambda T: T.empty(0, dtype=T.int64)),
    _into(lambda T, o: T.searchsorted(T.tensor(SEQ), T.tensor([3, 6, 9]), out=o), lambda T: T.empty(2, dtype=T.int64)),
    _into(lambda T, o: T.bucketize(T.tensor([3, 6, 9]), T.tensor(SEQ), out=o), lambda T: T.empty(3, dtype=T.int64)),
    _into(lambda T, o: T.bucketize(T.tensor([3, 6, 9]), T.tensor(SEQ), out=o), lambda T: T.empty(3)),
    _into(lambda T, o: T.isin(T.tensor([3, 6, 9]), T.tensor(SEQ), out=o), lambda T: T.empty(3, dtype=T.bool)),
    _into(lambda T, o: T.isin(T.tensor([3, 6, 9]), T.tensor(SEQ), out=o), lambda T: T.empty(3)),
    _into(lambda T, o: T.isin(T.tensor([3, 6, 9]), T.tensor(SEQ), out=o), lambda T: T.empty(3, dtype=T.float64)),
    _into(lambda T, o: T.isin(T.tensor([3, 6, 9]), 3, invert=True, out=o), lambda T: T.empty(3, dtype=T.bool)),
    _into(lambda T, o: T.isin(3, T.tensor(SEQ), out=o), lambda T: T.empty(0, dtype=T.bool)),
    _into(lambda T, o: T.isneginf(T.tensor([1.0, -float("inf")]), out=o), lambda T: T.empty(2, dtype=T.bool)),
    _into(lambda T, o: T.isneginf(T.tensor([1.0, -float("inf")]), out=o), lambda T: T.empty(2)),
    _into(lambda T, o: T.isposinf(T.tensor([1.0, float("inf")]), out=o), lambda T: T.empty(5, dtype=T.bool)),
    _into(lambda T, o: T.isposinf(T.tensor([1.0, float("inf")]), out=o), lambda T: T.empty(2, dtype=T.int64)),
    _into(lambda T, o: T.histc(T.tensor([1.0, 2.0, 1.0]), bins=3, out=o), lambda T: T.empty(3)),
    _into(lambda T, o: T.histc(T.tensor([1.0, 2.0, 1.0]), bins=3, out=o), lambda T: T.empty(3, dtype=T.float64)),
    _into(lambda T, o: T.histc(T.tensor([1.0, 2.0, 1.0], dtype=T.float64), bins=3, out=o), lambda T: T.empty(3)),
    _into(lambda T, o: T.histc(T.tensor([1.0, 2.0, 1.0]), bins=3, out=o), lambda T: T.empty(1)),
]


@pytest.mark.parametrize("program", OUT_PROGRAMS)
def test_out_forms_of_the_search_ops(program):
    _exact(program)


# ----------------------------------------------------------------------------- matrix_exp (LinalgMatrixExpBackward0;
# a Padé approximant rather than torch's Taylor degrees: values compared at rtol 1e-12, float32 at 1e-6)

MEXP = [[0.5, 1.0, 0.0], [-1.0, 0.2, 0.3], [0.0, 0.4, -0.6]]


@pytest.mark.parametrize("scale", [1.0, 0.01, 8.0])
@pytest.mark.parametrize("call", ["torch", "method", "linalg", "batch"])
def test_matrix_exp_values_graph_and_gradients(scale, call):
    def prog(T):
        A = T.tensor(MEXP, dtype=T.float64, requires_grad=True)
        B = A * scale
        y = {"torch": lambda: T.matrix_exp(B), "method": lambda: B.matrix_exp(),
             "linalg": lambda: T.linalg.matrix_exp(B), "batch": lambda: T.matrix_exp(T.stack([B, B.t()]))}[call]()
        g, = T.autograd.grad((y * y).sum(), A, create_graph=True)
        return _layout(y), _graph(y), _layout(y.grad_fn._saved_self), g.detach(), T.autograd.grad((g * g).sum(), A)
    # the second derivative of a scaled-and-squared exp (values ~1e9 at scale 8) agrees to ~1e-10 between the two
    # approximations: compared at 1e-8
    assert_same(prog, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("program", [
    lambda T: T.matrix_exp(T.ones(2, 3)),
    lambda T: T.matrix_exp(T.ones(3)),
    lambda T: T.matrix_exp(T.ones(2, 2, dtype=T.int64)),
    lambda T: T.matrix_exp(T.zeros(0, 0)),
    lambda T: T.matrix_exp(T.ones(1, 1) * 2),
    lambda T: T.matrix_exp(T.tensor([[1.0, 2.0], [3.0, 4.0]]).t()),
    lambda T: T.matrix_exp(T.tensor([[10.0, 2.0], [3.0, 40.0]], dtype=T.float64)),
    lambda T: T.matrix_exp(T.zeros(3, 3)),
])
def test_matrix_exp_edges_and_errors(program):
    assert_same(lambda T: _layout(program(T)), rtol=1e-6, atol=1e-7)


MORE_OUT_PROGRAMS = [
    _into(lambda T, o: T.logcumsumexp(T.tensor(MATRIX), 1, out=o), lambda T: T.empty(3, 4)),
    _into(lambda T, o: T.logcumsumexp(T.tensor(MATRIX), 1, out=o), lambda T: T.empty(3, 4, dtype=T.float64)),
    _into(lambda T, o: T.logcumsumexp(T.tensor(MATRIX), 1, out=o), lambda T: T.empty(0, dtype=T.int64)),
    _into(lambda T, o: T.renorm(T.tensor(MATRIX), 2, 0, 1.0, out=o), lambda T: T.empty(3, 4)),
    _into(lambda T, o: T.renorm(T.tensor(MATRIX), 2, 0, 1.0, out=o), lambda T: T.empty(3, 4, dtype=T.float64)),
    _into(lambda T, o: T.scatter_reduce(T.tensor(MATRIX), 1, T.tensor([[0, 0], [1, 1], [3, 2]]),
                                        T.ones(3, 2), "amax", out=o), lambda T: T.empty(0)),
    _into(lambda T, o: T.scatter_reduce(T.tensor(MATRIX), 1, T.tensor([[0, 0], [1, 1], [3, 2]]),
                                        T.ones(3, 2), "amax", out=o), lambda T: T.empty(3, 4, dtype=T.float64)),
    _into(lambda T, o: T.index_reduce(T.tensor(MATRIX), 0, T.tensor([1]), T.ones(1, 4), "prod", out=o),
          lambda T: T.empty(3, 4)),
    _into(lambda T, o: T.index_reduce(T.tensor(MATRIX), 0, T.tensor([1]), T.ones(1, 4), "prod", out=o),
          lambda T: T.empty(3, 4, dtype=T.float64)),
    _into(lambda T, o: T.matrix_power(T.tensor(MATRIX)[:, :3], 3, out=o), lambda T: T.empty(3, 3)),
    _into(lambda T, o: T.matrix_power(T.tensor(MATRIX)[:, :3], 0, out=o), lambda T: T.empty(0)),
    _into(lambda T, o: T.matrix_power(T.tensor(MATRIX)[:, :3], 2, out=o), lambda T: T.empty(3, 3, dtype=T.float64)),
    _into(lambda T, o: T.quantile(T.tensor(MATRIX), 0.5, dim=1, out=o), lambda T: T.empty(3)),
    _into(lambda T, o: T.quantile(T.tensor(MATRIX), 0.5, dim=1, out=o), lambda T: T.empty(3, dtype=T.float64)),
    _into(lambda T, o: T.quantile(T.tensor(MATRIX), T.tensor([0.5, 0.2]), dim=1, out=o), lambda T: T.empty(0)),
    _into(lambda T, o: T.nanquantile(T.tensor(MATRIX), 0.5, out=o), lambda T: T.empty(())),
    _into(lambda T, o: T.nanquantile(T.tensor(MATRIX), T.tensor(0.25), keepdim=True, out=o), lambda T: T.empty(5)),
]


@pytest.mark.parametrize("program", MORE_OUT_PROGRAMS)
def test_more_out_forms(program):
    assert_same(program, rtol=1e-6, atol=1e-7)
