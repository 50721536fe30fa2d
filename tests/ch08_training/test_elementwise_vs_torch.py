"""Elementwise ops against PyTorch: values, dtypes, graphs, gradients and bad input.

Covers ``abs sign rsqrt exp2 expm1 log2 log1p sin cos clamp clamp_min clamp_max minimum maximum``
(and ``remainder``/``floor_divide``/``bitwise_and``/``bitwise_or``, which the in-place operators
need) over several dtypes and shapes, broadcasting, zero-dim and empty tensors. The graphs and
finite-difference checks of one case per op are in ``ch00_foundation/op_cases.py``; here the
clamp overloads, their saved values, fuzzed broadcast shapes and the float32 rounding rule.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from numeric_helpers import numeric_grad
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

UNARY = ["abs", "sign", "rsqrt", "exp2", "expm1", "log2", "log1p", "sin", "cos"]
DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool"]
SHAPES = [(), (0,), (5,), (2, 3), (2, 0, 3)]
VALUES = np.array([-2.5, -1.0, -0.0, 0.0, 0.3, 1.0, 2.0, 7.5, -100.0, 88.0, 0.5, -0.7] * 3)


def _data(shape, dtype):
    n = int(np.prod(shape)) if shape else 1
    array = VALUES[:n].reshape(shape)
    if dtype == "uint8":
        array = np.abs(array)
    return array.astype("bool" if dtype == "bool" else dtype).tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_values_and_dtypes(name, dtype):
    def prog(T):
        return [getattr(T, name)(T.tensor(_data(s, dtype), dtype=getattr(T, dtype))) for s in SHAPES]
    assert_same(prog, rtol=1e-6)


@pytest.mark.parametrize("name", UNARY)
def test_unary_method_function_and_grad(name):
    def prog(T):
        x = T.tensor([[0.25, 1.5, 3.0], [0.7, 2.2, 0.1]], dtype=T.float64, requires_grad=True)
        y = getattr(x, name)()
        y.backward(T.ones_like(y))
        return y, x.grad, y.grad_fn.next_functions[0][0].name()
    assert_same(prog, rtol=1e-12, atol=1e-14)


BINARY = ["minimum", "maximum", "remainder", "floor_divide", "bitwise_and", "bitwise_or"]
PAIRS = [("float32", "float32"), ("float32", "float64"), ("int64", "float32"), ("int32", "int64"),
         ("bool", "bool"), ("uint8", "int64"), ("bool", "int64")]


@pytest.mark.parametrize("left,right", PAIRS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_values_dtypes_and_broadcasting(name, left, right):
    def prog(T):
        a = T.tensor([[3, -7, 8], [1, 0, -2]], dtype=getattr(T, left)) if left != "uint8" else \
            T.tensor([[3, 7, 8], [1, 0, 2]], dtype=T.uint8)
        b = T.tensor([2, -3, 5], dtype=getattr(T, right)) if right != "bool" else T.tensor([True, False, True])
        fn = getattr(T, name)
        return fn(a, b), fn(a[0, 0], b), fn(a, b[:0].reshape(0, 1)) if a.dim() else None
    assert_same(prog)


EDGE_CASES = {
    "remainder_int_by_zero": lambda T: T.remainder(T.tensor([5, 3]), T.tensor([0, 1])),
    "floor_divide_int_by_zero": lambda T: T.floor_divide(T.tensor([5, 3]), 0),
    "mod_operator_int_by_zero": lambda T: T.tensor([5, 3]) % 0,
    "floor_divide_float_by_zero": lambda T: T.tensor([-5.0, 3.0]) // 0.0,
    "remainder_float_by_zero": lambda T: T.tensor([-5.0, 3.0, 0.0]) % 0.0,
    "bitwise_float": lambda T: T.bitwise_and(T.tensor([1.0]), 1),
    "bitwise_or_float": lambda T: T.tensor([1.0]) | T.tensor([1]),
    "bool_and_int": lambda T: T.tensor([True, False]) & 3,
    "int_and_bool": lambda T: T.tensor([1, 2]) & True,
    "minimum_number": lambda T: T.minimum(T.tensor([1.0]), 2),
    "maximum_shapes": lambda T: T.maximum(T.ones(2), T.ones(3)),
    "minimum_nan": lambda T: T.minimum(T.tensor([1.0, float("nan")]), T.tensor([float("nan"), 0.0])),
    "abs_bool": lambda T: T.abs(T.tensor([True])),
    "sign_bool": lambda T: T.sign(T.tensor([True, False])),
    "sign_zeros_nan": lambda T: T.tensor([-0.0, 0.0, float("nan"), -3.0]).sign(),
    "abs_negative_zero_inf": lambda T: T.abs(T.tensor([-0.0, float("-inf")])),
    "rsqrt_edges": lambda T: T.rsqrt(T.tensor([0.0, -0.0, -1.0, float("inf")])),
    "log1p_edges": lambda T: T.log1p(T.tensor([-1.0, -2.0])),
    "sin_no_argument": lambda T: T.sin(),
    "reflected_floordiv": lambda T: (7 // T.tensor([2, 3]), 7.5 // T.tensor([2.0, -3.0]), 2 // T.tensor(0.0)),
    "reflected_mod": lambda T: (7 % T.tensor([2, 3]), 7.5 % T.tensor([2, -3]), -1 % T.tensor([0.0])),
    "reflected_and_or": lambda T: (6 & T.tensor([3, 5]), True | T.tensor([False, True])),
    "floor_divide_numbers_as_tensors": lambda T: (T.floor_divide(7, T.tensor([2, 3])), T.tensor([7]).floor_divide(2.0)),
    "floor_divide_not_implemented_backward": lambda T: _backward_through(T, lambda y: y // 2),
    "rmod_not_implemented_backward": lambda T: _backward_through(T, lambda y: 7 % y),
    "inplace_floor_divide_graph": lambda T: _backward_through(T, lambda y: (y * 1).floor_divide_(T.ones(2))),
    "clamp_three_arguments": lambda T: T.ones(2).clamp(1, 2, 3),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_binary_and_unary_edge_cases(name):
    assert_same(EDGE_CASES[name])


def _backward_through(T, fn):
    y = T.tensor([1.5, 2.0], requires_grad=True)
    z = fn(y)
    print(z.grad_fn.name(), [n.name() if n else None for n, _ in z.grad_fn.next_functions], z.requires_grad)
    z.sum().backward()


# ----------------------------------------------------------------------------- clamp's overloads

CLAMP_PROGRAMS = {
    "numbers": lambda T, x: x.clamp(-0.5, 0.5),
    "min_only": lambda T, x: T.clamp(x, -0.5),
    "max_keyword": lambda T, x: x.clamp(max=0.2),
    "min_greater_than_max": lambda T, x: x.clamp(1.0, -1.0),
    "tensors": lambda T, x: x.clamp(T.tensor([-0.5, 0.0, 0.5]), T.tensor([[0.4], [0.6]])),
    "tensor_min_only": lambda T, x: x.clamp(min=T.zeros(3)),
    "tensor_max_only": lambda T, x: T.clamp(x, None, T.zeros(2, 1)),
    "zero_dim_tensor_and_number": lambda T, x: x.clamp(T.tensor(0.0), 1),
    "zero_dim_tensor_alone": lambda T, x: x.clamp(T.tensor(0.0)),
    "both_none": lambda T, x: x.clamp(),
    "both_none_keywords": lambda T, x: T.clamp(x, min=None, max=None),
    "clamp_min_number": lambda T, x: x.clamp_min(0.1),
    "clamp_min_tensor": lambda T, x: T.clamp_min(x, T.tensor([0.0, 0.1, -1.0])),
    "clamp_max_number": lambda T, x: T.clamp_max(x, -0.1),
    "clamp_max_tensor": lambda T, x: x.clamp_max(T.tensor([[0.0], [1.0]])),
    "bad_shape": lambda T, x: x.clamp(T.zeros(4)),
    "int_by_float": lambda T, x: T.tensor([1, 5, -3]).clamp(0.5),
    "int_by_int": lambda T, x: T.tensor([1, 5, -3]).clamp(0, 2),
    "bool": lambda T, x: T.tensor([True, False]).clamp(True),
    "bool_by_int": lambda T, x: T.tensor([True, False]).clamp(0),
    "nan": lambda T, x: T.tensor([float("nan"), 1.0]).clamp(0.0, 0.5),
    "float64_bound_of_float32": lambda T, x: x.clamp(T.tensor([0.0, 0.1, 0.2], dtype=T.float64)),
}


@pytest.mark.parametrize("name", sorted(CLAMP_PROGRAMS))
def test_clamp_overloads_saved_values_and_grads(name):
    def prog(T):
        x = T.tensor([[-1.0, 0.05, 0.3], [0.9, -0.2, 2.0]], requires_grad=True)
        y = CLAMP_PROGRAMS[name](T, x)
        fn = y.grad_fn
        saved = {k: getattr(fn, k) for k in ("_saved_min", "_saved_max") if fn is not None and hasattr(fn, k)}
        if y.requires_grad:
            y.backward(T.ones_like(y))
        return y, x.grad, saved
    assert_same(prog)


def test_clamp_tensor_bounds_get_gradients():
    def prog(T):
        x = T.tensor([[-1.0, 0.05, 0.3], [0.9, -0.2, 2.0]], dtype=T.float64, requires_grad=True)
        lo = T.tensor([-0.5, 0.1, 0.5], dtype=T.float64, requires_grad=True)
        hi = T.tensor([[0.4], [-1.0]], dtype=T.float64, requires_grad=True)
        y = T.clamp(x, lo, hi)
        (y * T.arange(6.0, dtype=T.float64).reshape(2, 3)).sum().backward()
        return y, x.grad, lo.grad, hi.grad, [n.name() if n else None for n, _ in y.grad_fn.next_functions]
    assert_same(prog)


@settings(max_examples=20, deadline=None)
@given(shapes=st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=3), min_size=2, max_size=2),
       op=st.sampled_from(["minimum", "maximum", "clamp", "clamp_min", "clamp_max"]))
def test_fuzzed_broadcast_shapes(shapes, op):
    rng = np.random.default_rng(len(str(shapes)))
    a, b = (rng.standard_normal(tuple(s)).round(1) for s in shapes)

    def prog(T):
        x = T.tensor(a, dtype=T.float64, requires_grad=True)
        y = T.tensor(b, dtype=T.float64, requires_grad=True)
        out = getattr(T, op)(x, y)
        out.backward(T.ones_like(out))
        return out, x.grad, y.grad
    assert_same(prog)


def test_clamp_tensor_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    x0, lo0, hi0 = rng.standard_normal((3, 4)), rng.standard_normal(4) - 0.7, rng.standard_normal((3, 1)) + 0.7
    upstream = rng.standard_normal((3, 4))

    def f(x, lo, hi):
        with picotorch.no_grad():
            out = picotorch.clamp(*(picotorch.tensor(v, dtype=picotorch.float64) for v in (x, lo, hi)))
        return float((out.numpy() * upstream).sum())

    leaves = [picotorch.tensor(v, dtype=picotorch.float64, requires_grad=True) for v in (x0, lo0, hi0)]
    picotorch.clamp(*leaves).backward(picotorch.tensor(upstream))
    values = [x0, lo0, hi0]
    for i, leaf in enumerate(leaves):
        numerical = numeric_grad(lambda v, i=i: f(*values[:i], v, *values[i + 1:]), values[i])
        np.testing.assert_allclose(leaf.grad.numpy(), numerical, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- float32 rounding

# Exact agreement with PyTorch's float32 results on 2 * 10^5 values (normal * 4; positive ones for
# the logs), measured when the rule was written (NOTE [Rounding float32 functions as PyTorch does]):
# NumPy's float32 kernels agree on 61% (exp) to 91% (log2); computing in float64 and rounding once
# on 92% (log) to 99.9% (tanh). Each threshold sits a little under the measured rate.
AGREEMENT = {"exp": 0.985, "tanh": 0.995, "log": 0.91, "sigmoid": 0.95, "sin": 0.94, "cos": 0.94,
             "expm1": 0.995, "log1p": 0.99, "exp2": 0.93, "log2": 0.995, "rsqrt": 0.999}


@pytest.mark.parametrize("name", sorted(AGREEMENT))
def test_float32_functions_print_what_torch_prints(name):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(200_000) * 4).astype(np.float32)
    if name in ("log", "log1p", "log2", "rsqrt"):
        x = np.abs(x) + np.float32(1e-3)
    ours = getattr(picotorch, name)(picotorch.tensor(x)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert ours.dtype == np.float32
    assert np.mean(ours == theirs) >= AGREEMENT[name]
    np.testing.assert_allclose(ours, theirs, rtol=3e-7, atol=1e-30)


@pytest.mark.parametrize("name", sorted(AGREEMENT))
def test_float16_functions_round_once_as_torch(name):
    """PyTorch computes float16 in float32 and rounds once; so does picotorch (or in float64): all agree."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(50_000) * 4).astype(np.float16)
    if name in ("log", "log1p", "log2", "rsqrt"):
        x = np.abs(x) + np.float16(1e-3)
    ours = getattr(picotorch, name)(picotorch.tensor(x)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert ours.dtype == np.float16
    assert np.mean((ours == theirs) | (np.isnan(ours) & np.isnan(theirs))) >= 0.9999
