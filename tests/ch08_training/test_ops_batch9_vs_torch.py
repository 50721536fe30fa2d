"""The ninth ops batch against PyTorch: the bitwise shifts (with ``<<``, ``>>``, ``<<=``, ``>>=`` and the reflected
forms), frexp, nextafter, i0, randint_like, the window functions, pixel_shuffle/pixel_unshuffle, channel_shuffle,
rms_norm (and their modules), and the Tensor conveniences (is_pinned, pin_memory, resize_, apply_...).

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``,
gradients, error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import math
import warnings

import pytest

from op_helpers import FLOATS, INTS, _graph, _layout, _x
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


# ----------------------------------------------------------------------------- bitwise_left_shift, bitwise_right_shift


@pytest.mark.parametrize("dtype", INTS + ["float32"])
@pytest.mark.parametrize("count", [0, 1, 7, 8, 9, 31, 32, 63, 64, 70, -1, 300, True, 2.5])
def test_shifts_by_a_number_count_past_the_width_and_negative(dtype, count):
    """BinaryOpsKernel.cpp: a count < 0 or >= the bit width shifts left to 0, right to the sign's fill."""
    assert_same(lambda T: (_layout(T.bitwise_left_shift(_x(T, dtype), count)), _layout(_x(T, dtype) >> count),
                           _layout(count << _x(T, dtype)), _layout(count >> _x(T, dtype))))


@pytest.mark.parametrize("dtype", INTS + ["float32"])
@pytest.mark.parametrize("other", INTS + ["float32"])
def test_shifts_of_tensors_promote_as_torch(dtype, other):
    assert_same(lambda T: (_layout(T.bitwise_right_shift(_x(T, dtype), _x(T, other))),
                           _layout(_x(T, dtype) << _x(T, other).t()[0:1].t()),
                           _x(T, dtype).bitwise_left_shift_(_x(T, other))))
    assert_same(lambda T: _x(T, dtype).bitwise_right_shift_(_x(T, other)))


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([5, -5, 1 << 62]) >> T.tensor([70, 63, -1]),
    lambda T: T.tensor([5, -5, 1 << 62]) << T.tensor([70, 63, 1]),
    lambda T: T.tensor([200, 1], dtype=T.uint8) >> T.tensor([8, 7], dtype=T.uint8),
    lambda T: (lambda z: (z.__ilshift__(2) is z, z, z.__irshift__(T.tensor([1, 3])), z))(T.tensor([1, 2])),
    lambda T: (lambda z: [z.__ilshift__(1), z.__irshift__(1)])(T.tensor([1, 2], dtype=T.int8)),
    lambda T: (lambda z: z.__ilshift__(T.tensor([1.0])))(T.tensor([1, 2])),
    lambda T: T.tensor([1]) << "a",
    lambda T: "a" << T.tensor([1]),
    lambda T: T.tensor([1]) >> None,
    lambda T: T.bitwise_left_shift(T.tensor([1, 2]), 1, out=T.empty(2, dtype=T.int32)),
    lambda T: T.bitwise_left_shift(T.tensor([1, 2]), T.tensor(1), out=T.empty(0, dtype=T.int8)),
    lambda T: T.bitwise_right_shift(T.tensor([1, 2]), T.tensor(1), out=T.empty(2)),
    lambda T: T.bitwise_left_shift(T.ones(2, requires_grad=True), 1),
    lambda T: _layout(T.bitwise_left_shift(3, T.tensor([1, 2], dtype=T.int8))),
    lambda T: T.bitwise_right_shift(-9, T.tensor([1, 2], dtype=T.uint8)),
    lambda T: T.bitwise_left_shift(2.5, T.tensor([1, 2])),
    lambda T: _layout(T.bitwise_left_shift(T.tensor(7), T.tensor([1, 2], dtype=T.int8))),
    lambda T: T.bitwise_left_shift(T.tensor([1, 2]), "x"),
    lambda T: (lambda a: a[1:].bitwise_left_shift_(a[:2]))(T.tensor([1, 2, 3])),
    lambda T: T.tensor([True, False]) << T.tensor([True, True]),
])
def test_shift_operators_out_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- frexp, nextafter, i0, special.i1

