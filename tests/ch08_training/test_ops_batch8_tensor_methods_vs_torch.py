"""The eighth ops batch (tensor methods) against PyTorch: in-place shape ops (``t_``, ``transpose_``,
``unsqueeze_``, ``squeeze_``, ``swapaxes_``, ``swapdims_``), ``as_strided`` / ``as_strided_``, ``empty_strided``,
``new_empty_strided`` and the legacy ``Tensor.new``; predicates and properties; in-place comparisons and new
elementwise ops; building and splitting ops; the global settings.

Each program runs on both libraries: values, dtypes, shapes, strides, views (``_base``, ``_is_view``), version
counters, ``grad_fn`` names, ``next_functions``, gradients, error types and texts. The expected values always come
from torch.
"""

from __future__ import annotations

import numpy as np
import pytest

from op_helpers import _graph, _layout
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _r(T, *shape, dtype="float64"):
    """A leaf of ``shape`` holding distinct values (so a wrong permutation shows), requiring grad."""
    n = int(np.prod(shape))
    return T.tensor((np.arange(n, dtype=float).reshape(shape) / 7 - 1).tolist(), dtype=getattr(T, dtype),
                    requires_grad=True)


def _view_facts(t, base=None):
    """What a learner sees of a (possibly) viewing tensor."""
    return (_layout(t), t.storage_offset(), t._is_view(), t._base is base if base is not None else t._base is None,
            t._version)


def _grads(T, leaves, y):
    """``y``'s graph, and the gradients of ``(y * w).sum()`` for a weight of distinct values."""
    w = T.arange(y.numel(), dtype=y.dtype).reshape(y.shape) / 3
    return _graph(y), T.autograd.grad((y * w).sum(), leaves)


# ----------------------------------------------------------------------------- in-place shape ops

INPLACE_SHAPE = {
    "t_": lambda y: y.t_(),
    "t_1d": lambda y: y[0].t_(),
    "transpose_": lambda y: y.transpose_(0, -1),
    "swapaxes_": lambda y: y.swapaxes_(1, 0),
    "swapdims_": lambda y: y.swapdims_(0, 1),
    "unsqueeze_": lambda y: y.unsqueeze_(1),
    "unsqueeze_last": lambda y: y.unsqueeze_(-1),
    "squeeze_": lambda y: y.unsqueeze_(0).squeeze_(),
    "squeeze_dim": lambda y: y.unsqueeze_(2).squeeze_(2),
    "squeeze_dims": lambda y: y.unsqueeze_(0).unsqueeze_(0).squeeze_((0, 1)),
    "as_strided_": lambda y: y.as_strided_((2, 2), (1, 3)),
    "as_strided_fn": lambda y: torch_or(y).as_strided_(y, (3,), (4,)),
}


def torch_or(t):
    """The library ``t`` belongs to (for the function forms)."""
    import picotorch

    return torch if isinstance(t, torch.Tensor) else picotorch


@pytest.mark.parametrize("name", list(INPLACE_SHAPE))
def test_inplace_shape_ops_layout_version_graph_and_grad(name):
    def prog(T):
        x = _r(T, 3, 4)
        y = x.clone()
        out = INPLACE_SHAPE[name](y)
        return out is y or out._base is y, _view_facts(out), _grads(T, [x], out)
    assert_same(prog)


@pytest.mark.parametrize("name", list(INPLACE_SHAPE))
def test_inplace_shape_ops_without_grad_and_on_views(name):
    def prog(T):
        base = T.arange(12.0).reshape(3, 4)
        v = base[:, 1:]
        r1 = INPLACE_SHAPE[name](base.clone())
        r2 = INPLACE_SHAPE[name](v)
        return _view_facts(r1), _view_facts(r2, base), base._version
    assert_same(prog)


