"""Random shapes, dtypes and arguments for the op set, against PyTorch (hypothesis).

Each example runs the same call on both libraries and compares the result (values, dtype, shape) or
the exception (type and message).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import picotorch

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "int32", "bool"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def arrays(draw, shape=None):
    shape = draw(shapes) if shape is None else shape
    dtype = draw(st.sampled_from(DTYPES))
    values = np.random.default_rng(draw(st.integers(0, 2**16))).integers(-3, 4, size=shape)
    return values, dtype


def _tensor(T, array):
    values, dtype = array
    return T.tensor(values.tolist() if values.ndim else values.item(), dtype=getattr(T, dtype))


def _outcome(fn, T):
    try:
        r = fn(T)
    except Exception as error:  # noqa: BLE001 - the error is part of the outcome
        return ("error", type(error).__name__, str(error))
    if isinstance(r, T.Tensor):
        return ("tensor", str(r.dtype), tuple(r.shape), r.detach().numpy().astype(np.float64))
    return ("value", r)


def same(fn):
    """Same kind, dtype, shape and message; values equal up to float rounding (last bits may differ)."""
    ours, theirs = _outcome(fn, picotorch), _outcome(fn, torch)
    if ours[0] == theirs[0] == "tensor":
        assert ours[:3] == theirs[:3]
        np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        assert ours == theirs


@SETTINGS
@given(a=arrays(), b=arrays(), op=st.sampled_from(["add", "sub", "mul", "div", "eq", "lt", "ge", "where"]))
def test_binary_ops_broadcast_promote_and_fail_alike(a, b, op):
    if op == "where":
        same(lambda T: T.where(_tensor(T, a) > 0, _tensor(T, a), _tensor(T, b)))
    else:
        same(lambda T: getattr(T, op)(_tensor(T, a), _tensor(T, b)))


@SETTINGS
@given(a=arrays(), number=st.sampled_from([2, -1, 0.5, True, 3.0]),
       op=st.sampled_from(["+", "-", "*", "/", "**", "r-"]))
def test_python_numbers(a, number, op):
    def fn(T):
        t = _tensor(T, a)
        if op == "r-":
            return number - t
        return eval(f"t {op} number")
    same(fn)


@SETTINGS
@given(a=arrays(), dim=st.one_of(st.none(), st.integers(-4, 3), st.lists(st.integers(-3, 2), max_size=2).map(tuple)),
       keepdim=st.booleans(), op=st.sampled_from(["sum", "mean"]))
def test_reductions(a, dim, keepdim, op):
    def fn(T):
        t = _tensor(T, a)
        if dim is None:
            return getattr(t, op)()
        return getattr(t, op)(dim, keepdim=keepdim)
    same(fn)


@SETTINGS
@given(a=arrays(), view=st.sampled_from(["t()", "transpose(0, -1)", "unsqueeze(1)", "squeeze()", "squeeze(0)",
                                         "reshape(-1)", "view(-1, 1)", "expand(2, *s)", "permute(*reversed(range(d)))",
                                         "flip", "[0]", "[..., 1:]", "[None, ::2]"]))
def test_views(a, view):
    if view == "flip":
        view = "reshape(*reversed(s))"
    def fn(T):
        t = _tensor(T, a)
        s, d = tuple(t.shape), t.dim()  # noqa: F841 - used by the expressions
        return eval(f"t.{view}" if not view.startswith("[") else f"t{view}")
    same(fn)


@SETTINGS
@given(a=st.integers(0, 3), b=st.integers(0, 3), c=st.integers(0, 3), transpose=st.booleans())
def test_matmul_shapes(a, b, c, transpose):
    def fn(T):
        x = T.ones(a, b) if a else T.ones(b)
        y = T.ones(c, b) if transpose else T.ones(b, c)
        return x @ (y.t() if transpose else y)
    same(fn)


@st.composite
def broadcastable_pair(draw):
    out = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    def operand():
        keep = draw(st.integers(0, len(out)))
        return tuple(1 if draw(st.booleans()) else s for s in out[len(out) - keep:])
    return operand(), operand()


@SETTINGS
@given(shapes=broadcastable_pair(), op=st.sampled_from(["add", "sub", "mul", "div", "pow", "where", "matmul_sum"]),
       seed=st.integers(0, 2**16))
def test_gradients_of_broadcast_operands(shapes, op, seed):
    rng = np.random.default_rng(seed)
    a_values, b_values = rng.uniform(0.5, 2, shapes[0]), rng.uniform(0.5, 2, shapes[1])

    def grads(T):
        a = T.tensor(a_values, dtype=T.float64, requires_grad=True)
        b = T.tensor(b_values, dtype=T.float64, requires_grad=True)
        if op == "where":
            out = T.where(a > 1, a, b)
        elif op == "matmul_sum":
            out = (a * b).sum() * (a.sum() + b.mean())
        else:
            out = getattr(T, op)(a, b)
        out.backward(T.ones_like(out))
        return out.grad_fn.name(), a.grad.numpy(), b.grad.numpy()

    (name, *ours), (torch_name, *theirs) = grads(picotorch), grads(torch)
    assert name == torch_name
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=1e-10, atol=1e-12)
