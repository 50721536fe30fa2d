"""The fourth ops batch against PyTorch: ``median``/``nanmedian``/``kthvalue``, ``cummax``/``cummin``,
``Tensor.unfold``, ``dist``, ``smooth_l1_loss``/``huber_loss`` (and their ``nn`` modules).

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``, saved
values, gradients (double backward too), named-tuple results and their reprs, error types and texts. Ties matter
here: which index ``median``, ``kthvalue`` and ``cummax`` return among equal values is each kernel's own rule.
The expected values always come from torch.
"""

from __future__ import annotations

import warnings

import pytest

from op_helpers import DATA, FLOATS, INTS, _graph, _layout, _node, _x  # noqa: F401
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

NAN = float("nan")
TIES = [[1.0, 2.0, 2.0, 2.0, 3.0], [2.0, 2.0, 2.0, 2.0, 2.0], [5.0, 1.0, 5.0, 1.0, 5.0], [0.0, -0.0, 0.0, -0.0, 1.0]]
WITH_NANS = [[1.0, NAN, 2.0, NAN], [3.0, 4.0, 5.0, 6.0], [NAN, NAN, NAN, NAN], [NAN, 1.0, NAN, 3.0]]
NUMERIC = [d for d in FLOATS + INTS if d != "bool"]


def _tol(dtype):
    return 1e-2 if dtype in ("float16", "bfloat16") else 1e-6


def _double_backward(T, x, y, *others):
    """``grad((y * y).sum())`` with ``create_graph``, then the gradient of its square: both graphs' values and the
    first gradient's graph."""
    inputs = (x, *others)
    grads = T.autograd.grad((y * y).sum(), inputs, create_graph=True)
    seconds = T.autograd.grad(sum((g * g).sum() for g in grads), inputs, allow_unused=True)
    return grads, [_graph(g) if g.grad_fn is not None else None for g in grads], seconds


# ----------------------------------------------------------------------------- median, nanmedian


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_median_values_dtype_and_layout(dtype, dim):
    def prog(T):
        x = _x(T, dtype)
        values, indices = x.median(dim)
        kept = T.median(x.t(), dim, keepdim=True)
        strided = x[:, ::2].median(dim)
        return (_layout(x.median()), _layout(values), _layout(indices), _layout(kept.values), _layout(kept.indices),
                _layout(strided.values), _layout(strided.indices), x.nanmedian(), x.nanmedian(dim))
    assert_same(prog, rtol=_tol(dtype))


@pytest.mark.parametrize("dim", [0, 1])
def test_median_ties_pick_the_middle_of_the_equal_values_in_index_order(dim):
    def prog(T):
        x = T.tensor(TIES)
        return (x.median(dim), x.median(), T.tensor([0.0, -0.0, 0.0, -0.0]).median(),
                T.tensor([-0.0, 0.0, 0.0]).median(), T.tensor([3, 1, 2, 2, 2, 1]).median(0), x.nanmedian(dim))
    assert_same(prog)


def test_median_with_nans_and_nanmedian():
    def prog(T):
        x = T.tensor(WITH_NANS)
        return (x.median(1), x.median(0), x.median(), x.nanmedian(1), x.nanmedian(0), x.nanmedian(),
                T.tensor([NAN, NAN]).nanmedian(), T.tensor([1.0, NAN]).median(), T.tensor([NAN] * 9).nanmedian(0))
    assert_same(prog)


def test_median_returns_named_tuples_with_torch_reprs():
    def prog(T):
        x = T.tensor(TIES)
        r = x.median(1)
        n = T.nanmedian(x, 0, True)
        return (repr(r), str(n), type(r).__name__, r.values, r.indices, r[0], tuple(r), repr(T.median(x[0], 0)))
    assert_same(prog)


