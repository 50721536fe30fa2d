"""The fifth ops batch against PyTorch: trigonometric, hyperbolic and special functions (``tan`` ... ``atanh``,
``erfc``, ``erfinv``, ``sinc``, ``sgn``, ``signbit``, ``deg2rad``/``rad2deg``, ``lgamma``, ``digamma``, ``polygamma``),
the binary ``hypot``, ``logaddexp``/``logaddexp2``, ``xlogy``, ``fmax``/``fmin``, ``copysign``, ``float_power``, and
the aliases (``absolute``, ``arcsin`` ..., ``clip``, ``divide``, ``multiply``, ``subtract``, ``negative``,
``true_divide``, ``greater`` ... ``not_equal``).

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``, saved
values, gradients (double backward too), error types and texts. The expected values always come from torch.
Tolerances: float32 and float64 within the default ``rtol=1e-6`` (PyTorch's vectorised SLEEF functions and its
build's libm differ from NumPy's and C's by an ulp or two on some inputs; ``polygamma(n >= 4)`` by a few ulps, as
its ``n!`` comes from that libm's ``exp(lgamma(n + 1))``); float16 and bfloat16 within ``rtol=1e-2``.
"""

from __future__ import annotations

import pytest

from op_helpers import FLOATS, INTS, _graph, _layout, _node, _x
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.0, 1e-10, 30.0, -30.0, INF, -INF, NAN]


def _rtol(dtype):
    return 1e-2 if dtype in ("float16", "bfloat16") else 1e-6


# ----------------------------------------------------------------------------- unary ops

# name -> what the 3x4 data is mapped into before the op (the op's domain); ints take the data as it is
UNARY = {
    "tan": 1, "asin": 0.25, "acos": 0.25, "atan": 1, "sinh": 1, "cosh": 1, "asinh": 1, "acosh": None, "atanh": 0.25,
    "erfc": 1, "erfinv": 0.25, "sinc": 1, "sgn": 1, "deg2rad": 1, "rad2deg": 1, "lgamma": 1, "digamma": 1,
}


def _domain(T, name, dtype, requires_grad=False):
    x = _x(T, dtype)
    if dtype in FLOATS:
        scale = UNARY[name]
        x = x.abs() + 1.25 if scale is None else x * scale
        x = x.detach().requires_grad_(requires_grad)
    return x


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_values_dtype_and_layout(name, dtype):
    def prog(T):
        x = _domain(T, name, dtype)
        return (_layout(getattr(T, name)(x)), _layout(getattr(x, name)()), _layout(getattr(T, name)(x.t())),
                _layout(getattr(x[:, ::2], name)()))
    assert_same(prog, rtol=_rtol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(UNARY) + ["signbit"])
def test_unary_edge_values(name, dtype):
    """0, -0, the domain's edges and beyond (asin(1.5), acosh(0.5), atanh(+-1), erfinv(+-1)), poles, inf, NaN."""
    def prog(T):
        return getattr(T, name)(T.tensor(EDGES, dtype=getattr(T, dtype)))
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_functions_on_many_values(dtype):
    """float32 within 2e-6: near digamma's root (x = 1.46...) its float32 sums cancel, and PyTorch's compiled kernel
    fuses the series' multiply-adds, so a few ulps of the terms show."""
    def prog(T):
        x = T.tensor(_SPREAD, dtype=getattr(T, dtype))
        u = T.tensor(_UNIT, dtype=getattr(T, dtype))
        return (T.lgamma(x), T.digamma(x), T.polygamma(1, x), T.polygamma(2, x), T.polygamma(3, x), T.erfinv(u),
                T.erfc(x), T.sinc(x))
    assert_same(prog, rtol=2e-6 if dtype == "float32" else 1e-6)


