"""The third ops batch against PyTorch: ``masked_select`` and ``masked_scatter`` (and ``masked_fill.Tensor``'s value
gradient, which PyTorch builds with ``masked_select``), ``take`` and the ``put_`` its gradient writes with,
``diagonal``, ``diag``, ``diag_embed`` and ``lerp``.

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``, saved
values, gradients (double backward too), error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import numpy as np
import pytest

from op_helpers import FLOATS, INTS, _graph, _layout, _node, _x
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _run(program, **extra):
    """A program written as a statement (``out = [...]``), run with ``T``, ``x`` (3x4, requires grad) and helpers."""
    def prog(T):
        scope = {"T": T, "x": _x(T, requires_grad=True), "_x": _x, "_node": _node, "_graph": _graph,
                 "_layout": _layout, **extra}
        exec(program, scope)
        return scope["out"]
    return prog


MASK = "T.tensor([True, False, True, True])"


# ----------------------------------------------------------------------------- masked_select


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_masked_select_values_dtype_and_layout(dtype):
    def prog(T):
        x, mask = _x(T, dtype), T.tensor([True, False, True, True])
        return (_layout(x.masked_select(mask)), _layout(T.masked_select(x.t(), x.t() != 0)),
                _layout(x[:, :1].masked_select(mask)), _layout(x.masked_select(T.ones(2, 3, 4, dtype=T.bool))))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    "out = [_layout(T.tensor(5.0).masked_select(T.tensor(True))),"
    " _layout(T.tensor(5.0).masked_select(T.tensor(False)))]",
    "out = [_layout(T.zeros(0, 4).masked_select(T.ones(4, dtype=T.bool)))]",
    "out = [_layout(_x(T).masked_select(T.zeros(3, 4, dtype=T.bool)))]",
    "y = T.empty(0); out = [T.masked_select(_x(T), _x(T) > 0, out=y) is y, y]",
])
def test_masked_select_zero_dim_empty_and_out(program):
    assert_same(_run(program))


@pytest.mark.parametrize("program", [
    f"y = x.masked_select({MASK}); out = [y, _node(y), y.grad_fn._saved_mask, y.grad_fn._saved_self]",
    f"y = x.masked_select({MASK}); out = list(T.autograd.grad((y * y).sum(), x))",
    f"y = x[:, :1].masked_select({MASK}); out = [y, _node(y), list(T.autograd.grad((y * y).sum(), x))]",
    # create_graph: masked_select_backward writes grad into zeros with masked_scatter_
    f"y = x.masked_select({MASK}); go = T.ones(9, requires_grad=True);"
    " g, = T.autograd.grad(y, x, go, create_graph=True); out = [g, _graph(g), g.grad_fn._saved_source_sym_sizes,"
    " list(T.autograd.grad((g * g).sum(), go))]",
])
def test_masked_select_backward_nodes_and_double_backward(program):
    assert_same(_run(program))


@pytest.mark.parametrize("program", [
    "out = [_x(T).masked_select(T.tensor([1, 0, 1, 0]))]",
    "out = [_x(T).masked_select(T.tensor([1, 0, 1, 0], dtype=T.uint8))]",
    "out = [_x(T).masked_select(T.tensor([True, False]))]",
    "out = [T.masked_select(_x(T), T.ones(2, 4, dtype=T.bool))]",
])
def test_masked_select_bad_input(program):
    assert_same(_run(program))


# ----------------------------------------------------------------------------- masked_scatter


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_masked_scatter_values_dtype_and_layout(dtype):
    def prog(T):
        x = _x(T, dtype)
        source = T.arange(20).reshape(4, 5).to(x.dtype)
        mask = T.tensor([True, False, True, True])
        z = x.clone()
        z.masked_scatter_(mask, source)
        return (_layout(x.masked_scatter(mask, source)), _layout(T.masked_scatter(x.t(), x.t() != 0, source)),
                _layout(x[:1].masked_scatter(T.ones(3, 4, dtype=T.bool), source)), z)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    f"s = T.arange(10.0, requires_grad=True); y = x.masked_scatter({MASK}, s); out = [y, _node(y),"
    " y.grad_fn._saved_mask, y.grad_fn._saved_source_sym_sizes]",
    f"s = T.arange(10.0, requires_grad=True); y = x.masked_scatter({MASK}, s);"
    " out = list(T.autograd.grad((y * y).sum(), [x, s]))",
    f"s = T.arange(10.0, requires_grad=True); z = x * 1; z.masked_scatter_({MASK}, s); out = [z, _node(z),"
    " list(T.autograd.grad((z * z).sum(), [x, s]))]",
    # the source's gradient: grad where the mask is true, padded with zeros to the source's size
    f"s = T.arange(10.0, requires_grad=True); y = x.masked_scatter({MASK}, s); go = T.ones(3, 4, requires_grad=True);"
    " gx, gs = T.autograd.grad(y, [x, s], go, create_graph=True); out = [gx, _graph(gx), gs, _graph(gs),"
    " list(T.autograd.grad((gs * gs).sum() + (gx * gx).sum(), go))]",
    "s = T.arange(6.0, requires_grad=True).reshape(2, 3); y = x.masked_scatter(x > 0, s);"
    " out = [T.autograd.grad(y.sum(), s)]",
])
def test_masked_scatter_gradients_and_nodes(program):
    assert_same(_run(program))


@pytest.mark.parametrize("program", [
    "out = [_x(T).masked_scatter(T.tensor([1, 0, 1, 0]), T.ones(12))]",
    "out = [_x(T).masked_scatter(T.tensor([True, False, True, False]), T.ones(3))]",
    "out = [_x(T).masked_scatter(T.tensor([True, False, True, False]), T.ones(6, dtype=T.float64))]",
    "out = [_x(T)[:1].masked_scatter_(T.ones(3, 4, dtype=T.bool), T.ones(12))]",
    "out = [_x(T).masked_scatter(T.ones(2, 4, dtype=T.bool), T.ones(12))]",
])
def test_masked_scatter_bad_input(program):
    assert_same(_run(program))


# ----------------------------------------------------------------------------- masked_fill with a tensor value


def test_masked_fill_tensor_value_gradient_records_masked_select():
    """PyTorch sums the value's gradient with ``grad.masked_select(mask).sum()`` (``masked_fill_backward``)."""
    def prog(T):
        x, v = _x(T, requires_grad=True), T.tensor(5.0, requires_grad=True)
        y = x.masked_fill(T.tensor([True, False, True, False]), v)
        go = T.ones(3, 4, requires_grad=True)
        gx, gv = T.autograd.grad(y, [x, v], go, create_graph=True)
        return gx, gv, _graph(gx), _graph(gv), gv.grad_fn._saved_self_sym_sizes, T.autograd.grad(gv, go)
    assert_same(prog)