def test_median_of_empty_and_zero_dim_tensors():
    def prog(T):
        return (T.tensor([]).median(), T.zeros(0, 3).median(), T.zeros(0, 3, dtype=T.int64).median(),
                T.zeros(0, dtype=T.int32).median(), T.zeros(0, dtype=T.uint8).median(),
                T.zeros(0, dtype=T.float16).median(), T.zeros(0, 3).median(1), T.zeros(2, 0).median(0),
                T.tensor(3.0).median(), T.tensor(3.0).median(0), T.tensor(3.0).median(-1, keepdim=True),
                T.tensor(4.0).nanmedian(0), T.tensor([]).nanmedian())
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.zeros(3, 0).median(1),
    lambda T: T.zeros(3, 0).median(-1),
    lambda T: T.zeros(0, 3).nanmedian(0),
    lambda T: _x(T, "bool").median(),
    lambda T: _x(T, "bool").median(0),
    lambda T: _x(T, "bool").nanmedian(),
    lambda T: _x(T, "bool").nanmedian(1),
    lambda T: _x(T).median(2),
    lambda T: T.tensor(3.0).median(1),
    lambda T: _x(T).median(dim=None),
])
def test_median_bad_input(program):
    assert_same(program)


def test_median_backward_nodes_saved_values_and_gradients():
    def prog(T):
        x = T.tensor(TIES, dtype=T.float64, requires_grad=True)
        everything, along = x.median(), x.median(1, keepdim=True)
        nan_free = x.nanmedian(0)
        weights = T.arange(1.0, 5.0, dtype=T.float64).reshape(4, 1)
        g_all, = T.autograd.grad(everything * 3, x)
        g_dim, = T.autograd.grad(along.values, x, weights)
        g_nan, = T.autograd.grad(nan_free.values.sum(), x)
        fn, fn_dim = everything.grad_fn, along.values.grad_fn
        return (_node(everything), _node(along.values), _node(nan_free.values), _node(x.nanmedian()),
                fn._saved_self, fn._saved_result, fn_dim._saved_dim, fn_dim._saved_keepdim, fn_dim._saved_indices,
                fn_dim._saved_self_sym_sizes, along.indices.requires_grad, along.indices.grad_fn, g_all, g_dim, g_nan)
    assert_same(prog)


def test_median_of_everything_shares_its_gradient_among_the_ties_and_the_nans():
    def prog(T):
        x = T.tensor([[1.0, 2.0, 2.0], [2.0, 0.0, 5.0]], requires_grad=True)
        y = T.tensor([1.0, NAN, 2.0, NAN], requires_grad=True)
        gx, = T.autograd.grad(x.median(), x)
        gy, = T.autograd.grad(y.median(), y)
        return gx, gy
    assert_same(prog)


@pytest.mark.parametrize("op", ["median", "nanmedian", "median_dim", "nanmedian_dim", "max", "min"])
def test_median_double_backward_graph(op):
    """median() (and max()/min(), which share the formula) record PyTorch's masked_fill_ into zeros."""
    def prog(T):
        x = T.tensor(TIES, dtype=T.float64, requires_grad=True)
        name, along = op.split("_")[0], op.endswith("_dim")
        y = getattr(x, name)(1).values if along else getattr(x, name)()
        return _double_backward(T, x, y)
    assert_same(prog)


# ----------------------------------------------------------------------------- kthvalue


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("k,dim", [(1, 0), (2, 1), (4, -1), (3, 0)])
def test_kthvalue_values_dtype_and_layout(dtype, k, dim):
    def prog(T):
        x = _x(T, dtype)
        r = x.kthvalue(k, dim) if k <= x.shape[dim] else x.kthvalue(1, dim)
        kept = T.kthvalue(x.t(), 2, dim, keepdim=True)
        strided = x[:, ::2].kthvalue(1, dim)
        return _layout(r.values), _layout(r.indices), _layout(kept.values), _layout(kept.indices), strided
    assert_same(prog, rtol=_tol(dtype))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_kthvalue_ties_follow_its_quickselect(k):
    def prog(T):
        x = T.tensor(TIES)
        return x.kthvalue(k, 1), x.t().kthvalue(min(k, 4), 0), T.tensor([2.0] * 8).kthvalue(k)
    assert_same(prog)