_SPREAD = [((i * 7919) % 2000 - 1000) / 97.0 for i in range(400)] + [i / 131.0 for i in range(1, 200)]
_UNIT = [((i * 7919) % 2001 - 1000) / 1000.0 for i in range(400)]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_signbit(dtype):
    def prog(T):
        x = _x(T, dtype)
        return _layout(x.signbit()), _layout(T.signbit(x.t())), T.signbit(T.tensor([-0.0, 0.0, -NAN, NAN]))
    assert_same(prog)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_backward_node_saved_values_and_double_backward(name):
    def prog(T):
        x = _domain(T, name, "float64", requires_grad=True)
        y = getattr(T, name)(x)
        weights = T.arange(1.0, 13.0, dtype=T.float64).reshape(3, 4)
        g, = T.autograd.grad(y, x, weights, create_graph=True)
        g = g + 0 if name == "sgn" else g  # torch's sgn gradient is a ZeroTensor, which has no values to list
        saved = {a: getattr(y.grad_fn, a) for a in ("_saved_self", "_saved_result") if hasattr(y.grad_fn, a)}
        h = T.autograd.grad((g * g).sum(), x, allow_unused=True)[0] if g.requires_grad else None
        return y, _node(y), sorted(saved), list(saved.values()), g, _graph(g) if g.grad_fn else None, h
    assert_same(prog)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_float32_gradient(name):
    def prog(T):
        x = _domain(T, name, "float32", requires_grad=True)
        getattr(x, name)().sum().backward()
        return x.grad + 0
    assert_same(prog)


@pytest.mark.parametrize("name", [n for n in UNARY if n not in ("erfinv", "lgamma", "digamma", "sgn")] + [
    "erfinv_m", "lgamma_m", "digamma_m", "sgn_m"])
def test_unary_in_place_and_out(name):
    name, method_only = name.removesuffix("_m"), name.endswith("_m")
    def prog(T):
        a = _domain(T, name, "float32")
        b = _domain(T, name, "float64")
        getattr(a, name + "_")()
        if method_only:
            getattr(b, name + "_")()
        else:
            getattr(T, name + "_")(b)
        out = T.empty(3, 4)
        written = getattr(T, name)(_domain(T, name, "float32"), out=out)
        return a, b, written is out, out, hasattr(T, name + "_")
    assert_same(prog)


@pytest.mark.parametrize("name", ["tan", "sinc", "erfinv", "deg2rad", "lgamma", "digamma", "sgn", "cosh"])
def test_unary_in_place_records_the_op(name):
    def prog(T):
        w = _domain(T, name, "float64", requires_grad=True)
        c = w * 1
        getattr(c, name + "_")()
        c.sum().backward()
        return c, _node(c), w.grad + 0
    assert_same(prog)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh"])
def test_inverse_hyperbolic_in_place_has_no_derivative(name):
    def prog(T):
        w = T.tensor([1.5, 2.0], dtype=T.float64, requires_grad=True) / (4 if "tanh" in name else 1)
        c = w * 1
        getattr(c, name + "_")()
        return _node(c), c.sum().backward()
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.arange(3).tan_(),
    lambda T: T.tensor([True]).erfinv_(),
    lambda T: T.arange(3).deg2rad_(),
    lambda T: T.tan(T.ones(2), out=T.empty(2, dtype=T.int64)),
    lambda T: T.polygamma(-1, T.ones(2)),
    lambda T: T.ones(2).polygamma_(-2),
    lambda T: T.lgamma(1.0),
    lambda T: T.ones(2).sgn(1),
])
def test_unary_bad_input(program):
    assert_same(program)


# ----------------------------------------------------------------------------- polygamma


@pytest.mark.parametrize("dtype", FLOATS + INTS[:2])
@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_values(n, dtype):
    def prog(T):
        x = _x(T, dtype)
        return (_layout(T.polygamma(n, x)), _layout(x.polygamma(n)), _layout(T.polygamma(n, x.t())),
                T.polygamma(n, T.tensor(EDGES)))
    assert_same(prog, rtol=_rtol(dtype))


@pytest.mark.parametrize("n", [0, 1, 2])
def test_polygamma_backward_in_place_and_out(n):
    def prog(T):
        x = T.tensor([0.5, 1.5, 3.0, -0.25], dtype=T.float64, requires_grad=True)
        y = T.polygamma(n, x)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        h, = T.autograd.grad(g.sum(), x)
        c = x * 1
        c.polygamma_(n)
        gc, = T.autograd.grad(c.sum(), x)
        out = T.empty(4, dtype=T.float64)
        written = T.polygamma(n, x.detach(), out=out)
        return (y, _node(y), y.grad_fn._saved_n, y.grad_fn._saved_self, g, _graph(g), h, c, _node(c),
                c.grad_fn._saved_n, gc, written is out, out)
    assert_same(prog)