# ----------------------------------------------------------------------------- take and put_


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_take_values_dtype_and_layout(dtype):
    def prog(T):
        x = _x(T, dtype)
        index = T.tensor([[0, 5], [11, -1]])
        return (_layout(x.take(index)), _layout(T.take(x.t(), index)), _layout(x.take(T.tensor(3))),
                _layout(x.take(T.tensor([], dtype=T.int64))), _layout(x[:, ::2].take(T.tensor([1, 2, 5]))))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    "i = T.tensor([[0, 5], [5, -1]]); y = x.take(i); out = [y, _node(y), y.grad_fn._saved_index,"
    " y.grad_fn._saved_self, list(T.autograd.grad((y * y).sum(), x))]",
    # its gradient adds into zeros with put_(accumulate=True): PutBackward0 in a create_graph graph
    "i = T.tensor([[0, 5], [5, -1]]); y = x.take(i); go = T.ones(2, 2, requires_grad=True);"
    " g, = T.autograd.grad(y, x, go, create_graph=True); f = g.grad_fn;"
    " out = [g, _graph(g), f._saved_accumulate, f._saved_index, f._saved_source, T.autograd.grad((g * g).sum(), go)]",
    "y = x.t().take(T.tensor([1, 2, 3])); out = [y, list(T.autograd.grad((y * y).sum(), x))]",
])
def test_take_backward_nodes_and_double_backward(program):
    assert_same(_run(program))