SPECIAL = [0., 1., -2.5, 1024., float("inf"), float("-inf"), float("nan"), 1e-310, -0.0, 3e-39, 0.1, 65504.0, 70000.]
BESSEL = [0., 1e-9, 1., -2.5, 10., 12., 14.9, 15., 15.1, 20., 50, 88., 88.7, 88.8, 89., 100., 700., 709., 710.,
          -89., -100., -710., float("inf"), float("-inf"), float("nan")]


def _saved(fn):
    return {name: getattr(fn, name) for name in dir(fn) if name.startswith("_saved")}


@pytest.mark.parametrize("dtype", FLOATS)
def test_frexp_values_names_and_layout(dtype):
    assert_same(lambda T: (lambda r: (type(r).__name__, _layout(r.mantissa), _layout(r.exponent), _layout(r[0]),
                                      len(r)))(T.frexp(T.tensor(SPECIAL, dtype=getattr(T, dtype)))))
    assert_same(lambda T: (lambda r: (_layout(r.mantissa), _layout(r.exponent)))(_x(T, dtype).t().frexp()))


@pytest.mark.parametrize("dtype", FLOATS)
def test_i0_and_i1_overflow_in_float32_opmath(dtype):
    """calc_i0/calc_i1 compute exp(|x|) in float32 for float32, float16 and bfloat16: inf from 88.72 on. Values
    within rtol 1e-6 (PyTorch's Chebyshev series, ours NumPy's and a power/asymptotic series)."""
    assert_same(lambda T: (_layout(T.i0(T.tensor(BESSEL, dtype=getattr(T, dtype)))),
                           _layout(T.special.i1(T.tensor(BESSEL, dtype=getattr(T, dtype)))),
                           _layout(T.special.i0(_x(T, dtype).t()))))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("other", FLOATS + ["int64"])
def test_nextafter_steps_one_bit_of_the_promoted_dtype(dtype, other):
    assert_same(lambda T: _layout(T.nextafter(
        T.tensor([1.0, 0.0, -0.0, -1.0, 2.0, float("inf"), float("nan"), 1.0, 3.0, 65504.0], dtype=getattr(T, dtype)),
        T.tensor([2.0, -1., 1., -2., 2., 0., 1., float("nan"), float("inf"), float("inf")], dtype=getattr(T, other)))))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_inputs(dtype):
    assert_same(lambda T: (_layout(T.i0(_x(T, dtype))), _layout(T.special.i1(_x(T, dtype)))))
    assert_same(lambda T: T.frexp(_x(T, dtype)))
    assert_same(lambda T: T.nextafter(_x(T, dtype), _x(T, dtype)))


def test_i0_graph_saved_and_double_backward():
    def prog(T):
        x = T.tensor([0., 1e-9, 1., -2.5, 10., 20.], dtype=T.float64, requires_grad=True)
        y = T.i0(x)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x, create_graph=True)
        return _graph(y), _saved(y.grad_fn), g, _graph(g), gg, _graph(gg), _graph(T.special.i0(x))
    assert_same(prog)


def test_frexp_graph_saved_exponent_and_double_backward():
    def prog(T):
        x = T.tensor([0., 3., -2.5, 1e-300, 1024.], dtype=T.float64, requires_grad=True)
        m, e = T.frexp(x)
        g, = T.autograd.grad(m, x, T.tensor([1., 2., 3., 4., 5.], dtype=T.float64, requires_grad=True),
                             create_graph=True)
        return _graph(m), _saved(m.grad_fn), e.requires_grad, e.grad_fn, g, _graph(g)
    assert_same(prog)