# ----------------------------------------------------------------------------- binary ops

BINARY = ["hypot", "logaddexp", "logaddexp2", "xlogy", "fmax", "fmin", "copysign", "float_power"]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_values_dtype_and_layout(name, dtype):
    def prog(T):
        x = _x(T, dtype)
        y = x.flip(0)
        fn = getattr(T, name)
        return (_layout(fn(x, y)), _layout(getattr(x, name)(y.t().t())), _layout(fn(x.t(), y.t())),
                _layout(fn(x[:, :1], y)), _layout(fn(x, T.tensor(2.0, dtype=T.float64))))
    assert_same(prog, rtol=_rtol(dtype))


@pytest.mark.parametrize("name", BINARY)
def test_binary_edge_values_and_mixed_dtypes(name):
    def prog(T):
        a = T.tensor([v for v in EDGES for _ in EDGES])
        b = T.tensor([v for _ in EDGES for v in EDGES])
        fn = getattr(T, name)
        # a NaN rounded to bfloat16 keeps its sign in picotorch; torch's conversion sets it (copysign would show it)
        low = b.nan_to_num(7.0) if name == "copysign" else b
        return (fn(a, b), fn(a.double(), b), fn(a.half(), low.bfloat16()), fn(T.tensor([1, 2]), T.tensor([3.0])),
                fn(T.tensor([True, False]), T.tensor([2, 0], dtype=T.int8)))
    assert_same(prog)


@pytest.mark.parametrize("name", BINARY)
def test_binary_backward_nodes_broadcast_and_double_backward(name):
    def prog(T):
        x = T.tensor([[1.5, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 0.0]], dtype=T.float64, requires_grad=True)
        y = T.tensor([0.5, -1.0, 2.0, 1.5], dtype=T.float64, requires_grad=True)
        if name in ("xlogy", "float_power"):
            x, y = x, y.abs()
        z = getattr(T, name)(x, y)
        weights = T.arange(8.0, dtype=T.float64).reshape(2, 4)
        gx, gy = T.autograd.grad(z, (x, y), weights, create_graph=True)
        saved = {a: getattr(z.grad_fn, a) for a in dir(z.grad_fn) if a.startswith("_saved_")}
        h = T.autograd.grad((gx * gx).sum() + (gy * gy).sum(), (x, y), allow_unused=True) \
            if gx.requires_grad or gy.requires_grad else None
        return (z, _node(z), sorted(saved), list(saved.values()), gx, gy,
                [_graph(g) if g.grad_fn else None for g in (gx, gy)], h)
    assert_same(prog)


def test_binary_scalar_overloads():
    def prog(T):
        x = T.tensor([0.0, 1.5, -2.0, 3.0], dtype=T.float64, requires_grad=True)
        results = []
        for z in (T.xlogy(2, x.abs()), T.xlogy(x, 2), T.xlogy(x, -1.0), T.xlogy(x, 0), x.xlogy(0.5),
                  T.copysign(x, -1.0), x.copysign(0.0), T.float_power(x, 2), T.float_power(2, x), x.float_power(0.5),
                  T.xlogy(3, T.arange(3))):
            g = T.autograd.grad(z.sum(), x, create_graph=True, allow_unused=True)[0] if z.requires_grad else None
            results.append((z, _node(z) if z.grad_fn else None, g, _graph(g) if g is not None and g.grad_fn else g))
        return results
    assert_same(prog)


def test_float_power_of_float32_goes_through_to_copy():
    def prog(T):
        x = T.tensor([1.5, 2.0, 0.5], requires_grad=True)
        y = T.tensor([2.0, -1.0, 0.5], dtype=T.float16, requires_grad=True)
        z = T.float_power(x, y)
        z.sum().backward()
        return z, _node(z), _node(T.float_power(x, 3)), x.grad, y.grad
    assert_same(prog)


