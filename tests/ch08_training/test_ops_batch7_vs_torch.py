"""The seventh ops batch against PyTorch: einsum (torch's left-to-right contraction, without opt_einsum), tensordot,
inner, kron, take_along_dim; bitwise_not and bitwise_xor (with ``~``, ``^``, ``^=``);
tril_indices/triu_indices; aminmax (AminmaxBackward0).

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``,
gradients (double backward too), error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import numpy as np
import pytest

from op_helpers import FLOATS, INTS, _graph, _layout, _x
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _r(T, *shape):
    """A float64 leaf of ``shape`` holding distinct values (so a wrong permutation shows)."""
    n = int(np.prod(shape))
    return T.tensor((np.arange(n, dtype=float).reshape(shape) / 7 - 1).tolist(), dtype=T.float64,
                    requires_grad=True)


# ----------------------------------------------------------------------------- einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),  # matmul
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),  # batched matmul
    ("i,j->ij", [(2,), (3,)]),  # outer product: a mul, no bmm
    ("ii", [(3, 3)]),  # trace
    ("ii->i", [(3, 3)]),  # diagonal
    ("bii->bi", [(2, 3, 3)]),
    ("iji->j", [(2, 3, 2)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij", [(2, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output
    ("i,i->", [(3,), (3,)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("i...->...", [(2, 3, 4)]),
    ("...i,...i->...", [(2, 3), (1, 3)]),
    ("ij,ij->ij", [(1, 3), (2, 1)]),  # size-1 dims broadcast
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),  # three operands, left to right
    ("ijk,ikl,ilm->jm", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ab,cd,ef->", [(1, 2), (2, 1), (3, 3)]),  # dims summed early, alone in one operand
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("a b,b c -> a c", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_values_layout_graph_and_double_backward(equation, shapes):
    def prog(T):
        xs = [_r(T, *s) for s in shapes]
        y = T.einsum(equation, *xs)
        firsts = T.autograd.grad((y * y).sum(), xs, create_graph=True)
        return (_layout(y), _graph(y), firsts, [_graph(g) for g in firsts],
                T.autograd.grad(sum((g * g).sum() for g in firsts), xs))
    assert_same(prog)


@pytest.mark.parametrize("equation", [
    "ij,jk->ik,", "ij->", "ij,jk,kl->il", "i.j,jk->ik", "..ij,jk", "......ij,jk", "ij,jk->ii", "ij,jk->z",
    "ij,jk->i.", "ij,jk->...i...", "i1,jk->ik", "ij,jk->i1", "ijk,jk->ik", "...ijk,jk", "ij,kl->ik",
])
def test_einsum_equation_errors(equation):
    assert_same(lambda T: T.einsum(equation, _r(T, 2, 3), _r(T, 3, 4)))


@pytest.mark.parametrize("program", [
    lambda T: T.einsum("ij,jk", _r(T, 2, 3), _r(T, 4, 4)),
    lambda T: T.einsum("...i,...i", _r(T, 2, 3), _r(T, 4, 3)),
    lambda T: T.einsum("ii", _r(T, 2, 3)),
    lambda T: _graph(T.einsum("ij,jk", [_r(T, 2, 3), _r(T, 3, 4)])),
    lambda T: T.einsum("ij,jk", (_r(T, 2, 3), _r(T, 3, 4))),
    lambda T: _graph(T.einsum(_r(T, 2, 3), [0, 1], _r(T, 3, 4), [1, 2], [0, 2])),
    lambda T: _layout(T.einsum(_r(T, 2, 3), [0, Ellipsis], _r(T, 3, 4), [Ellipsis, 2])),
    lambda T: T.einsum(_r(T, 2, 3), [0, 60]),
    lambda T: T.einsum("ij"),
    lambda T: T.einsum("ij", []),
    lambda T: _layout(T.einsum("ij,jk", T.ones(2, 3, dtype=T.int64), T.ones(3, 4, dtype=T.int64))),
    lambda T: _layout(T.einsum("ij,jk", T.ones(2, 3), T.ones(3, 4))),
    lambda T: T.einsum("ij,jk", T.ones(2, 3), T.ones(3, 4), path=[0]),
    lambda T: _layout(T.einsum("ij,jk", T.ones(0, 3), T.ones(3, 4))),
    lambda T: (T.einsum(",->", T.tensor(2.0), T.tensor(3.0)), T.einsum("", T.tensor(2.0))),
    lambda T: T.einsum("ij,jk", T.ones(2, 3), T.ones(3, 4, dtype=T.float64)),  # bmm's dtype check
    lambda T: T.bmm(T.ones(1, 2, 3, dtype=T.int64), T.ones(1, 3, 4)),
    lambda T: T.bmm(T.ones(1, 2, 3, dtype=T.bool), T.ones(1, 3, 4)),
])
def test_einsum_forms_dtypes_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- tensordot, inner, kron, take_along_dim


def _on(*shapes, fn):
    """A program: ``fn(T, *leaves)`` on float64 leaves of ``shapes``, its graph, gradients and double backward."""
    def prog(T):
        xs = [_r(T, *s) for s in shapes]
        y = fn(T, *xs)
        firsts = T.autograd.grad((y * y).sum(), xs, create_graph=True)
        return (_layout(y), _graph(y), firsts, [_graph(g) for g in firsts],
                T.autograd.grad(sum((g * g).sum() for g in firsts), xs))
    return prog


PRODUCTS = {
    "tensordot_default": _on((2, 3, 4), (3, 4, 5), fn=lambda T, x, y: T.tensordot(x, y)),
    "tensordot_lists": _on((2, 3, 4), (4, 3, 5), fn=lambda T, x, y: T.tensordot(x, y, dims=([1, 2], [1, 0]))),
    "tensordot_0": _on((2, 3), (4, 5), fn=lambda T, x, y: T.tensordot(x, y, dims=0)),
    "tensordot_full_dot": _on((2, 3), (2, 3), fn=lambda T, x, y: T.tensordot(x, y, dims=2)),
    "tensordot_full_mul_sum": _on((2, 3), (3, 2), fn=lambda T, x, y: T.tensordot(x, y, dims=([0, 1], [1, 0]))),
    "tensordot_1d": _on((3,), (3,), fn=lambda T, x, y: T.tensordot(x, y, dims=1)),
    "tensordot_strided": _on((3,), (6,), fn=lambda T, x, y: T.tensordot(x, y[::2], dims=1)),
    "tensordot_vec_mat": _on((3,), (3, 4), fn=lambda T, x, y: T.tensordot(x, y, dims=1)),
    "tensordot_size1": _on((2, 1, 3), (5, 3), fn=lambda T, x, y: T.tensordot(x, y, dims=([1, 2], [0, 1]))),
    "tensordot_size1_full": _on((1, 3), (1, 3), fn=lambda T, x, y: T.tensordot(x, y, dims=([0, 1], [0, 1]))),
    "tensordot_neg_dims": _on((2, 3), (3, 2), fn=lambda T, x, y: T.tensordot(x, y, dims=([-1], [0]))),
    "tensordot_reshape_alias": _on((2, 3), (2, 3), fn=lambda T, x, y: T.tensordot(x, y, dims=([0], [0]))),
    "tensordot_tensor_dims": _on((2, 3), (3, 2), fn=lambda T, x, y: T.tensordot(x, y, dims=T.tensor([[1], [0]]))),
    "tensordot_out": _on((2, 3), (3, 2), fn=lambda T, x, y: T.tensordot(x, y, dims=1, out=T.empty(2, 2,
                                                                                                dtype=T.float64))),
    "inner": _on((2, 3), (4, 3), fn=lambda T, x, y: T.inner(x, y)),
    "inner_1d": _on((3,), (3,), fn=lambda T, x, y: x.inner(y)),
    "inner_scalar": _on((2, 3), (), fn=lambda T, x, y: T.inner(x, y)),
    "kron": _on((2, 3), (4, 5), fn=lambda T, x, y: T.kron(x, y)),
    "kron_1d_2d": _on((2,), (4, 5), fn=lambda T, x, y: x.kron(y)),
    "kron_3d_2d": _on((2, 1, 3), (2, 2), fn=lambda T, x, y: T.kron(x, y)),
    "kron_slice": _on((2, 4), (2,), fn=lambda T, x, y: T.kron(x[:, :2], y)),
    "take_along_dim": _on((3, 4), fn=lambda T, x: T.take_along_dim(x, T.tensor([[0], [1], [2]]), 1)),
    "take_along_dim_flat": _on((3, 4), fn=lambda T, x: T.take_along_dim(x, T.tensor([0, 5, 11]))),
    "take_along_dim_broadcast": _on((3, 4), fn=lambda T, x: x.take_along_dim(T.tensor([[0, 1, 2]]).T, dim=-1)),
    "take_along_dim_broadcast_self": _on((1, 4), fn=lambda T, x: x.take_along_dim(T.tensor([[0, 1], [3, 2]]), 1)),
    "take_along_dim_0": _on((3, 4), fn=lambda T, x: T.take_along_dim(x, T.tensor([[2, 0, 1, 1]]), dim=0)),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products_values_layout_graph_and_double_backward(name):
    assert_same(PRODUCTS[name])


@pytest.mark.parametrize("program", [
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 3, 2), dims=([0, 1], [0])),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2, dtype=T.float64), dims=1),
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 2, 2), dims=1),
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 3, 2), dims=([0, 0], [1, 1])),
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 3, 2), dims=([5], [1])),
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 3, 2), dims=-1),
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 3, 2), dims=3),
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 3, 2), dims=1.5),
    lambda T: _layout(T.tensordot(T.ones(2, 3, dtype=T.int64), T.ones(3, 2, dtype=T.int64), dims=1)),
    lambda T: T.tensordot(_r(T, 2, 3), _r(T, 3, 2), dims=1, out=T.empty(2, 2)),
    lambda T: T.inner(_r(T, 2, 3), _r(T, 3, 2)),
    lambda T: _layout(T.inner(T.ones(2, 3, dtype=T.int64), T.ones(3, dtype=T.int64))),
    lambda T: T.inner(T.ones(2, 3, dtype=T.int64), T.ones(3)),
    lambda T: T.kron(T.ones(2, 3).t(), T.ones(2)),
    lambda T: _layout(T.kron(T.ones(2, dtype=T.int64), T.ones(2))),
    lambda T: _layout(T.kron(T.tensor(2.0), T.ones(2))),
    lambda T: T.take_along_dim(_r(T, 3, 4), T.tensor([0]), 1),
    lambda T: T.take_along_dim(_r(T, 3, 4), T.tensor([[0]], dtype=T.int32), 1),
    lambda T: T.take_along_dim(_r(T, 3, 4), T.tensor([[0]]), 2),
    lambda T: T.take_along_dim(_r(T, 3, 4), T.tensor([[0], [1]]), 1),
    lambda T: T.take_along_dim(_r(T, 3, 4), T.tensor([0], dtype=T.int32)),
    lambda T: (lambda a, o: (T.inner(a, T.ones(3, dtype=T.float64), out=o) is o, o, _graph(o),
                             T.autograd.grad(o.sum(), a)))(_r(T, 2, 3), T.empty(0, dtype=T.float64)),
    lambda T: T.inner(T.ones(2, 3), T.ones(3), out=T.empty(2, dtype=T.int64)),
    lambda T: T.inner(_r(T, 2, 3), T.tensor(2.0), out=T.empty(0, dtype=T.float64)),
    lambda T: T.inner(T.ones(2, 3), T.tensor(2.0), out=T.empty(0, dtype=T.int64)),
    lambda T: T.inner(T.ones(2, 3), T.tensor(2.0), out=T.empty(2, 3)),
    lambda T: T.take_along_dim(T.ones(2, 3), T.tensor([[0], [1]]), 1, out=T.empty(0)),
    lambda T: T.take_along_dim(T.ones(2, 3), T.tensor([[0], [1]]), 1, out=T.empty(0, dtype=T.int64)),
    lambda T: T.take_along_dim(T.ones(2, 3), T.tensor([0, 4]), out=T.empty(2)),
    lambda T: T.take_along_dim(_r(T, 2, 3), T.tensor([[0], [1]]), 1, out=T.empty(0, dtype=T.float64)),
    lambda T: T.kron(T.ones(2), T.ones(2), out=T.empty(0, dtype=T.int64)),
    lambda T: T.kron(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64), out=T.empty(0)),
    lambda T: (lambda o: (T.kron(T.arange(4.0).view(2, 2), T.tensor([1.0, 10, 100]), out=o) is o, _layout(o)))(
        T.empty(5)),
    lambda T: T.kron(T.arange(6.0).view(2, 3), T.tensor([[1.0], [10]]), out=T.empty(4, 3)),
    lambda T: T.kron(T.ones(2, requires_grad=True), T.ones(2), out=T.empty(0)),
])
def test_products_dtypes_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- bitwise_not, bitwise_xor


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_bitwise_not_and_invert(dtype):
    assert_same(lambda T: (_layout(T.bitwise_not(_x(T, dtype))), _layout(~_x(T, dtype).t()),
                           _x(T, dtype).bitwise_not_()))


@pytest.mark.parametrize("dtype", INTS + ["float32"])
@pytest.mark.parametrize("other", INTS + ["float32"])
def test_bitwise_xor_tensors_promote_as_torch(dtype, other):
    assert_same(lambda T: (_layout(T.bitwise_xor(_x(T, dtype), _x(T, other))),
                           _layout(_x(T, dtype) ^ _x(T, other).t()[0:1].t()), _x(T, dtype).bitwise_xor_(_x(T, other))))


@pytest.mark.parametrize("dtype", INTS + ["float32"])
@pytest.mark.parametrize("scalar", [3, True, -1, 2.5, 300])
def test_bitwise_xor_with_a_number(dtype, scalar):
    assert_same(lambda T: (_layout(T.bitwise_xor(_x(T, dtype), scalar)), _layout(scalar ^ _x(T, dtype)),
                           _layout(_x(T, dtype) ^ scalar), _x(T, dtype).bitwise_xor_(scalar)))


@pytest.mark.parametrize("program", [
    lambda T: (lambda a: (a.__ixor__(_x(T, "int64")), a))(_x(T, "int32")),
    lambda T: (lambda a: [a.__ixor__(3) is a, a])(_x(T, "int64")),
    lambda T: T.bitwise_not(_x(T, "int64"), out=T.empty(3, 4, dtype=T.int32)),
    lambda T: T.bitwise_not(_x(T, "int64"), out=T.empty(3, 4, dtype=T.int64)),
    lambda T: T.bitwise_xor(_x(T, "int64"), _x(T, "int8"), out=T.empty(3, 4, dtype=T.int32)),
    lambda T: T.bitwise_xor(_x(T, "int8"), _x(T, "int8"), out=T.empty(3, 4)),
    lambda T: (lambda a: a[1:].bitwise_xor_(a[:2]))(_x(T, "int64")),
    lambda T: _x(T, "int64")[0].bitwise_xor_(_x(T, "int64")),
    lambda T: T.bitwise_not(_x(T, requires_grad=True)),
    lambda T: _x(T, "int64") ^ None,
    lambda T: T.bitwise_xor(_x(T, "int64"), "a"),
    lambda T: (_layout(T.bitwise_xor(3, _x(T, "int8"))), T.bitwise_xor(True, _x(T, "bool"))),
    lambda T: T.bitwise_xor(2.5, _x(T, "int64")),
    lambda T: T.bitwise_xor(3, _x(T, "int64"), out=_x(T, "int64")),
])
def test_bitwise_out_overlap_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- tril_indices, triu_indices


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("args", [(3, 3), (4, 3, 1), (3, 4, -1), (0, 3), (3, 3, 10), (3, 3, -10), (1, 1), (5, 2, -2),
                                  (2, 5, 3)])
def test_triangle_indices(name, args):
    assert_same(lambda T: _layout(getattr(T, name)(*args)))


@pytest.mark.parametrize("program", [
    *[lambda T, d=d: _layout(T.tril_indices(3, 4, dtype=getattr(T, d)))
      for d in ["int32", "float32", "bool", "uint8", "int8", "int16", "float16"]],
    lambda T: T.tril_indices(-1, 3),
    lambda T: T.triu_indices(3, -2),
    lambda T: _layout(T.tril_indices(row=3, col=2, offset=1, device="cpu")),
])
def test_triangle_indices_dtypes_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- aminmax


def _ties(T):
    return T.tensor([[1.0, 5, 5, -0.0], [4, 2, 2, 0.0], [0.0, -1, 7, 7]], dtype=T.float64, requires_grad=True)


@pytest.mark.parametrize("kwargs", [{"dim": 1, "keepdim": True}, {"dim": 1}, {}, {"keepdim": True}, {"dim": 0},
                                    {"dim": -1}])
def test_aminmax_named_tuple_node_saved_values_and_double_backward(kwargs):
    def prog(T):
        x = _ties(T)
        r = T.aminmax(x, **kwargs)
        w1, w2 = T.ones_like(r.min, requires_grad=True), T.ones_like(r.max, requires_grad=True)
        g, = T.autograd.grad((r.min * w1 * w1).sum() + 2 * (r.max * w2 * w2).sum(), x, create_graph=True)
        g_max, = T.autograd.grad((r.max * w2).sum(), x, create_graph=True)
        fn = r.min.grad_fn
        return (str(type(r)), repr(r), _layout(r.min), _layout(r[1]), _graph(r.min), fn is r.max.grad_fn,
                fn._saved_dim, fn._saved_keepdim, fn._saved_min, fn._saved_max, fn._saved_self,
                g, _graph(g), g_max, _graph(g_max), T.autograd.grad((g * g).sum(), (w1, w2)))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: [(tuple(T.aminmax(_x(T, d))), tuple(_x(T, d).aminmax(dim=0, keepdim=True))) for d in INTS + FLOATS],
    lambda T: T.aminmax(T.tensor([])),
    lambda T: T.aminmax(T.ones(0, 3), dim=0),
    lambda T: _layout(T.aminmax(T.ones(0, 3), dim=1).max),
    lambda T: tuple(T.aminmax(T.tensor(3.0, requires_grad=True), dim=0, keepdim=True)),
    lambda T: T.aminmax(T.tensor([1.0, float("nan")])),
    lambda T: T.aminmax(T.ones(2, 3), dim=2),
    lambda T: T.aminmax(T.ones(2, 3), dim=(0, 1)),
    lambda T: tuple(T.aminmax(T.tensor(3.0), keepdim=True)),
    lambda T: (lambda x: T.autograd.grad(sum(T.aminmax(x, dim=0)), x))(T.tensor(3.0, requires_grad=True)),
    lambda T: (lambda a, b: (lambda r: (repr(r), str(type(r)), r[0] is a, r.max is b))(
        T.aminmax(_x(T), dim=1, out=(a, b))))(T.empty(0), T.empty(0)),
    lambda T: T.aminmax(_x(T), out=(T.empty(0, dtype=T.int64), T.empty(0))),
    lambda T: T.aminmax(_x(T, requires_grad=True), out=(T.empty(0), T.empty(0))),
    lambda T: T.aminmax(_x(T), dim=0, keepdim=True, out=(T.empty(0), T.empty(0))),
])
def test_aminmax_dtypes_edges_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- version counters of the out= forms


def _versioned(write, dtype="float32"):
    return lambda T: (lambda o: (write(T, o), o._version))(T.empty(0, dtype=getattr(T, dtype)))


@pytest.mark.parametrize("program", [
    _versioned(lambda T, o: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=1, out=o)),
    _versioned(lambda T, o: T.inner(T.ones(2, 3), T.ones(3), out=o)),
    _versioned(lambda T, o: T.inner(T.ones(2, 3), T.tensor(2.0), out=o)),
    _versioned(lambda T, o: T.take_along_dim(T.ones(2, 3), T.tensor([[0], [1]]), 1, out=o)),
    _versioned(lambda T, o: T.aminmax(T.ones(2, 3), dim=1, out=(o, T.empty(0)))),
    _versioned(lambda T, o: T.bitwise_not(T.ones(2, dtype=T.int64), out=o), "int64"),
    _versioned(lambda T, o: T.bitwise_xor(T.ones(2, dtype=T.int64), 3, out=o), "int64"),
    lambda T: (lambda o: (o.bitwise_xor_(3), o.__ixor__(1), ~o, o._version))(T.ones(2, dtype=T.int64)),
])
def test_out_forms_bump_the_version_as_torch(program):
    assert_same(program)