def test_as_strided_inplace_on_a_view_takes_an_offset_in_the_storage():
    def prog(T):
        base = T.arange(12.0).reshape(3, 4)
        v = base[:, 1:]
        before = v.storage_offset()
        return before, _view_facts(v.as_strided_((2, 2), (1, 3), 2), base), v.tolist()
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.ones(2, 3, requires_grad=True).t_(),
    lambda T: T.ones(2, 3, requires_grad=True).transpose_(0, 1),
    lambda T: T.ones(2, 3, requires_grad=True).unsqueeze_(0),
    lambda T: T.ones(2, 3, requires_grad=True).as_strided_((2,), (1,)),
    lambda T: T.ones(2, 3, requires_grad=True).view(3, 2).t_(),
    lambda T: T.ones(2, 3, 4).t_(),
    lambda T: T.ones(2, 3).transpose_(0, 5),
    lambda T: T.ones(2, 3).swapaxes_(-3, 0),
    lambda T: T.ones(2, 3).unsqueeze_(3),
    lambda T: T.ones(2, 3).squeeze_(3),
    lambda T: T.ones(2, 3).t_(0),
])
def test_inplace_shape_op_errors(program):
    assert_same(program)


@pytest.mark.parametrize("name", list(INPLACE_SHAPE))
def test_inplace_shape_op_on_view_of_non_leaf_keeps_the_base_history(name):
    """An in-place view op on a view is recorded as a view op (``set_history``): no ``CopySlices`` on the base."""
    def prog(T):
        x = _r(T, 3, 4)
        y = x.clone()
        v = y.view(4, 3)
        out = INPLACE_SHAPE[name](v)
        return _view_facts(out, y), _grads(T, [x], out), y.grad_fn.name(), y._version
    assert_same(prog)


# ----------------------------------------------------------------------------- as_strided

AS_STRIDED = [
    ((2, 2), (1, 2), None),
    ((2, 2), (1, 2), 1),
    ((3, 2), (1, 4), 2),
    ((4,), (3,), 0),
    ((2, 3), (0, 1), 0),  # output elements share memory: their gradients add up
    ((2, 2), (1, 1), 0),  # overlapping windows
    ((0, 3), (3, 1), 0),
    ((), (), 5),
]


@pytest.mark.parametrize("size,stride,offset", AS_STRIDED)
def test_as_strided_layout_views_graph_and_grad(size, stride, offset):
    def prog(T):
        x = _r(T, 3, 4)
        y = x.clone()
        z = y.as_strided(size, stride) if offset is None else y.as_strided(size, stride, offset)
        fn = z.grad_fn
        saved = fn._saved_size, fn._saved_stride, fn._saved_storage_offset
        return _view_facts(z, y), saved, _grads(T, [x], z), T.as_strided(y, size, stride, offset or 0)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: _view_facts(T.arange(10.0)[2:].as_strided((2, 2), (2, 1)), None),  # offset: self's, in storage
    lambda T: T.arange(10.0)[2:].as_strided((2, 2), (2, 1), 0),
    lambda T: _layout(_r(T, 2, 3).t().as_strided((3,), (1,))),  # gradients of a leaf through a non-contiguous view
    lambda T: T.autograd.grad(_r(T, 2, 3)[:, 1:].as_strided((2,), (2,), 1).sum() * 1, [], allow_unused=True),
    lambda T: (lambda x: (T.autograd.grad(x.t().as_strided((3, 2), (1, 3)).pow(2).sum(), x)))(_r(T, 2, 3)),
    lambda T: (lambda x: T.autograd.grad(x[1:].as_strided((2, 2), (1, 1), 1).sum(), x))(_r(T, 4)),
    lambda T: T.ones(3).as_strided((2, 2), (1, 1), 5),
    lambda T: T.ones(3).as_strided((2, 2), (1,)),
    lambda T: T.ones(3).as_strided((2, -2), (1, 1)),
    lambda T: T.ones(3).as_strided((2, 2), (1, -1)),
    lambda T: T.ones(3).as_strided((2, 2), (1, 1), -1),
    lambda T: T.ones(3, dtype=T.float64).as_strided((4,), (1,)),
    lambda T: _layout(T.ones(3, dtype=T.int64).as_strided((2,), (2,))),
])
def test_as_strided_forms_and_errors(program):
    assert_same(program)


# ----------------------------------------------------------------------------- empty_strided, new_empty_strided, new