def test_nextafter_graph_and_gradients():
    def prog(T):
        x = T.tensor([1., 5., 2.], requires_grad=True)
        o = T.tensor([1., 0., float("nan")], dtype=T.float64, requires_grad=True)
        y = T.nextafter(x, o)
        gr = T.tensor([3., -2., 4.], dtype=T.float64, requires_grad=True)
        gx, go = T.autograd.grad(y, (x, o), gr, create_graph=True)
        return _graph(y), _saved(y.grad_fn), gx, go, _graph(gx), go.grad_fn, go.requires_grad
    assert_same(prog)

    def broadcast(T):
        x = T.tensor([[1., 5.]], requires_grad=True).expand(3, 2)
        o = T.tensor([1., 0.], requires_grad=True)
        gx, go = T.autograd.grad(T.nextafter(x, o).sum(), (x, o))
        return _layout(gx), _layout(go)
    assert_same(broadcast)


@pytest.mark.parametrize("program", [
    lambda T: T.frexp(T.tensor([1.]), out=(T.empty(1), T.empty(1, dtype=T.int64))),
    lambda T: T.frexp(T.tensor([1.]), out=(T.empty(1, dtype=T.float64), T.empty(1, dtype=T.int32))),
    lambda T: (lambda m, e: (T.frexp(T.tensor([3., 5.]), out=(m, e)), m, e))(T.empty(2), T.empty(2, dtype=T.int32)),
    lambda T: T.frexp(T.tensor([1.]), mantissa=T.empty(1), exponent=T.empty(1, dtype=T.int32)),
    lambda T: T.frexp(T.tensor([1.], requires_grad=True), out=(T.empty(1), T.empty(1, dtype=T.int32))),
    lambda T: T.nextafter(T.tensor([1.]), 2.0),
    lambda T: T.tensor([1.]).nextafter_(T.tensor([2.], dtype=T.float64)),
    lambda T: T.tensor([1.], dtype=T.float64).nextafter_(T.tensor([2.])),
    lambda T: T.nextafter(T.tensor([1.]), T.tensor([2.]), out=T.empty(1, dtype=T.float64)),
    lambda T: T.nextafter(T.tensor([1.]), T.tensor([2.]), out=T.empty(1, dtype=T.float16)),
    lambda T: T.tensor([1, 2]).i0_(),
    lambda T: (lambda a: (a.i0_(), a))(T.tensor([1., 2.])),
    lambda T: T.i0_(T.tensor([1., 2.])),
    lambda T: T.i0(T.tensor([1., 2.]), out=T.empty(2, dtype=T.int64)),
    lambda T: T.i0(T.tensor([1, 2]), out=T.empty(2, dtype=T.float64)),
    lambda T: T.special.i0(T.tensor([1, 2])),
    lambda T: T.special.i0(3),
    lambda T: T.i0(T.tensor([1., 2.], dtype=T.float16, requires_grad=True)).sum().backward(),
    lambda T: T.i0(T.tensor([1 + 1j])),
    lambda T: T.special.i1(T.tensor([1 + 1j])),
])
def test_frexp_nextafter_i0_out_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- randint_like


def _seeded(program):
    def prog(T):
        T.manual_seed(0)
        return program(T)
    return prog


