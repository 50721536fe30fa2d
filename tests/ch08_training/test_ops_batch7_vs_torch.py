"""The seventh ops batch against PyTorch: einsum (torch's left-to-right contraction, without opt_einsum).

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``,
gradients (double backward too), error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import numpy as np
import pytest

from op_helpers import _graph, _layout
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
])
def test_einsum_forms_dtypes_and_errors(program):
    assert_same(program)