@pytest.mark.parametrize("program", [
    "z = _x(T); z.put_(T.tensor([0, 5, -1]), T.tensor([7.0, 8.0, 9.0])); out = [z]",
    "z = _x(T); z.put_(T.tensor([0, 0, 5]), T.tensor([7.0, 8.0, 9.0]), accumulate=True); out = [z]",
    "z = _x(T).t(); z.put_(T.tensor([[1], [2]]), T.tensor([7.0, 8.0])); out = [z, z.stride()]",
    "out = [_layout(T.put(_x(T).t(), T.tensor([1, 2]), T.tensor([7.0, 8.0]))),"
    " _x(T).put(T.tensor([3]), T.tensor([1.0]), True)]",
    # put_'s own gradients, and put's (a clone, then put_)
    "s = T.tensor([7.0, 8.0], requires_grad=True); z = x * 1; z.put_(T.tensor([1, 1]), s); y = z * z;"
    " out = [_node(z), z.grad_fn._saved_accumulate, list(T.autograd.grad(y.sum(), [x, s]))]",
    "s = T.tensor([7.0, 8.0], requires_grad=True); y = x.put(T.tensor([1, 4]), s, accumulate=True);"
    " out = [_graph(y), list(T.autograd.grad((y * y).sum(), [x, s]))]",
])
def test_put(program):
    assert_same(_run(program))


@pytest.mark.parametrize("program", [
    "out = [_x(T).take(T.tensor([[0, 13]]))]",
    "out = [_x(T).take(T.tensor([0, -13]))]",
    "out = [_x(T).take(T.tensor([0], dtype=T.int32))]",
    "out = [_x(T).take(T.tensor([0.0]))]",
    "out = [T.tensor([]).take(T.tensor([0]))]",
    "out = [_x(T).put_(T.tensor([0, 13]), T.tensor([1.0, 2.0]))]",
    "out = [_x(T).put_(T.tensor([0, 1]), T.tensor([1.0, 2.0, 3.0]))]",
    "out = [_x(T).put_(T.tensor([0, 1]), T.tensor([1.0, 2.0], dtype=T.float64))]",
    "out = [_x(T).put_(T.tensor([0, 1], dtype=T.int32), T.tensor([1.0, 2.0]))]",
    "out = [T.tensor([]).put_(T.tensor([0]), T.tensor([1.0]))]",
])
def test_take_and_put_bad_input(program):
    assert_same(_run(program))


# ----------------------------------------------------------------------------- diagonal


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("args", [(), (1,), (-1,), (3,), (4,), (-3,), (5,), (0, 1, 0), (1, -1, -2)])
def test_diagonal_is_a_view_with_torchs_strides(dtype, args):
    def prog(T):
        x = _x(T, dtype)
        d, dt = x.diagonal(*args), T.diagonal(x.t(), *args)
        return _layout(d), d._base is x, _layout(dt), dt._base is x
    assert_same(prog)


def test_diagonal_of_a_batch_writes_through_and_empty():
    def prog(T):
        x = T.arange(24.0).reshape(2, 3, 4)
        d = x.diagonal(1, 0, 2)
        d.mul_(-1)
        return (_layout(d), x, _layout(x.diagonal(0, -1, -2)), _layout(T.zeros(0, 3).diagonal()),
                _layout(T.zeros(3, 0, 2).diagonal(dim1=1, dim2=2)))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    "y = x.diagonal(1); out = [y, _node(y), y.grad_fn._saved_offset, y.grad_fn._saved_dim1, y.grad_fn._saved_dim2,"
    " y.grad_fn._saved_self_sym_sizes, list(T.autograd.grad((y * y).sum(), x))]",
    "y = x.diagonal(-1, 1, 0); out = [y, _node(y), y.grad_fn._saved_dim1, list(T.autograd.grad((y * y).sum(), x))]",
    # diagonal_backward is an op: its own node in a create_graph graph
    "y = x.diagonal(1); go = T.ones(3, requires_grad=True); g, = T.autograd.grad(y, x, go, create_graph=True);"
    " out = [g, _graph(g), g.grad_fn._saved_offset, list(T.autograd.grad((g * g).sum(), go))]",
    # writing into the view of a tensor in the graph
    "z = x * 1; d = z.diagonal(); d.mul_(2); out = [z, _node(z), list(T.autograd.grad((z * z).sum(), x))]",
])
def test_diagonal_backward_nodes_and_double_backward(program):
    assert_same(_run(program))