@pytest.mark.parametrize("program", [
    lambda T: [_layout(T.randint_like(T.zeros(2, 3), 10)), _layout(T.randint_like(T.zeros(2, 3), 3, 10))],
    lambda T: [_layout(T.randint_like(T.zeros(3, 2).t(), 10)), _layout(T.randint_like(T.zeros(2, 3, dtype=T.int8),
                                                                                        high=5)),
               _layout(T.randint_like(T.zeros(2, 3), low=2, high=5, dtype=T.int32))],
    lambda T: T.randint_like(T.zeros(2, 3), 0),
    lambda T: T.randint_like(T.zeros(2, 3), 5, 2),
    lambda T: T.randint_like(T.zeros(2, 3), 2.5),
    lambda T: T.randint_like(T.zeros(2, 3)),
    lambda T: T.randint_like(T.zeros(2, 3), 10, requires_grad=True),
    lambda T: T.randint_like(T.zeros(2, dtype=T.int64), 10, requires_grad=True),
    lambda T: T.randint_like(T.zeros(2, 3), 300, dtype=T.uint8),
    lambda T: T.randint_like(T.zeros(2, 3), 10, generator=None),
    lambda T: T.randint_like(T.zeros(2, 3), 10, generator=T.Generator().manual_seed(3)),
    lambda T: T.randint_like(T.zeros(2, 3), 1, 10, generator=T.Generator().manual_seed(3)),
    lambda T: T.randint_like(T.zeros(2, dtype=T.bool), 2),
    lambda T: T.randint_like(T.zeros(2, 3), -5, 5, dtype=T.uint8),
    lambda T: T.randint_like(3, 5),
    lambda T: T.randint_like(T.zeros(2, 3), high=T.tensor(5)),
    lambda T: T.randint_like(T.zeros(2, 3), T.tensor(5)),
    lambda T: T.randint_like(T.zeros(2, 3), 2**40),
    lambda T: T.randint_like(T.zeros(2, 3), 2**40, dtype=T.int64),
    lambda T: T.randint_like(T.zeros(2, 3), 10, foo=1),
    lambda T: T.randint_like(T.zeros(2, 3), -3, 3),
    lambda T: (T.randint_like(T.zeros(4), 10), T.rand(2)),
    lambda T: T.randint_like(T.zeros(2, 3), True),
])
def test_randint_like_draws_what_torch_draws(program):
    assert_same(_seeded(program))


# ----------------------------------------------------------------------------- window functions

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 3, 4, 5, 8, 11, 64])
@pytest.mark.parametrize("dtype", FLOATS)
def test_windows_periodic_and_symmetric(name, length, dtype):
    """float16/bfloat16 windows round ATen's own scalars to the dtype (``mul_(double)``), unlike a Python mul_."""
    assert_same(lambda T: (_layout(getattr(T, name)(length, dtype=getattr(T, dtype))),
                           _layout(getattr(T, name)(length, False, dtype=getattr(T, dtype))),
                           _layout(getattr(T, name)(length, periodic=True, dtype=getattr(T, dtype)))))


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("program", [
    lambda T, f: f(5, dtype=T.int64),
    lambda T, f: f(-1),
    lambda T, f: f(-1, dtype=T.int64),
    lambda T, f: f(3, dtype=T.int16, layout=T.strided),
    lambda T, f: f(3, dtype=T.uint8, layout=T.sparse_coo),
    lambda T, f: f(3, layout=T.sparse_coo),
    lambda T, f: f(3, True, layout=T.sparse_coo),
    lambda T, f: f(3, dtype=T.bool, pin_memory=True),
    lambda T, f: f(5.0),
    lambda T, f: f(5, 1),
    lambda T, f: (lambda w: (w, w.is_leaf, w.grad_fn, w._is_view(), w._base))(f(5, requires_grad=True)),
    lambda T, f: f(5, dtype=T.complex64),
    lambda T, f: _layout(f(5)),
    lambda T, f: f(),
])
def test_window_checks_and_options(name, program):
    assert_same(lambda T: program(T, getattr(T, name)))


@pytest.mark.parametrize("program", [
    lambda T: [_layout(T.hamming_window(6, False, 0.6)), _layout(T.hamming_window(6, True, 0.6, 0.3)),
               T.hamming_window(7, True, alpha=0.3, beta=0.2, dtype=T.float64)],
    lambda T: T.hamming_window(5, alpha=0.5),
    lambda T: [_layout(T.kaiser_window(6, False, 5.0)), T.kaiser_window(7, True, beta=0.5, dtype=T.float64),
               T.kaiser_window(7, True, 0.0), T.kaiser_window(9, False, 30.0, dtype=T.float16)],
    lambda T: T.kaiser_window(5, beta=3.0),
    lambda T: (T.set_default_dtype(T.float64), T.hann_window(4), T.set_default_dtype(T.float32)),
    lambda T: [T.hamming_window(8, True, 0.5, 0.5, dtype=T.bfloat16), T.blackman_window(9, False, dtype=T.float16)],
])
def test_window_alpha_beta_overloads(program):
    assert_same(program)


