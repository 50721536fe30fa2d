"""The reductions against PyTorch: ``max``/``min`` (all elements, along a dim as ``torch.return_types``, of
two tensors), ``amax``/``amin``, ``argmax``/``argmin``, ``logsumexp``, ``var``/``std`` and ``norm``.

Each program runs on both libraries (values, dtypes, printed output, ``grad_fn`` names, ``next_functions``,
saved values, gradients, error types and texts); the gradients are also checked against finite
differences, and a hypothesis fuzz covers shapes (empty ones too), dims, negative dims and keepdim.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from numeric_helpers import backward_and_numeric
from picotorch_course.difftest import assert_same

TIES = [[1.0, 3.0, 3.0, -2.0], [2.0, -0.5, 5.0, 5.0], [0.5, 0.5, 0.5, 0.5]]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


def _node(out):
    """What a learner sees of ``out``'s node: its name and where its edges lead."""
    fn = out.grad_fn
    return fn.name(), [(n.name() if n is not None else None, nr) for n, nr in fn.next_functions]


def _data(T, dtype):
    if dtype == "bool":
        return T.tensor([[True, False, True], [False, False, False]])
    return T.tensor([[1, 3, 3], [2, 0, 5]], dtype=getattr(T, dtype))


# ----------------------------------------------------------------------------- max(), min()


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_full_reduction_values_and_dtypes(name, dtype):
    """x.max() and torch.max(x): a zero-dim tensor of x's dtype (bool and integers too)."""
    def prog(T):
        x = _data(T, dtype)
        return getattr(x, name)(), getattr(T, name)(x)
    assert_same(prog)


@pytest.mark.parametrize("name", ["max", "min"])
def test_full_reduction_shares_the_gradient_among_ties(name):
    """MaxBackward1/MinBackward1 save self and result and split the gradient evenly among equal elements."""
    def prog(T):
        x = T.tensor(TIES, dtype=T.float64, requires_grad=True)
        out = getattr(x, name)()
        saved = out.grad_fn._saved_self, out.grad_fn._saved_result
        (out * 3).backward()
        return out, _node(out), saved, x.grad
    assert_same(prog)


@pytest.mark.parametrize("name", ["max", "min"])
def test_full_reduction_propagates_nan_and_splits_its_gradient_among_nans(name):
    def prog(T):
        x = T.tensor([1.0, math.nan, 3.0, math.nan], requires_grad=True)
        out = getattr(T, name)(x)
        out.backward()
        return out, x.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- max(dim), min(dim)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_along_a_dim_returns_values_and_indices(name, dim, keepdim):
    """The named tuple prints as PyTorch's; values carry MaxBackward0 (saving dim, keepdim, sizes, indices)."""
    def prog(T):
        x = T.tensor(TIES, dtype=T.float64, requires_grad=True)
        r = getattr(x, name)(dim, keepdim=keepdim)
        print(r)
        values, indices = r
        fn = r.values.grad_fn
        saved = fn._saved_dim, fn._saved_keepdim, tuple(fn._saved_self_sym_sizes), fn._saved_indices
        (values * T.arange(1.0, values.numel() + 1, dtype=T.float64).reshape(values.shape)).sum().backward()
        return (r, r[0], r[1], r.indices, len(r), type(r).__name__, indices.requires_grad, _node(values),
                saved, x.grad)
    assert_same(prog)


@pytest.mark.parametrize("name", ["max", "min"])
def test_along_a_dim_keyword_forms_dtypes_and_nan(name):
    """dim= as a keyword, integer and bool inputs, a zero-dim input, the first NaN wins."""
    def prog(T):
        f = getattr(T, name)
        out = [f(T.tensor([[1, 7, 7], [9, 0, 2]]), dim=1), f(T.tensor([True, False]), 0),
               getattr(T.tensor([[1, 7], [9, 0]], dtype=T.int32), name)(dim=-1, keepdim=True),
               f(T.tensor(2.5), 0), f(T.tensor(2.5), -1, True),
               f(T.tensor([[1.0, math.nan, 3.0, math.nan], [0.0, 1.0, 1.0, 0.0]]), 1),
               f(T.zeros(0, 3), 1)]
        return [(r.values, r.indices) for r in out]
    assert_same(prog)