@pytest.mark.parametrize("program", [
    "out = [_x(T).diagonal(0, 1, 1)]",
    "out = [_x(T).diagonal(0, 1, -1)]",
    "out = [_x(T).diagonal(0, 2, 1)]",
    "out = [T.tensor(1.0).diagonal()]",
    "out = [T.ones(3).diagonal()]",
])
def test_diagonal_bad_input(program):
    assert_same(_run(program))


# ----------------------------------------------------------------------------- diag_embed and diag


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("args", [(), (1,), (-2,), (0, 0, 2), (1, 2, 0), (-1, -1, 1)])
def test_diag_embed_values_dtype_and_layout(dtype, args):
    def prog(T):
        x = _x(T, dtype)
        return _layout(x.diag_embed(*args)), _layout(T.diag_embed(x.t(), *args)), _layout(T.diag_embed(x[0], *args))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    "y = T.diag_embed(x, 1); out = [_layout(y), _node(y), y.grad_fn._saved_offset, y.grad_fn._saved_dim1,"
    " y.grad_fn._saved_dim2, list(T.autograd.grad((y * y).sum(), x))]",
    "y = x.diag_embed(0, 0, 2); go = T.ones(4, 3, 4, requires_grad=True);"
    " g, = T.autograd.grad(y, x, go, create_graph=True);"
    " out = [g, _graph(g), g.grad_fn._saved_self_sym_sizes, list(T.autograd.grad((g * g).sum(), go))]",
    "out = [T.diag_embed(T.tensor(1.0))]",
    "out = [T.diag_embed(_x(T), 0, 1, -2)]",
    "out = [T.diag_embed(_x(T), 0, 0, 3)]",
])
def test_diag_embed_gradients_and_bad_input(program):
    assert_same(_run(program))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("offset", [0, 1, -1, 3, -4])
def test_diag_values_dtype_and_layout(dtype, offset):
    def prog(T):
        x = _x(T, dtype)
        return _layout(T.diag(x, offset)), _layout(x.t().diag(offset)), _layout(T.diag(x[1], offset))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    # a matrix: diagonal_copy (its node is the view's with _copy appended), then diagonal_backward
    "y = T.diag(x, 1); go = T.ones(3, requires_grad=True); g, = T.autograd.grad(y, x, go, create_graph=True);"
    " f = y.grad_fn; out = [y, _node(y), f._saved_offset, f._saved_dim1, f._saved_dim2, f._saved_self_sym_sizes,"
    " g, _graph(g), list(T.autograd.grad((g * g).sum(), go))]",
    # a vector: diag_embed
    "v = x[0]; y = T.diag(v, -1); go = T.ones(5, 5, requires_grad=True);"
    " g, = T.autograd.grad(y, x, go, create_graph=True); f = y.grad_fn;"
    " out = [y, _node(y), f._saved_offset, f._saved_dim1, f._saved_dim2, g, _graph(g)]",
    "out = [_layout(T.diag(T.ones(0))), _layout(T.diag(T.ones(0, 2)))]",
    "out = [T.diag(T.ones(2, 3, 4))]",
    "out = [T.diag(T.tensor(1.0))]",
])
def test_diag_gradients_and_bad_input(program):
    assert_same(_run(program))


# ----------------------------------------------------------------------------- lerp


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("weight", [0.3, 0.5, -0.7, 0.9, 1.5, 1, "tensor", "zero-dim"])
def test_lerp_values_dtype_and_layout(dtype, weight):
    def prog(T):
        x = _x(T, dtype)
        end = T.tensor([2.0, -1.0, 0.25, 8.0], dtype=x.dtype)
        w = (T.tensor([0.2, 0.5, -0.6, 1.25], dtype=x.dtype) if weight == "tensor"
             else T.tensor(0.3, dtype=T.float64) if weight == "zero-dim" else weight)
        z = x.clone()
        z.lerp_(end, w)
        return (_layout(T.lerp(x, end, w)), _layout(x.t().lerp(end[:3], w if weight != "tensor" else w[:3])),
                z, _layout(T.lerp(x.t(), x.t(), w if weight != "tensor" else w[:3])))
    assert_same(prog, rtol=0, atol=0)


