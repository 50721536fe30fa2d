"""The second ops batch against PyTorch: ``cumprod`` (and ``prod``'s double backward, which PyTorch builds from it).

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``, saved
values, gradients (double backward too), error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import pytest

from op_helpers import DATA, FLOATS, INT_DATA, INTS, _graph, _layout, _node, _x  # noqa: F401
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


# ----------------------------------------------------------------------------- cumprod


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_cumprod_values_dtype_and_layout(dtype, dim):
    def prog(T):
        x = _x(T, dtype)
        return (_layout(x.cumprod(dim)), _layout(T.cumprod(x.t(), dim)),
                _layout(x.cumprod(dim=dim, dtype=T.float64)), _layout(T.cumprod(x[:, ::2], dim)))
    assert_same(prog, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-6)


def test_cumprod_of_empty_zero_dim_and_overflowing_tensors():
    def prog(T):
        big = T.full((40,), 3, dtype=T.int8)
        return (T.zeros(0, 3).cumprod(0), T.zeros(0, 3).cumprod(1), T.tensor(2.5).cumprod(0),
                T.tensor(7).cumprod(-1), T.full((200,), 10.0).cumprod(0), big.cumprod(0), big.cumprod(0, dtype=T.int8),
                T.tensor([True, True, False, True]).cumprod(0))
    assert_same(prog)


def test_cumprod_backward_node_saved_values_and_gradient():
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        y = x.cumprod(-1)
        weights = T.arange(12, dtype=T.float64).reshape(3, 4)
        (y * weights).sum().backward()
        fn = y.grad_fn
        return y, _node(y), fn._saved_dim, fn._saved_self, fn._saved_result, x.grad
    assert_same(prog)


@pytest.mark.parametrize("values", [
    [1.5, 0.0, 2.0, -1.0],
    [0.0, 2.0, 0.0, 3.0],
    [2.0, -1.0, 3.0, 0.0],
    [[2.0, 0.0, 4.0], [1.5, -1.0, 0.5]],
    [[0.0, 0.0, 4.0], [1.5, 0.0, 0.5]],
])
@pytest.mark.parametrize("dim", [0, -1])
def test_cumprod_gradient_with_zeros(values, dim):
    def prog(T):
        x = T.tensor(values, dtype=T.float64, requires_grad=True)
        y = x.cumprod(dim)
        weights = T.arange(1.0, y.numel() + 1, dtype=T.float64).reshape(y.shape)
        g, = T.autograd.grad(y, x, weights)
        return y, g
    assert_same(prog)


@pytest.mark.parametrize("values", [[1.5, -2.0, 0.5, 3.0], [1.5, 0.0, 2.0, -1.0], [[2.0, 0.0, 4.0], [0.0, 1.0, 0.0]]])
def test_cumprod_double_backward_graph_and_values(values):
    """With a zero, PyTorch records the products of the others position by position (a CopySlices node each)."""
    def prog(T):
        x = T.tensor(values, dtype=T.float64, requires_grad=True)
        y = x.cumprod(-1)
        weights = T.arange(1.0, y.numel() + 1, dtype=T.float64).reshape(y.shape)
        g, = T.autograd.grad(y, x, weights, create_graph=True)
        h, = T.autograd.grad((g * g).sum(), x)
        return g, _graph(g), h
    assert_same(prog)


def test_cumprod_with_dtype_casts_the_gradient_back():
    def prog(T):
        x = T.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        y = x.cumprod(1, dtype=T.float64)
        g, = T.autograd.grad(y, x, T.tensor([[1.0, -1.0, 2.0]], dtype=T.float64), create_graph=True)
        return y, _node(y), g, _graph(g)
    assert_same(prog)


def test_cumprod_in_place_and_out():
    def prog(T):
        a = T.tensor([[1, 2], [3, 4]], dtype=T.int32)
        a.cumprod_(0)
        b = _x(T)
        b.cumprod_(1)
        x = _x(T, requires_grad=True)
        c = x * 1
        c.cumprod_(0)
        c.sum().backward()
        out = T.empty(3, 4)
        written = T.cumprod(_x(T), 0, out=out)
        return a, b, c, _node(c), x.grad, written is out, out
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: _x(T).cumprod_(0, dtype=T.float64),
    lambda T: _x(T, "int32").cumprod_(1, dtype=T.int64),
    lambda T: _x(T).cumprod(2),
    lambda T: _x(T).cumprod(-3),
    lambda T: T.tensor(1.0).cumprod(1),
    lambda T: _x(T).cumprod(),
    lambda T: T.cumprod(_x(T), dim=0, dtype=T.int16),
])
def test_cumprod_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- prod's double backward


@pytest.mark.parametrize("values", [[1.5, 0.0, 2.0, -1.0], [0.0, 2.0, 0.0, 3.0], [[2.0, 0.0], [1.5, -1.0]]])
def test_prod_double_backward_with_zeros_records_cumprods(values):
    """PyTorch takes the products of the others from two exclusive ``cumprod``s: the same nodes here."""
    def prog(T):
        w = T.tensor(values, dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(w.prod(), w, create_graph=True)
        g1, = T.autograd.grad(w.prod(-1).sum(), w, create_graph=True)
        h1, = T.autograd.grad((g1 * g1).sum(), w)
        return g, _graph(g), g1, _graph(g1), h1
    assert_same(prog)


# ----------------------------------------------------------------------------- trace


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_trace_values_dtype_and_layout(dtype):
    def prog(T):
        x = _x(T, dtype)
        return _layout(x.trace()), _layout(T.trace(x.t())), _layout(x[:, ::2].trace()), _layout(x[:, :1].trace())
    assert_same(prog, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-6)


def test_trace_backward_node_saved_sizes_and_gradient():
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        y = x.trace()
        y.backward(T.tensor(2.5, dtype=T.float64))
        w = T.ones(4, 2, requires_grad=True)
        w.t().trace().backward()
        return y, _node(y), y.grad_fn._saved_self_sym_sizes, x.grad, w.grad, T.zeros(0, 3).trace()
    assert_same(prog)


def test_trace_double_backward_fills_the_diagonal_with_index_fill():
    def prog(T):
        x = T.arange(12.0, requires_grad=True).reshape(3, 4)
        g, = T.autograd.grad(x.trace() ** 2, x, create_graph=True)
        h, = T.autograd.grad((g * g).sum(), x)
        return g, _graph(g), h
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.ones(3).trace(),
    lambda T: T.ones(2, 2, 2).trace(),
    lambda T: T.tensor(1.0).trace(),
    lambda T: T.ones(2, 2, dtype=T.bool).trace(),
    lambda T: T.ones(3, dtype=T.bool).trace(),
])
def test_trace_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- index_fill


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8", "bool"])
def test_index_fill_values_and_layout(dtype):
    def prog(T):
        x = _x(T, dtype)
        index = T.tensor([2, 0, 2])
        return (_layout(x.index_fill(1, index, 1)), _layout(T.index_fill(x.t(), 0, index, T.tensor(0))),
                _layout(x.index_fill(0, T.tensor(1), 7)), _layout(x.index_fill(-1, T.tensor([-1]), 1)),
                _layout(x.index_fill(0, T.tensor([], dtype=T.int64), 1)))
    assert_same(prog)


def test_index_fill_in_place_number_casts_and_zero_dim():
    def prog(T):
        a = T.arange(3)
        a.index_fill_(0, T.tensor([1]), 2.7)
        b = T.arange(6.0).reshape(2, 3)
        b.t().index_fill_(1, T.tensor([0]), -1.0)
        return a, b, T.tensor(3.0).index_fill(0, T.tensor([0]), 1.0), T.tensor(3.0).index_fill(-1, T.tensor(0), 5)
    assert_same(prog)


def test_index_fill_gradients_and_nodes():
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        v = T.tensor(2.0, dtype=T.float64, requires_grad=True)
        y = x.index_fill(1, T.tensor([0, 2]), 5.0)
        z = x.index_fill(0, T.tensor([2, 0, 2]), v)
        weights = T.arange(12.0, dtype=T.float64).reshape(3, 4)
        gx, = T.autograd.grad((y * weights).sum(), x)
        gx2, gv = T.autograd.grad((z * weights).sum(), (x, v))
        w = x * 1
        w.index_fill_(1, T.tensor([3]), v)
        return _node(y), _node(z), gx, gx2, gv, _node(w), z.grad_fn._saved_dim, z.grad_fn._saved_index
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: _x(T).index_fill(1, T.tensor([0.0]), 1),
    lambda T: _x(T).index_fill(1, T.tensor([[0]]), 1),
    lambda T: _x(T).index_fill(1, T.tensor([4]), 1),
    lambda T: _x(T).index_fill(0, T.tensor([-4]), 1),
    lambda T: _x(T).index_fill(2, T.tensor([0]), 1),
    lambda T: _x(T).index_fill(0, T.tensor([0]), T.tensor([1.0, 2.0])),
    lambda T: _x(T).index_fill(0, T.tensor([0], dtype=T.int32), 1),
    lambda T: T.tensor(3.0).index_fill(1, T.tensor([0]), 1.0),
    lambda T: T.tensor([1, 2], dtype=T.uint8).index_fill(0, T.tensor([0]), -1),
])
def test_index_fill_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- atan2


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_atan2_values_dtype_and_layout(dtype):
    def prog(T):
        x = _x(T, dtype)
        y = x.flip(0)
        return (_layout(T.atan2(x, y)), _layout(x.atan2(y.t().t())), _layout(T.arctan2(x.t(), y.t())),
                _layout(x.atan2(T.tensor(2.0, dtype=T.float64))), _layout(T.atan2(x[:, :1], y)))
    assert_same(prog, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-6)


def test_atan2_mixed_dtypes_and_special_values():
    def prog(T):
        y = T.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), float("nan"), 0.0, -0.0])
        x = T.tensor([0.0, 0.0, float("-inf"), 0.0, float("inf"), 1.0, -0.0, -1.0])
        return (T.atan2(y, x), T.atan2(y.double(), x), T.atan2(T.tensor([1, 2]), T.tensor([3.0], dtype=T.float16)),
                T.atan2(T.tensor([True]), T.tensor([2], dtype=T.int8)))
    assert_same(prog)


def test_atan2_backward_nodes_broadcast_and_double_backward():
    def prog(T):
        y = _x(T, "float64", requires_grad=True)
        x = T.tensor([0.5, -1.0, 2.0, 1.5], dtype=T.float64, requires_grad=True)
        z = T.atan2(y, x)
        weights = T.arange(12.0, dtype=T.float64).reshape(3, 4)
        gy, gx = T.autograd.grad(z, (y, x), weights, create_graph=True)
        h = T.autograd.grad((gy * gy).sum() + (gx * gx).sum(), (y, x))
        only, = T.autograd.grad(T.atan2(y, x.detach()).sum(), y)
        return z, _node(z), z.grad_fn._saved_self, z.grad_fn._saved_other, gy, gx, _graph(gx), h, only
    assert_same(prog)


def test_atan2_in_place_and_out():
    def prog(T):
        a = _x(T)
        a.atan2_(T.tensor([1.0, -1.0, 2.0, 0.5]))
        b = _x(T, "float64")
        b.arctan2_(T.tensor(-1.0))
        w = _x(T, requires_grad=True)
        c = w * 1
        c.atan2_(T.ones(4))
        c.sum().backward()
        out = T.empty(3, 4)
        written = T.atan2(_x(T), _x(T).flip(1), out=out)
        out2 = T.empty(3, 4, dtype=T.float64)
        T.arctan2(_x(T), T.tensor(1.0), out=out2)
        return a, b, c, _node(c), w.grad, written is out, out, out2
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: _x(T, "int64").atan2_(T.tensor(1.0)),
    lambda T: _x(T).atan2_(T.ones(3, 1)),
    lambda T: T.atan2(_x(T), T.ones(2, 4)),
    lambda T: T.atan2(_x(T), 1.0),
    lambda T: _x(T).atan2(),
    lambda T: T.atan2(_x(T), _x(T), out=T.empty(3, 4, dtype=T.int64)),
])
def test_atan2_bad_input(program):
    assert_same(program)


def test_atan2_gradient_at_the_origin_and_when_squares_underflow():
    def prog(T):
        y = T.tensor([0.0, 1e-170, 1e-160, 1.0, 0.0], dtype=T.float64, requires_grad=True)
        x = T.tensor([0.0, 1e-170, 0.0, 0.0, -2.0], dtype=T.float64, requires_grad=True)
        gy, gx = T.autograd.grad(T.atan2(y, x).sum(), (y, x))
        s = T.tensor([0.0, 1e-30], requires_grad=True)
        g32, = T.autograd.grad(T.atan2(s, T.zeros(2)).sum(), s)
        return gy, gx, g32
    assert_same(prog)


# ----------------------------------------------------------------------------- logit

LOGIT_DATA = [-0.5, 0.0, 0.1, 0.5, 0.75, 1.0, 1.5, float("nan"), 0.3]
EPSES = [None, 0.2, 0.0, -1.0, 0.6, 1e-6]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("eps", EPSES)
def test_logit_values_dtype_and_layout(dtype, eps):
    def prog(T):
        x = _x(T, dtype) if dtype in INTS else (_x(T, dtype) / 4 + 0.5)
        z = T.tensor(LOGIT_DATA).to(getattr(T, dtype)) if dtype not in INTS else x
        return (_layout(x.logit(eps)), _layout(T.logit(x.t(), eps=eps)), _layout(x[:, ::2].logit(eps)),
                _layout(z.logit(eps)))
    assert_same(prog, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-6)


@pytest.mark.parametrize("eps", EPSES)
def test_logit_backward_node_gradient_and_double_backward(eps):
    """A plain backward runs PyTorch's kernel; under create_graph its ``where`` formula: they differ outside."""
    def prog(T):
        x = T.tensor(LOGIT_DATA, dtype=T.float64, requires_grad=True)
        y = T.logit(x, eps)
        weights = T.arange(1.0, 10.0, dtype=T.float64)
        g, = T.autograd.grad(y, x, weights, retain_graph=True)
        gg, = T.autograd.grad(y, x, weights, create_graph=True)
        h, = T.autograd.grad(gg[2:5].sum(), x)
        return y, _node(y), y.grad_fn._saved_eps, y.grad_fn._saved_self, g, gg, _graph(gg), h
    assert_same(prog)


