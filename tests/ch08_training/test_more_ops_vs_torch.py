"""More ops of a training loop against PyTorch: ``sort``, ``argsort``, ``topk`` (``torch.return_types``,
``SortBackward0``/``SortBackward1``/``TopkBackward0``), ``isnan``/``isinf``/``isfinite``, ``isclose``/``allclose``,
``linspace`` (bit for bit) and ``nn.functional.one_hot``.

Each program runs on both libraries (values, dtypes, printed output, ``grad_fn`` names, ``next_functions``, saved
values, gradients, error types and texts); sort's and topk's gradients are also checked against finite
differences, and a hypothesis fuzz covers shapes (empty ones too), dims, negative dims, k and the directions.
Tied values: ``sort(stable=True)`` keeps them in order; without ``stable`` PyTorch's CPU sort is ``std::sort``
(a radix sort for long 1-D integer tensors) and ``topk`` libstdc++'s ``partial_sort``/``nth_element``: their
tie orders, and ``sorted=False``'s order, are compared exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from numeric_helpers import backward_and_numeric
from picotorch.native.device import use_backend
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8"]
DISTINCT = [[4.0, -1.5, 9.0, 0.25], [3.0, 7.5, -6.0, 1.0], [2.0, 0.5, -2.5, 8.0]]
TIES = [[3.0, 1.0, 3.0, 1.0, 2.0, 3.0], [0.0, 0.0, -1.0, 0.0, 5.0, -1.0]]


def _node(out):
    """What a learner sees of ``out``'s node: its name and where its edges lead."""
    fn = out.grad_fn
    return fn.name(), [(n.name() if n is not None else None, nr) for n, nr in fn.next_functions]


def _saved(out):
    fn = out.grad_fn
    return fn._saved_dim, fn._saved_indices, tuple(fn._saved_self_sym_sizes)


def _distinct(T, dtype):
    data = [[4, 1, 9, 0], [3, 7, 6, 2], [5, 8, 11, 10]]
    return T.tensor(data, dtype=getattr(T, dtype))


# ----------------------------------------------------------------------------- sort, argsort


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_values_indices_and_named_tuple(dtype, dim, descending):
    def prog(T):
        x = _distinct(T, dtype)
        result = x.sort(dim, descending)
        values, indices = T.sort(x, dim=dim, descending=descending)
        return (repr(result), type(result).__name__, result.values, result.indices, values, indices,
                x.argsort(dim, descending), T.argsort(x, dim=dim, descending=descending))
    assert_same(prog)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [True, False, None])
def test_stable_sort_keeps_tied_values_in_order(descending, stable):
    """stable=True keeps tied values in order; stable=False/None is std::sort (insertion sort here: 6 values)."""
    def prog(T):
        x = T.tensor(TIES)
        out = T.sort(x, stable=True, descending=descending, dim=1)
        arg = T.argsort(x, stable=True, descending=descending)
        return out, arg, x.sort(stable=stable, descending=descending)
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "float16", "bfloat16", "float32", "float64",
                                   "int32", "int64"])
@pytest.mark.parametrize("size", [16, 17, 40, 150])
def test_unstable_sort_of_tied_values_follows_std_sort(dtype, size):
    """Without stable=True PyTorch's CPU sort is std::sort: tied indices agree exactly (up to 16 values it is an
    insertion sort, which is stable)."""
    rng = np.random.default_rng(size)
    data = rng.integers(0, 3, (2, size))

    def prog(T):
        x = T.tensor(data).to(getattr(T, dtype))
        return x.sort(), x.sort(descending=True), T.sort(x, dim=0), x.argsort(descending=True), x.sort(stable=False)
    assert_same(prog)


def test_long_1d_integer_sort_is_radix_sort_and_stable():
    data = np.random.default_rng(3).integers(0, 40, 33000)

    def prog(T):
        x = T.tensor(data)
        return x.sort().indices[-50:], x.to(T.int16).sort(descending=True).indices[:50], x.float().sort().indices[:50]
    assert_same(prog)


def test_sort_of_an_expanded_dim_leaves_every_value_in_place():
    def prog(T):
        x = T.tensor([[3.0], [2.0]], requires_grad=True).expand(2, 40)
        return x.sort(), x.sort(descending=True, stable=True), T.sort(x, 0), x.argsort(dim=1)
    assert_same(prog)