@pytest.mark.parametrize("program", [
    lambda T: (T.empty_strided((2, 3), (1, 2)).shape, T.empty_strided((2, 3), (1, 2)).stride(),
               T.empty_strided((2, 3), (1, 2)).dtype),
    lambda T: (T.empty_strided([2, 3], [3, 1], dtype=T.int32).dtype, T.empty_strided((4,), (2,)).stride(),
               T.empty_strided((2, 0), (1, 2)).shape, T.empty_strided((), ()).shape),
    lambda T: (T.empty_strided((2,), (1,), requires_grad=True).requires_grad,
               T.empty_strided((2,), (1,), requires_grad=True).is_leaf),
    lambda T: T.empty_strided((2, 3), (1,)),
    lambda T: T.empty_strided((2, -3), (1, 2)),
    lambda T: T.empty_strided((2,), (1,), dtype=T.int64, requires_grad=True),
    lambda T: (lambda e: (e.dtype, e.shape, e.stride()))(T.ones(2, dtype=T.float64).new_empty_strided((2, 3), (1, 2))),
    lambda T: (lambda e: (e.dtype, e.stride(), e.requires_grad))(
        _r(T, 2).new_empty_strided((3, 2), (2, 1), dtype=T.int8)),
    lambda T: T.ones(2).new_empty_strided((2, 3), (1, 2, 3)),
])
def test_empty_strided(program):
    assert_same(program)


@pytest.mark.parametrize("program", [
    lambda T: _layout(T.ones(2, dtype=T.float64).new()),
    lambda T: (lambda t: (t.dtype, t.shape))(T.ones(2, dtype=T.float64).new(2, 3)),
    lambda T: _layout(T.ones(2, dtype=T.float64).new((2, 3))),  # a tuple is data, not a size
    lambda T: _layout(T.ones(2, dtype=T.int32).new([1.7, -2.2])),
    lambda T: (lambda t: (t.dtype, t.shape))(T.ones(2).new(T.Size([2, 4]))),
    lambda T: T.ones(2, dtype=T.float64).new(T.tensor([1, 2])),
    lambda T: T.ones(2, dtype=T.float64).new(T.tensor([1.0, 2.0])),
    lambda T: T.ones(2).new(T.tensor([1.0], dtype=T.float16)),
    lambda T: T.ones(2).new(T.tensor([1], dtype=T.uint8)),
    lambda T: (lambda a: (a.new(a), a.new(a)._base is None, a.new(a)._version))(T.ones(2)),
    lambda T: T.ones(2).new(T.ones(1, requires_grad=True)),
    lambda T: T.ones(2, dtype=T.float64).new(3.5),
    lambda T: T.ones(2, dtype=T.float64).new(2, dtype=T.int32),
    lambda T: T.ones(2, dtype=T.float64).new([1, 2], [3]),
    lambda T: _layout(T.ones(2, dtype=T.float64).new(device="cpu")),
])
def test_legacy_new(program):
    assert_same(program)


# ----------------------------------------------------------------------------- predicates and properties

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_predicates_and_sizes_by_dtype(dtype):
    def prog(T):
        t = T.ones(2, 3, dtype=getattr(T, dtype))
        return (T.is_floating_point(t), t.is_signed(), T.is_signed(t), t.is_cpu, t.nbytes, t.itemsize,
                t[:, 1:].nbytes, t.expand(4, 2, 3).nbytes, t.get_device(), t.is_conj(), T.is_conj(t), t.is_neg(),
                T.is_neg(t))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: (T.is_nonzero(T.tensor([0.5])), T.tensor([0.0]).is_nonzero(), T.tensor(float("nan")).is_nonzero(),
               T.tensor(True).is_nonzero(), T.tensor([[0]]).is_nonzero(), T.tensor(-3).is_nonzero()),
    lambda T: T.tensor([]).is_nonzero(),
    lambda T: T.tensor([1, 2]).is_nonzero(),
    lambda T: T.is_nonzero(T.ones(2, 2)),
    lambda T: (T.is_same_size(T.ones(2, 3), T.ones(2, 3)), T.ones(2, 3).is_same_size(T.ones(3, 2)),
               T.ones(()).is_same_size(T.ones(1)), T.ones(2, 3, dtype=T.int8).is_same_size(T.ones(2, 3))),
    lambda T: T.is_floating_point(3.0),
    lambda T: T.is_same_size(T.ones(2), [2]),
    lambda T: T.ones(2).nbytes + T.ones(0).nbytes + T.ones((), dtype=T.float64).nbytes,
])
def test_predicate_forms_and_errors(program):
    assert_same(program)