# ----------------------------------------------------------------------------- pixel_shuffle, pixel_unshuffle,
# channel_shuffle (nodes of their own, the inverse move as gradient)


def _r(T, *shape):
    """A float64 leaf of ``shape`` holding distinct values (so a wrong permutation shows)."""
    n = math.prod(shape)
    return T.tensor([[v / 7 - 1 for v in range(n)]], dtype=T.float64).reshape(shape).detach().requires_grad_()


@pytest.mark.parametrize("name,shape,factor", [
    ("pixel_shuffle", (2, 8, 2, 3), 2), ("pixel_unshuffle", (2, 2, 4, 6), 2), ("channel_shuffle", (2, 6, 2, 2), 3),
    ("pixel_shuffle", (9, 1, 2), 3), ("pixel_shuffle", (3, 2, 4, 2, 2), 2), ("pixel_unshuffle", (3, 2, 1, 4, 4), 2),
    ("channel_shuffle", (1, 6, 2), 2), ("channel_shuffle", (2, 8, 1, 2, 3), 4), ("pixel_shuffle", (1, 1, 1, 1), 1),
])
def test_shuffles_values_graph_saved_and_double_backward(name, shape, factor):
    def prog(T):
        x = _r(T, *shape)
        y = getattr(T, name)(x, factor)
        g, = T.autograd.grad(y, x, _r(T, *y.shape), create_graph=True)
        gg, = T.autograd.grad((g * g).sum(), x)
        return (_layout(y), _graph(y), _saved(y.grad_fn), _layout(g), _graph(g), _saved(g.grad_fn), gg,
                _layout(getattr(T.nn.functional, name)(x.detach().transpose(-1, -2), factor)))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.pixel_shuffle(T.zeros(2, 3, 2, 2), 2),
    lambda T: T.pixel_shuffle(T.zeros(4, 2), 2),
    lambda T: T.pixel_shuffle(T.zeros(4, 2), 0),
    lambda T: T.pixel_shuffle(T.zeros(1, 4, 2, 2), 0),
    lambda T: T.pixel_shuffle(T.zeros(1, 4, 2, 2), -2),
    lambda T: T.pixel_unshuffle(T.zeros(1, 1, 3, 4), 2),
    lambda T: T.pixel_unshuffle(T.zeros(1, 1, 4, 3), 2),
    lambda T: T.pixel_unshuffle(T.zeros(4, 2), 2),
    lambda T: T.pixel_unshuffle(T.zeros(1, 1, 4, 4), 0),
    lambda T: T.pixel_unshuffle(T.zeros(1, 1, 4, 4), 3),
    lambda T: T.channel_shuffle(T.zeros(1, 6, 2, 2), 4),
    lambda T: T.channel_shuffle(T.zeros(1, 6, 2, 2), 0),
    lambda T: T.channel_shuffle(T.zeros(6, 2), 3),
    lambda T: T.channel_shuffle(T.zeros(6, 2), 0),
    lambda T: T.channel_shuffle(T.zeros(1, 6), 3),
    lambda T: T.channel_shuffle(T.zeros(1, 6, 2, 2), -3),
    lambda T: T.pixel_shuffle(T.tensor([[[[1]]]]), 1),
    lambda T: _layout(T.channel_shuffle(T.arange(6).reshape(1, 6, 1), 2)),
    lambda T: _layout(T.pixel_shuffle(T.arange(16).reshape(1, 4, 2, 2).to(T.int8), 2)),
    lambda T: _layout(T.nn.functional.pixel_shuffle(T.ones(1, 4, 1, 1), upscale_factor=2)),
    lambda T: T.nn.functional.pixel_shuffle(T.ones(1, 4, 1, 1), 2.0),
    lambda T: (_layout(T.pixel_shuffle(T.ones(0, 4, 2, 2), 2)), _layout(T.channel_shuffle(T.ones(0, 6, 2, 2), 2))),
    lambda T: (repr(T.nn.PixelShuffle(3)), repr(T.nn.PixelUnshuffle(2)), repr(T.nn.ChannelShuffle(2)),
               T.nn.PixelShuffle.__module__.split(".", 1)[1], T.nn.ChannelShuffle.__module__.split(".", 1)[1],
               T.nn.PixelShuffle.__constants__, T.nn.ChannelShuffle(3).groups),
    lambda T: (lambda m, x: (m(x), _graph(m(x))))(
        T.nn.Sequential(T.nn.PixelUnshuffle(2), T.nn.ChannelShuffle(2), T.nn.PixelShuffle(2)), _r(T, 1, 2, 4, 4)),
    lambda T: T.nn.PixelShuffle(2)(T.zeros(1, 3, 2, 2)),
    lambda T: (T.nn.functional.channel_shuffle is T.channel_shuffle, T.nn.functional.pixel_shuffle is T.pixel_shuffle),
])
def test_shuffle_checks_modules_and_functional(program):
    assert_same(program)