def test_sort_puts_nan_last_ascending_and_first_descending():
    def prog(T):
        x = T.tensor([2.0, math.nan, -math.inf, 1.0, math.inf, -3.0])
        return x.sort(), x.sort(descending=True), x.argsort(stable=True), T.sort(x.to(T.float16), stable=True)
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_sort_and_topk_with_nans_in_every_float_dtype(dtype):
    def prog(T):
        x = T.tensor([2.0, math.nan, -math.inf, 1.0, math.inf, math.nan, -3.0], dtype=getattr(T, dtype))
        return (x.sort(stable=True), x.sort(descending=True, stable=True), x.topk(4), x.topk(3, largest=False),
                x.argsort(stable=True, descending=True))
    assert_same(prog)


@pytest.mark.parametrize("stable", [False, True])
def test_sort_backward_node_saved_values_and_gradient(stable):
    """SortBackward0 (sort) / SortBackward1 (sort.stable) save dim, indices and self's sizes; the gradient
    goes back to where each value came from."""
    def prog(T):
        x = T.tensor(DISTINCT, dtype=T.float64, requires_grad=True)
        out = x.sort(dim=0, descending=True, stable=True) if stable else x.sort(0, descending=True)
        weights = T.arange(12, dtype=T.float64).reshape(3, 4)
        (out.values * weights).sum().backward()
        return out.values, _node(out.values), _saved(out.values), out.indices.requires_grad, x.grad
    assert_same(prog)


def test_argsort_and_indices_have_no_grad_fn():
    def prog(T):
        x = T.tensor(DISTINCT, requires_grad=True)
        arg = x.argsort()
        return arg, arg.grad_fn, arg.requires_grad, x.sort().indices.grad_fn, x.topk(2).indices.requires_grad
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([1.0, 2.0]).sort(dim=1),
    lambda T: T.tensor([[1.0, 2.0]]).argsort(-3),
    lambda T: T.tensor(2.5, requires_grad=True).sort(),
    lambda T: T.tensor(2.5).argsort(0, True),
    lambda T: T.tensor([True, False, True]).sort(),
    lambda T: T.zeros(0, 3).sort(0),
    lambda T: T.zeros(2, 0).topk(0),
    lambda T: T.sort(T.tensor([3.0, 1.0]), stable=None),
])
def test_sort_edge_cases_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- topk


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k,dim", [(0, 1), (1, 1), (2, -1), (3, 0), (4, 1)])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_values_indices_and_named_tuple(dtype, k, dim, largest):
    def prog(T):
        x = _distinct(T, dtype)
        result = x.topk(k, dim, largest)
        values, indices = T.topk(x, k, dim=dim, largest=largest, sorted=True)
        return repr(result), type(result).__name__, result, values, indices
    assert_same(prog)


@pytest.mark.parametrize("size,k", [(6, 3), (17, 5), (40, 1), (64, 1), (65, 1), (130, 2), (200, 150)])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
def test_topk_of_tied_values_follows_libstdcxx(size, k, largest, sorted_):
    """Ties (and NaNs) make the result depend on the algorithm: partial_sort for k <= size / 64, else
    nth_element then sort; sorted=False keeps nth_element's order. Indices agree exactly."""
    rng = np.random.default_rng(size * 10 + k)
    data = rng.integers(0, 4, (3, size)).astype(np.float64)
    data[rng.random(data.shape) < 0.05] = np.nan

    def prog(T):
        x = T.tensor(data, dtype=T.float32)
        return x.topk(k, largest=largest, sorted=sorted_), T.topk(x.to(T.bfloat16), k, 1, largest, sorted_)
    assert_same(prog)


def test_topk_unsorted_of_distinct_values_in_pytorchs_order():
    data = np.random.default_rng(5).permutation(40).reshape(2, 20) / 8.0

    def prog(T):
        x = T.tensor(data)
        return x.topk(7, sorted=False), x.topk(7, largest=False, sorted=False), x.topk(20, sorted=False)
    assert_same(prog)