def test_kthvalue_ties_in_long_rows():
    def prog(T):
        row = T.tensor([float((7 * i) % 5) for i in range(41)])
        ints = T.tensor([(3 * i) % 4 for i in range(23)])
        return [row.kthvalue(k) for k in range(1, 42)], [ints.kthvalue(k) for k in range(1, 24)]
    assert_same(prog)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_kthvalue_with_nans(k):
    def prog(T):
        return T.tensor(WITH_NANS).kthvalue(k, 1), T.tensor(WITH_NANS).kthvalue(k, 0)
    assert_same(prog)


def test_kthvalue_of_empty_and_zero_dim_tensors_and_its_repr():
    def prog(T):
        r = T.tensor(3.0).kthvalue(1)
        return (r, repr(r), T.zeros(0, 3).kthvalue(1, 1), T.zeros(3, 0).kthvalue(2, 0),
                T.tensor(2.5).kthvalue(1, 0, keepdim=True), repr(T.tensor(TIES).kthvalue(2)))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([1.0, 2.0]).kthvalue(0),
    lambda T: T.tensor([1.0, 2.0]).kthvalue(3),
    lambda T: _x(T).kthvalue(5, -1),
    lambda T: _x(T).kthvalue(4, 0),
    lambda T: T.tensor(3.0).kthvalue(2),
    lambda T: T.zeros(0, 3).kthvalue(1, 0),
    lambda T: T.zeros(0, 3).kthvalue(1, -2),
    lambda T: _x(T, "bool").kthvalue(1),
    lambda T: _x(T).kthvalue(1, 2),
])
def test_kthvalue_bad_input(program):
    assert_same(program)


def test_kthvalue_backward_node_saved_values_gradient_and_double_backward():
    def prog(T):
        x = T.tensor(TIES, dtype=T.float64, requires_grad=True)
        r = x.kthvalue(2, 1)
        fn = r.values.grad_fn
        g, = T.autograd.grad(r.values, x, T.tensor([1.0, -2.0, 3.0, 0.5], dtype=T.float64))
        return (_node(r.values), fn._saved_dim, fn._saved_keepdim, fn._saved_indices, fn._saved_self_sym_sizes, g,
                _double_backward(T, x, x.kthvalue(3, 0, keepdim=True).values))
    assert_same(prog)


# ----------------------------------------------------------------------------- cummax, cummin


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cummax_cummin_values_dtype_and_layout(dtype, op, dim):
    def prog(T):
        x = _x(T, dtype)
        r = getattr(x, op)(dim)
        t = getattr(T, op)(x.t(), dim)
        s = getattr(x[:, ::2], op)(dim)
        return tuple(_layout(v) for v in (*r, *t, *s))
    assert_same(prog, rtol=_tol(dtype))


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_ties_nans_signed_zeros_empty_and_zero_dim(op):
    """A value equal to the running one takes its place (the later index wins); NaN takes over, again and again."""
    def prog(T):
        f = getattr(T, op)
        return (f(T.tensor([1.0, 1.0, 0.0, 1.0, 2.0, 2.0, 0.0, 0.0]), 0),
                f(T.tensor([1.0, NAN, 2.0, NAN, 3.0, -1.0]), 0), f(T.tensor([0.0, -0.0, 0.0]), 0),
                f(T.tensor([-0.0, 0.0, -0.0]), 0), f(T.tensor(WITH_NANS), 1),
                f(T.tensor(WITH_NANS), 0), f(T.tensor(2.0), 0), f(T.tensor(2.0), -1), f(T.zeros(0, 2), 0),
                f(T.zeros(2, 0), 1), repr(f(T.tensor([3, 1, 3]), 0)))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.zeros(3, 2).cummax(2),
    lambda T: T.zeros(3, 2).cummin(-3),
    lambda T: T.tensor(1.0).cummax(1),
    lambda T: T.tensor(1.0).cummin(-2),
    lambda T: T.zeros(3).cummax(),
])
def test_cummax_cummin_bad_input(program):
    assert_same(program)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_backward_nodes_saved_values_and_gradients(op):
    def prog(T):
        x = T.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 5.0, -1.0]], dtype=T.float64, requires_grad=True)
        r = getattr(x, op)(1)
        fn = r.values.grad_fn
        g, = T.autograd.grad(r.values, x, T.arange(1.0, 9.0, dtype=T.float64).reshape(2, 4))
        empty = T.zeros(0, 3, requires_grad=True)
        e = getattr(empty, op)(0)
        e.values.sum().backward()
        return (_node(r.values), fn._saved_dim, fn._saved_self, fn._saved_indices, r.indices.requires_grad, g,
                empty.grad, _double_backward(T, x, getattr(x, op)(0).values))
    assert_same(prog)