# ----------------------------------------------------------------------------- rms_norm, nn.RMSNorm (composite:
# the graph is _to_copy, pow, mean, add, rsqrt, mul, mul, _to_copy)


def _graph_saved(y):
    """Every node under ``y`` with its ``_saved_*`` values."""
    seen, stack, found = set(), [y.grad_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        found.append((fn.name(), _saved(fn)))
        stack.extend(n for n, _ in fn.next_functions)
    return found


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("weight", [None, "same", "float64", "float32"])
@pytest.mark.parametrize("normalized_shape", [(4,), (3, 4)])
def test_rms_norm_graph_values_and_gradients(dtype, weight, normalized_shape):
    def prog(T):
        x = _r(T, 2, 3, 4).detach().to(getattr(T, dtype)).requires_grad_()
        w = None if weight is None else _r(T, *normalized_shape).detach().to(
            getattr(T, dtype) if weight == "same" else getattr(T, weight)).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the dtype mismatch's warning is TORCH_WARN_ONCE: once a process
            y = T.rms_norm(x, list(normalized_shape), w)
        leaves = [x] + ([w] if w is not None else [])
        upstream = _r(T, *y.shape).detach().mul(3).cos()  # not along x: sum(y * x) would cancel to rounding noise
        return _layout(y), _graph_saved(y), T.autograd.grad((y.double() * upstream).sum(), leaves)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: (lambda x: (T.nn.functional.rms_norm(x, (3,), eps=0.1), T.rms_norm(x, [3], None, 1e-3)))(_r(T, 2, 3)),
    lambda T: T.rms_norm(T.zeros(2, 3), [3]),
    lambda T: T.rms_norm(T.ones(0, 3), [3]),
    lambda T: T.rms_norm(_r(T, 2, 3), [3], eps=-1.0),
    lambda T: T.rms_norm(T.ones(2, 3), [4]),
    lambda T: T.rms_norm(T.ones(2, 3), [3], T.ones(4)),
    lambda T: T.rms_norm(T.ones(3), []),
    lambda T: T.rms_norm(T.ones(2, 3), [2, 3, 4]),
    lambda T: T.rms_norm(T.ones(2, 3), [5, 3]),
    lambda T: T.rms_norm(T.ones(2, 3, 4), [2, 4]),
    lambda T: T.rms_norm(T.tensor([[1, 2, 3]]), [3]),
    lambda T: T.rms_norm(T.tensor([[1, 2]]), [3]),
    lambda T: T.rms_norm(T.tensor([[1, 2]]), [2], T.ones(3)),
    lambda T: T.rms_norm(T.ones(2), [2, 2], T.ones(3)),
    lambda T: T.rms_norm(T.ones(2), [], T.ones(3)),
    lambda T: T.nn.RMSNorm(3)(T.ones(2, 4)),
    lambda T: (repr(T.nn.RMSNorm(4)), repr(T.nn.RMSNorm([2, 3], eps=1e-5, elementwise_affine=False)),
               T.nn.RMSNorm((4,), dtype=T.float64).weight, T.nn.RMSNorm(4).normalized_shape, T.nn.RMSNorm.__constants__,
               list(T.nn.RMSNorm(4).state_dict()), T.nn.RMSNorm(4, elementwise_affine=False).weight,
               T.nn.RMSNorm.__module__.split(".", 1)[1]),
    lambda T: (lambda m, x: (lambda y: (y, _graph(y), T.autograd.grad(y.sum(), [x, m.weight])))(m(x)))(
        T.nn.RMSNorm([3, 4], eps=1e-3, dtype=T.float64), _r(T, 2, 3, 4)),
    lambda T: repr(T.nn.RMSNorm(T.Size([2, 3]))),
    lambda T: T.nn.functional.rms_norm(T.ones(2, 3), [3], None, None),
])
def test_rms_norm_checks_module_and_functional(program):
    assert_same(program)