def test_topk_backward_node_saved_values_and_gradient():
    def prog(T):
        x = T.tensor(DISTINCT, dtype=T.float64, requires_grad=True)
        out = T.topk(x, 2, dim=0, largest=False)
        (out.values * T.tensor([[1.0], [-2.0]], dtype=T.float64)).sum().backward()
        return out, _node(out.values), _saved(out.values), x.grad
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([1.0, 2.0]).topk(3),
    lambda T: T.tensor([1.0, 2.0]).topk(-1),
    lambda T: T.tensor([[1.0, 2.0]]).topk(1, dim=2),
    lambda T: T.tensor(7.0).topk(1),
    lambda T: T.tensor(7.0).topk(0),
    lambda T: T.tensor(7.0).topk(2),
    lambda T: T.tensor([1.0, math.nan, 3.0]).topk(2),
    lambda T: T.tensor([True, False]).topk(1),
    lambda T: T.tensor([True, False]).topk(3),
    lambda T: T.tensor(True).topk(1),
])
def test_topk_edge_cases_and_errors(program):
    assert_same(program)


SELECTING = {
    "sort": lambda T, x: x.sort(1).values,
    "sort descending dim 0": lambda T, x: T.sort(x, 0, True).values,
    "sort stable": lambda T, x: x.sort(stable=True, dim=0).values,
    "topk": lambda T, x: x.topk(3).values,
    "topk smallest dim 0": lambda T, x: T.topk(x, 2, 0, largest=False).values,
}


@pytest.mark.parametrize("name", sorted(SELECTING))
def test_gradients_match_finite_differences(name):
    rng = np.random.default_rng(sorted(SELECTING).index(name))
    base = rng.permutation(np.arange(1, 13)).reshape(3, 4) * rng.choice([-1, 1], (3, 4)) / 3.0
    analytic, numerical = backward_and_numeric(lambda x: SELECTING[name](picotorch, x), base, rng)
    np.testing.assert_allclose(analytic, numerical, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(SELECTING))
def test_double_backward_records_the_scatter(name):
    """With create_graph=True the backward formula is recorded: the input's gradient has a node of its own."""
    def prog(T):
        x = T.tensor(DISTINCT, dtype=T.float64, requires_grad=True)
        out = SELECTING[name](T, x)
        (grad,) = T.autograd.grad((out ** 2).sum(), x, create_graph=True)
        (second,) = T.autograd.grad((grad * x).sum(), x)
        return grad, _node(grad), second
    assert_same(prog)


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(0, 20), min_size=0, max_size=3), dim=st.integers(-3, 2), k=st.integers(-1, 20),
       descending=st.booleans(), op=st.sampled_from(["sort", "sort stable", "argsort", "topk"]))
def test_fuzzed_shapes_dims_and_k(shape, dim, k, descending, op):
    size = int(np.prod(shape)) if shape else 1
    data = np.random.default_rng(size + 7 * (dim + 3)).integers(0, 3, tuple(shape)) / 4.0  # ties on purpose

    def prog(T):
        x = T.tensor(data, dtype=T.float64, requires_grad=True)
        if op == "sort":
            out = x.sort(dim, descending)
        elif op == "sort stable":
            out = T.sort(x, stable=True, dim=dim, descending=descending)
        elif op == "argsort":
            return T.argsort(x, dim, descending)
        else:
            out = x.topk(k, dim, largest=descending)
        (out.values * 3).sum().backward()
        return out, x.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- isnan, isinf, isfinite

SPECIAL = [1.0, math.nan, math.inf, -math.inf, -0.0, 65504.0, -2.5]


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
def test_isnan_isinf_isfinite_give_bool_without_grad_fn(dtype):
    def prog(T):
        if dtype == "bool":
            x = T.tensor([True, False])
        elif dtype in ("int64", "int32", "uint8"):
            x = T.tensor([[0, 3], [250, 7]], dtype=getattr(T, dtype))
        else:
            x = T.tensor(SPECIAL, dtype=getattr(T, dtype), requires_grad=True)
        outs = T.isnan(x), x.isinf(), T.isfinite(x), x.isnan(), T.isinf(x), x.isfinite()
        return outs, [(o.dtype, o.grad_fn, o.requires_grad) for o in outs]
    assert_same(prog)


def test_isnan_of_zero_dim_and_empty_tensors():
    def prog(T):
        return T.isnan(T.tensor(math.nan)), T.isinf(T.zeros(0, 2)), T.isfinite(T.tensor(-math.inf))
    assert_same(prog)