def test_logit_float32_gradient_and_defaults():
    def prog(T):
        x = T.tensor([0.1, 0.25, 0.5, 0.9, 0.0], requires_grad=True)
        x.logit().sum().backward()
        return x.grad, T.logit(T.tensor(0.25)), T.tensor([0.2]).logit(eps=0), T.tensor([1, 0]).logit(0.25)
    assert_same(prog)


def test_logit_in_place_and_out():
    def prog(T):
        a = T.tensor([0.1, 0.5, 0.9, 1.2])
        a.logit_()
        b = T.tensor([0.1, 0.5, 0.9, 1.2], dtype=T.float64)
        T.logit_(b, 0.2)
        w = T.tensor([0.3, 0.6], requires_grad=True)
        c = w * 1
        c.logit_(1e-3)
        c.sum().backward()
        out = T.empty(4)
        written = T.logit(T.tensor([0.1, 0.5, 0.9, 1.2]), 0.05, out=out)
        return a, b, c, _node(c), w.grad, written is out, out
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.arange(3).logit_(),
    lambda T: T.logit(T.tensor([0.5]), out=T.empty(1, dtype=T.int64)),
    lambda T: T.tensor([True]).logit(),
])
def test_logit_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- masked_fill with a tensor value


@pytest.mark.parametrize("program", [
    "y = x.masked_fill(x > 0, v); out = [y, _node(y)]",
    "z = x * 1; z.masked_fill_(x > 0, v); out = [z, _node(z)]",
    "y = T.masked_fill(x, T.tensor([True, False, True, False]), v); out = [y, _node(y)]",
    "y = x.masked_fill(x > 0, v); out = list(T.autograd.grad((y * y).sum(), [x, v]))",
    "y = x.masked_fill(x > 0, v); gx, gv = T.autograd.grad((y * y).sum(), [x, v], create_graph=True);"
    " out = [gx, gv, _node(gx)]",
    "out = [_x(T, 'int64').masked_fill(_x(T, 'int64') > 1, T.tensor(7.5))]",
    "out = [_x(T, 'int8').masked_fill(_x(T, 'int8') > 1, T.tensor(300))]",
    "out = [_x(T).masked_fill(_x(T) > 0, T.tensor(2.0, dtype=T.float64))]",
    "out = [x.masked_fill(x > 0, T.ones(2))]",
    "out = [x.masked_fill(T.tensor([1, 0, 1, 0]), T.tensor(2.0))]",
    "z = T.ones(4); z.masked_fill_(T.tensor([[True, False, True, False]]), T.tensor(2.0)); out = [z]",
])
def test_masked_fill_with_a_tensor_value(program):
    """``masked_fill.Tensor`` / ``masked_fill_.Tensor`` (MaskedFillBackward1): a zero-dim value, written as its
    ``item()``; its gradient is the sum of the gradient where the mask is true."""
    def prog(T):
        scope = {"T": T, "x": _x(T, requires_grad=True), "v": T.tensor(5.0, requires_grad=True), "_x": _x,
                 "_node": _node}
        exec(program, scope)
        return scope["out"]
    assert_same(prog)