# ----------------------------------------------------------------------------- Tensor conveniences


def _known(t):
    """What resize_ decides (new elements are uninitialized in torch: never compared)."""
    return tuple(t.shape), t.stride(), t.storage_offset(), t._version


@pytest.mark.parametrize("program", [
    lambda T: [getattr(T.arange(6.).reshape(2, 3), name) for name in ["is_sparse", "is_quantized", "is_meta",
                                                                      "is_mkldnn", "is_nested", "is_sparse_csr",
                                                                      "is_cpu", "is_cuda"]],
    lambda T: (T.zeros(2).is_pinned(), T.zeros(2).is_shared()),
    lambda T: T.zeros(2).pin_memory(),
    lambda T: T.zeros(2).pin_memory("cpu"),
    lambda T: T.zeros(2).pin_memory("cuda"),
    lambda T: T.zeros(2).is_pinned("cpu"),
    lambda T: (lambda x: (x.share_memory_() is x, x.is_shared(), x[1:].is_shared(), T.zeros(2).is_shared(),
                          x.untyped_storage().is_shared()))(T.zeros(3)),
    lambda T: (lambda z: (z.share_memory_() is z, z.is_shared()))(T.zeros(2, requires_grad=True)),
])
def test_properties_pinning_and_sharing(program):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # is_pinned(device) / pin_memory(device)
        assert_same(program)


