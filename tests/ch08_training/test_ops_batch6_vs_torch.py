"""The sixth ops batch against PyTorch: addcmul/addcdiv, the logical ops, nonzero/argwhere/count_nonzero, nansum,
nanmean, std_mean/var_mean, reshape_as; the shape ops built from other ops (broadcast_*, atleast_*, *stack, meshgrid,
ravel, repeat_interleave, flips, rot90, diff, tensor_split), as_tensor; data_ptr, storage_offset, is_complex.

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``, saved
values, gradients (double backward too), error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from op_helpers import _graph, _layout, _node, _x
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _nan_data(T):
    return T.tensor([[1.5, float("nan"), 2.0], [float("nan"), float("nan"), -1.0]], dtype=T.float64,
                    requires_grad=True)


# ----------------------------------------------------------------------------- addcmul, addcdiv


@pytest.mark.parametrize("program", [
    lambda T: _layout(T.addcmul(_x(T), _x(T), _x(T), value=2)),
    lambda T: _layout(T.addcmul(_x(T).t(), _x(T).t(), _x(T).t())),
    lambda T: _layout(T.addcmul(T.zeros(2, 1, 3), T.ones(2, 1), T.arange(3.0))),
    lambda T: _layout(T.addcmul(_x(T, "int64"), _x(T, "int64"), _x(T, "int64"), value=3)),
    lambda T: _layout(T.addcmul(_x(T, "int64"), _x(T), _x(T))),
    lambda T: _layout(T.addcmul(_x(T, "float16"), _x(T), _x(T))),
    lambda T: _layout(T.addcmul(_x(T, "float16"), _x(T, "float16"), _x(T, "float16"), value=0.3)),
    lambda T: _layout(T.addcdiv(_x(T), _x(T), _x(T) + 10, value=2)),
    lambda T: _layout(T.addcdiv(_x(T, "int64"), _x(T, "int64"), _x(T))),
    lambda T: _x(T).addcmul(_x(T), _x(T), value=0.5),
    lambda T: T.addcmul(_x(T), _x(T), _x(T), out=T.empty(3, 4)),
    lambda T: T.addcmul(_x(T), _x(T), T.zeros(5)),
    lambda T: T.addcdiv(_x(T, "int64"), _x(T, "int64"), _x(T, "int64")),
    lambda T: _x(T).addcdiv_(_x(T, "int32"), _x(T, "int64")),
])
def test_addcmul_addcdiv_values_layout_and_errors(program):
    assert_same(program)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv", "addcdiv_"])
def test_addcmul_addcdiv_nodes_saved_values_and_double_backward(op):
    def prog(T):
        x, a = _x(T, "float64", True), _x(T, "float64", True) * 1
        b = _x(T, "float64", True) * 2 + 10
        y = x.clone().addcdiv_(a, b) if op == "addcdiv_" else getattr(T, op)(x, a, b, value=2)
        firsts = T.autograd.grad(y.sum(), (x, a, b), create_graph=True)
        return (y, _node(y), y.grad_fn._saved_value, y.grad_fn._saved_tensor1, [_graph(g) for g in firsts],
                T.autograd.grad(sum((g * g).sum() for g in firsts[1:]), (a, b)))
    assert_same(prog)


# ----------------------------------------------------------------------------- logical ops


@pytest.mark.parametrize("program", [
    lambda T: [(f(_x(T), _x(T, "int64")), f(_x(T, "bool"), T.tensor(0.5)), f(_x(T).t(), _x(T)))
               for f in (T.logical_and, T.logical_or, T.logical_xor)],
    lambda T: [_layout(f(_x(T).t(), _x(T).t())) for f in (T.logical_and, T.logical_or, T.logical_xor)],
    lambda T: (_layout(T.logical_not(_x(T, "int32").t())), _x(T).logical_not_(), _x(T, "int64").logical_and_(_x(T)),
               _x(T).logical_or_(T.tensor(0)), _x(T, "uint8").logical_xor_(_x(T)), T.logical_not(_x(T, "bool"))),
    lambda T: T.logical_not(T.tensor([float("nan"), 0.0, -0.0])),
    lambda T: (T.logical_not(_x(T, requires_grad=True)), T.logical_and(_x(T, requires_grad=True), _x(T))),
    lambda T: (T.logical_or(_x(T), _x(T), out=T.empty(3, 4, dtype=T.bool)), T.logical_not(_x(T), out=T.empty(3, 4))),
    lambda T: T.logical_and(_x(T), T.zeros(3)),
    lambda T: _x(T)[0].logical_and_(_x(T)),
])
def test_logical_ops(program):
    assert_same(program)


# ----------------------------------------------------------------------------- nonzero, argwhere, count_nonzero

_M = [[1.5, 0.0], [2.0, -1.0], [0.0, 3.0]]


@pytest.mark.parametrize("program", [
    lambda T: (_layout(T.nonzero(T.tensor(_M))), _layout(T.argwhere(T.tensor(_M).t())), T.tensor(_M).argwhere()),
    lambda T: (T.nonzero(T.tensor(_M), as_tuple=True), [_layout(t) for t in T.tensor(_M).nonzero(as_tuple=True)]),
    lambda T: [_layout(T.nonzero(t)) for t in (T.tensor(0.0), T.tensor(3), T.zeros(2, 0), T.zeros(2, 3), T.zeros(3),
                                               T.zeros(2, 3)[:, ::2])],
    lambda T: (T.nonzero(T.tensor(2.0), as_tuple=True), T.nonzero(T.tensor(0.0), as_tuple=True),
               T.tensor(_M).nonzero(as_tuple=False), T.nonzero(input=T.tensor(_M)),
               T.nonzero(T.tensor(_M), out=T.empty(0, dtype=T.long))),
    lambda T: (hasattr(T, "nonzero_numpy"), hasattr(T.Tensor, "nonzero_numpy"),
               T.nonzero(T.tensor(_M).requires_grad_())),
    lambda T: T.tensor(_M).nonzero(1),
    lambda T: T.nonzero("a"),
    lambda T: T.nonzero(T.tensor(_M), as_tuple=1),
    lambda T: T.nonzero(T.tensor(_M), out=T.empty(0, dtype=T.long), as_tuple=True),
    lambda T: (T.count_nonzero(_x(T)), T.count_nonzero(_x(T), 1), T.count_nonzero(_x(T), (0, 1)),
               T.count_nonzero(_x(T), dim=-2), _x(T).count_nonzero(), T.count_nonzero(T.tensor(0.0)),
               T.count_nonzero(T.zeros(0, 3), 0), T.count_nonzero(_x(T, "bool"), [])),
    lambda T: T.count_nonzero(_x(T), 5),
    lambda T: T.count_nonzero(_x(T), (0, 0)),
    # where with the condition alone is nonzero_numpy
    lambda T: (T.where(T.tensor(_M)), [_layout(t) for t in T.where(T.tensor(_M) > 0)], T.where(T.tensor(0.0)),
               T.where(T.tensor(2)), T.where(T.zeros(2, 0)), T.where(condition=T.tensor([True, False, True]))),
    lambda T: T.where(T.tensor(_M), "a"),
    lambda T: T.where(T.tensor(_M).requires_grad_())[0].requires_grad,
])
def test_nonzero_argwhere_count_nonzero(program):
    assert_same(program)


# ----------------------------------------------------------------------------- nansum, nanmean


@pytest.mark.parametrize("program", [
    lambda T: [_layout(T.nansum(_x(T, d))) for d in ("float32", "float64", "float16", "bfloat16", "int64", "int8",
                                                     "bool")],
    lambda T: (_layout(T.nansum(_nan_data(T))), _layout(T.nansum(_nan_data(T), 1)),
               _layout(T.nansum(_nan_data(T), (0, 1), keepdim=True)), _layout(T.nansum(_nan_data(T), dtype=T.float32)),
               T.nansum(_x(T, "int32"), 1, dtype=T.float32), T.nansum(_x(T), dtype=T.int64)),
    lambda T: (T.nanmean(_nan_data(T)), T.nanmean(_nan_data(T), 0, True), T.nanmean(_x(T, "float16")),
               T.nanmean(_x(T), dtype=T.float64), _x(T).nanmean(-1)),
    lambda T: (T.nansum(_x(T), out=T.empty(())), T.nanmean(_x(T), 1, out=T.empty(3))),
    lambda T: T.nanmean(_x(T, "int64")),
])
def test_nansum_nanmean_values(program):
    assert_same(program)


def test_nansum_node_saved_values_and_gradients():
    def prog(T):
        x, w = _nan_data(T), _x(T, "float64", True)[:2, :3]
        y, y_all = T.nansum(x, 1), T.nansum(x)
        firsts = [T.autograd.grad(T.nansum(x, 1), x, w.sum(1), create_graph=True)[0],
                  T.autograd.grad(T.nansum(x, dtype=T.float32), x, w.sum().float(), create_graph=True)[0],
                  T.autograd.grad(T.nansum(x, (0, 1), True), x, w.sum((0, 1), True), create_graph=True)[0]]
        return (y, _node(y), y.grad_fn._saved_dim, y.grad_fn._saved_keepdim, y.grad_fn._saved_self,
                y_all.grad_fn._saved_dim, T.autograd.grad(y.sum(), x), [_graph(g) for g in firsts])
    assert_same(prog)


def test_nanmean_is_nansum_divided_by_the_count():
    def prog(T):
        x = _nan_data(T)
        y = T.nanmean(x, 1)
        return y, _graph(y), T.autograd.grad(y.sum(), x)
    assert_same(prog)


# ----------------------------------------------------------------------------- std_mean, var_mean


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
def test_std_mean_var_mean_values(name):
    def prog(T):
        f = getattr(T, name)
        return (f(_x(T)), f(_x(T), 1), f(_x(T), 1, keepdim=True), f(_x(T), unbiased=False),
                f(_x(T), [0, 1], correction=0), f(_x(T), dim=0, unbiased=False), f(_x(T, "float16"), 1),
                type(f(_x(T))).__name__)
    assert_same(prog, rtol=1e-3)


@pytest.mark.parametrize("program", [
    lambda T: T.std_mean(_x(T, "int64")),
    lambda T: T.var_mean(_x(T, "int64"), 0),
    lambda T: T.var_mean(_x(T), 3),
])
def test_std_mean_var_mean_bad_input(program):
    assert_same(program)


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
@pytest.mark.parametrize("dim", [None, 1])
def test_std_mean_var_mean_nodes_saved_values_and_double_backward(name, dim):
    """One node for both outputs, saving what torch saves (std_mean: the std too); its gradient adds the two."""
    def prog(T):
        x = _x(T, "float64", True)
        s, m = getattr(T, name)(x, dim)
        saved = sorted(k for k in dir(s.grad_fn) if k.startswith("_saved"))
        both, = T.autograd.grad(s.sum() + m.sum(), x, create_graph=True)
        from_s, = T.autograd.grad(s.sum(), x, create_graph=True)
        from_m, = T.autograd.grad(m.sum(), x, create_graph=True)
        return (s, m, _node(s), s.grad_fn is m.grad_fn, saved, s.grad_fn._saved_correction, _graph(both),
                _graph(from_s), _graph(from_m), T.autograd.grad((both * both).sum(), x))
    assert_same(prog)


def test_std_double_backward_fills_zero_std_with_masked_fill():
    def prog(T):
        x = _x(T, "float64", True)
        g, = T.autograd.grad(x.std(1).sum(), x, create_graph=True)
        return _graph(g)
    assert_same(prog)


def test_reshape_as():
    def prog(T):
        x = _x(T, requires_grad=True)
        return (_layout(_x(T).reshape_as(T.zeros(4, 3))), _layout(_x(T).t().reshape_as(T.zeros(12))),
                _node(x.t().reshape_as(T.zeros(12))), _x(T).reshape_as(T.zeros(6, 2))._base is not None)
    assert_same(prog)
    assert_same(lambda T: _x(T).reshape_as(T.zeros(5)))


# ----------------------------------------------------------------------------- broadcasting


@pytest.mark.parametrize("program", [
    lambda T: (_layout(T.broadcast_to(_x(T), (2, 3, 4))), _node(T.broadcast_to(_x(T, requires_grad=True), (2, 3, 4))),
               _x(T).broadcast_to(2, 3, 4).shape, T.broadcast_to(_x(T), (-1, 4)),
               T.broadcast_to(_x(T), (4, -1, 4)).shape),
    lambda T: T.broadcast_to(_x(T), (3, 3)),
    lambda T: T.broadcast_to(_x(T), (4,)),
    lambda T: (lambda x, r: (r[0] is x, [_layout(t) for t in r], [t.grad_fn for t in r], type(r).__name__))(
        *(lambda x: (x, T.broadcast_tensors(x, T.zeros(2, 1, 1), T.tensor(1.0))))(_x(T, requires_grad=True))),
    lambda T: T.broadcast_tensors(_x(T), T.zeros(2, 1)),
    lambda T: T.broadcast_tensors(),
    lambda T: T.broadcast_tensors([_x(T), _x(T)]),
    lambda T: (T.broadcast_shapes((2, 1), (3,)), T.broadcast_shapes(2, (3, 1)), T.broadcast_shapes(),
               T.broadcast_shapes(T.Size([2, 1]), [4]), T.broadcast_shapes((0, 1), (3,)),
               T.broadcast_shapes(None, (2,))),
    lambda T: T.broadcast_shapes((2, 1), (3, 2)),
    lambda T: T.broadcast_shapes((2, -1)),
    lambda T: T.broadcast_shapes((1,), (-1,)),
    lambda T: T.broadcast_shapes([2, "a"]),
    lambda T: T.broadcast_shapes(2.5),
])
def test_broadcast_to_tensors_and_shapes(program):
    assert_same(program)


# ----------------------------------------------------------------------------- atleast_*, stacks, meshgrid


def test_atleast_views_and_graphs():
    def prog(T):
        x = _x(T, "float64", True)
        return [(_layout(f(t)), _graph(f(t))) for f in (T.atleast_1d, T.atleast_2d, T.atleast_3d)
                for t in (x[0, 0], x[0], x, x.unsqueeze(0))]
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: (T.atleast_1d(_x(T), _x(T)[0, 0]), T.atleast_2d([_x(T)[0]]), T.atleast_3d((_x(T),)), T.atleast_1d(),
               type(T.atleast_2d(_x(T), _x(T))).__name__),
    lambda T: T.atleast_2d(1.5),
])
def test_atleast_sequences(program):
    assert_same(program)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack"])
def test_stacks(name):
    def prog(T):
        f, x = getattr(T, name), _x(T, "float64", True)
        return (_layout(f([x[0], x[1]])), _graph(f([x[0], x[1]])), _layout(f([_x(T), _x(T)])),
                _layout(f([_x(T)[0, 0], _x(T)[0, 1]])), f((_x(T), _x(T))).shape)
    assert_same(prog)
    assert_same(lambda T: getattr(T, name)([]))
    assert_same(lambda T: getattr(T, name)(_x(T)))


@pytest.mark.parametrize("program", [
    lambda T: (T.column_stack([_x(T), _x(T)[:, 0]]), T.hstack([_x(T), T.zeros(3, 1, dtype=T.int64)]).dtype,
               T.hstack([_x(T), _x(T)], out=T.empty(3, 8))),
    lambda T: T.column_stack([_x(T), _x(T)[0, 0]]),
])
def test_stacks_mixed(program):
    assert_same(program)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_views_and_graphs(indexing):
    def prog(T):
        a, b = T.arange(3.0, requires_grad=True), T.arange(2.0)
        grids = T.meshgrid(a, b, T.tensor(5.0), indexing=indexing)
        return ([(_layout(t), _graph(t)) for t in grids], type(grids).__name__,
                T.meshgrid([a, b], indexing=indexing), T.meshgrid(a, indexing=indexing))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.meshgrid(_x(T)[0], indexing="ab"),
    lambda T: T.meshgrid(indexing="ij"),
    lambda T: T.meshgrid(T.arange(2.0), T.arange(2), indexing="ij"),
    lambda T: T.meshgrid([], indexing="ij"),
])
def test_meshgrid_bad_input(program):
    assert_same(program)


_MESHGRID_WARNINGS = """
import warnings
import {module} as T
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    T.meshgrid(T.arange(2.0), T.arange(3.0))
    T.meshgrid(T.arange(2.0))
    T.meshgrid(T.arange(2.0), indexing="ij")