def test_return_type_is_a_tuple_with_named_fields():
    def prog(T):
        r = T.tensor([[1.0, 2.0], [4.0, 3.0]]).min(0)
        return (isinstance(r, tuple), type(r).__module__, type(r).__name__, r.n_fields, list(r), tuple(r)[1],
                str(r), repr(T.return_types.min), r == (r.values, r.indices))
    assert_same(prog)


@pytest.mark.parametrize("name", ["max", "min"])
def test_of_two_tensors_is_maximum(name):
    """max(a, b) broadcasts and records MaximumBackward0 / MinimumBackward0 (half the gradient on a tie)."""
    def prog(T):
        a = T.tensor([[1.0, 3.0, -2.0], [2.0, 0.5, 5.0]], requires_grad=True)
        b = T.tensor([1.0, 0.0, 4.0], requires_grad=True)
        out = getattr(T, name)(a, b)
        out2 = getattr(a, name)(b)
        (out * 2 + out2).sum().backward()
        return out, _node(out), a.grad, b.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- amax, amin


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dim", [(), 0, -1, (0, 1), (1, -3), [2, 0]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_split_the_gradient_among_ties(name, dim, keepdim):
    def prog(T):
        x = T.tensor([TIES, [[-1.0, -1.0, 0.0, 2.0], [3.0, 3.0, 3.0, 1.0], [0.0, 0.0, 0.0, 0.0]]],
                     dtype=T.float64, requires_grad=True)
        out = getattr(x, name)(dim, keepdim)
        fn = out.grad_fn
        saved = fn._saved_dim, fn._saved_keepdim, fn._saved_self, fn._saved_result
        (out * T.arange(1.0, out.numel() + 1, dtype=T.float64).reshape(out.shape)).sum().backward()
        return out, _node(out), saved, x.grad
    assert_same(prog)


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_amax_amin_dtypes(name, dtype):
    def prog(T):
        x = _data(T, dtype)
        return getattr(T, name)(x), getattr(x, name)(1), getattr(x, name)(dim=0, keepdim=True)
    assert_same(prog)


# ----------------------------------------------------------------------------- argmax, argmin


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8"])
def test_argmax_argmin(name, dtype):
    """int64 indices, never a grad_fn; no dim means the flattened tensor; the first of ties, the first NaN."""
    def prog(T):
        x = T.tensor([[1, 7, 7], [9, 0, 9]], dtype=getattr(T, dtype))
        f = getattr(T, name)
        out = [f(x), getattr(x, name)(), f(x, 0), f(x, -1, True), f(x, dim=1), f(x, keepdim=True),
               f(T.tensor(4.0)), f(T.tensor(4.0), 0, True)]
        if dtype.startswith("float"):
            x = T.tensor([[1.0, math.nan, 7.0, math.nan]], dtype=getattr(T, dtype), requires_grad=True)
            out += [f(x), f(x, 1)]
        return out
    assert_same(prog)


# ----------------------------------------------------------------------------- logsumexp


@pytest.mark.parametrize("dim", [0, -1, (0, 1), [1], ()])
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp_values_graph_and_gradient(dim, keepdim):
    """LogsumexpBackward0 saves self and result; dim=() without keepdim is PyTorch 2.13's shape error."""
    def prog(T):
        x = T.tensor([[[1.0, 2.0, 700.0], [-3.0, 0.5, 1.0]], [[0.0, 0.0, 0.0], [5.0, -1.0, 2.0]]],
                     dtype=T.float64, requires_grad=True)
        out = x.logsumexp(dim, keepdim=keepdim)
        fn = out.grad_fn
        saved = fn._saved_dim, fn._saved_keepdim, fn._saved_result, fn._saved_self
        (out * out).sum().backward()
        return out, _node(out), saved, x.grad
    assert_same(prog)


def test_logsumexp_edges():
    """Integers give float32, infinities are kept (a row of -inf stays -inf), float32 stays float32."""
    def prog(T):
        inf = math.inf
        return (T.tensor([[1, 2], [3, 4]]).logsumexp(1), T.tensor([True, False]).logsumexp(0),
                T.logsumexp(T.tensor([[-inf, -inf], [inf, 1.0], [-inf, 1.0]]), 1),
                T.tensor([[0.1, 0.2, 0.3]]).logsumexp(dim=1, keepdim=True), T.zeros(0, 3).logsumexp(0),
                T.zeros(2, 0).logsumexp(1), T.tensor(2.0).logsumexp(0))
    assert_same(prog)


