"""Reductions, losses and normalisation against PyTorch on special values, bit for bit: the sign of a zero
result, where NaN appears, and the gradients at ties. ``assert_same`` compares with a tolerance and reads
``-0.`` as ``0.``, so these tests compare the bits themselves (float values as float64, NaN masks apart)."""

from __future__ import annotations

import numpy as np
import pytest

import picotorch
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")
FLOATS = ["float32", "float64", "float16", "bfloat16"]
ZEROS = [[-0.0, 0.0, -0.0, 0.0], [0.0, -0.0, 0.0, -0.0]]


def _bits(t) -> np.ndarray:
    return np.array(t.detach().double().tolist() if t.dim() else [t.detach().double().item()])


def assert_same_bits(prog):
    """Run ``prog`` on both libraries; every returned tensor must have the same dtype, shape and value bits."""
    ours, theirs = prog(picotorch), prog(torch)
    ours, theirs = (ours if isinstance(ours, tuple) else (ours,)), (theirs if isinstance(theirs, tuple) else (theirs,))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), (a, b)
        x, y = _bits(a), _bits(b)
        assert np.array_equal(np.isnan(x), np.isnan(y)), (x, y)
        x, y = x[~np.isnan(x)], y[~np.isnan(y)]
        assert np.array_equal(x, y) and np.array_equal(np.signbit(x), np.signbit(y)), (x, y)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOATS)
def test_max_dim_value_is_the_element_at_its_index(name, dim, dtype):
    """max(dim) / min(dim) return the element at the returned index: the first of tied zeros keeps its sign."""
    def prog(T):
        x = T.tensor(ZEROS + [[1.0, NAN, 1.0, NAN]], dtype=getattr(T, dtype), requires_grad=True)
        values, indices = getattr(x, name)(dim)
        values.backward(T.ones_like(values))
        return values, indices, x.grad
    assert_same_bits(prog)


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dim", [0, 1, (0, 1), ()])
@pytest.mark.parametrize("dtype", FLOATS)
def test_amax_of_tied_zeros_takes_the_first_sign(name, dim, dtype):
    """amax / amin of -0. and 0. (rows shorter than a vector): the first zero's sign; the gradient splits evenly."""
    def prog(T):
        x = T.tensor(ZEROS, dtype=getattr(T, dtype), requires_grad=True)
        y = getattr(x, name)(dim)
        y.backward(T.ones_like(y))
        return y, x.grad
    assert_same_bits(prog)


LOGITS = [[30.0, -100.0, 1.0, -1.0], [0.0, -0.0, 5.0, -30.0], [NAN, INF, -INF, 88.0]]
TARGETS = [[1.0, 0.0, 1.0, 0.5], [0.5, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("pos_weight", [None, [1.0, 2.0, 0.5, 0.0]])
@pytest.mark.parametrize("weight", [None, [1.0, 0.0, 2.0, 3.0]])
@pytest.mark.parametrize("dtype", FLOATS)
def test_bce_with_logits_rounds_each_step(reduction, pos_weight, weight, dtype):
    """binary_cross_entropy_with_logits below float64 is a chain of ops, each rounded: sigmoid(30.) - 1 is 0 and
    sigmoid(-100.) underflows to 0 in float32, as PyTorch computes them."""
    def prog(T):
        dt = getattr(T, dtype)
        x = T.tensor(LOGITS, dtype=dt, requires_grad=True)
        extra = {"pos_weight": None if pos_weight is None else T.tensor(pos_weight, dtype=dt),
                 "weight": None if weight is None else T.tensor(weight, dtype=dt)}
        y = T.nn.functional.binary_cross_entropy_with_logits(x, T.tensor(TARGETS, dtype=dt), reduction=reduction,
                                                             **extra)
        y.backward(T.ones_like(y) * 0.5)
        return y, x.grad
    assert_same_bits(prog)


@pytest.mark.parametrize("input_dtype, target_dtype", [("float32", "int64"), ("float32", "bool"), ("int64", "float32"),
                                                       ("int32", "int64")])
def test_bce_with_logits_dtype_errors(input_dtype, target_dtype):
    """An integer input, a bool target, an integer target: PyTorch's error texts."""
    def prog(T):
        x, t = T.ones(3, dtype=getattr(T, input_dtype)), T.ones(3, dtype=getattr(T, target_dtype))
        return T.nn.functional.binary_cross_entropy_with_logits(x, t)
    assert_same(prog)


@pytest.mark.parametrize("k", [0, 2])
@pytest.mark.parametrize("alpha", [1, 0, 2])
@pytest.mark.parametrize("beta", [1, 0, 3])
@pytest.mark.parametrize("dtype", FLOATS)
def test_addmm_skips_an_operand_whose_factor_is_zero(k, alpha, beta, dtype):
    """NOTE [addmm's beta and alpha of 0]: a NaN in self (beta=0) or in the matrices (alpha=0) does not reach
    the result; an empty inner dim gives beta * self with its -0. kept."""
    def prog(T):
        dt = getattr(T, dtype)
        bias = T.tensor([[NAN, 1.0, -0.0], [-0.0, INF, 2.0]], dtype=dt)
        mat1 = T.tensor([[NAN, INF], [1.0, -0.0]], dtype=dt)[:, :k]
        mat2 = T.tensor([[1.0, -0.0, 2.0], [0.0, 1.0, 1.0]], dtype=dt)[:k]
        return T.addmm(bias, mat1, mat2, beta=beta, alpha=alpha), T.addmm(bias[0], mat1, mat2, beta=beta, alpha=alpha)
    assert_same_bits(prog)


@pytest.mark.parametrize("bias_shape", [(4,), (3, 3), (2, 4), (1, 4), (2, 1), (5, 2, 3)])
@pytest.mark.parametrize("k", [0, 2])
def test_addmm_bias_that_does_not_expand(bias_shape, k):
    """self is expanded to the product's shape first: expand's error texts, also for an empty inner dim."""
    assert_same(lambda T: T.addmm(T.ones(bias_shape), T.ones(2, k), T.ones(k, 3)))


@pytest.mark.parametrize("name", ["mm", "bmm", "mv", "dot", "addmm", "matmul"])
def test_matrix_products_refuse_bool(name):
    """mm / matmul / addmm, bmm, mv and dot of bool tensors: the CPU kernel's "not implemented for 'Bool'"."""
    def prog(T):
        b = T.ones(2, 2, dtype=T.bool)
        args = {"bmm": (b[None], b[None]), "mv": (b, b[0]), "dot": (b[0], b[0]), "addmm": (b, b, b)}.get(name, (b, b))
        return getattr(T, name)(*args)
    assert_same(prog)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 3)), ((3, 4), (2,)), ((3, 4), (3,)), ((2, 3, 4), (2,)), ((4,), ()),
                                    ((2, 4, 3, 2), (2, 3)), ((2, 4, 3, 2), (2, 3, 3)), ((2, 4, 3, 2), (2, 3, 2))])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int32"])
@pytest.mark.parametrize("weight", [None, 3])
def test_nll_loss_checks_dims_before_the_target_dtype(shapes, dtype, weight):
    """nll_loss / cross_entropy: the dims are checked first, then the target's dtype, then the sizes and weight."""
    def prog(T):
        (input_shape, target_shape), w = shapes, None if weight is None else T.ones(weight)
        target = T.zeros(target_shape, dtype=getattr(T, dtype))
        return [fn(T.ones(input_shape), target, w) for fn in (T.nn.functional.nll_loss, T.nn.functional.cross_entropy)]
    assert_same(prog)