def test_binary_in_place_and_out():
    def prog(T):
        a = _x(T)
        a.hypot_(T.tensor([1.0, -1.0, 2.0, 0.5]))
        b = _x(T, "float64")
        b.xlogy_(T.tensor(2.0))
        T.xlogy_(b, 3)
        c = _x(T)
        c.copysign_(T.tensor([1.0, -1.0, 0.0, -0.0]))
        c.copysign_(-2)
        d = _x(T, "float64").abs()
        d.float_power_(2)
        d.float_power_(T.tensor(0.5))
        w = _x(T, "float64", requires_grad=True)
        e = w * 1
        e.hypot_(T.ones(4, dtype=T.float64))
        e.xlogy_(T.full((4,), 2.0, dtype=T.float64))
        e.copysign_(T.tensor([-1.0, 1.0, -1.0, 1.0], dtype=T.float64))
        e.sum().backward()
        outs = []
        for name in ("hypot", "logaddexp", "logaddexp2", "xlogy", "fmax", "fmin", "copysign"):
            out = T.empty(3, 4)
            outs.append((getattr(T, name)(_x(T), _x(T).flip(1), out=out) is out, out))
        out = T.empty(4)
        T.xlogy(2.0, T.tensor([1.0, 2.0, 0.0, 3.0]), out=out)
        out2 = T.empty(4)
        T.copysign(T.tensor([1.0, 2.0, 0.0, 3.0]), -1, out=out2)
        return a, b, c, d, e, _node(e), w.grad, outs, out, out2
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.hypot(T.arange(3), T.arange(3)),
    lambda T: T.logaddexp(T.tensor([True]), T.tensor([False])),
    lambda T: T.logaddexp2(T.arange(3), T.arange(3)),
    lambda T: T.hypot(T.ones(2), 1.0),
    lambda T: T.fmax(T.ones(2), 2),
    lambda T: T.logaddexp(1.0, T.ones(2)),
    lambda T: T.arange(3).xlogy_(T.ones(3)),
    lambda T: T.arange(3).copysign_(T.ones(3)),
    lambda T: T.ones(3).hypot_(T.ones(2, 3)),
    lambda T: T.ones(3).float_power_(2),
    lambda T: T.ones(3, dtype=T.float64).float_power_(T.ones(2)),
    lambda T: T.copysign(1.0, T.ones(2)),
    lambda T: T.fmin(T.ones(2), T.ones(3)),
    lambda T: T.xlogy(T.ones(2), T.ones(2), out=T.empty(2, dtype=T.int64)),
])
def test_binary_bad_input(program):
    assert_same(program)


def test_fmax_fmin_gradient_with_nans_and_ties():
    def prog(T):
        x = T.tensor([1.0, NAN, 2.0, NAN, 3.0], dtype=T.float64, requires_grad=True)
        y = T.tensor([NAN, 1.0, 2.0, NAN, -1.0], dtype=T.float64, requires_grad=True)
        out = []
        for fn in (T.fmax, T.fmin):
            z = fn(x, y)
            out.append((z, T.autograd.grad(z, (x, y), T.arange(1.0, 6.0, dtype=T.float64))))
        return out
    assert_same(prog)


def test_xlogy_gradient_where_self_is_zero():
    def prog(T):
        x = T.tensor([0.0, 0.0, 0.0, 1.0, 0.0], dtype=T.float64, requires_grad=True)
        y = T.tensor([0.0, -1.0, 2.0, 0.0, NAN], dtype=T.float64, requires_grad=True)
        z = T.xlogy(x, y)
        return z, T.autograd.grad(z.sum(), (x, y))
    assert_same(prog)


# ----------------------------------------------------------------------------- aliases

