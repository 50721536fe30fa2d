"""The ops batch against PyTorch: ``square``, ``prod``, ``cumsum``, ``tril``/``triu``, ``erf``, the activations
``softplus``/``leaky_relu``/``elu``/``hardtanh`` (functions and modules), ``movedim``/``swapaxes``/``swapdims``,
``outer``/``ger``, ``nn.functional.pad`` (mode 'constant') and ``nn.functional.normalize``.

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``, saved
values, gradients (double backward too), error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import math
import warnings

import pytest

from op_helpers import DATA, FLOATS, INT_DATA, INTS, _graph, _layout, _node, _x  # noqa: F401
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


# ----------------------------------------------------------------------------- square


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_square_values_dtype_and_layout(dtype):
    def prog(T):
        x = _x(T, dtype)
        return _layout(x.square()), _layout(T.square(x.t())), _layout(T.square(x[:, ::2]))
    assert_same(prog)


def test_square_is_pow_2_in_the_graph():
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        y = T.square(x)
        y.backward(T.ones_like(y))
        return y, _node(y), y.grad_fn._saved_exponent, x.grad
    assert_same(prog)


def test_square_in_place_and_out():
    def prog(T):
        x = _x(T, requires_grad=True)
        y = x * 1
        y.square_()
        y.sum().backward()
        out = T.empty(3, 4)
        written = T.square(_x(T), out=out)
        return y, _node(y), x.grad, written is out, out, T.square_(_x(T, "int64"))
    assert_same(prog)


def test_square_of_an_integer_in_place_stays_an_integer_and_a_bool_refuses():
    assert_same(lambda T: T.tensor([1, -3], dtype=T.int16).square_())
    assert_same(lambda T: T.tensor([True, False]).square_())


# ----------------------------------------------------------------------------- prod


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_prod_all_and_along_a_dim(dtype):
    def prog(T):
        x = _x(T, dtype)
        return (_layout(x.prod()), _layout(T.prod(x, 1)), _layout(x.prod(0, keepdim=True)),
                _layout(x.t().prod(-1)), _layout(x.prod(dim=-2, keepdim=False)))
    assert_same(prog, rtol=1e-3 if dtype in ("float16", "bfloat16") else 1e-6)


@pytest.mark.parametrize("dtype", ["int64", "int8", "bool"])
def test_prod_integer_promotes_to_int64_unless_dtype_given(dtype):
    def prog(T):
        x = T.tensor([[2, 3, 1], [1, 1, 2]], dtype=getattr(T, dtype))
        return (x.prod(), x.prod(1), x.prod(dtype=T.float32), x.prod(0, dtype=T.int16),
                T.prod(x, 1, True, dtype=T.float64))
    assert_same(prog)


def test_prod_of_empty_and_zero_dim_tensors():
    def prog(T):
        return (T.zeros(0, 3).prod(), T.zeros(0, 3).prod(0), T.zeros(0, 3).prod(1), T.tensor(2.5).prod(),
                T.tensor(2.5).prod(0), T.tensor(2.5).prod(-1, keepdim=True), T.tensor(7).prod())
    assert_same(prog)


def test_prod_backward_nodes_saved_values_and_gradients():
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        full, along = x.prod(), x.prod(-1)
        gx, = T.autograd.grad(full, x, retain_graph=True)
        gd, = T.autograd.grad(along, x, T.tensor([1.0, -2.0, 0.5], dtype=T.float64), retain_graph=True)
        fn = along.grad_fn
        return (_node(full), _node(along), fn._saved_dim, fn._saved_keepdim, fn._saved_self, fn._saved_result,
                full.grad_fn._saved_result, gx, gd)
    assert_same(prog)


@pytest.mark.parametrize("zeros", [[(0, 1)], [(0, 1), (2, 3)], [(0, 1), (0, 2)]])
def test_prod_gradient_with_zeros(zeros):
    def prog(T):
        x = _x(T, "float64")
        for i, j in zeros:
            x[i, j] = 0.0
        x.requires_grad_()
        g_all, = T.autograd.grad(x.prod(), x)
        g_dim, = T.autograd.grad(x.prod(1).sum(), x)
        g_keep, = T.autograd.grad(x.prod(0, keepdim=True).sum(), x)
        return g_all, g_dim, g_keep
    assert_same(prog)


def test_prod_with_dtype_casts_back_and_second_derivative():
    def prog(T):
        x = T.tensor([[1.5, -2.0], [0.5, 3.0]], requires_grad=True)
        y = x.prod(1, dtype=T.float64)
        y.sum().backward()
        w = T.tensor([1.5, -2.0, 0.5], dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(w.prod(), w, create_graph=True)
        h, = T.autograd.grad(g.sum(), w)
        return y, _node(y), x.grad, g, h
    assert_same(prog)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_prod_gradient_with_a_zero_in_a_large_tensor(dtype, dim):
    """The products of the others, from running products at both ends: bit for bit, in every float dtype."""
    def prog(T):
        x = (T.arange(600.0).reshape(20, 30) / 601 + 0.6).to(getattr(T, dtype))
        x[7, 11] = 0
        x.requires_grad_()
        y = x.prod() if dim is None else x.prod(dim)
        y.backward(T.ones_like(y))
        return x.grad
    assert_same(prog, rtol=0, atol=0)


@pytest.mark.parametrize("values", [[1.5, 0.0, 2.0, -1.0], [0.0, 2.0, 0.0, 3.0], [[2.0, 0.0], [1.5, -1.0]]])
def test_prod_second_derivative_with_zeros(values):
    """Values (the graph, built from ``cumprod``, is compared in test_ops_batch2_vs_torch.py)."""
    def prog(T):
        w = T.tensor(values, dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(w.prod(), w, create_graph=True)
        h, = T.autograd.grad(g.sum(), w)
        g1, = T.autograd.grad(w.prod(-1).sum(), w, create_graph=True)
        h1, = T.autograd.grad((g1 * g1).sum(), w)
        return g.detach(), h, g1.detach(), h1
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: _x(T).prod(2),
    lambda T: _x(T).prod(-3),
    lambda T: _x(T).prod((0, 1)),
    lambda T: T.tensor(1.0).prod(1),
    lambda T: _x(T).prod(0, dtype=T.int64).dtype,
])
def test_prod_bad_input(program):
    assert_same(program)


def test_prod_out():
    def prog(T):
        out = T.empty(3)
        written = T.prod(_x(T), 1, out=out)
        return written is out, out
    assert_same(prog)


# ----------------------------------------------------------------------------- cumsum


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_cumsum_values_dtype_and_layout(dtype, dim):
    def prog(T):
        x = _x(T, dtype)
        return _layout(x.cumsum(dim)), _layout(T.cumsum(x.t(), dim)), _layout(x.cumsum(dim=dim, dtype=T.float64))
    assert_same(prog, rtol=1e-3 if dtype in ("float16", "bfloat16") else 1e-6)


def test_cumsum_backward_node_and_gradient():
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        y = x.cumsum(-1)
        weights = T.arange(12, dtype=T.float64).reshape(3, 4)
        (y * weights).sum().backward()
        return y, _node(y), y.grad_fn._saved_dim, x.grad
    assert_same(prog)


def test_cumsum_with_dtype_and_double_backward():
    def prog(T):
        x = T.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        y = x.cumsum(1, dtype=T.float64)
        g, = T.autograd.grad(y, x, T.tensor([[1.0, -1.0, 2.0]], dtype=T.float64), create_graph=True)
        return y, _node(y), g, _graph(g) if g.grad_fn is not None else None, T.tensor(2.0).cumsum(0)
    assert_same(prog)


def test_cumsum_in_place_and_out():
    def prog(T):
        a = T.tensor([[1, 2], [3, 4]], dtype=T.int32)
        a.cumsum_(0)
        b = _x(T)
        b.cumsum_(1)
        out = T.empty(3, 4)
        written = T.cumsum(_x(T), 0, out=out)
        return a, b, written is out, out
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: _x(T).cumsum_(0, dtype=T.float64),
    lambda T: _x(T, "int32").cumsum_(1, dtype=T.int64),
    lambda T: _x(T).cumsum(2),
    lambda T: _x(T).cumsum(-3),
    lambda T: T.tensor(1.0).cumsum(1),
    lambda T: _x(T).cumsum(),
    lambda T: T.cumsum(_x(T), dim=0, dtype=T.int16),
])
def test_cumsum_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- tril, triu


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("diagonal", [0, 1, -1, 3, -5])
def test_tril_triu_values_dtype_and_layout(dtype, diagonal):
    def prog(T):
        x = _x(T, dtype)
        batch = x.expand(2, 3, 4)
        return (_layout(x.tril(diagonal)), _layout(T.triu(x, diagonal)), _layout(x.t().tril(diagonal=diagonal)),
                _layout(T.tril(batch, diagonal)), _layout(batch.triu(diagonal)))
    assert_same(prog)


def test_tril_triu_default_diagonal_nodes_and_gradients():
    def prog(T):
        x = _x(T, requires_grad=True)
        lower, upper = x.tril(), T.triu(x, 1)
        (lower * 2 + upper * 3).sum().backward()
        return lower, upper, _node(lower), _node(upper), lower.grad_fn._saved_diagonal, upper.grad_fn._saved_diagonal, \
            x.grad
    assert_same(prog)


def test_tril_keeps_nan_and_signed_zero_and_zeroes_the_rest():
    def prog(T):
        x = T.tensor([[math.nan, math.inf], [-0.0, math.nan]])
        return x.tril(), x.triu(), x.triu().tolist(), x.tril().tolist()
    assert_same(prog)


def test_tril_triu_in_place_and_out():
    def prog(T):
        a, b = _x(T), _x(T, "int64")
        a.tril_(-1)
        b.triu_()
        leaf = _x(T, requires_grad=True)
        c = leaf * 1
        c.triu_(1)
        c.sum().backward()
        out = T.empty(3, 4)
        written = T.tril(_x(T), 1, out=out)
        return a, b, c, _node(c), leaf.grad, written is out, out
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([1.0, 2.0]).tril(),
    lambda T: T.tensor(1.0).triu(),
    lambda T: T.tril(T.ones(3), 1),
])
def test_tril_triu_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- erf


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_erf_values_dtype_and_layout(dtype):
    def prog(T):
        x = _x(T, dtype)
        return _layout(x.erf()), _layout(T.erf(x.t()))
    assert_same(prog, rtol=1e-3 if dtype in ("float16", "bfloat16") else 1e-6)


def test_erf_special_values():
    assert_same(lambda T: T.erf(T.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 6.0, -1e-30], dtype=T.float64)))


def test_erf_backward_node_gradient_and_double_backward():
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        y = x.erf()
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        h, = T.autograd.grad(g.sum(), x)
        return y, _node(y), y.grad_fn._saved_self, g, _graph(g), h
    assert_same(prog)


def test_erf_in_place_and_out():
    def prog(T):
        a = _x(T)
        T.erf_(a)
        b = _x(T, "float64")
        b.erf_()
        out = T.empty(3, 4)
        return a, b, T.erf(_x(T), out=out) is out, out
    assert_same(prog)


def test_erf_in_place_of_an_integer_refuses():
    assert_same(lambda T: T.tensor([1, 2]).erf_())


# ----------------------------------------------------------------------------- activations


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,kwargs", [
    ("softplus", {}), ("softplus", {"beta": 2, "threshold": 3}), ("softplus", {"beta": 0.5, "threshold": 1.0}),
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("leaky_relu", {"negative_slope": -1.5}),
    ("elu", {}), ("elu", {"alpha": 0.5}), ("elu", {"alpha": 2}),
    ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}), ("hardtanh", {"min_val": 0, "max_val": 1}),
])
def test_activation_values_nodes_and_gradients(dtype, name, kwargs):
    def prog(T):
        x = _x(T, dtype, requires_grad=True)
        y = getattr(T.nn.functional, name)(x, **kwargs)
        z = getattr(T.nn.functional, name)(x.t(), **kwargs)
        (y * T.arange(12.0).reshape(3, 4).to(y.dtype)).sum().backward()
        return _layout(y), _layout(z), _node(y), x.grad
    assert_same(prog, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-6)


def test_activation_saved_values():
    def prog(T):
        F = T.nn.functional
        x = _x(T, requires_grad=True)
        sp, lr, el, ht = F.softplus(x, 2, 5), F.leaky_relu(x, 0.25), F.elu(x, 0.5), F.hardtanh(x, -0.5, 2)
        return (sp.grad_fn._saved_beta, sp.grad_fn._saved_threshold, sp.grad_fn._saved_self,
                lr.grad_fn._saved_negative_slope, el.grad_fn._saved_alpha, el.grad_fn._saved_scale,
                el.grad_fn._saved_input_scale, ht.grad_fn._saved_min_val, ht.grad_fn._saved_max_val)
    assert_same(prog)


def test_softplus_threshold_takes_the_linear_branch():
    def prog(T):
        x = T.tensor([-100.0, -20.0, 0.0, 9.99, 10.0, 10.01, 30.0, 100.0], requires_grad=True)
        y = T.nn.functional.softplus(x, beta=2, threshold=20)
        y.sum().backward()
        return y, x.grad, T.nn.functional.softplus(x.detach().double())
    assert_same(prog)


@pytest.mark.parametrize("name", ["softplus", "leaky_relu", "elu", "hardtanh"])
def test_activation_special_values(name):
    def prog(T):
        x = T.tensor([0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0], dtype=T.float64, requires_grad=True)
        y = getattr(T.nn.functional, name)(x)
        y.backward(T.ones_like(y))
        return y, x.grad
    assert_same(prog)


@pytest.mark.parametrize("name", ["softplus", "leaky_relu", "elu", "hardtanh"])
def test_activation_double_backward(name):
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        y = getattr(T.nn.functional, name)(x)
        g, = T.autograd.grad((y * y).sum(), x, create_graph=True)
        h, = T.autograd.grad(g.sum(), x)
        return g, _graph(g), h
    assert_same(prog)


@pytest.mark.parametrize("name,args", [("leaky_relu", (0.2,)), ("elu", (0.5,)), ("hardtanh", (-0.5, 2.0))])
def test_activation_in_place(name, args):
    def prog(T):
        F = T.nn.functional
        x = _x(T, requires_grad=True)
        y = x * 1
        z = getattr(F, name)(y, *args, inplace=True)
        (z * T.arange(12.0).reshape(3, 4)).sum().backward()
        w = _x(T)
        getattr(F, name + "_")(w, *args)
        return z is y, y, _node(y), [n for n in dir(y.grad_fn) if n.startswith("_saved")], x.grad, w
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.leaky_relu(_x(T, requires_grad=True) * 1, -0.5, inplace=True).sum().backward(),
    lambda T: T.nn.functional.elu(_x(T, requires_grad=True) * 1, -0.5, inplace=True).sum().backward(),
    lambda T: T.nn.functional.hardtanh(_x(T), 2.0, 1.0),
    lambda T: T.nn.functional.elu(_x(T, requires_grad=True), -0.5).sum().backward(),
])
def test_activation_in_place_negative_slope_and_bounds_errors(program):
    assert_same(program)


@pytest.mark.parametrize("name", ["softplus", "leaky_relu", "elu", "hardtanh"])
@pytest.mark.parametrize("dtype", INTS)
def test_activation_integer_inputs(name, dtype):
    assert_same(lambda T: getattr(T.nn.functional, name)(T.tensor([[-2, 0, 3]]).to(getattr(T, dtype))))


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.hardtanh(T.tensor([-3, 0, 2, 5]), -1.7, 2.9),
    lambda T: T.nn.functional.hardtanh(T.tensor([1, 5], dtype=T.uint8), 0, 2),
    lambda T: T.nn.functional.hardtanh(T.tensor([1, 5], dtype=T.uint8), -1, 2),
    lambda T: T.nn.functional.hardtanh(T.tensor([-2.0, 0.5, 2.0], dtype=T.float16), 1.0, 1.0),
    lambda T: T._C._nn.hardtanh(T.tensor([-2.0, 0.5, 2.0]), 1.0, -1.0),
])
def test_hardtanh_bounds(program):
    assert_same(program)


def test_activation_modules_reprs_and_forward():
    def prog(T):
        nn = T.nn
        modules = [nn.Softplus(), nn.Softplus(2, 10), nn.Softplus(beta=0.5, threshold=1.5), nn.LeakyReLU(),
                   nn.LeakyReLU(0.2, True), nn.LeakyReLU(negative_slope=0.1), nn.ELU(), nn.ELU(0.5, True),
                   nn.Hardtanh(), nn.Hardtanh(-2, 2, True), nn.Hardtanh(0, 1), nn.Hardtanh(min_val=-0.5)]
        x = _x(T, requires_grad=True)
        outputs = [m(x * 1) for m in modules]
        seq = nn.Sequential(nn.Linear(4, 3), nn.LeakyReLU(), nn.Softplus(), nn.ELU(), nn.Hardtanh())
        return [repr(m) for m in modules], [(y, _node(y)) for y in outputs], repr(seq)
    assert_same(prog)


def test_hardtanh_module_deprecated_keywords_warn():
    def prog(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = T.nn.Hardtanh(min_value=-2.0, max_value=3)
        return repr(module), [(w.category.__name__, str(w.message)) for w in caught]
    assert_same(prog)


def test_hardtanh_module_refuses_empty_range():
    assert_same(lambda T: T.nn.Hardtanh(1.0, 1.0))
    assert_same(lambda T: T.nn.Hardtanh(2, -2))


# ----------------------------------------------------------------------------- movedim, swapaxes, swapdims


@pytest.mark.parametrize("source,destination", [
    (0, 2), (-1, 0), (1, 1), ((0, 1), (2, 0)), ([0, 2], [-1, -3]), ((), ()), ([2, 0, 1], [0, 1, 2]),
])
def test_movedim_is_a_permute(source, destination):
    def prog(T):
        x = T.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = x.movedim(source, destination)
        z = T.moveaxis(x, source, destination)
        y.backward(T.arange(24.0).reshape(y.shape))
        return _layout(y), _layout(z), _node(y), y.grad_fn._saved_dims, y._base is x, x.grad
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor(1.0, requires_grad=True).movedim(0, 0),
    lambda T: T.movedim(T.tensor(1.0, requires_grad=True), [], []),
    lambda T: T.zeros(2, 3, 4).movedim((0, 1), (2,)),
    lambda T: T.zeros(2, 3, 4).movedim((0, 0), (2, 1)),
    lambda T: T.zeros(2, 3, 4).movedim((0, 1), (1, 1)),
    lambda T: T.zeros(2, 3, 4).movedim((0, -3), (1, 2)),
    lambda T: T.zeros(2, 3, 4).movedim(3, 0),
    lambda T: T.zeros(2, 3, 4).moveaxis(0, -4),
])
def test_movedim_zero_dim_and_errors(program):
    def prog(T):
        y = program(T)
        return y, _node(y) if y.grad_fn is not None else None
    assert_same(prog)


@pytest.mark.parametrize("name", ["swapaxes", "swapdims"])
@pytest.mark.parametrize("dims", [(0, 2), (-1, 0), (1, 1)])
def test_swapaxes_swapdims_are_a_transpose(name, dims):
    def prog(T):
        x = T.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = getattr(x, name)(*dims)
        z = getattr(T, name)(x, *dims)
        y.backward(T.arange(24.0).reshape(y.shape))
        return _layout(y), _layout(z), _node(y), y.grad_fn._saved_dim0, y.grad_fn._saved_dim1, x.grad
    assert_same(prog)


def test_swapaxes_bad_dim_and_keywords():
    assert_same(lambda T: T.zeros(2, 3).swapaxes(0, 2))
    assert_same(lambda T: T.swapaxes(T.zeros(2, 3), axis0=1, axis1=0).shape)
    assert_same(lambda T: T.zeros(2, 3).swapdims(dim0=1, dim1=-2).shape)


# ----------------------------------------------------------------------------- outer, ger


@pytest.mark.parametrize("a_dtype,b_dtype", [("float32", "float32"), ("float64", "float32"), ("int64", "float32"),
                                             ("int64", "int32"), ("bool", "uint8")])
def test_outer_values_and_promotion(a_dtype, b_dtype):
    def prog(T):
        a = T.tensor([1, 2, 0]).to(getattr(T, a_dtype))
        b = T.tensor([3, 0, 1, 2]).to(getattr(T, b_dtype))
        return _layout(T.outer(a, b)), _layout(a.outer(b)), _layout(T.ger(a, b)), _layout(a.ger(b))
    assert_same(prog)


def test_outer_graph_and_gradients():
    def prog(T):
        a = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
        b = T.tensor([3.0, 0.5, -1.0, 2.0], requires_grad=True)
        y = T.outer(a, b)
        y.backward(T.arange(12.0).reshape(3, 4))
        strided = T.outer(T.arange(6.0)[::2], b)
        return y, _graph(y), a.grad, b.grad, _layout(strided), _graph(strided)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.outer(T.ones(2, 2), T.ones(3)),
    lambda T: T.outer(T.ones(2), T.tensor(3.0)),
    lambda T: T.ger(T.tensor(1.0), T.ones(2, 2)),
])
def test_outer_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- pad, normalize


@pytest.mark.parametrize("pad", [(1, 1), (0, 2), (2, 0, 1, 1), (1, 2, 0, 0, 1, 0), (-1, 2), (-1, -1), (0, 0),
                                 (-1, 1, 1, -1), (1, 1, 1, 1, 1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_pad_constant_values_layout_and_gradient(pad, dtype):
    def prog(T):
        x = T.arange(24).reshape(2, 3, 4).to(getattr(T, dtype))
        out = [_layout(T.nn.functional.pad(x, pad)), _layout(T.nn.functional.pad(x.transpose(1, 2), pad)),
               _layout(T.constant_pad_nd(x, pad, 1))]
        if dtype == "float32":
            leaf = x.clone().requires_grad_()
            y = T.nn.functional.pad(leaf, pad, value=-1.5)
            y.backward(T.arange(float(y.numel())).reshape(y.shape))
            out += [_layout(y), _node(y), y.grad_fn._saved_pad, leaf.grad]
        return out
    assert_same(prog)


def test_pad_value_and_mode_keywords():
    def prog(T):
        F = T.nn.functional
        x = T.tensor([[1, 2], [3, 4]])
        return (F.pad(x, (1, 1), value=2.7), F.pad(x, [1, 0], "constant", 5), F.pad(x.float(), (1, 1), mode="constant"),
                F.pad(x, pad=(0, 1, 1, 0), mode="constant", value=None), T.constant_pad_nd(x, [1, 1]))
    assert_same(prog)


def test_pad_double_backward():
    def prog(T):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = T.nn.functional.pad(x, (1, 2, 0, 1))
        g, = T.autograd.grad((y * y).sum(), x, create_graph=True)
        return g, _graph(g)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.pad(T.zeros(2, 3), (1,)),
    lambda T: T.nn.functional.pad(T.zeros(2, 3), (1, 1) * 3),
    lambda T: T.nn.functional.pad(T.zeros(2, 3), (-2, -2)),
    lambda T: T.nn.functional.pad(T.zeros(2, 3), (1, 2), mode="bogus"),
    lambda T: T.nn.functional.pad(T.zeros(2, 3), (1, 2), mode="reflect", value=1.0),
    lambda T: T.constant_pad_nd(T.zeros(2, 3), (1,)),
    lambda T: T.constant_pad_nd(T.zeros(2, 3), (1, 1) * 3),
    lambda T: T.constant_pad_nd(T.zeros(2, 3), (-4, 1)),
])
def test_pad_bad_input(program):
    assert_same(program)


@pytest.mark.parametrize("kwargs", [{}, {"p": 1}, {"dim": 0}, {"p": 3.0, "dim": -1}, {"eps": 10.0},
                                    {"p": math.inf, "dim": 1}])
def test_normalize_values_graph_and_gradient(kwargs):
    def prog(T):
        x = T.tensor([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [-1.0, 2.0, 2.0]], requires_grad=True)
        y = T.nn.functional.normalize(x, **kwargs)
        y.backward(T.arange(9.0).reshape(3, 3))
        return _layout(y), _graph(y), x.grad
    assert_same(prog)


def test_normalize_out_and_float64():
    def prog(T):
        x = T.tensor([[3.0, 4.0], [1.0, -1.0]], dtype=T.float64)
        out = T.empty(2, 2, dtype=T.float64)
        written = T.nn.functional.normalize(x, dim=0, out=out)
        return written is out, out, T.nn.functional.normalize(x[0], dim=0)
    assert_same(prog)