def test_cummax_out():
    def prog(T):
        values, indices = T.empty(3, 4), T.empty(3, 4, dtype=T.int64)
        r = T.cummax(_x(T), 1, out=(values, indices))
        m = T.cummin(_x(T), 0)
        return r.values is values, r.indices is indices, values, indices, m
    assert_same(prog)


# ----------------------------------------------------------------------------- unfold


def test_unfold_views_windows_with_torch_strides():
    def prog(T):
        base = T.arange(24.0).reshape(2, 3, 4)
        cases = (base.unfold(1, 2, 1), base.unfold(-1, 3, 2), base.transpose(0, 2).unfold(0, 3, 2),
                 T.arange(10.0).unfold(0, 3, 3), T.arange(10.0).unfold(0, 4, 5), T.zeros(0, 4).unfold(0, 0, 1),
                 _x(T).unfold(1, 0, 1), T.tensor(5.0).unfold(0, 1, 1), T.tensor(5.0).unfold(-1, 0, 3),
                 _x(T, "int32").unfold(0, 2, 1), base[:, ::2].unfold(2, 2, 2))
        return ([(_layout(u), u.is_contiguous()) for u in cases], hasattr(T, "unfold"),
                base.unfold(1, 2, 1)._base is base, base.unfold(2, 2, 1).unfold(0, 1, 1).shape)
    assert_same(prog)


def test_unfold_shares_memory_and_version_with_its_base():
    def prog(T):
        x = T.arange(10.0)
        u = x.unfold(0, 2, 2)
        u.add_(1)
        x[1] = 100.0
        v = x.unfold(0, 3, 3)
        v[0].zero_()
        return x, u, v, x._version, u._version
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: _x(T).unfold(1, 5, 1),
    lambda T: _x(T).unfold(1, 2, 0),
    lambda T: _x(T).unfold(1, -1, 1),
    lambda T: _x(T).unfold(1, -1, 0),
    lambda T: _x(T).unfold(1, 5, 0),
    lambda T: _x(T).unfold(2, 1, 1),
    lambda T: T.tensor(5.0).unfold(0, 2, 1),
    lambda T: T.tensor(5.0).unfold(1, 1, 1),
    lambda T: T.zeros(0, 4).unfold(0, 1, 1),
])
def test_unfold_bad_input(program):
    assert_same(program)


def test_unfold_backward_node_saved_values_gradients_and_double_backward():
    def prog(T):
        x = T.tensor(DATA, dtype=T.float64, requires_grad=True)
        u = x.unfold(1, 2, 1)
        fn = u.grad_fn
        g, = T.autograd.grad(u, x, T.arange(18.0, dtype=T.float64).reshape(3, 3, 2))
        apart, = T.autograd.grad(x.unfold(0, 1, 2).sum(), x)
        z = T.tensor(2.0, requires_grad=True)
        gz, = T.autograd.grad(z.unfold(0, 1, 1).sum() * 3, z)
        return (_node(u), fn._saved_dimension, fn._saved_size, fn._saved_step, fn._saved_self_sym_sizes, g, apart,
                gz, _double_backward(T, x, x.unfold(1, 3, 1)))
    assert_same(prog)


