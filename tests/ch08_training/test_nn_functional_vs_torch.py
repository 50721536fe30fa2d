"""``torch.nn.functional`` against PyTorch: activations, softmax, dropout, linear, layer_norm, embedding.

Values, dtypes, ``grad_fn`` graphs and gradients of each function over several dtypes and shapes
(zero-dim, empty, negative dims), PyTorch's error types and texts on bad input, ``inplace=True`` really
in place, and finite-difference checks of the first and second derivatives computed by picotorch alone.
The losses are in ``test_losses_vs_torch.py``.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from numeric_helpers import numeric_grad
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

VALUES = np.array([-3.5, -1.0, -0.0, 0.0, 0.3, 1.0, 2.0, 7.5, -0.7, 0.5, 4.25, -2.0] * 4)
SHAPES = [(), (0,), (5,), (2, 3), (2, 0, 3), (2, 3, 4)]


def _data(shape):
    n = int(np.prod(shape)) if shape else 1
    return VALUES[:n].reshape(shape).tolist()


def _graph(t):
    """(name, [next names]) of every node under ``t``, depth first, walked iteratively."""
    out, stack, seen = [], [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append((node.name(), [n.name() if n is not None else None for n, _ in node.next_functions]))
        stack.extend(n for n, _ in reversed(node.next_functions))
    return out


ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_grads_and_graph(name, dtype):
    def prog(T):
        out = []
        for shape in SHAPES:
            x = T.tensor(_data(shape), dtype=getattr(T, dtype), requires_grad=True)
            y = ACTIVATIONS[name](T.nn.functional, x)
            y.backward(T.ones_like(y))
            out.append((y, x.grad, [n.name() for n, _ in y.grad_fn.next_functions]))
        return out
    # float32 GELU: PyTorch's CPU kernel (oneDNN's or a polynomial erf) is itself only ~1e-6 absolute
    assert_same(prog, rtol=1e-5 if dtype == "float32" else 1e-12, atol=2e-6 if dtype == "float32" else 1e-14)


def test_gelu_and_silu_reject_integers_and_bad_approximate():
    for prog in (lambda T: T.nn.functional.gelu(T.arange(3)), lambda T: T.nn.functional.silu(T.arange(3)),
                 lambda T: T.nn.functional.gelu(T.ones(2), approximate="fast"),
                 lambda T: T.nn.functional.gelu(T.ones(2), "tanh")):
        assert_same(prog)


def test_float32_activations_within_pytorchs_own_error():
    """picotorch computes in float64 and rounds once; PyTorch's float32 kernels approximate (GELU's erf to
    about 1e-7 absolute), so the two agree to that, and exactly on well over a third of the inputs."""
    x = np.random.default_rng(0).standard_normal(20000).astype(np.float32) * 3
    for name in ("gelu", "silu"):
        ours = getattr(picotorch.nn.functional, name)(picotorch.tensor(x)).numpy()
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=2e-6)
        assert np.mean(ours == theirs) > 0.35


# ----------------------------------------------------------------------------- relu(inplace=True)


def test_relu_inplace_modifies_the_tensor_itself():
    def prog(T):
        x = T.tensor([-1.5, -0.0, 0.0, 2.0, float("nan")], requires_grad=True)
        y = x * 1
        version = y._version
        z = T.nn.functional.relu(y, inplace=True)
        assert z is y
        bumped = y._version - version
        z.sum().backward()
        return y, [str(v) for v in y.tolist()], bumped, x.grad, y.grad_fn.name()
    assert_same(prog)


def test_relu_module_inplace_and_leaf_error():
    def prog(T):
        leaf = T.tensor([-1.0, 2.0], requires_grad=True)
        return T.nn.ReLU(inplace=True)(leaf)
    assert_same(prog)

    def no_grad_leaf(T):
        x = T.tensor([-1.0, 2.0, -0.0])
        out = T.nn.ReLU(inplace=True)(x)
        return out is x, x, x._version, repr(T.nn.ReLU(inplace=True)), repr(T.nn.ReLU())
    assert_same(no_grad_leaf)


def test_silu_inplace():
    def prog(T):
        x = T.tensor([-1.0, 0.5, 3.0], dtype=T.float64, requires_grad=True)
        y = x * 2
        z = T.nn.functional.silu(y, inplace=True)
        z.sum().backward()
        return z is y, z, x.grad, y._version
    assert_same(prog, rtol=1e-12)


# ----------------------------------------------------------------------------- softmax, log_softmax


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_over_every_dim(fn, dtype):
    def prog(T):
        out = []
        for shape in [(), (5,), (2, 3), (2, 3, 4), (0, 3), (3, 0)]:
            x = T.tensor(_data(shape), dtype=getattr(T, dtype), requires_grad=True)
            for dim in range(-max(len(shape), 1), max(len(shape), 1)):
                y = getattr(T.nn.functional, fn)(x, dim)
                y.backward(T.ones_like(y) * T.arange(y.numel(), dtype=y.dtype).reshape(y.shape))
                out.append((y, x.grad, _graph(y)))
                x.grad = None
        return out
    assert_same(prog, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7 if dtype == "float32" else 1e-14)


def test_softmax_extremes_dtype_argument_and_method_forms():
    def prog(T):
        big = T.tensor([[1000.0, 0.0, -1000.0], [float("inf"), 1.0, 2.0], [-float("inf")] * 3])
        x = T.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        cast = T.nn.functional.softmax(x, 1, dtype=T.float64)
        same = T.nn.functional.log_softmax(x, -1, dtype=T.float32)
        return (T.softmax(big, 1), big.log_softmax(1), T.log_softmax(big, dim=0), cast, _graph(cast), same,
                _graph(same), x.softmax(dim=1), T.softmax(T.arange(4.0), 0, dtype=T.float16))
    assert_same(prog)


def test_softmax_bad_input():
    for prog in (lambda T: T.nn.functional.softmax(T.ones(2, 3), 2),
                 lambda T: T.nn.functional.log_softmax(T.ones(2, 3), -3),
                 lambda T: T.nn.functional.softmax(T.arange(6).view(2, 3), 0),
                 lambda T: T.nn.functional.softmax(T.arange(6).view(2, 3), 1),
                 lambda T: T.nn.functional.log_softmax(T.arange(3), 0),
                 lambda T: T.softmax(T.tensor(1.0), 1),
                 lambda T: T._softmax(T.ones(3), 0, True)):
        assert_same(prog)


def test_softmax_without_dim_warns_and_picks_pytorchs_dim():
    for shape in [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        results = []
        for T in (picotorch, torch):
            x = T.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 10)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                y = T.nn.functional.softmax(x)
            results.append((y.numpy(), [str(w.message) for w in caught], [w.category for w in caught]))
        np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
        assert results[0][1:] == results[1][1:]


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=4), data=st.data())
def test_softmax_fuzzed_shapes_and_dims(shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    fn = data.draw(st.sampled_from(["softmax", "log_softmax"]))
    values = np.random.default_rng(len(shape)).standard_normal(shape) * 4

    def prog(T):
        x = T.tensor(values, requires_grad=True)
        y = getattr(x, fn)(dim)
        y.backward(T.tensor(values * 0.5 + 1))
        return y, x.grad
    assert_same(prog, rtol=1e-12, atol=1e-13)


# ----------------------------------------------------------------------------- dropout


def test_dropout_identity_cases_return_the_input_itself():
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        F = T.nn.functional
        return (F.dropout(x, 0.5, training=False) is x, F.dropout(x, 0.0) is x,
                F.dropout(T.ones(0), 0.5).shape, F.dropout(x, 1.0), _graph(F.dropout(x, 1.0)))
    assert_same(prog)


def test_dropout_training_zeroes_or_scales_and_backward_uses_the_same_mask():
    for T in (picotorch, torch):
        T.manual_seed(0)
        x = T.ones(2000, dtype=T.float64, requires_grad=True)
        y = T.nn.functional.dropout(x, 0.25)
        assert _graph(y)[0] == ("MulBackward0", ["torch::autograd::AccumulateGrad", None])
        values = set(np.round(y.detach().numpy(), 12).tolist())
        assert values <= {0.0, round(1 / 0.75, 12)}
        assert 0.2 < float((y == 0).double().mean()) < 0.3
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


def test_dropout_inplace_and_bad_p():
    def prog(T):
        x = T.ones(4) * 1
        y = T.nn.functional.dropout(x, 0.5, inplace=True)
        return y is x, x._version > 0
    assert_same(prog)
    for p in (-0.1, 1.5):
        assert_same(lambda T, p=p: T.nn.functional.dropout(T.ones(2), p))
        assert_same(lambda T, p=p: T.nn.Dropout(p))
    assert_same(lambda T: T.dropout(T.ones(2), 1.5, True))


def test_native_dropout_graph_and_mask():
    def prog(T):
        x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out, mask = T.native_dropout(x, 0.5, False)
        out.sum().backward()
        kept, all_mask = T.native_dropout(x, 0.0, True)
        return out, mask, x.grad, _graph(out), kept, all_mask, mask.requires_grad
    assert_same(prog)
    picotorch.manual_seed(1)
    x = picotorch.ones(1000, requires_grad=True)
    out, mask = picotorch.native_dropout(x, 0.4, True)
    assert mask.dtype == picotorch.bool and 0.5 < float(mask.float().mean()) < 0.7
    np.testing.assert_allclose(out.detach().numpy(), mask.numpy() / 0.6, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), mask.numpy() / 0.6, rtol=1e-6)


# ----------------------------------------------------------------------------- linear


@pytest.mark.parametrize("shape", [(5,), (3, 5), (2, 3, 5), (1, 2, 3, 5)])
def test_linear_float64_input_to_float32_layer(shape):
    def prog(T):
        T.manual_seed(0)
        return T.nn.Linear(5, 2)(T.ones(shape, dtype=T.float64))
    assert_same(prog)


def test_linear_bad_shapes_and_dtypes():
    for prog in (lambda T: T.nn.functional.linear(T.ones(3, 5), T.ones(2, 4)),
                 lambda T: T.nn.functional.linear(T.ones(3, 5), T.ones(2, 5), T.ones(2, dtype=T.float64)),
                 lambda T: T.addmm(T.ones(2).double(), T.ones(3, 5), T.ones(4, 2))):
        assert_same(prog)


# ----------------------------------------------------------------------------- layer_norm


@pytest.mark.parametrize("affine", ["none", "weight", "both"])
@pytest.mark.parametrize("shape,normalized", [((4,), (4,)), ((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((0, 4), (4,))])
def test_layer_norm_values_grads_and_graph(shape, normalized, affine):
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal(shape), rng.standard_normal(normalized), rng.standard_normal(normalized)

    def prog(T):
        xt = T.tensor(x, requires_grad=True)
        wt = T.tensor(w, requires_grad=True) if affine != "none" else None
        bt = T.tensor(b, requires_grad=True) if affine == "both" else None
        y = T.nn.functional.layer_norm(xt, normalized, wt, bt, eps=1e-3)
        y.backward(T.tensor(np.cos(np.arange(np.prod(shape))).reshape(shape)))
        return y, xt.grad, wt.grad if wt is not None else None, bt.grad if bt is not None else None, _graph(y)
    assert_same(prog, rtol=1e-10, atol=1e-12)


def test_layer_norm_float32_and_saved_values():
    def prog(T):
        x = T.tensor([[1.0, 2.0, 4.0], [0.5, -0.5, 3.0]], requires_grad=True)
        y = T.nn.functional.layer_norm(x, [3])
        return y, y.grad_fn._saved_normalized_shape, y.grad_fn._saved_result1, y.grad_fn._saved_result2
    assert_same(prog, rtol=1e-6)


def test_layer_norm_bad_input():
    for prog in (lambda T: T.nn.functional.layer_norm(T.ones(3, 5), (4,)),
                 lambda T: T.nn.functional.layer_norm(T.ones(3, 5), (3, 5, 1)),
                 lambda T: T.nn.functional.layer_norm(T.ones(3, 5), (5,), T.ones(4)),
                 lambda T: T.nn.functional.layer_norm(T.ones(3, 5), (5,), None, T.ones(4)),
                 lambda T: T.nn.functional.layer_norm(T.ones(3, 5), ()),
                 lambda T: T.nn.functional.layer_norm(T.ones(3, 5).long(), (5,))):
        assert_same(prog)


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_layer_norm_fuzzed_normalized_shapes(shape, data):
    k = data.draw(st.integers(1, len(shape)))
    values = np.random.default_rng(k).standard_normal(shape)

    def prog(T):
        x = T.tensor(values, requires_grad=True)
        w = T.ones(shape[-k:], dtype=T.float64, requires_grad=True)
        y = T.nn.functional.layer_norm(x, shape[-k:], w, None)
        y.backward(T.tensor(values[::-1].copy()))
        return y, x.grad, w.grad
    assert_same(prog, rtol=1e-9, atol=1e-11)


# ----------------------------------------------------------------------------- embedding


def test_embedding_lookup_padding_and_graph():
    def prog(T):
        w = T.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
        idx = T.tensor([[0, 2], [2, 3]])
        y = T.nn.functional.embedding(idx, w, padding_idx=-2)
        y.sum().backward()
        return y, w.grad, _graph(y)
    assert_same(prog)


def test_embedding_padding_idx_out_of_range():
    for padding in (4, -5):
        assert_same(lambda T, p=padding: T.nn.functional.embedding(T.tensor([0]), T.ones(4, 3), padding_idx=p))
        assert_same(lambda T, p=padding: T.nn.Embedding(4, 3, padding_idx=p))


# ----------------------------------------------------------------------------- finite differences


def _scalar(fn):
    """``x -> sum(fn(x) * weights)`` on a float64 NumPy array, through picotorch without a graph."""
    def value(x):
        with picotorch.no_grad():
            out = fn(picotorch.tensor(x))
            return float((out * picotorch.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))).sum())
    return value


SMOOTH = {
    "gelu": lambda x: picotorch.nn.functional.gelu(x),
    "gelu_tanh": lambda x: picotorch.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda x: picotorch.nn.functional.silu(x),
    "softmax": lambda x: x.softmax(0),
    "log_softmax": lambda x: x.log_softmax(-1),
    "layer_norm": lambda x: picotorch.nn.functional.layer_norm(x, (3,)),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_first_and_second_derivatives_match_finite_differences(name):
    x0 = np.random.default_rng(5).standard_normal((2, 3))
    fn = SMOOTH[name]
    x = picotorch.tensor(x0, requires_grad=True)
    y = fn(x)
    weights = picotorch.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    (grad,) = picotorch.autograd.grad((y * weights).sum(), x, create_graph=name != "layer_norm")
    np.testing.assert_allclose(grad.detach().numpy(), numeric_grad(_scalar(fn), x0), rtol=1e-5, atol=1e-7)
    if name == "layer_norm":  # PyTorch's double backward of layer_norm is not modelled: NotImplemented
        return
    v = np.sin(np.arange(6.0)).reshape(2, 3)
    (second,) = picotorch.autograd.grad((grad * picotorch.tensor(v)).sum(), x)

    def first_derivative_along_v(xs):
        xt = picotorch.tensor(xs, requires_grad=True)
        (g,) = picotorch.autograd.grad((fn(xt) * weights).sum(), xt)
        return float((g * picotorch.tensor(v)).sum())
    np.testing.assert_allclose(second.numpy(), numeric_grad(first_derivative_along_v, x0), rtol=1e-5, atol=1e-7)


def test_double_backward_graphs_match_torch():
    def prog(T):
        x = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=T.float64, requires_grad=True)
        out = []
        for f in (lambda x: x.softmax(1), lambda x: x.log_softmax(0), lambda x: T.nn.functional.gelu(x),
                  lambda x: T.nn.functional.silu(x)):
            (g,) = T.autograd.grad((f(x) * x.detach()).sum(), x, create_graph=True)
            (gg,) = T.autograd.grad(g.sum(), x)
            out.append((g, gg, _graph(g)))
        return out
    assert_same(prog, rtol=1e-10, atol=1e-12)