@pytest.mark.parametrize("weight", [0.3, 0.7, -0.4, "tensor"])
def test_lerp_float32_matches_bit_for_bit(weight):
    """PyTorch's CPU kernel rounds once per element (a fused multiply-add), from ``self`` for ``|w| < 0.5`` and from
    ``end`` otherwise: 1000 random elements, contiguous and strided, agree exactly."""
    rng = np.random.default_rng(7)
    start, end = rng.standard_normal(1000).astype(np.float32), (rng.standard_normal(1000) * 100).astype(np.float32)
    weights = rng.uniform(-1.5, 1.5, 1000).astype(np.float32)

    def prog(T):
        s, e = T.tensor(start.tolist()), T.tensor(end.tolist())
        w = T.tensor(weights.tolist()) if weight == "tensor" else weight
        strided = T.lerp(T.stack([s, s]).t(), T.stack([e, e]).t(), w if weight != "tensor" else w[:, None])
        return T.lerp(s, e, w), strided
    assert_same(prog, rtol=0, atol=0)


@pytest.mark.parametrize("program", [
    "e = T.ones(3, 4, requires_grad=True); y = T.lerp(x, e, 0.3); f = y.grad_fn; go = T.ones(3, 4, requires_grad=True);"
    " gx, ge = T.autograd.grad(y, [x, e], go, create_graph=True);"
    " out = [y, _node(y), f._saved_weight, gx, ge, _graph(gx), _graph(ge)]",
    "e = T.ones(3, 4, requires_grad=True); y = x.lerp(e, 2); out = [y.grad_fn._saved_weight,"
    " list(T.autograd.grad((y * y).sum(), [x, e]))]",
    "e = T.ones(3, 4, requires_grad=True); w = T.tensor([0.1, 0.6, -1.0, 2.0], requires_grad=True);"
    " y = T.lerp(x, e, w); f = y.grad_fn; go = T.ones(3, 4, requires_grad=True);"
    " gx, ge, gw = T.autograd.grad(y, [x, e, w], go, create_graph=True);"
    " out = [y, _node(y), f._saved_self, f._saved_end, f._saved_weight, gx, ge, gw, _graph(gx), _graph(ge),"
    " _graph(gw), list(T.autograd.grad((gx * gw).sum() + gw.sum(), [x, e, w, go]))]",
    "e = T.ones(4, requires_grad=True); w = T.tensor(0.25, requires_grad=True); z = x * 1; z.lerp_(e, w);"
    " out = [z, _node(z), list(T.autograd.grad((z * z).sum(), [x, e, w]))]",
    "e = T.ones(4, requires_grad=True); z = x * 1; z.lerp_(e, 0.75); out = [z, _node(z),"
    " list(T.autograd.grad((z * z).sum(), [x, e]))]",
    "y = T.empty(3, 4); out = [T.lerp(_x(T), T.ones(4), 0.3, out=y) is y, y,"
    " T.lerp(_x(T), T.ones(4), T.ones(4), out=y)]",
])
def test_lerp_backward_nodes_and_double_backward(program):
    assert_same(_run(program))


@pytest.mark.parametrize("program", [
    "out = [T.lerp(_x(T), T.ones(4, dtype=T.float64), 0.5)]",
    "out = [T.lerp(_x(T), T.ones(4), T.ones(4, dtype=T.float64))]",
    "out = [T.lerp(_x(T, 'int64'), T.ones(4, dtype=T.int64), 1)]",
    "out = [T.lerp(_x(T, 'int64'), T.ones(4, dtype=T.int64), T.ones(4, dtype=T.int64))]",
    "out = [T.ones(4).lerp_(_x(T), 0.5)]",
    "out = [T.lerp(_x(T), T.ones(4), T.ones(5))]",
    "out = [_x(T).lerp_(T.ones(4), T.ones(2, 3, 4))]",
])
def test_lerp_bad_input(program):
    assert_same(_run(program))