# ----------------------------------------------------------------------------- dist


@pytest.mark.parametrize("p", [0, 1, 2, 3, 1.5, 0.5, -1, float("inf"), float("-inf")])
def test_dist_values_for_each_order(p):
    def prog(T):
        x = _x(T)
        return T.dist(x, T.tensor([1.5, 0.0, 3.25, 1.0]), p), x.dist(x.flip(0), p), T.dist(x, x, p)
    assert_same(prog)


def test_dist_dtypes_broadcasting_and_empty():
    def prog(T):
        x = _x(T)
        return (T.dist(x, x.double() * 2), T.dist(_x(T, "float16"), _x(T, "float16") * 2),
                T.dist(_x(T, "bfloat16"), T.zeros(4)), T.dist(T.tensor([]), T.tensor([])), T.dist(T.tensor(3.0), x),
                T.dist(x, T.tensor(1.0), p=1))
    assert_same(prog, rtol=1e-2)


@pytest.mark.parametrize("program", [
    lambda T: T.dist(_x(T, "int64"), _x(T, "int64")),
    lambda T: T.dist(_x(T), T.zeros(2)),
    lambda T: T.dist(_x(T, "bool"), _x(T, "bool")),
    lambda T: T.dist(T.tensor([]), T.tensor([]), float("inf")),
])
def test_dist_bad_input(program):
    assert_same(program)


@pytest.mark.parametrize("p", [2, 3, 1, float("inf")])
def test_dist_backward_node_saved_values_gradients_and_double_backward(p):
    def prog(T):
        x = T.tensor(DATA, dtype=T.float64, requires_grad=True)
        o = T.tensor([1.0, 0.0, 1.0, 3.0], dtype=T.float64, requires_grad=True)
        d = T.dist(x, o, p)
        fn = d.grad_fn
        gx, go = T.autograd.grad(d, (x, o))
        only_x = T.dist(x, o.detach(), p)
        return (_node(d), _node(only_x), fn._saved_self, fn._saved_other, fn._saved_p, fn._saved_result, gx, go,
                _double_backward(T, x, only_x), _double_backward(T, x, T.dist(x, o, p), o))
    assert_same(prog)


def test_dist_gradient_at_zero_distance_and_vector_norm_double_backward():
    """Where the norm is 0 the gradient is masked to 0 (``masked_fill``, as ``norm_backward`` records it)."""
    def prog(T):
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(T.dist(x, x.detach()), x)
        v = T.linalg.vector_norm(x, 3)
        return g, _double_backward(T, x, v), _double_backward(T, x, T.linalg.vector_norm(x))
    assert_same(prog)


# ----------------------------------------------------------------------------- smooth_l1_loss, huber_loss


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_smooth_l1_and_huber_values(dtype, reduction):
    def prog(T):
        F = T.nn.functional
        x = _x(T, dtype)
        t = (x * 0.5 + 0.25).flip(1)
        return [_layout(v) for v in (
            F.smooth_l1_loss(x, t, reduction=reduction), F.smooth_l1_loss(x, t, reduction=reduction, beta=0.5),
            F.smooth_l1_loss(x.t(), t.t(), reduction=reduction, beta=2.5), F.huber_loss(x, t, reduction=reduction),
            F.huber_loss(x, t, reduction=reduction, delta=0.3), F.huber_loss(x[:, ::2], t[:, ::2], reduction=reduction,
                                                                             delta=4.0))]
    assert_same(prog, rtol=_tol(dtype), atol=1e-3 if dtype in ("float16", "bfloat16") else 1e-8)