# ----------------------------------------------------------------------------- var, std

VAR_CALLS = {
    "all": lambda T, x, f: getattr(x, f)(),
    "all biased": lambda T, x, f: getattr(x, f)(False),
    "unbiased keyword": lambda T, x, f: getattr(x, f)(unbiased=False),
    "dim": lambda T, x, f: getattr(x, f)(0),
    "dim unbiased keepdim": lambda T, x, f: getattr(T, f)(x, 1, False, True),
    "dims": lambda T, x, f: getattr(x, f)((0, -1)),
    "dim keyword": lambda T, x, f: getattr(T, f)(x, dim=-1, keepdim=True),
    "correction": lambda T, x, f: getattr(x, f)(1, correction=0),
    "float correction": lambda T, x, f: getattr(x, f)(dim=[0], correction=0.5, keepdim=True),
    "correction only": lambda T, x, f: getattr(T, f)(x, correction=2),
    "empty dims": lambda T, x, f: getattr(x, f)(()),
    "dim None": lambda T, x, f: getattr(x, f)(None, correction=0),
}


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("call", sorted(VAR_CALLS))
def test_var_std_forms_graph_and_gradient(name, call):
    """Every form records VarBackward0/StdBackward0 of var.correction, saving dim and correction as given."""
    def prog(T):
        x = T.tensor([[1.0, 3.0, 3.0, -2.0], [2.0, -0.5, 5.0, 4.0], [0.5, 0.5, 1.5, 0.5]],
                     dtype=T.float64, requires_grad=True)
        out = VAR_CALLS[call](T, x, name)
        fn = out.grad_fn
        saved = [fn._saved_dim, fn._saved_correction, fn._saved_keepdim, fn._saved_self]
        if name == "std":
            saved.append(fn._saved_result)
        (out * T.arange(1.0, out.numel() + 1, dtype=T.float64).reshape(out.shape)).sum().backward()
        return out, _node(out), saved, x.grad
    assert_same(prog)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_float32_and_float16(name):
    def prog(T):
        rng = np.random.default_rng(5)
        data = rng.standard_normal((7, 5)) * 3 + 1
        return [getattr(T.tensor(data, dtype=getattr(T, dt)), name)(d) for dt in ("float32", "float16")
                for d in (None, 0, 1)]
    assert_same(prog, rtol=1e-6)


