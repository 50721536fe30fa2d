"""Elementwise ops at special values against PyTorch, bit for bit: the sign of every zero and where NaN appears.

``assert_same`` compares floats with a tolerance and ``-0. == 0.``; here both libraries run one program and
every value (and gradient) must have the same bits, the same dtype, shape and error. The inputs are the
values where the rules show: ``-0.``, ``0.``, NaN, the infinities, a subnormal, ties, numbers of both signs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import picotorch
from picotorch.native.dispatcher import ops

torch = pytest.importorskip("torch")

NAN, INF = math.nan, math.inf
SPECIAL = [-0.0, 0.0, NAN, INF, -INF, 5e-324, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 4.0, -4.0, 3.0, -7.0, 100.0]
FLOATS = ["float32", "float64", "float16", "bfloat16"]
GRADS = [[1.0], [-0.0], [1.0, -0.0, 0.0, NAN, INF, -INF, 2.0, -1.0]]


def _bits(t):
    """Values as float64 bits (a NaN's payload ignored), with dtype, shape and requires_grad."""
    if t is None:
        return None
    values = t.detach()
    array = np.asarray((values.double() if values.dtype.is_floating_point else values).tolist(), dtype=np.float64)
    nan = np.isnan(array)
    return str(t.dtype).split(".")[-1], tuple(t.shape), t.requires_grad, nan.tolist(), \
        np.where(nan, 0.0, array).view(np.int64).tolist()


def _outcome(prog, module):
    try:
        result = prog(module)
    except Exception as err:  # the error is part of what a learner sees
        return type(err).__name__, str(err)
    return [_bits(t) for t in (result if isinstance(result, (list, tuple)) else [result])]


def assert_bits(prog):
    ours, theirs = _outcome(prog, picotorch), _outcome(prog, torch)
    assert ours == theirs, f"\npicotorch: {ours}\ntorch:     {theirs}"


def _tensor(T, values, dtype, requires_grad=False):
    return T.tensor(values, dtype=getattr(T, dtype), requires_grad=requires_grad)


def _with_grad(op, values, dtype, grad, flip=False):
    """``op`` forward and backward (``grad`` repeated over the output); returns the output and the gradients."""
    def prog(T):
        x = _tensor(T, values, dtype, requires_grad=True)
        y = _tensor(T, values[::-1], dtype, requires_grad=True) if flip else None
        out = op(T, x, y) if flip else op(T, x)
        g = _tensor(T, [grad[i % len(grad)] for i in range(out.numel())], dtype).reshape(out.shape)
        out.backward(g)
        return [out, x.grad] + ([y.grad] if flip else [])
    return prog


# ----------------------------------------------------------------------------- clamp by numbers
CLAMPS = {
    "min0": lambda T, x: T.clamp(x, min=0.0),
    "max-0": lambda T, x: T.clamp(x, max=-0.0),
    "both": lambda T, x: T.clamp(x, -0.0, 0.0),
    "inverted": lambda T, x: T.clamp(x, 1, -1),
    "nan_min": lambda T, x: T.clamp(x, NAN, 1.0),
    "nan_max": lambda T, x: T.clamp(x, 0.0, NAN),
    "clamp_min": lambda T, x: T.clamp_min(x, 0.0),
    "clamp_max": lambda T, x: T.clamp_max(x, -0.0),
    "clamp_min_nan": lambda T, x: T.clamp_min(x, NAN),
    "method_": lambda T, x: x.clone().clamp_(min=-0.0),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", CLAMPS)
def test_clamp_by_numbers_keeps_the_input_on_a_tie(name, dtype):
    """NOTE [clamp by numbers keeps the input on a tie]: -0. clamped to min 0. stays -0.; NaN bounds fill NaN."""
    for grad in GRADS:
        assert_bits(_with_grad(CLAMPS[name], SPECIAL, dtype, grad))
    assert_bits(lambda T: [CLAMPS[name](T, _tensor(T, v, dtype)) for v in (-0.0, 0.0, NAN, -1.0)])  # zero-dim
    assert_bits(lambda T: CLAMPS[name](T, _tensor(T, [[-0.0, 0.0]], dtype).expand(3, 2)))  # a broadcast view


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_clamp_integers_by_numbers(dtype):
    values = [0, 1, 2, 3, 7, 100]
    for op in CLAMPS.values():
        assert_bits(lambda T, op=op: op(T, _tensor(T, values, dtype)))


# ----------------------------------------------------------------------------- relu
def test_relu_of_bools_is_refused_as_in_pytorch():
    for op in (lambda T: T.relu(T.tensor([True])), lambda T: T.relu_(T.tensor([True])),
               lambda T: T.nn.functional.relu(T.tensor([True, False]), inplace=True)):
        assert_bits(op)


# ----------------------------------------------------------------------------- remainder
REMAINDERS = {
    "mod2": lambda T, x: x % 2, "mod-2": lambda T, x: x % -2, "mod0.5": lambda T, x: x % 0.5,
    "mod0": lambda T, x: x % 0, "rmod": lambda T, x: 3 % x, "inplace": lambda T, x: x.clone().remainder_(-4.0),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", REMAINDERS)
def test_remainder_zero_has_the_dividends_sign(name, dtype):
    """NOTE [remainder of floats]: -4. % 2 is -0. and 4. % -2 is 0. (fmod's sign), unlike Python's %."""
    values = [v for v in SPECIAL if v != 5e-324]  # PyTorch's vectorised fmod gives NaN for a subnormal divisor
    assert_bits(_with_grad(REMAINDERS[name], values, dtype, [1.0]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_remainder_of_two_tensors(dtype):
    values = [-0.0, 0.0, 4.0, -4.0, 3.0, -3.0, 2.0, -2.0, 1.0, INF, NAN, 7.0]
    assert_bits(_with_grad(lambda T, x, y: T.remainder(x, y), values, dtype, [1.0], flip=True))
    assert_bits(lambda T: T.remainder(_tensor(T, values, dtype).reshape(3, 4).t(), _tensor(T, [2.0, -2.0, 3.0], dtype)))


# ----------------------------------------------------------------------------- pow's exponent gradient
POW_EXPONENT = {
    "zero_base": lambda T, x: 0 ** x,
    "zero_float_base": lambda T, x: 0.0 ** x,
    "negative_base": lambda T, x: (-2) ** x,
    "half_base": lambda T, x: 0.5 ** x,
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", POW_EXPONENT)
def test_pow_exponent_gradient_multiplies_grad_last(name, dtype):
    """pow_backward_exponent: grad * where(base == 0 and e >= 0, 0, result * log(base)), so NaN/-0. grads show."""
    values = [v for v in SPECIAL if abs(v) != 0.5]  # 0.5 ** 0.5 is SLEEF's pow, last bit not a rule
    for grad in GRADS:
        assert_bits(_with_grad(POW_EXPONENT[name], values, dtype, grad))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_of_two_tensors_at_zero_base(dtype):
    base = [-0.0, 0.0, 0.0, -0.0, 2.0, 0.0, 1.0, NAN]
    exponent = [0.0, 2.0, -1.0, -0.0, 3.0, NAN, INF, 1.0]

    def prog(T):
        x = _tensor(T, base, dtype, requires_grad=True)
        e = _tensor(T, exponent, dtype, requires_grad=True)
        out = x ** e
        out.backward(_tensor(T, [1.0, -0.0, NAN, INF, -1.0, 2.0, -0.0, 1.0], dtype))
        return out, x.grad, e.grad
    assert_bits(prog)


# ----------------------------------------------------------------------------- pow by a number
POW_NUMBERS = [0, 1, 0.5, -0.5, -1, 2, 3, -2, 2.0, 1.5, 0.1, 2.7]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("exponent", POW_NUMBERS)
def test_pow_by_a_number_takes_pytorchs_special_paths(exponent, dtype):
    """NOTE [pow by a number]: 0.5 is sqrt ((-0.) ** 0.5 is -0.) except in float16; 2, 3, -2 multiply."""
    values = [v for v in SPECIAL if v != 5e-324]  # a subnormal base is where SLEEF's powf and C's pow part
    if dtype == "float64" and exponent not in (0, 1, 0.5, -0.5, -1, 2, 3, -2):
        return  # SLEEF's pow (vectors) or C's (the scalar path), against NumPy's: last bits, not a rule
    assert_bits(lambda T: _tensor(T, values, dtype) ** exponent)
    assert_bits(lambda T: [_tensor(T, v, dtype) ** exponent for v in values])  # zero-dim: the scalar path


@pytest.mark.parametrize("n", [7, 32, 45, 77, 1000])
def test_float32_pow_vectors_and_scalar_tail(n):
    """float32 x ** 0.1: the 32-element vectors use 0.1 rounded to float32 (SLEEF's powf, nearly always the
    rounded double result), the scalar tail the double 0.1 (C's pow in double: bit for bit)."""
    values = np.linspace(0.5, 30.0, n, dtype=np.float32)
    tail = n - n % 32
    for exponent in (0.1, 2.7, -0.3):
        ours = (picotorch.tensor(values) ** exponent).numpy()
        theirs = (torch.tensor(values) ** exponent).numpy()
        np.testing.assert_array_equal(ours[tail:], theirs[tail:])
        assert (ours[:tail] == theirs[:tail]).mean() >= 0.9 if tail else True


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
def test_integer_pow(dtype):
    """powi: a negative tensor exponent gives 1, +-1 or 0; only a negative integer number exponent is an error."""
    base = [0, 1, 2, 3, 5, 7] if dtype == "uint8" else [0, 1, -1, 2, -2, 3, -3, 7]
    exponent = [3, 0, 1, 2, 5, 1] if dtype == "uint8" else [-1, -3, -2, -1, -4, 0, 3, -2]
    assert_bits(lambda T: _tensor(T, base, dtype) ** _tensor(T, exponent, dtype))
    assert_bits(lambda T: [2 ** _tensor(T, exponent, dtype), (-1) ** _tensor(T, exponent, dtype),
                           1 ** _tensor(T, exponent, dtype), 0 ** _tensor(T, exponent, dtype)])
    for number in (-1, -2, 2, 3, 0, 1, -1.0, 0.5):
        assert_bits(lambda T, e=number: _tensor(T, base, dtype) ** e)
        assert_bits(lambda T, e=number: _tensor(T, base, dtype).pow_(e) if isinstance(e, int) else None)


# ----------------------------------------------------------------------------- div's rounding modes
DIVISIONS = {
    "trunc": lambda T, x, y: T.div(x, y, rounding_mode="trunc"),
    "floor": lambda T, x, y: T.div(x, y, rounding_mode="floor"),
    "none": lambda T, x, y: T.div(x, y, rounding_mode=None),
    "trunc_number": lambda T, x, y: x.div(-3, rounding_mode="trunc"),
    "floor_number": lambda T, x, y: T.div(x, 0.0, rounding_mode="floor"),
    "floordiv": lambda T, x, y: x // y,
    "trunc_": lambda T, x, y: x.clone().div_(y, rounding_mode="trunc"),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", DIVISIONS)
def test_div_rounding_modes_and_their_zero_gradients(name, dtype):
    """div(rounding_mode='trunc'/'floor'): a step function, so zero gradients (DivBackward2)."""
    for grad in GRADS:
        assert_bits(_with_grad(DIVISIONS[name], SPECIAL, dtype, grad, flip=True))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_reduced_float_division_rounds_every_step(mode, dtype):
    """NOTE [Floor division in float16 and bfloat16]: each step of div_floor_floating rounds to the dtype."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(3000) * 100).tolist(), rng.standard_normal(3000).tolist()
    assert_bits(lambda T: T.div(_tensor(T, a, dtype), _tensor(T, b, dtype), rounding_mode=mode))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_integer_division_modes_and_errors(dtype):
    values = [True, False, True] if dtype == "bool" else [7, 0, 9, 100, 3] if dtype == "uint8" else [-7, 0, 7, -8, 9]
    divisors = [True, True, True] if dtype == "bool" else [2, 3, 4, 7, 1] if dtype == "uint8" else [2, -3, -2, 3, 1]
    for mode in ("trunc", "floor", None, "round"):
        assert_bits(lambda T, m=mode: T.div(_tensor(T, values, dtype), _tensor(T, divisors, dtype), rounding_mode=m))
        assert_bits(lambda T, m=mode: T.div(_tensor(T, values, dtype), 0, rounding_mode=m))
        assert_bits(lambda T, m=mode: _tensor(T, values, dtype).div_(2, rounding_mode=m))
        assert_bits(lambda T, m=mode: _tensor(T, values, dtype).div_(2.5, rounding_mode=m))


# ----------------------------------------------------------------------------- tanh's backward
@pytest.mark.parametrize("dtype", FLOATS)
def test_tanh_backward_fuses_one_minus_square(dtype):
    """tanh_backward: grad * fma(-y, y, 1) (float32 opmath for the 16-bit floats): bit for bit in float32."""
    rng = np.random.default_rng(1)
    y, g = np.tanh(rng.standard_normal(2000) * 2), rng.standard_normal(2000)
    ours = ops.tanh_backward(_tensor(picotorch, g.tolist(), dtype), _tensor(picotorch, y.tolist(), dtype))
    theirs = torch.ops.aten.tanh_backward(_tensor(torch, g.tolist(), dtype), _tensor(torch, y.tolist(), dtype))
    if dtype != "float64":  # PyTorch fuses float64 too; picotorch does not (it would need more than a double)
        np.testing.assert_array_equal(ours.double().numpy(), theirs.double().numpy())
    if dtype == "float64":
        return  # float64 tanh is SLEEF's, last bit not a rule
    for grad in GRADS:
        assert_bits(_with_grad(lambda T, x: T.tanh(x), [v for v in SPECIAL if abs(v) not in (0.5, 2.0, 4.0, 3.0)],
                               dtype, grad))


# ----------------------------------------------------------------------------- silu
@pytest.mark.parametrize("dtype", FLOATS)
def test_silu_at_special_values(dtype):
    """NOTE [SiLU in float32]: x / (1 + exp(-x)) in float32, so silu(-100.) is -0. (exp overflows)."""
    values = SPECIAL + [-100.0, -90.0, 89.0, -88.0]
    for grad in GRADS:
        assert_bits(_with_grad(lambda T, x: T.nn.functional.silu(x), values, dtype, grad))
    assert_bits(lambda T: T.nn.functional.silu(_tensor(T, values, dtype), inplace=True))


def test_silu_float32_follows_pytorchs_steps():
    x = np.random.default_rng(2).standard_normal(5000).astype(np.float32) * 4
    g = np.random.default_rng(3).standard_normal(5000).astype(np.float32)
    for T in (picotorch, torch):
        leaf = T.tensor(x, requires_grad=True)
        T.nn.functional.silu(leaf).backward(T.tensor(g))
        if T is picotorch:
            ours = (T.nn.functional.silu(T.tensor(x)).numpy(), leaf.grad.numpy())
    theirs = (torch.nn.functional.silu(torch.tensor(x)).numpy(), leaf.grad.numpy())
    assert (ours[0] == theirs[0]).mean() > 0.93 and (ours[1] == theirs[1]).mean() > 0.93  # 69% / 42% in float64


# ----------------------------------------------------------------------------- in place, bools
def test_one_tensor_bound_clamps_bools_as_maximum_or_minimum():
    """clamp with one tensor bound is maximum / minimum (TensorCompare.cpp), which take bools; two bounds refuse."""
    def prog(T):
        b, m = T.tensor([True, False, True, False]), T.tensor([False, True, True, False])
        return [T.clamp(b, min=m), T.clamp(b, max=m), T.clamp_min(b, m), T.clamp_max(b, m), b.clone().clamp_(min=m),
                b.clone().clamp_max_(m), T.clamp(b, min=T.tensor(True))]
    assert_bits(prog)
    assert_bits(lambda T: T.clamp(T.tensor([True]), T.tensor([False]), T.tensor([True])))
    assert_bits(lambda T: T.clamp(T.tensor([True]), min=False))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64"])
def test_integer_pow_in_place_checks_the_exponent_first(dtype):
    assert_bits(lambda T: _tensor(T, [1, 0, 1], dtype).pow_(-1))
    assert_bits(lambda T: _tensor(T, [1, 0, 1], dtype).__ipow__(-2))
    assert_bits(lambda T: _tensor(T, [1, 0, 1], dtype).pow_(0.5))


# ----------------------------------------------------------------------------- gelu
GELU_VALUES = [-0.0, 0.0, NAN, -INF, -7.0, -6.0, -5.5, -1.0, 1.0, 0.5, -0.5, 2.0, 3.0, 100.0, -100.0]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])  # float64: SLEEF's erf and tanh
def test_gelu_in_float32_steps_at_special_values(dtype):
    """NOTE [GELU in float32]: 1 + erf(x / sqrt 2) cancels to 0 in float32, so gelu(-7.) is -0.; the tanh form too."""
    def strided(T, x, approximate):  # a strided input: PyTorch's own kernel, not oneDNN's
        return T.nn.functional.gelu(T.stack([x, x], 1).t()[0], approximate=approximate)
    assert_bits(lambda T: strided(T, _tensor(T, GELU_VALUES, dtype), "none"))
    for grad in GRADS:
        assert_bits(_with_grad(lambda T, x: strided(T, x, "tanh"), GELU_VALUES + [INF], dtype, grad))


@pytest.mark.parametrize("strided", [True, False])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_float32_agreement(approximate, strided):
    """Most float32 values agree to the bit (50% / 32% in float64); a contiguous erf form is oneDNN's (65%)."""
    rng = np.random.default_rng(4)
    x, g = (rng.standard_normal(4000) * 3).astype(np.float32), rng.standard_normal(4000).astype(np.float32)
    results = []
    for T in (picotorch, torch):
        leaf = T.tensor(x, requires_grad=True)
        out = T.nn.functional.gelu(T.stack([leaf, leaf], 1).t()[0] if strided else leaf, approximate=approximate)
        out.backward(T.tensor(g))
        results.append((out.detach().numpy(), leaf.grad.numpy()))
    (ours, our_grad), (theirs, their_grad) = results
    assert (ours == theirs).mean() > (0.6 if approximate == "none" and not strided else 0.9)
    if approximate == "tanh":
        assert (our_grad == their_grad).mean() > (0.9 if strided else 0.98)


# ----------------------------------------------------------------------------- floor, ceil, trunc, round, frac, ...
ROUNDINGS = {
    "floor": lambda T, x: T.floor(x), "ceil": lambda T, x: x.ceil(), "trunc": lambda T, x: T.trunc(x),
    "round": lambda T, x: x.round(), "frac": lambda T, x: T.frac(x), "nan_to_num": lambda T, x: T.nan_to_num(x),
    "nan_to_num_values": lambda T, x: x.nan_to_num(nan=-0.0, posinf=1e39, neginf=-2.5),
    "fmod": lambda T, x: T.fmod(x, 2), "fmod_negative": lambda T, x: x.fmod(-0.75),
}
HALVES = SPECIAL + [2.5, -2.5, 1.5, -1.5, 0.49999997, -0.49999997, 1e20]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ROUNDINGS)
def test_rounding_ops_at_special_values(name, dtype):
    """floor/ceil/trunc/round (half to even) keep -0.; frac, nan_to_num and fmod; zero or passing gradients."""
    for grad in GRADS:
        assert_bits(_with_grad(ROUNDINGS[name], HALVES, dtype, grad))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_rounding_ops_of_integers_and_bools(dtype):
    values = [True, False, True] if dtype == "bool" else [0, 1, 7, 100, 3]
    for op in ROUNDINGS.values():
        assert_bits(lambda T, op=op: op(T, _tensor(T, values, dtype)))
    assert_bits(lambda T: T.fmod(_tensor(T, values, dtype), _tensor(T, values[::-1], dtype)))
    assert_bits(lambda T: T.fmod(_tensor(T, values, dtype), 0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fmod_of_two_tensors(dtype):
    values = [-0.0, 0.0, 4.0, -4.0, 3.0, -3.0, 2.0, -2.0, 1.0, INF, NAN, 7.5]
    for grad in GRADS:
        assert_bits(_with_grad(lambda T, x, y: T.fmod(x, y), values, dtype, grad, flip=True))


# ----------------------------------------------------------------------------- maximum, minimum: ties of zeros
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 5, 8, 16, 17, 33, 40, 100])
def test_maximum_minimum_ties_of_zeros(n, dtype):
    """NOTE [Ties of maximum and minimum]: the scalar tail keeps self, the vectors take other."""
    rng = np.random.default_rng(n)
    a, b, c = (rng.choice([-0.0, 0.0, 1.0, -1.0, NAN], size=(2, n)).tolist() for _ in range(3))

    def prog(T):
        x, y, z = (_tensor(T, v, dtype) for v in (a, b, c))
        zero = _tensor(T, -0.0, dtype)
        return [T.maximum(x, y), T.minimum(x, y), T.maximum(x, zero), T.minimum(zero, x), T.maximum(x, y[0]),
                T.clamp(x, y, z), T.clamp(x, min=y), T.clamp_max(x, z), x.clone().clamp_(y, z)]
    assert_bits(prog)
    for grad in GRADS:  # a tie shares the gradient: half each
        assert_bits(_with_grad(lambda T, x, y: T.maximum(x, y), a[0] + b[0], dtype, grad, flip=True))