IDENTITIES = {
    "conj": lambda T, y: y.conj(),
    "torch.conj": lambda T, y: T.conj(y),
    "resolve_conj": lambda T, y: y.resolve_conj(),
    "torch.resolve_neg": lambda T, y: T.resolve_neg(y),
    "resolve_neg": lambda T, y: y.resolve_neg(),
    "conj_physical": lambda T, y: y.conj_physical(),
    "torch.conj_physical": lambda T, y: T.conj_physical(y),
    "positive": lambda T, y: y.positive(),
    "torch.positive": lambda T, y: T.positive(y),
}


@pytest.mark.parametrize("name", list(IDENTITIES))
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_conj_and_positive_of_a_real_tensor_are_the_tensor_itself(name, dtype):
    def prog(T):
        x = _r(T, 2, 3) if dtype == "float64" else T.tensor([[1, -2], [3, 4]])
        y = x * 2
        r = IDENTITIES[name](T, y)
        return r is y, _view_facts(r), r.grad_fn.name() if r.grad_fn is not None else None
    assert_same(prog)


def test_positive_of_bool_raises():
    assert_same(lambda T: T.tensor([True]).positive())


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (1, 5)])
@pytest.mark.parametrize("form", ["adjoint", "torch.adjoint", "mH", "H"])
def test_adjoint_mH_H_are_transpose_views(shape, form):
    def prog(T):
        x = _r(T, *shape)
        y = x * 1
        r = {"adjoint": lambda: y.adjoint(), "torch.adjoint": lambda: T.adjoint(y), "mH": lambda: y.mH,
             "H": lambda: y.H}[form]()
        return _view_facts(r, y), _grads(T, [x], r)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.ones(3).adjoint(),
    lambda T: T.ones(3).mH,
    lambda T: T.ones(3).H,
    lambda T: T.ones(2, 3, 4).H,
    lambda T: (lambda t: (t.H is t, t.mH is t, t.adjoint() is t))(T.tensor(2.0)),
])
def test_adjoint_errors(program):
    assert_same(program)


SUM_TO_SIZE = [((2, 3, 4), (3, 1)), ((2, 3, 4), (4,)), ((2, 3, 4), (1, 1, 1)), ((2, 3, 4), (2, 1, 4)),
               ((2, 3, 4), ()), ((2, 1), (1, 1)), ((3,), (1,))]


@pytest.mark.parametrize("shape,size", SUM_TO_SIZE)
def test_sum_to_size_graph_and_grad(shape, size):
    def prog(T):
        x = _r(T, *shape)
        y = x * 1
        r = y.sum_to_size(size) if len(size) != 1 else y.sum_to_size(*size)
        return _view_facts(r), _grads(T, [x], r)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: (lambda y: y.sum_to_size(2, 3) is y)(T.ones(2, 3)),
    lambda T: (lambda y: y.sum_to_size(T.Size([2, 3])) is y)(T.ones(2, 3)),
    lambda T: T.ones(2, 3).sum_to_size([1, 3]),
    lambda T: T.ones(2, 3, dtype=T.int32).sum_to_size(3),
    lambda T: T.ones(2, 3, 4).sum_to_size(3, 2),
    lambda T: T.ones(2, 3, 4).sum_to_size(5, 2, 3, 4),
    lambda T: T.ones(2, 3).sum_to_size(3, 2.0),
    lambda T: hasattr(T, "sum_to_size"),
])
def test_sum_to_size_forms_and_errors(program):
    assert_same(program)