def test_smooth_l1_and_huber_promote_broadcast_and_warn():
    def prog(T):
        F = T.nn.functional
        x = _x(T)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            broadcast = F.smooth_l1_loss(x, T.tensor([1.5, 0.0, 3.25, 1.0]), reduction="none")
            h = F.huber_loss(x, T.tensor(1.0), delta=2.0)
        return (broadcast, h, [str(w.message) for w in caught], F.smooth_l1_loss(x.double(), x * 2),
                F.huber_loss(x, x.half() * 2), F.smooth_l1_loss(T.zeros(0), T.zeros(0)),
                F.smooth_l1_loss(T.zeros(0), T.zeros(0), reduction="sum"), F.smooth_l1_loss(x, x, beta=0.0))
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.smooth_l1_loss(_x(T), _x(T), beta=-1.0),
    lambda T: T.nn.functional.huber_loss(_x(T), _x(T), delta=0.0),
    lambda T: T.nn.functional.huber_loss(_x(T), _x(T), delta=-2.0),
    lambda T: T.nn.functional.smooth_l1_loss(_x(T, "int32"), _x(T, "int32")),
    lambda T: T.nn.functional.huber_loss(_x(T, "int64"), _x(T, "int64")),
    lambda T: T.nn.functional.smooth_l1_loss(_x(T), _x(T), reduction="foo"),
    lambda T: T.nn.functional.huber_loss(_x(T), T.zeros(2)),
    lambda T: T.nn.functional.huber_loss(_x(T), _x(T), weight=T.ones(4)),
    lambda T: T.nn.functional.huber_loss(_x(T), _x(T), weight=T.ones(3, 4), reduction="foo"),
    lambda T: T.nn.HuberLoss(delta="1"),
])
def test_smooth_l1_and_huber_bad_input(program):
    assert_same(program)


@pytest.mark.parametrize("loss", ["smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_smooth_l1_and_huber_backward_nodes_saved_values_and_gradients(loss, reduction):
    def prog(T):
        x = T.tensor(DATA, dtype=T.float64, requires_grad=True)
        t = T.tensor([[1.5, 0.0, 0.5, 1.0]] * 3, dtype=T.float64, requires_grad=True)
        width = {"smooth_l1_loss": {"beta": 0.5}, "huber_loss": {"delta": 0.5}}[loss]
        y = getattr(T.nn.functional, loss)(x, t, reduction=reduction, **width)
        fn = y.grad_fn
        gx, gt = T.autograd.grad(y, (x, t), T.ones_like(y) * 2)
        saved = [getattr(fn, name) for name in sorted(dir(fn)) if name.startswith("_saved_")]
        return _node(y), saved, gx, gt, _double_backward(T, x, y, t)
    assert_same(prog)


def test_smooth_l1_with_beta_zero_records_the_l1_ops():
    def prog(T):
        x = T.tensor(DATA, requires_grad=True)
        y = T.nn.functional.smooth_l1_loss(x, T.zeros(3, 4), beta=0.0)
        y.backward()
        return y, _graph(y), x.grad
    assert_same(prog)


def test_loss_modules_and_weighted_huber():
    def prog(T):
        x = T.tensor(DATA, requires_grad=True)
        t = T.zeros(3, 4)
        w = T.arange(12.0).reshape(3, 4)
        F = T.nn.functional
        modules = (T.nn.SmoothL1Loss(), T.nn.SmoothL1Loss(reduction="sum", beta=0.25), T.nn.HuberLoss(delta=2),
                   T.nn.HuberLoss("none", 0.5), T.nn.SmoothL1Loss(reduce=False))
        values = [m(x, t) for m in modules]
        weighted = [F.huber_loss(x, t, reduction=r, weight=w) for r in ("none", "sum", "mean")]
        settings = [(m.reduction, getattr(m, "beta", None), getattr(m, "delta", None)) for m in modules]
        return values, [_node(v) for v in values], settings, weighted, _graph(weighted[2]), repr(modules[2])
    assert_same(prog)


def test_smooth_l1_and_huber_out():
    def prog(T):
        out = T.empty(3, 4)
        r = T._C._nn.smooth_l1_loss(_x(T), _x(T) * 2, 0, 0.5, out=out)
        out2 = T.empty(3, 4)
        h = T._C._nn.huber_loss(_x(T), _x(T) * 2, 0, 0.5, out=out2)
        return r is out, out, h is out2, out2
    assert_same(prog)