@pytest.mark.parametrize("program", [
    lambda T: (lambda x: (_known(x.resize_(3, 2)), x[0]))(T.zeros(2)),
    lambda T: T.zeros(2, requires_grad=True).resize_(3),
    lambda T: T.zeros(2, requires_grad=True).resize_as_(T.zeros(3)),
    lambda T: (T.zeros(2, requires_grad=True) * 2).resize_(3),
    lambda T: (lambda x: (x.resize_(2, 2), _known(x)))(T.arange(6.)),
    lambda T: (lambda x: (_known(x.resize_(2, 4)), x.flatten()[:6]))(T.arange(6.)),
    lambda T: (lambda x: (x.resize_((2, 2)), _known(x)))(T.arange(6.)),
    lambda T: T.arange(6.).resize_(-1),
    lambda T: T.arange(6.).resize_(2, -1),
    lambda T: T.arange(6.).resize_(2.5),
    lambda T: (lambda x: (x.resize_as_(T.zeros(2, 2)), _known(x)))(T.arange(4.)),
    lambda T: (lambda x: (T.resize_as_(x, T.zeros(1, 2)), _known(x)))(T.arange(4.)),
    lambda T: (lambda x: (x.resize_(2, 2), _known(x)))(T.arange(6.).reshape(2, 3).t()),
    lambda T: (lambda x: (x.resize_(3, 2), _known(x)))(T.arange(6.).reshape(2, 3).t()),
    lambda T: (lambda x: (x.resize_as_(T.zeros(3, 2)), _known(x)))(T.arange(6.).reshape(2, 3).t()),
    lambda T: (lambda x: (x.resize_(2, 3, memory_format=T.contiguous_format), _known(x)))(T.arange(6.)),
    lambda T: (lambda x: (x.resize_(2, 2), _known(x)))(T.arange(6.)[1:]),
    lambda T: (lambda b: (b[0].resize_(3), b, _known(b[0])))(T.zeros(2, 2)),
    lambda T: (lambda x: (x.resize_(0), _known(x), x.resize_(2, 0, 3).stride()))(T.arange(6.)),
    lambda T: (lambda x: (x.resize_(()), _known(x)))(T.arange(6.)),
])
def test_resize(program):
    assert_same(program)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([1., 2., 3.]).apply_(lambda v: v * 2),
    lambda T: T.tensor([1, 2, 3]).apply_(lambda v: v / 2),
    lambda T: T.tensor([1, -2, 3]).apply_(lambda v: v * 2.7),
    lambda T: T.tensor([1., 2.]).map_(T.tensor([3., 4.]), lambda a, b: a + b),
    lambda T: T.tensor([1., 2.]).map_(T.tensor([3]), lambda a, b: a * b),
    lambda T: T.tensor([1., 2.], requires_grad=True).apply_(lambda v: v),
    lambda T: T.tensor([1., 2.], requires_grad=True).map_(T.tensor([1., 2.]), lambda a, b: a),
    lambda T: T.tensor([1., 2.]).apply_(5),
    lambda T: T.tensor([1., 2.]).apply_(lambda v: "a"),
    lambda T: T.tensor([1., 2.]).apply_(lambda v: 2 + 1j),
    lambda T: T.tensor([1., 2.]).map_(T.tensor([1., 2., 3.]), lambda a, b: a),
    lambda T: T.tensor([[1.], [2.]]).map_(T.tensor([1., 2., 3.]), lambda a, b: a + b),
    lambda T: T.tensor([1., 2.]).apply_(lambda v: None),
    lambda T: T.tensor([True, False]).apply_(lambda v: not v),
    lambda T: T.tensor([True, False]).apply_(lambda v: 2.5),
    lambda T: T.tensor([1., 2.]).map_(T.tensor([1., 2.], dtype=T.float64), lambda a, b: a + b),
    lambda T: T.tensor([1., 2.]).map_([1., 2.], lambda a, b: a + b),
    lambda T: _layout(T.zeros(3, 2).t().apply_(lambda v: 1.0)),
    lambda T: (lambda y: (y.apply_(lambda v: v + 1), y._version))(T.zeros(2)),
    lambda T: (lambda seen: (T.arange(6.).reshape(2, 3).t().apply_(lambda v: seen.append(v) or v), seen))([]),
    lambda T: T.tensor([1., 2.]).map_(T.tensor([1., 2.]), 3),
    lambda T: T.tensor([1, 2]).apply_(lambda v: 2.7),
    lambda T: T.tensor([1, 2]).apply_(lambda v: True),
    lambda T: T.tensor([[1., 2.], [3., 4.]]).map_(T.tensor([10., 20.]), lambda a, b: a * b),
    lambda T: T.tensor([1, 2]).apply_(lambda v: "x"),
    lambda T: T.tensor([True, False]).apply_(lambda v: "x"),
])
def test_apply_and_map(program):
    assert_same(program)