# ----------------------------------------------------------------------------- isclose, allclose


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_isclose_and_allclose_with_tolerances_nan_and_inf(dtype):
    def prog(T):
        dt = getattr(T, dtype)
        a = T.tensor([1.0, 1.0, 100.0, math.nan, math.inf, -math.inf, 0.0, 1e-9], dtype=dt)
        b = T.tensor([1.0, 1.0 + 1e-6, 100.01, math.nan, math.inf, math.inf, 1e-9, 0.0], dtype=dt)
        return (T.isclose(a, b), a.isclose(b, equal_nan=True), T.isclose(a, b, rtol=1e-3),
                T.isclose(a, b, rtol=0, atol=0), T.isclose(a, b, atol=0.5, rtol=0.0),
                T.allclose(a, b), a.allclose(b, rtol=1e-3, equal_nan=True), type(T.allclose(a, a)).__name__,
                T.allclose(a[:3], b[:3], rtol=1e-3), T.allclose(a[:2], b[:2]))
    assert_same(prog)


def test_isclose_of_integers_bool_and_broadcasting():
    def prog(T):
        i = T.tensor([[1, 5], [100, -3]])
        j = T.tensor([1, 6])
        bools = T.tensor([True, False, True])
        return (T.isclose(i, j), T.isclose(i, j, atol=1), i.isclose(j, rtol=0.2), T.allclose(i, i),
                T.isclose(bools, T.tensor([True, True, False])), T.isclose(bools, bools, atol=0.5),
                T.isclose(T.tensor(1.0), T.tensor([1.0, 2.0])))
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int64"])
def test_isclose_of_integers_takes_the_difference_without_wrapping(dtype):
    def prog(T):
        dt = getattr(T, dtype)
        lo, hi = (1, 2, 10, 0) if dtype == "uint8" else (-100, 1, -5, 0)
        a, b = T.tensor([lo, hi, 120, hi], dtype=dt), T.tensor([hi, lo, hi, 0], dtype=dt)
        return T.isclose(a, b, atol=1), T.isclose(a, b, atol=110), T.isclose(a, b, rtol=0.5), T.allclose(a, b, 200, 0)
    assert_same(prog)


def test_isclose_has_no_grad_fn():
    def prog(T):
        a = T.tensor([1.0, 2.0], requires_grad=True)
        out = T.isclose(a, a * 1.0000001)
        return out, out.grad_fn, out.requires_grad, T.allclose(a, a)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.isclose(T.tensor([1.0]), T.tensor([1])),
    lambda T: T.allclose(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)),
    lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0]), rtol=-1),
    lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0]), atol=-0.5),
    lambda T: T.allclose(T.tensor([1.0]), T.tensor([1.0]), atol=-2.0),
    lambda T: T.isclose(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0, 3.0])),
    lambda T: T.allclose(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0, 3.0])),
])
def test_isclose_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- linspace

LINSPACE_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8"]
RANGES = [(0, 1), (-3.7, 11.3), (0.1, 0.3), (5, -2), (1e-3, 6e4), (-1e-7, 3.3e-3), (0, 255), (3, 3), (0.5, 9.5)]


@pytest.mark.parametrize("dtype", LINSPACE_DTYPES)
def test_linspace_bit_for_bit(dtype):
    """Every value equals PyTorch's exactly, sign bit too: both halves, odd and even lengths, each dtype's rounding."""
    for start, end in RANGES:
        if dtype == "uint8" and (min(start, end) < 0 or max(start, end) > 255):
            continue
        for steps in [0, 1, 2, 3, 7, 16, 33, 100, 1000]:
            ours = picotorch.linspace(start, end, steps, dtype=getattr(picotorch, dtype))
            theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
            assert str(ours.dtype) == str(theirs.dtype)
            ours_values, theirs_values = ours.double().numpy(), theirs.double().numpy()  # exact for each dtype
            assert np.array_equal(ours_values, theirs_values), (dtype, start, end, steps)
            assert np.array_equal(np.signbit(ours_values), np.signbit(theirs_values)), (dtype, start, end, steps)


@settings(max_examples=20, deadline=None)
@given(start=st.floats(-1e6, 1e6), end=st.floats(-1e6, 1e6), steps=st.integers(2, 2000),
       dtype=st.sampled_from(["float32", "float64", "int64"]))
def test_fuzzed_linspace_is_exact(start, end, steps, dtype):
    ours = picotorch.linspace(start, end, steps, dtype=getattr(picotorch, dtype)).numpy()
    theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
    assert np.array_equal(ours, theirs) and np.array_equal(np.signbit(ours), np.signbit(theirs))