ALIASES = [
    ("absolute", lambda T, x: T.absolute(x), lambda x: x.absolute()),
    ("arcsin", lambda T, x: T.arcsin(x / 4), lambda x: (x / 4).arcsin()),
    ("arccos", lambda T, x: T.arccos(x / 4), lambda x: (x / 4).arccos()),
    ("arctan", lambda T, x: T.arctan(x), lambda x: x.arctan()),
    ("arcsinh", lambda T, x: T.arcsinh(x), lambda x: x.arcsinh()),
    ("arccosh", lambda T, x: T.arccosh(x.abs() + 1), lambda x: (x.abs() + 1).arccosh()),
    ("arctanh", lambda T, x: T.arctanh(x / 5), lambda x: (x / 5).arctanh()),
    ("negative", lambda T, x: T.negative(x), lambda x: x.negative()),
    ("clip", lambda T, x: T.clip(x, -1, 2.5), lambda x: x.clip(max=0.5)),
    ("clip_tensor", lambda T, x: T.clip(x, T.zeros(4), T.ones(4)), lambda x: x.clip(x * 0 + 0.5)),
    ("divide", lambda T, x: T.divide(x, x.flip(0)), lambda x: x.divide(2)),
    ("divide_mode", lambda T, x: T.divide(x, 0.5, rounding_mode="floor"),
     lambda x: x.divide(x.flip(1), rounding_mode="trunc")),
    ("true_divide", lambda T, x: T.true_divide(x, x.flip(0)), lambda x: x.true_divide(3)),
    ("multiply", lambda T, x: T.multiply(x, x.flip(0)), lambda x: x.multiply(2)),
    ("subtract", lambda T, x: T.subtract(x, x.flip(0), alpha=2), lambda x: x.subtract(1.5)),
    ("greater", lambda T, x: T.greater(x, 0.5), lambda x: x.greater(x.flip(1))),
    ("greater_equal", lambda T, x: T.greater_equal(x, 0.5), lambda x: x.greater_equal(x.flip(1))),
    ("less", lambda T, x: T.less(x, 0.5), lambda x: x.less(x.flip(1))),
    ("less_equal", lambda T, x: T.less_equal(x, 0.5), lambda x: x.less_equal(x.flip(1))),
    ("not_equal", lambda T, x: T.not_equal(x, 0.5), lambda x: x.not_equal(x.flip(1))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
@pytest.mark.parametrize("name, function, method", ALIASES, ids=[a[0] for a in ALIASES])
def test_alias_values_and_graph(name, function, method, dtype):
    def prog(T):
        x = _x(T, dtype, requires_grad=dtype == "float64")
        results = []
        for y in (function(T, x), method(x)):
            g = T.autograd.grad(y.sum(), x, allow_unused=True)[0] if y.requires_grad else None
            results.append((_layout(y), _node(y) if y.grad_fn else None, g))
        return results
    assert_same(prog, rtol=_rtol(dtype))


@pytest.mark.parametrize("name", ["absolute", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
                                  "negative", "clip", "divide", "multiply", "subtract", "true_divide"])
def test_alias_in_place_and_out(name):
    args = {"clip": (-0.5, 0.5), "divide": (T_ := 2.0,), "multiply": (T_,), "subtract": (T_,),
            "true_divide": (T_,)}.get(name, ())
    def prog(T):
        x = _x(T, "float64") / 5 + (1.5 if name == "arccosh" else 0)
        w = x.clone().requires_grad_()
        c = w * 1
        getattr(c, name + "_")(*args)
        c.sum().backward()
        out = T.empty(3, 4, dtype=T.float64)
        written = getattr(T, name)(x, *args, out=out)
        return c, _node(c), w.grad, written is out, out, hasattr(T, name + "_")
    assert_same(prog)


@pytest.mark.parametrize("name", ["greater", "greater_equal", "less", "less_equal", "not_equal"])
def test_comparison_alias_out(name):
    def prog(T):
        x = _x(T)
        out = T.empty(3, 4, dtype=T.bool)
        out2 = T.empty(3, 4, dtype=T.bool)
        return getattr(T, name)(x, 0.5, out=out) is out, out, getattr(T, name)(x, x.flip(0), out=out2), out2
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.clip(T.ones(2)),
    lambda T: T.divide(T.ones(2), T.ones(2), rounding_mode="round"),
    lambda T: T.subtract(T.tensor([True]), T.tensor([True])),
    lambda T: T.negative(T.tensor([True])),
    lambda T: T.absolute(T.tensor([True])),
    lambda T: T.greater(T.ones(2), T.ones(3)),
    lambda T: T.arange(3).arcsin_(),
    lambda T: T.multiply(T.ones(2)),
])
def test_alias_bad_input(program):
    assert_same(program)