@pytest.mark.parametrize("name", ["var", "std"])
def test_no_degrees_of_freedom_warns_and_gives_inf_or_nan(name):
    """correction >= N: PyTorch's UserWarning (its text), inf (nan where all equal), and the gradient's rule."""
    def prog(T):
        x = T.tensor([[1.0, 2.0], [1.0, 4.0]], dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = [getattr(x, name)(0, correction=2), getattr(T.tensor([3.0]), name)(),
                   getattr(T.zeros(0), name)(), getattr(x, name)(correction=4)]
        out[3].backward()
        return out, [(w.category.__name__, str(w.message)) for w in caught], x.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- norm

NORM_PS = [None, "fro", 2, 1, 3, 1.5, 0.5, 0, math.inf, -math.inf, -1]


@pytest.mark.parametrize("p", NORM_PS)
@pytest.mark.parametrize("dim", [None, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_norm_is_linalg_vector_norm(p, dim, keepdim):
    """Tensor.norm and torch.norm call linalg_vector_norm: LinalgVectorNormBackward0 saving ord, dim, keepdim."""
    def prog(T):
        x = T.tensor([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]], dtype=T.float64, requires_grad=True)
        out = x.norm(p, dim, keepdim)
        same = T.norm(x, p=p, dim=dim, keepdim=keepdim)
        fn = out.grad_fn
        saved = fn._saved_ord, fn._saved_dim, fn._saved_keepdim, fn._saved_self, fn._saved_result
        (out * 2).sum().backward()
        return out, same, _node(out), saved, x.grad
    assert_same(prog)


def test_norm_defaults_dtype_and_float32():
    def prog(T):
        x = T.tensor([[3.0, -4.0], [1.0, 2.0]])
        return (x.norm(), T.norm(x), x.norm(dtype=T.float64), x.norm(2.5), T.norm(x, 1, 0),
                T.tensor([0.0, 0.0], requires_grad=True).norm(), T.zeros(0, 3).norm(), T.zeros(0, 3).norm(1, dim=0),
                T.zeros(0, 3).norm(math.inf, dim=1))
    assert_same(prog)


def test_linalg_vector_norm():
    """torch.linalg.vector_norm is the op itself (its keyword names: ord, dim, keepdim, dtype)."""
    def prog(T):
        x = T.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True)
        out = T.linalg.vector_norm(x, ord=1, dim=(0, 1), keepdim=True)
        out.backward(T.ones(1, 1))
        return out, T.linalg.vector_norm(x), T.linalg.vector_norm(x, math.inf, -1, dtype=T.float64), x.grad
    assert_same(prog)


def test_linalg_is_a_module_as_in_torch():
    """`import torch.linalg` and `from torch.linalg import vector_norm` work (torch.linalg is a module)."""
    import importlib

    def prog(T):
        module = importlib.import_module(f"{T.__name__}.linalg")
        return type(module).__name__, module is T.linalg, module.vector_norm(T.tensor([3.0, 4.0]))
    assert_same(prog)


def test_zero_dim_integer_tensors_as_dims():
    assert_same(lambda T: (T.ones(2, 3).std(T.tensor(1)), T.ones(2, 3).amax((T.tensor(0), 1)),
                           T.ones(2, 3).max(T.tensor(-1))))


def test_norm_of_zero_has_zero_gradient_and_order_zero_none():
    """The 2-norm at 0 gives 0, not nan (masked); order 0 counts and has no gradient at all."""
    def prog(T):
        x = T.zeros(3, requires_grad=True)
        x.norm().backward()
        y = T.tensor([1.0, 0.0, 2.0], requires_grad=True)
        y.norm(0).backward()
        return x.grad, y.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- NaN, inf and zeros

NAN_INF = [[1.0, math.nan, 3.0], [math.inf, 2.0, -math.inf]]
EDGE_VALUES = {
    "amax": (lambda T, x: x.amax(1), NAN_INF),
    "amin": (lambda T, x: x.amin(0), NAN_INF),
    "max dim": (lambda T, x: x.max(1).values, NAN_INF),
    "max": (lambda T, x: x.max(), NAN_INF),
    "logsumexp": (lambda T, x: x.logsumexp(1), NAN_INF),
    "logsumexp of infinities": (lambda T, x: x.logsumexp(0), [[math.inf, -math.inf, 1.0], [math.inf, -math.inf, 2.0]]),
    "var": (lambda T, x: x.var(1), NAN_INF),
    "std of equal values": (lambda T, x: x.std(1), [[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]),
    "norm": (lambda T, x: x.norm(dim=1), NAN_INF),
    "inf norm": (lambda T, x: x.norm(math.inf, dim=1), NAN_INF),
    "3-norm of zeros": (lambda T, x: x.norm(3, dim=1), [[0.0, 0.0], [1.0, -2.0]]),
    "0.5-norm of zeros": (lambda T, x: x.norm(0.5, dim=1), [[0.0, 0.0], [1.0, 0.0]]),
    "-1-norm with a zero": (lambda T, x: x.norm(-1, dim=1), [[0.0, 1.0], [1.0, 3.0]]),
    "1-norm with a zero": (lambda T, x: x.norm(1), [[0.0, 1.0], [-1.0, 3.0]]),
}


@pytest.mark.parametrize("case", sorted(EDGE_VALUES))
def test_nan_inf_and_zeros_values_and_gradients(case):
    fn, data = EDGE_VALUES[case]

    def prog(T):
        x = T.tensor(data, requires_grad=True)
        out = fn(T, x)
        out.sum().backward()
        return out, x.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- bad input

BAD_INPUT = {
    "max of empty": lambda T: T.zeros(0).max(),
    "min of empty": lambda T: T.tensor([]).min(),
    "max along an empty dim": lambda T: T.zeros(0, 3).max(0),
    "min along a negative empty dim": lambda T: T.zeros(0, 3).min(-2),
    "max dim out of range": lambda T: T.ones(2, 3).max(2),
    "max dim of zero-dim": lambda T: T.tensor(1.0).max(1),
    "amax of empty": lambda T: T.zeros(0).amax(),
    "amax along an empty dim": lambda T: T.zeros(0, 3).amax(0),
    "amin along a negative empty dim": lambda T: T.zeros(0, 3).amin(-2),
    "amax repeated dim": lambda T: T.ones(2, 3).amax((0, 0)),
    "amax repeated negative dim": lambda T: T.ones(2, 3).amax((1, -1)),
    "amin dim out of range": lambda T: T.ones(2, 3).amin(-3),
    "amax dim str": lambda T: T.ones(2, 3).amax("a"),
    "amax keepdim int": lambda T: T.ones(2, 3).amax(0, 1),
    "logsumexp keepdim str": lambda T: T.ones(2, 3).logsumexp(0, "yes"),
    "argmax of empty": lambda T: T.zeros(0, 2).argmax(),
    "argmin along an empty dim": lambda T: T.zeros(0, 2).argmin(-2),
    "argmax dim out of range": lambda T: T.ones(2, 3).argmax(2),
    "argmax of bools": lambda T: T.zeros(0, dtype=T.bool).argmax(),
    "argmin of bools": lambda T: T.tensor([True, False]).argmin(0),
    "logsumexp dim out of range": lambda T: T.ones(2, 3).logsumexp(2),
    "logsumexp without dim": lambda T: T.ones(2, 3).logsumexp(),
    "logsumexp of no dims": lambda T: T.ones(2, 3).logsumexp([]),
    "std of ints": lambda T: T.tensor([1, 2, 3]).std(),
    "var of bools": lambda T: T.tensor([True, False]).var(0),
    "var dim out of range": lambda T: T.ones(2, 3).var(-3),
    "std repeated dim": lambda T: T.ones(2, 3).std((1, 1)),
    "norm of ints": lambda T: T.tensor([1, 2]).norm(),
    "norm dim out of range": lambda T: T.ones(2, 3).norm(dim=2),
    "inf norm of empty": lambda T: T.zeros(0).norm(math.inf),
    "-inf norm of empty": lambda T: T.zeros(0, 2).norm(-math.inf),
    "negative norm of empty": lambda T: T.zeros(0).norm(-1),
    "inf norm along an empty dim": lambda T: T.zeros(0, 3).norm(math.inf, dim=0),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_raises_pytorchs_error(case):
    assert_same(BAD_INPUT[case])


def test_bad_input_rejects_a_bool_where_a_dim_is_expected():
    """sum(True) is not sum(dim=1): a bool is no int for an int[] parameter, nor an int or a string a bool, in
    picotorch as in PyTorch; so var(True) is var(unbiased=True). The messages are PyTorch's, character for
    character (tests/ch06_import/test_arg_parser_vs_torch.py has many more)."""
    for call in (lambda T: T.ones(2, 3).sum(True), lambda T: T.ones(2, 3).max(True),
                 lambda T: T.ones(2, 3).max(keepdim=True), lambda T: T.ones(2, 3).var("a"),
                 lambda T: T.ones(2, 3).max(0, 1)):
        assert assert_same(call).error[0] == "TypeError"
    assert_same(lambda T: (T.ones(2, 3).var(True), T.tensor([[1.0, 2.0], [4.0, 3.0]]).std(False)))


# ----------------------------------------------------------------------------- finite differences

SMOOTH = {  # no ties, no zeros: each has one derivative
    "max dim": lambda T, x: T.max(x, 1)[0],
    "min dim keepdim": lambda T, x: x.min(0, keepdim=True).values,
    "max": lambda T, x: x.max(),
    "amax": lambda T, x: x.amax((0, 1), keepdim=True),
    "amin": lambda T, x: x.amin(-1),
    "logsumexp": lambda T, x: x.logsumexp(1),
    "logsumexp all": lambda T, x: T.logsumexp(x, (0, 1)),
    "var": lambda T, x: x.var(0),
    "var all": lambda T, x: x.var(correction=0),
    "std": lambda T, x: x.std(1, keepdim=True),
    "std all": lambda T, x: x.std(),
    "norm": lambda T, x: x.norm(dim=1),
    "norm 1": lambda T, x: x.norm(1),
    "norm 3": lambda T, x: x.norm(3, dim=0),
    "norm 1.5": lambda T, x: x.norm(1.5),
    "norm 0.5": lambda T, x: x.norm(0.5, dim=1),
    "norm inf": lambda T, x: x.norm(math.inf, 1),
    "norm -inf": lambda T, x: x.norm(-math.inf),
    "norm -1": lambda T, x: x.norm(-1, 0),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_gradients_match_finite_differences(name):
    rng = np.random.default_rng(sorted(SMOOTH).index(name))
    base = rng.permutation(np.arange(1, 13)).reshape(3, 4) * rng.choice([-1, 1], (3, 4)) / 3.0
    analytic, numerical = backward_and_numeric(lambda x: SMOOTH[name](picotorch, x), base, rng)
    np.testing.assert_allclose(analytic, numerical, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- double backward

SECOND_ORDER = {
    "max dim": lambda T, x: x.max(1).values ** 2,
    "min dim keepdim": lambda T, x: x.min(0, keepdim=True).values * x,
    "max dim of a zero-dim tensor": lambda T, x: x.sum().max(0).values * x,
    "max": lambda T, x: x.max() * x,
    "amax": lambda T, x: x.amax(0) * x,
    "logsumexp": lambda T, x: x.logsumexp(1) ** 2,
    "var": lambda T, x: x.var(0) ** 2,
    "var all": lambda T, x: x.var() * x,
    "std": lambda T, x: x.std(1) ** 2,
    "norm": lambda T, x: x.norm(dim=1) ** 2,
    "norm 3": lambda T, x: x.norm(3) * x,
    "norm 1": lambda T, x: x.norm(1, 0) * x,
    "norm inf": lambda T, x: x.norm(math.inf, 0) * x,
    "norm 0.5": lambda T, x: x.norm(0.5) * x,
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_gradient_of_gradient(name):
    """create_graph=True records the backward formulas: second derivatives and the first gradient's node match."""
    def prog(T):
        x = T.tensor([[0.3, -1.2, 0.5], [0.7, 2.0, -0.4]], dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(SECOND_ORDER[name](T, x).sum(), x, create_graph=True)
        (h,) = T.autograd.grad((g * g).sum(), x)
        return g.grad_fn.name(), g.detach(), h
    assert_same(prog)


# ----------------------------------------------------------------------------- fuzz

FUZZ_OPS = {
    "max": lambda T, x, d, k: x.max(),
    "max dim": lambda T, x, d, k: x.max(d, k).values,
    "min dim indices": lambda T, x, d, k: x.min(d, keepdim=k).indices,
    "amax": lambda T, x, d, k: x.amax(d, k),
    "amin all": lambda T, x, d, k: x.amin((), k),
    "argmax": lambda T, x, d, k: x.argmax(d, k),
    "argmin all": lambda T, x, d, k: x.argmin(keepdim=k),
    "logsumexp": lambda T, x, d, k: x.logsumexp(d, k),
    "var": lambda T, x, d, k: x.var(d, keepdim=k),
    "std": lambda T, x, d, k: x.std(d, correction=0, keepdim=k),
    "norm": lambda T, x, d, k: x.norm(dim=d, keepdim=k),
    "norm inf": lambda T, x, d, k: x.norm(math.inf, d, k),
    "norm 1": lambda T, x, d, k: T.norm(x, 1, d, k),
}


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=3), dim=st.integers(-3, 2), keepdim=st.booleans(),
       op=st.sampled_from(sorted(FUZZ_OPS)))
def test_fuzzed_shapes_dims_and_keepdim(shape, dim, keepdim, op):
    rng = np.random.default_rng(len(shape) * 7 + dim + 3)
    data = rng.standard_normal(tuple(shape)).round(1)

    def prog(T):
        x = T.tensor(data, dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = FUZZ_OPS[op](T, x, dim, keepdim)
        if out.requires_grad:
            (out * 2).sum().backward()
        return out, x.grad
    assert_same(prog)