def test_linspace_defaults_printing_and_requires_grad():
    def prog(T):
        return (T.linspace(0, 10, 5), T.linspace(-1, 1, 4, dtype=T.float64), T.linspace(0, 10, 7, dtype=T.int64),
                T.linspace(T.tensor(0.5), 2, 3), T.linspace(1, T.tensor(3.0), 3, requires_grad=True),
                T.linspace(3, 1, 1), T.linspace(0, 1, 0), T.linspace(math.nan, 1, 3), T.linspace(0, math.inf, 3))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.linspace(0, 1, -1),
    lambda T: T.linspace(0, 1, 3, dtype=T.bool),
    lambda T: T.linspace(0, 1e5, 3, dtype=T.float16),
    lambda T: T.linspace(0, 300, 3, dtype=T.uint8),
    lambda T: T.linspace(math.nan, 1, 3, dtype=T.int32),
    lambda T: T.linspace(-2**40, 1, 3, dtype=T.int16),
    lambda T: T.linspace(1e39, 1, 3, dtype=T.float32),
])
def test_linspace_errors(program):
    assert_same(program)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "float16", "bfloat16"])
def test_linspace_converts_its_ends_to_the_dtype_first(dtype):
    """A negative number wraps into uint8, a float truncates toward zero, an infinite end gives NaN between."""
    def prog(T):
        dt = getattr(T, dtype)
        ends = T.linspace(1, math.inf, 4, dtype=dt) if dt.is_floating_point else None
        return T.linspace(-1, 1, 5, dtype=dt), T.linspace(-3.7, 2.5, 6, dtype=dt), ends
    assert_same(prog, rtol=0, atol=0)


# ----------------------------------------------------------------------------- one_hot


def test_one_hot_values_and_shapes():
    def prog(T):
        F = T.nn.functional
        labels = T.tensor([[0, 2], [1, 4]])
        return (F.one_hot(labels), F.one_hot(labels, 6), F.one_hot(T.tensor(3)), F.one_hot(T.tensor([0, 0]), 1),
                F.one_hot(T.zeros(0, dtype=T.int64), 3).shape, F.one_hot(T.tensor([1, 0]), -1).dtype)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.one_hot(T.tensor([1, -1])),
    lambda T: T.nn.functional.one_hot(T.tensor([1, -1]), 3),
    lambda T: T.nn.functional.one_hot(T.tensor([1, 3]), 3),
    lambda T: T.nn.functional.one_hot(T.tensor([1, 0]), 0),
    lambda T: T.nn.functional.one_hot(T.tensor([1, 0]), -2),
    lambda T: T.nn.functional.one_hot(T.tensor([1.0, 0.0])),
    lambda T: T.nn.functional.one_hot(T.tensor([1, 0], dtype=T.int32)),
    lambda T: T.nn.functional.one_hot(T.zeros(0, dtype=T.int64)),
    lambda T: T.nn.functional.one_hot(T.zeros(2, 0, dtype=T.int64), 0),
])
def test_one_hot_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- another device


def test_the_ops_run_on_an_array_api_strict_device_like_on_cpu():
    """The kernels use only the Array API: on a ``cuda`` device backed by array_api_strict they agree with cpu."""
    xps = pytest.importorskip("array_api_strict")
    def run(T, device):
        x = T.tensor([[2.0, math.nan, -1.0], [math.inf, 0.5, 3.0]], device=device)
        y = T.tensor([[4.0, 1.0, 9.0], [0.0, 7.0, -3.0]], device=device)
        labels = T.tensor([2, 0, 3], device=device)
        return (x.isnan(), x.isinf(), x.isfinite(), T.isclose(x, x, equal_nan=True), T.allclose(y, y + 1e-9),
                y.sort(1, descending=True), y.argsort(0), T.sort(y, stable=True), y.topk(2),
                T.tensor([[1.0, 1.0, 2.0, 2.0, 1.0]], device=device).topk(3, sorted=False),
                T.nn.functional.one_hot(labels), T.linspace(-1, 1, 5, device=device))

    with use_backend("cuda", xps, [xps.Device("device1")]):
        on_device = run(picotorch, "cuda")
    on_cpu = run(picotorch, "cpu")
    for a, b in zip(on_device, on_cpu):
        for ours, theirs in (zip(a, b) if isinstance(a, tuple) else [(a, b)]):
            if isinstance(ours, bool):
                assert ours == theirs
                continue
            assert ours.device.type == "cuda" and ours.dtype == theirs.dtype
            np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())
