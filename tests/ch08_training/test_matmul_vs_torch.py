"""``bmm`` and ``matmul`` of any rank on picotorch and PyTorch: values, grad_fn graphs, gradients, errors.

Models the batched branch of ``at::native::_matmul_impl`` (``aten/src/ATen/native/LinearAlgebra.cpp``):
both batches are expanded to their broadcast shape, flattened into one, multiplied with ``bmm`` and
unfolded with ``_unsafe_view``, so the graph shows those ops and no ``MatmulBackward``. ``should_fold``
folds a batch into the rows of one ``mm`` instead: always when the small operand needs a gradient
(through ``other.mT`` when the batch is on the right), otherwise when the batch's strides allow a view;
a 3-D batch of one that needs a gradient is squeezed away first. ``reshape`` of a tensor that is not
row-major but can be viewed is ``_reshape_alias`` (``ReshapeAliasBackward0``).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from graph_helpers import graph_structure
from numeric_helpers import numeric_grad
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(10)


def _check_against_torch(shape_a, shape_b, op="matmul", grad_a=True, grad_b=True):
    """Values, graph and gradients of ``op(a, b)`` (a leaf without ``requires_grad`` has no gradient)."""
    a, b = RNG.standard_normal(shape_a), RNG.standard_normal(shape_b)
    results = []
    for T in (picotorch, torch):
        x = T.tensor(a, dtype=T.float64, requires_grad=grad_a)
        y = T.tensor(b, dtype=T.float64, requires_grad=grad_b)
        out = getattr(T, op)(x, y)
        upstream = T.tensor(np.linspace(-1, 1, max(out.numel(), 1))[:out.numel()].reshape(tuple(out.shape)),
                            dtype=T.float64)
        if out.requires_grad:
            out.backward(upstream)
        results.append((out, graph_structure(out), x.grad, y.grad))
    (p_out, p_graph, p_ga, p_gb), (t_out, t_graph, t_ga, t_gb) = results
    assert tuple(p_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(p_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    assert p_graph == t_graph
    for ours, theirs in ((p_ga, t_ga), (p_gb, t_gb)):
        assert (ours is None) == (theirs is None)
        if ours is not None:  # atol: a gradient summed over a broadcast batch may cancel to ~1e-4, where the
            # two libraries' sums (in either order) differ in the last bit of the terms, ~1e-16 (seen once in 7000 runs)
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("shape_a, shape_b", [
    ((2, 3, 4), (2, 4, 5)),          # 3-D @ 3-D, same batch
    ((3, 1, 2, 4), (5, 4, 3)),       # 4-D @ 3-D, broadcast batch
    ((2, 1, 3, 4), (1, 5, 4, 2)),    # 4-D @ 4-D, both broadcast
    ((2, 3, 4), (4, 5)),             # 3-D @ 2-D (folded into mm)
    ((2, 3, 4), (4,)),               # N-D @ 1-D (folded into mv)
])
def test_matmul_graph_and_grads_match_torch(shape_a, shape_b):
    _check_against_torch(shape_a, shape_b)


@pytest.mark.parametrize("shape_a, shape_b", [((4,), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((3, 4), (2, 2, 4, 5))])
def test_matmul_small_times_batch_without_grad_on_the_small_one(shape_a, shape_b):
    _check_against_torch(shape_a, shape_b, grad_a=False)


def test_bmm_graph_and_grads_match_torch():
    _check_against_torch((3, 2, 4), (3, 4, 5), op="bmm")


def test_matmul_grads_match_finite_differences():
    a = picotorch.tensor(RNG.standard_normal((2, 1, 2, 3)), dtype=picotorch.float64, requires_grad=True)
    b = picotorch.tensor(RNG.standard_normal((3, 3, 2)), dtype=picotorch.float64, requires_grad=True)
    (a @ b).sum().backward()
    for leaf, other, first in ((a, b, True), (b, a, False)):
        o = other.detach()

        def total(moved, o=o, first=first):
            t = picotorch.tensor(moved, dtype=picotorch.float64)
            return ((t @ o) if first else (o @ t)).sum().item()
        numeric = numeric_grad(total, leaf.detach().numpy().copy())
        np.testing.assert_allclose(leaf.grad.numpy(), numeric, rtol=1e-5, atol=1e-7)


def _trailing_sizes(batch, keep):
    """The last ``len(keep)`` sizes of ``batch``, each kept or turned to 1: trailing sizes of one shape broadcast."""
    tail = batch[max(0, len(batch) - len(keep)):]
    return [size if kept else 1 for size, kept in zip(tail, keep)]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=0, max_size=2), st.lists(st.booleans(), min_size=0, max_size=2),
       st.lists(st.booleans(), min_size=2, max_size=2), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.booleans(), st.booleans(), st.booleans())
def test_matmul_broadcast_fuzz(batch, keep_a, keep_b, n, k, m, grad_a, grad_b, vector_a):
    """Batches drawn from one shape, with some sizes turned to 1 or dropped, so they always broadcast; either
    operand may need a gradient, and the left one may be a vector."""
    batch_a, batch_b = _trailing_sizes(batch, keep_a), _trailing_sizes(batch, keep_b)
    shape_a, shape_b = tuple(batch_a) + (n, k), tuple(batch_b) + (k, m)
    if vector_a:
        shape_a = (k,)
    if len(shape_a) < 3 and len(shape_b) < 3:
        return
    _check_against_torch(shape_a, shape_b, grad_a=grad_a, grad_b=grad_b)


@pytest.mark.parametrize("shape_a, shape_b, grad_a, grad_b", [
    ((4,), (2, 4, 5), True, False),           # a vector that needs a gradient, folded through other.mT
    ((4,), (2, 3, 4, 5), True, True),
    ((3, 4), (2, 4, 5), True, False),         # a matrix: other.mT @ self.t(), transposed back, contiguous
    ((3, 4), (2, 2, 4, 5), True, True),
    ((4,), (2, 4, 5), False, True),           # no gradient on the small side: the batched path
    ((4,), (0, 4, 5), False, False),          # an empty batch folds
    ((3, 4), (0, 4, 5), True, True),
    ((2, 3, 4), (4,), False, True),
    ((2, 0, 4), (4, 5), False, False),
])
def test_matmul_small_operand_times_a_batch(shape_a, shape_b, grad_a, grad_b):
    _check_against_torch(shape_a, shape_b, grad_a=grad_a, grad_b=grad_b)


@pytest.mark.parametrize("shape_a, shape_b, grad_a, grad_b", [
    ((1, 3, 4), (2, 4, 5), True, True),       # squeezed, then folded (SqueezeBackward1 under the mm)
    ((1, 3, 4), (2, 4, 5), True, False),
    ((1, 3, 4), (2, 4, 5), False, True),      # no gradient on the batch of one: expanded into bmm
    ((2, 3, 4), (1, 4, 5), True, True),
    ((2, 3, 4), (1, 4, 5), True, False),
    ((1, 3, 4), (1, 4, 5), True, True),       # same batch: plain bmm
    ((1, 1, 3, 4), (2, 4, 5), True, True),    # 4-D: expanded; the reshape is a _reshape_alias
    ((2, 3, 4), (1, 1, 4, 5), True, True),
])
def test_matmul_batch_of_ones_times_a_batch(shape_a, shape_b, grad_a, grad_b):
    _check_against_torch(shape_a, shape_b, grad_a=grad_a, grad_b=grad_b)


@pytest.mark.parametrize("grad_b", [False, True])
def test_matmul_batch_strides_decide_between_fold_and_bmm(grad_b):
    """A permuted batch is not one run of rows: bmm, unless the matrix needs a gradient (then a copy, folded)."""
    a0, b0 = RNG.standard_normal((3, 2, 4)), RNG.standard_normal((4, 5))

    def prog(T):
        base = T.tensor(a0, requires_grad=True)
        b = T.tensor(b0, requires_grad=grad_b)
        out = base.permute(1, 0, 2) @ b
        out.backward(T.ones_like(out))
        return out, graph_structure(out), base.grad, b.grad
    assert_same(prog, rtol=1e-12, atol=1e-12)


def test_reshape_of_a_viewable_non_contiguous_tensor_is_reshape_alias():
    def prog(T):
        x = T.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        views = x.t().reshape(3, 2, 1), x.t().reshape(3, 2), x[:, :2].reshape(2, 1, 2), x.reshape(6)
        copy = x.t().reshape(6)
        (sum(v.sum() for v in views) + copy.sum()).backward()
        return [graph_structure(v) for v in views], graph_structure(copy), x.grad, views[0]._base is x
    assert_same(prog)


def test_matmul_folded_through_the_transpose_is_contiguous():
    def prog(T):
        out = T.ones(3, 4, requires_grad=True) @ T.ones(2, 4, 5)
        return out, out.is_contiguous(), out.stride(), out.view(-1).shape
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.bmm(T.ones(2, 3, 4), T.ones(2, 5, 6)),
    lambda T: T.bmm(T.ones(2, 3, 4), T.ones(3, 4, 6)),
    lambda T: T.bmm(T.ones(3, 4), T.ones(3, 4, 6)),
    lambda T: T.bmm(T.ones(2, 3, 4), T.ones(4, 6)),
    lambda T: T.matmul(T.ones(2, 3), T.ones(4, 5)),
    lambda T: T.ones(2, 2, 3) @ T.ones(3, 4, 5),
    lambda T: T.ones(2, 3) @ T.ones(2, 4, 5),
    lambda T: T.ones(()) @ T.ones(2, 3),
])
def test_bad_input_raises_torch_errors(program):
    assert_same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["row-major", "transposed", "strided"])
def test_an_outer_product_through_mm_and_addmm_is_torchs_bit_for_bit(dtype, layout):
    """k = 1 (a Linear's backward to a single output): each element is one product, exact in any library, so
    ``mm`` and ``addmm`` (one rounding of bias + product) must give torch's very bits, whatever the layout."""
    rng = np.random.default_rng(7)
    column, row, bias = rng.standard_normal((6, 1)), rng.standard_normal((1, 5)), rng.standard_normal(5)
    results = []
    for T in (picotorch, torch):
        a, b = T.tensor(column, dtype=getattr(T, dtype)), T.tensor(row, dtype=getattr(T, dtype))
        if layout == "transposed":
            a, b = T.tensor(column.T, dtype=getattr(T, dtype)).t(), T.tensor(row.T, dtype=getattr(T, dtype)).t()
        elif layout == "strided":
            a = T.tensor(np.repeat(column, 2, axis=0), dtype=getattr(T, dtype))[::2]
        c = T.tensor(bias, dtype=getattr(T, dtype))
        results.append([T.mm(a, b).numpy().tobytes(), T.addmm(c, a, b).numpy().tobytes(),
                        (a @ b).numpy().tobytes()])
    assert results[0] == results[1]