print([(w.category.__name__, str(w.message)) for w in caught])
"""


def test_meshgrid_without_indexing_warns_once_per_process():
    """TORCH_WARN_ONCE: each library in a fresh process, so that no earlier test has used up the warning."""
    def warnings_of(module):
        return subprocess.run([sys.executable, "-c", _MESHGRID_WARNINGS.format(module=module)], capture_output=True,
                              text=True, check=True).stdout
    expected = warnings_of("torch")
    assert "indexing argument" in expected
    assert warnings_of("picotorch") == expected


# ----------------------------------------------------------------------------- ravel, repeat_interleave, flips, rot90


def test_ravel():
    def prog(T):
        x = _x(T, "float64", True)
        return [(_layout(t.ravel()), _graph(T.ravel(t)), t.ravel()._base is not None)
                for t in (x, x.t(), x[0, 0], x[:, ::2])]
    assert_same(prog)


def test_repeat_interleave_graphs_and_gradients():
    def prog(T):
        x = _x(T, "float64", True)
        ints = (T.repeat_interleave(x, 2), T.repeat_interleave(x, 2, 0), x.repeat_interleave(3, dim=-1),
                T.repeat_interleave(x, 1, 1), T.repeat_interleave(x, 0, 0), T.repeat_interleave(x[0, 0], 2))
        tensors = (T.repeat_interleave(x, T.tensor([1, 0, 2]), 0), T.repeat_interleave(x, T.tensor([2]), 1),
                   T.repeat_interleave(x, T.tensor(2)), x.repeat_interleave(T.tensor([1, 2, 1, 0]), dim=1))
        weights = T.arange(12.0, dtype=T.float64).reshape(3, 4)
        return ([(_layout(r), _graph(r)) for r in ints + tensors],
                T.autograd.grad((T.repeat_interleave(x, T.tensor([1, 0, 2]), 0) * weights).sum(), x),
                T.autograd.grad((T.repeat_interleave(x, 2, 1) * weights.repeat(1, 2)).sum(), x))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: (T.repeat_interleave(T.tensor([1, 2, 3])), T.repeat_interleave(T.tensor([1, 2], dtype=T.int32)),
               T.repeat_interleave(T.tensor([0, 0])), T.repeat_interleave(T.tensor([2, 1]), output_size=3),
               T.repeat_interleave(_x(T), 2, 0, output_size=6)),
    lambda T: T.repeat_interleave(_x(T), -1),
    lambda T: T.repeat_interleave(_x(T), T.tensor([1, -1, 1]), 0),
    lambda T: T.repeat_interleave(_x(T), T.tensor([1, 2]), 0),
    lambda T: T.repeat_interleave(_x(T), T.tensor([1.0, 2, 3]), 0),
    lambda T: T.repeat_interleave(T.tensor([[1, 2]])),
    lambda T: T.repeat_interleave(_x(T), T.tensor([[1, 2]]), 0),
    lambda T: T.repeat_interleave(_x(T), 2, 0, output_size=5),
    lambda T: T.repeat_interleave(T.tensor([2, 1]), output_size=4),
    lambda T: T.repeat_interleave(_x(T), 2, 2),
])
def test_repeat_interleave_values_and_errors(program):
    assert_same(program)


@pytest.mark.parametrize("program", [
    lambda T: [(_layout(r), _graph(r)) for r in (lambda x: (T.flipud(x), x.fliplr(), T.flipud(x[0])))(
        _x(T, "float64", True))],
    lambda T: T.flipud(T.tensor(1.0)),
    lambda T: T.fliplr(_x(T)[0]),
])
def test_flipud_fliplr(program):
    assert_same(program)


def test_rot90_layout_graph_and_gradients():
    def prog(T):
        x = _x(T, "float64", True)
        y = x.rot90(1, [1, 0])
        g, = T.autograd.grad(y, x, T.ones(4, 3, dtype=T.float64, requires_grad=True), create_graph=True)
        return ([(_layout(T.rot90(x, k)), _graph(T.rot90(x, k))) for k in (-5, -1, 0, 1, 2, 3, 4, 5)],
                [_layout(T.rot90(T.arange(24.0).reshape(2, 3, 4), k, d)) for k in (1, 2, 3)
                 for d in ([2, 0], [0, -1], [-1, 1])],
                y.grad_fn._saved_k, y.grad_fn._saved_dims, _graph(g),
                T.autograd.grad((y * T.arange(12.0, dtype=T.float64).reshape(4, 3)).sum(), x))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.rot90(_x(T)[0]),
    lambda T: T.rot90(_x(T), 1, [0]),
    lambda T: T.rot90(_x(T), 1, [0, 0]),
    lambda T: T.rot90(_x(T), 1, [0, 5]),
    lambda T: T.rot90(_x(T), 1, [0, -2]),
    lambda T: T.rot90(_x(T), 1, [0, 1, 1]),
])
def test_rot90_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- diff, tensor_split


def test_diff_graphs_and_gradients():
    def prog(T):
        x = _x(T, "float64", True)
        results = (T.diff(x), T.diff(x, 2, 0), T.diff(x, prepend=x), x.diff(1, 0, append=x[:1], prepend=x[:2]),
                   T.diff(x, 5), T.diff(x, 3, dim=0), T.diff(x, 0), T.diff(x.t(), 0), T.diff(x, 0, prepend=x))
        weights = T.arange(6.0, dtype=T.float64).reshape(3, 2)
        empty = T.zeros(2, 0, requires_grad=True)
        return ([(_layout(r), _graph(r), r is x) for r in results], T.diff(x, 0)._version,
                T.autograd.grad((T.diff(x, 2) * weights).sum(), x), T.diff(empty) is empty, T.diff(empty, 0) is empty)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: (T.diff(_x(T, "bool")), T.diff(_x(T, "int64"), 1, 0, append=_x(T, "int64")), T.diff(_x(T, "uint8")),
               T.diff(_x(T), 2, 0, prepend=T.zeros(1, 4)), T.diff(_x(T, "int32"), 0, dim=0),
               T.diff(_x(T), out=T.empty(3, 3))),
    lambda T: T.diff(T.tensor(1.0)),
    lambda T: T.diff(_x(T), -1),
    lambda T: T.diff(_x(T), prepend=T.zeros(4)),
    lambda T: T.diff(_x(T), dim=3),
    lambda T: T.diff(_x(T), prepend=T.zeros(2, 4)),
    lambda T: T.diff(_x(T), dim=0, prepend=T.zeros(2, 3)),
])
def test_diff_values_and_errors(program):
    assert_same(program)


def test_tensor_split_views():
    def prog(T):
        x = _x(T, "float64", True)
        splits = (T.tensor_split(x, 3, 1), T.tensor_split(x, [1, 3], 1), T.tensor_split(x, T.tensor([1, 3]), 1),
                  x.tensor_split(T.tensor(2), 1), T.tensor_split(x, 5), T.tensor_split(x, [2, 1], 1),
                  T.tensor_split(x, [-1]), T.tensor_split(x, [], 0))
        return [[(_layout(t), _graph(t), t._base is x) for t in r] for r in splits], type(splits[0]).__name__
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor_split(_x(T), 0),
    lambda T: T.tensor_split(T.tensor(1.0), 2),
    lambda T: T.tensor_split(_x(T), T.tensor([1.0])),
    lambda T: T.tensor_split(_x(T), T.tensor([[1]])),
    lambda T: T.tensor_split(_x(T), 2, 5),
])
def test_tensor_split_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- as_tensor, data_ptr, storage_offset


@pytest.mark.parametrize("program", [
    lambda T: (lambda x: (T.as_tensor(x) is x, T.as_tensor(x, dtype=T.float64), T.as_tensor(x, dtype=T.float32) is x,
                          T.as_tensor([1, 2]), T.as_tensor(3.5), T.as_tensor([[1.0, 2.0]], dtype=T.float16)))(_x(T)),
    lambda T: (T.as_tensor(_x(T, requires_grad=True), dtype=T.float64),
               T.as_tensor(_x(T, requires_grad=True), device="cpu")),
    lambda T: T.as_tensor("a"),
])
def test_as_tensor(program):
    assert_same(program)


def test_as_tensor_shares_a_numpy_array_unless_converting():
    def prog(T):
        a, b = np.arange(3.0), np.arange(3, dtype=np.float32)
        shared, converted = T.as_tensor(a), T.as_tensor(b, dtype=T.float64)
        shared[0], converted[0] = 5, 7
        return a.tolist(), b.tolist(), shared.dtype, converted.dtype, T.as_tensor(np.arange(3)).dtype
    assert_same(prog)


def test_data_ptr_and_storage_offset_of_views():
    def prog(T):
        z = T.zeros(4, 3)
        return ([z[1:].data_ptr() - z.data_ptr(), z[:0].data_ptr(), z.t().data_ptr() == z.data_ptr(),
                 z[:, 1].data_ptr() - z.data_ptr(), z[1, 2].data_ptr() - z.data_ptr(),
                 z.view(-1)[5:].data_ptr() - z.data_ptr(), z.double().data_ptr() != z.data_ptr(),
                 T.tensor(1.0).data_ptr() != 0, T.empty(0).data_ptr(), z.expand(2, 4, 3).data_ptr() == z.data_ptr(),
                 (lambda s: s.t()[1:].data_ptr() - s.data_ptr())(z.short())],
                [z.storage_offset(), z[1:].storage_offset(), z[:, 1].storage_offset(), z[1, 2].storage_offset(),
                 z[2:].reshape(-1).storage_offset(), z[2:].t()[1:].storage_offset(), z.t().storage_offset(),
                 z.double().storage_offset(), z[1].unsqueeze(0).expand(3, 3).storage_offset(),
                 z.view(-1)[3:].view(3, 3)[1:].storage_offset()])
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: (T.zeros(2).is_complex(), T.is_complex(T.zeros(2, dtype=T.int64)), T.tensor(True).is_complex(),
               T.is_complex(input=T.zeros(1))),
    lambda T: T.is_complex(1),
])
def test_is_complex(program):
    assert_same(program)
