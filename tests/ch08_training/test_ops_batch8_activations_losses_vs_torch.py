"""The eighth ops batch against PyTorch: the remaining activations (relu6, hardsigmoid, hardswish, hardshrink,
softshrink, tanhshrink, softsign, logsigmoid, mish, selu, celu, glu, threshold, softmin, prelu, rrelu) as functions
and as modules, and the remaining losses.

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``, the
saved tensors and numbers (``_saved_*``), gradients (double backward too), module reprs, error types and texts.
The expected values always come from torch.
"""

from __future__ import annotations

import pytest

from op_helpers import INTS, _graph, _layout, _x
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _saved(out):
    """``out.grad_fn``'s saved values, by name (a learner can read them)."""
    fn = out.grad_fn
    return {name: getattr(fn, name) for name in sorted(dir(fn)) if name.startswith("_saved_")}


def _weights(T, like):
    """Distinct upstream weights, so a gradient that swaps elements shows."""
    n = like.numel()
    return T.arange(1, n + 1, dtype=like.dtype).reshape(like.shape) / n


# ----------------------------------------------------------------------------- activations: values, graph, grads

def _F(T):
    return T.nn.functional


ACTIVATIONS = {
    "relu6": lambda T, x: _F(T).relu6(x),
    "hardsigmoid": lambda T, x: _F(T).hardsigmoid(x),
    "hardswish": lambda T, x: _F(T).hardswish(x),
    "hardshrink": lambda T, x: _F(T).hardshrink(x),
    "hardshrink_lambd": lambda T, x: _F(T).hardshrink(x, 1.5),
    "hardshrink_method": lambda T, x: x.hardshrink(0.25),
    "torch_hardshrink": lambda T, x: T.hardshrink(x, lambd=2.0),
    "softshrink": lambda T, x: _F(T).softshrink(x),
    "softshrink_lambd": lambda T, x: _F(T).softshrink(x, 1.5),
    "tanhshrink": lambda T, x: _F(T).tanhshrink(x),
    "softsign": lambda T, x: _F(T).softsign(x),
    "logsigmoid": lambda T, x: _F(T).logsigmoid(x),
    "mish": lambda T, x: _F(T).mish(x),
    "selu": lambda T, x: _F(T).selu(x),
    "torch_selu": lambda T, x: T.selu(x),
    "celu": lambda T, x: _F(T).celu(x),
    "celu_alpha": lambda T, x: _F(T).celu(x, alpha=0.5),
    "torch_celu": lambda T, x: T.celu(x, 2.0),
    "glu": lambda T, x: _F(T).glu(x),
    "glu_dim0": lambda T, x: _F(T).glu(x[:2], 0),
    "threshold": lambda T, x: _F(T).threshold(x, 0.5, -7.0),
    "torch_threshold": lambda T, x: T.threshold(x, 1, 20),
    "softmin": lambda T, x: _F(T).softmin(x, 1),
    "softmin_dim0": lambda T, x: _F(T).softmin(x, dim=0),
    "prelu_one": lambda T, x: _F(T).prelu(x, T.tensor([0.3], dtype=x.dtype)),
    "prelu_channels": lambda T, x: _F(T).prelu(x, T.tensor([0.1, 0.2, 0.3, 0.4], dtype=x.dtype)),
    "prelu_1d": lambda T, x: _F(T).prelu(x[0], T.tensor([0.1], dtype=x.dtype)),
    "prelu_method": lambda T, x: x.prelu(T.tensor(0.2, dtype=x.dtype)),
    "rrelu_eval": lambda T, x: _F(T).rrelu(x),
    "rrelu_eval_bounds": lambda T, x: _F(T).rrelu(x, 0.1, 0.5),
    "torch_rrelu": lambda T, x: T.rrelu(x),
}


def _run_activation(T, name, dtype):
    x = _x(T, dtype, requires_grad=True)
    y = ACTIVATIONS[name](T, x)
    saved = {k: v for k, v in _saved(y).items() if k != "_saved_noise"}  # eval mode leaves the noise unwritten
    (y * _weights(T, y)).sum().backward()
    return _layout(y), _graph(y), saved, x.grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_graph_saved_and_gradient(name, dtype):
    assert_same(lambda T: _run_activation(T, name, dtype))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_in_reduced_floats(name, dtype):
    assert_same(lambda T: _run_activation(T, name, dtype), rtol=1e-2, atol=1e-3)


SMOOTH_FOR_DOUBLE_BACKWARD = ["hardswish", "logsigmoid", "mish", "selu", "celu", "glu", "glu_dim0", "softmin",
                              "tanhshrink", "softsign", "hardsigmoid", "hardshrink", "softshrink", "threshold",
                              "relu6", "rrelu_eval"]


@pytest.mark.parametrize("name", SMOOTH_FOR_DOUBLE_BACKWARD)
def test_activation_double_backward(name):
    def prog(T):
        x = _x(T, "float64", requires_grad=True)
        y = ACTIVATIONS[name](T, x)
        (g,) = T.autograd.grad((y * _weights(T, y)).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x, allow_unused=True)
        return g, _graph(g), gg
    assert_same(prog)


def test_activations_on_a_strided_input_keep_its_layout():
    def prog(T):
        x = _x(T, "float32").t()
        F = T.nn.functional
        outs = [F.hardsigmoid(x), F.hardswish(x), F.hardshrink(x), F.softshrink(x), F.mish(x), F.logsigmoid(x),
                F.celu(x), F.threshold(x, 0.0, 1.0), F.selu(x), F.relu6(x), F.glu(x, 0)]
        return [_layout(o) for o in outs]
    assert_same(prog)


# ----------------------------------------------------------------------------- in place

INPLACE = {
    "relu6": lambda T, x: _F(T).relu6(x, inplace=True),
    "hardsigmoid": lambda T, x: _F(T).hardsigmoid(x, inplace=True),
    "hardswish": lambda T, x: _F(T).hardswish(x, inplace=True),
    "mish": lambda T, x: _F(T).mish(x, inplace=True),
    "selu": lambda T, x: _F(T).selu(x, inplace=True),
    "selu_": lambda T, x: _F(T).selu_(x),
    "torch_selu_": lambda T, x: T.selu_(x),
    "celu": lambda T, x: _F(T).celu(x, 0.7, inplace=True),
    "celu_": lambda T, x: _F(T).celu_(x),
    "threshold": lambda T, x: _F(T).threshold(x, 0.5, 3.0, inplace=True),
    "threshold_": lambda T, x: _F(T).threshold_(x, 0.5, 3.0),
    "torch_threshold_": lambda T, x: T.threshold_(x, -1.0, 0.0),
    "rrelu_eval": lambda T, x: _F(T).rrelu(x, inplace=True),
    "rrelu_": lambda T, x: _F(T).rrelu_(x, 0.2, 0.4),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_activation(name):
    def prog(T):
        leaf = _x(T, "float64", requires_grad=True)
        x = leaf * 1
        y = INPLACE[name](T, x)
        saved = {k: v for k, v in _saved(y).items() if k != "_saved_noise"}
        version = x._version
        (y * _weights(T, y)).sum().backward()
        return y is x, version, _layout(y), _graph(y), saved, leaf.grad
    assert_same(prog)


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_activation_refuses_a_leaf_that_requires_grad(name):
    assert_same(lambda T: INPLACE[name](T, _x(T, "float32", requires_grad=True)))


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_activation_without_grad(name):
    def prog(T):
        x = _x(T, "float32")
        y = INPLACE[name](T, x)
        return y is x, x._version, x
    assert_same(prog)


# ----------------------------------------------------------------------------- dtypes and bad input

@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", sorted(set(ACTIVATIONS) - {"prelu_one", "prelu_channels", "prelu_1d", "prelu_method"}))
def test_activation_on_integer_and_bool_input(name, dtype):
    assert_same(lambda T: _layout(ACTIVATIONS[name](T, _x(T, dtype))))


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.softshrink(_x(T), -1.0),
    lambda T: T.nn.functional.softshrink(_x(T, "float64"), -0.5),
    lambda T: T.nn.functional.softshrink(_x(T, "float16"), -2.0),
    lambda T: T.nn.functional.hardshrink(_x(T), -1.0),
    lambda T: T.nn.functional.celu(_x(T), 0.0),
    lambda T: T.nn.functional.celu(_x(T), 0, inplace=True),
    lambda T: T.nn.functional.glu(_x(T), 0),
    lambda T: T.nn.functional.glu(T.tensor(1.0)),
    lambda T: T.nn.functional.glu(_x(T), 2),
    lambda T: T.nn.functional.glu(_x(T)[:, :3]),
    lambda T: T.nn.functional.prelu(_x(T), T.tensor([0.1, 0.2, 0.3])),
    lambda T: T.nn.functional.prelu(_x(T), T.tensor([0.1], dtype=T.float64)),
    lambda T: T.nn.functional.prelu(_x(T), T.tensor([[0.1]])),
    lambda T: T.nn.functional.prelu(T.tensor(1.0), T.tensor([0.1, 0.2])),
    lambda T: T.nn.functional.prelu(T.tensor(-2.0), T.tensor([0.1])),
    lambda T: T.nn.functional.prelu(_x(T, "int64"), T.tensor([1, 2, 3, 4])),
    lambda T: T.nn.functional.rrelu(_x(T), 0.5, 0.1),
    lambda T: T.nn.functional.rrelu(_x(T), 0.5, 0.1, training=True),
    lambda T: T.nn.functional.rrelu(_x(T, "int64"), training=True),
    lambda T: T.nn.functional.threshold(_x(T, "int32"), 1.5, 20.5),
    lambda T: T.nn.functional.threshold(_x(T, "uint8"), 2, 7),
    lambda T: T.nn.functional.relu6(_x(T, "bool")),
    lambda T: T.nn.functional.hardsigmoid(_x(T, "int64"), inplace=True),
    lambda T: T.nn.functional.mish(_x(T, "int32"), inplace=True),
    lambda T: T.nn.functional.selu(_x(T, "int64"), inplace=True),
    lambda T: T.nn.functional.softmin(_x(T, "float32"), 1, dtype=T.float64),
    lambda T: T.nn.functional.softmin(_x(T, "int64"), 1),
    lambda T: T.nn.functional.softmin(_x(T, "float32"), 2),
], ids=lambda p: "program")
def test_activation_errors_and_edge_cases(program):
    assert_same(lambda T: _layout(program(T)))


def test_softmin_without_dim_warns_and_picks_torchs_dim():
    import warnings

    def prog(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outs = [T.nn.functional.softmin(_x(T)), T.nn.functional.softmin(_x(T)[0]), T.nn.Softmin()(_x(T))]
        return outs, [str(w.message) for w in caught], [w.category.__name__ for w in caught]
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_hardswish_and_hardsigmoid_gradients_at_the_kinks(dtype):
    def prog(T):
        x = T.tensor([-3.5, -3.0, -2.5, 0.0, 2.5, 3.0, 3.5] * 3, dtype=getattr(T, dtype), requires_grad=True)
        y = T.nn.functional.hardswish(x) + T.nn.functional.hardsigmoid(x)
        y.backward(T.ones_like(y))
        return y, x.grad
    assert_same(prog, rtol=0, atol=0)


def test_celu_gradient_takes_alpha_as_a_float():
    def prog(T):
        x = T.linspace(-3, 1, 9, dtype=T.float64, requires_grad=True)
        y = T.nn.functional.celu(x, 0.7)
        z = T.nn.functional.celu(x * 1, 0.3, inplace=True)
        (y + z).sum().backward()
        return y, z, x.grad
    assert_same(prog, rtol=0, atol=0)


def test_special_values():
    def prog(T):
        x = T.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 100.0, -100.0, 3.0, -3.0, 0.5, -0.5])
        F = T.nn.functional
        return [F.relu6(x), F.hardsigmoid(x), F.hardswish(x), F.hardshrink(x), F.softshrink(x), F.logsigmoid(x),
                F.mish(x), F.selu(x), F.celu(x), F.threshold(x, 0.5, -1.0), F.rrelu(x), F.softsign(x),
                F.prelu(x, T.tensor([0.5]))]
    assert_same(prog)


def test_out_variants():
    def prog(T):
        x = _x(T)
        outs = []
        for fn in (T._C._nn.hardsigmoid, T._C._nn.hardswish, T._C._nn.mish, T._C._nn.softshrink, T.hardshrink):
            out = T.empty(0)
            r = fn(x, out=out)
            outs.append((r is out, out))
        out = T.empty(0)
        outs.append((T._C._nn.glu(x, 1, out=out) is out, out))
        out = T.empty(0)
        outs.append((T.threshold(x, 0.5, 2.0, out=out) is out, out, out._version))
        return outs
    assert_same(prog)


# ----------------------------------------------------------------------------- rrelu while training

@pytest.mark.parametrize("program", [
    lambda T: T.threshold(_x(T), 0.5, 2.0, out=T.empty(0, dtype=T.int64)),
    lambda T: T.threshold(_x(T, requires_grad=True), 0.5, 2.0, out=T.empty(0)),
    lambda T: T._C._nn.hardsigmoid(_x(T), out=T.empty(2, 2)),
])
def test_out_variant_errors_and_resizes(program):
    import warnings

    def prog(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _layout(program(T))
        return result, [str(w.message) for w in caught]
    assert_same(prog)


def test_rrelu_training_draws_as_torch():
    def prog(T):
        T.manual_seed(3)
        leaf = T.tensor([[1.5, -2.0, 0.5, -3.0], [-0.25, 4.0, -1.0, 2.0]], requires_grad=True)
        y = T.nn.functional.rrelu(leaf, training=True)
        noise = y.grad_fn._saved_noise
        (y * _weights(T, y)).sum().backward()
        after = T.rand(2)  # the generator moved on by as many draws as torch's
        return y, _graph(y), noise, leaf.grad, after
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rrelu_training_in_each_dtype(dtype):
    def prog(T):
        T.manual_seed(11)
        x = _x(T, dtype, requires_grad=True)
        y = T.nn.functional.rrelu(x * 1, 0.05, 0.75, training=True, inplace=True)
        noise = y.grad_fn._saved_noise
        (y * _weights(T, y)).sum().backward()
        return y, noise, x.grad, T.rand(1)
    assert_same(prog)


def test_rrelu_training_with_a_generator_and_equal_bounds():
    def prog(T):
        g = T.Generator().manual_seed(5)
        x = _x(T, "float64", requires_grad=True)
        y = T.rrelu(x, 0.2, 0.6, True, g)
        z = T.rrelu(x, 0.3, 0.3, True, g)  # no spread: the backward is leaky_relu's
        (y.sum() + (z * _weights(T, z)).sum()).backward()
        return y, z, x.grad, T.rand(1, generator=g)
    assert_same(prog)


def test_rrelu_module_train_and_eval():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.RReLU(0.1, 0.3)
        x = _x(T)
        train = m(x)
        m.eval()
        return train, m(x), repr(m), m.training
    assert_same(prog)


# ----------------------------------------------------------------------------- modules

MODULES = [
    lambda T: T.nn.ReLU6(), lambda T: T.nn.ReLU6(inplace=True), lambda T: T.nn.SELU(), lambda T: T.nn.SELU(True),
    lambda T: T.nn.CELU(), lambda T: T.nn.CELU(0.5, inplace=True), lambda T: T.nn.GLU(), lambda T: T.nn.GLU(0),
    lambda T: T.nn.Hardsigmoid(), lambda T: T.nn.Hardsigmoid(inplace=True), lambda T: T.nn.Hardswish(),
    lambda T: T.nn.Hardswish(True), lambda T: T.nn.Hardshrink(), lambda T: T.nn.Hardshrink(1.25),
    lambda T: T.nn.Softshrink(), lambda T: T.nn.Softshrink(1), lambda T: T.nn.Softsign(), lambda T: T.nn.Tanhshrink(),
    lambda T: T.nn.LogSigmoid(), lambda T: T.nn.Mish(), lambda T: T.nn.Mish(inplace=True),
    lambda T: T.nn.Threshold(0.1, 20), lambda T: T.nn.Threshold(1, 2.5, True), lambda T: T.nn.Softmin(1),
    lambda T: T.nn.Softmin(dim=0), lambda T: T.nn.PReLU(), lambda T: T.nn.PReLU(4, 0.1),
    lambda T: T.nn.RReLU(), lambda T: T.nn.RReLU(0.1, 0.3, inplace=True),
]


@pytest.mark.parametrize("make", MODULES)
def test_module_repr_attributes_and_forward(make):
    def prog(T):
        m = make(T)
        m.eval()  # RReLU: the mean slope
        x = _x(T, requires_grad=True)
        y = m(x * 1)
        (y * _weights(T, y)).sum().backward()
        attrs = {k: v for k, v in vars(m).items() if not k.startswith("_")}
        return repr(m), attrs, list(m.state_dict()), _layout(y), _graph(y), x.grad, [
            (n, p, p.grad) for n, p in m.named_parameters()]
    assert_same(prog)


def test_module_reprs_in_a_sequential():
    def prog(T):
        return repr(T.nn.Sequential(T.nn.Linear(2, 3), T.nn.PReLU(), T.nn.ReLU6(), T.nn.Softmax2d(), T.nn.GLU(),
                                    T.nn.Threshold(0.5, 0.0), T.nn.Hardshrink(), T.nn.CELU(2.0)))
    assert_same(prog)


def test_prelu_module_init_dtype_and_training_step():
    def prog(T):
        m = T.nn.PReLU(3, init=0.5, dtype=T.float64)
        x = T.tensor([[[1.0, -2.0], [0.5, -1.0], [-3.0, 2.0]]], dtype=T.float64)  # (1, 3, 2): channels in dim 1
        opt = T.optim.SGD(m.parameters(), lr=0.1)
        loss = (m(x) ** 2).sum()
        loss.backward()
        opt.step()
        return m.weight, m.weight.grad, m.num_parameters, m.init, loss
    assert_same(prog)


def test_prelu_on_4d_input_with_channel_weights():
    def prog(T):
        x = (T.arange(24, dtype=T.float64).reshape(2, 3, 2, 2) - 11.5).requires_grad_()
        w = T.tensor([0.1, 0.2, 0.3], dtype=T.float64, requires_grad=True)
        y = T.nn.functional.prelu(x, w)
        saved = _saved(y)
        (y * _weights(T, y)).sum().backward()
        return _layout(y), _graph(y), saved, x.grad, w.grad
    assert_same(prog)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 2), (3, 4), (2, 3, 4, 2, 1)])
def test_softmax2d(shape):
    def prog(T):
        x = (T.arange(int(T.tensor(shape).prod()), dtype=T.float32).reshape(shape) / 5).requires_grad_()
        y = T.nn.Softmax2d()(x)
        y.sum().backward()
        return _layout(y), _graph(y), x.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- losses

def _probs(T, dtype="float64", requires_grad=True):
    """Probabilities in (0, 1), 0 and 1 included, as a 3x4 leaf."""
    x = T.tensor([[0.2, 0.7, 0.5, 0.9], [0.05, 0.0, 1.0, 0.35], [0.6, 0.45, 0.999, 0.01]], dtype=getattr(T, dtype))
    return x.requires_grad_() if requires_grad else x


def _targets(T, dtype="float64"):
    return T.tensor([[0.0, 1.0, 0.3, 1.0], [0.0, 1.0, 0.0, 0.5], [1.0, 0.25, 1.0, 0.0]], dtype=getattr(T, dtype))


def _signs(T, dtype="float64"):
    return T.tensor([[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0]], dtype=getattr(T, dtype))


def _y(T, dtype="float64"):
    """A second 3x4 leaf, distinct from ``_x``."""
    return T.tensor([[0.5, 1.0, -0.75, 2.5], [1.25, -0.5, 0.0, 3.0], [-2.0, 0.25, 1.5, -1.0]], dtype=getattr(T, dtype),
                    requires_grad=True)


REDUCTIONS = ["mean", "sum", "none"]

LOSSES = {
    "bce": lambda T, r: ([_probs(T)], lambda x: _F(T).binary_cross_entropy(x, _targets(T), reduction=r)),
    "bce_weight": lambda T, r: ([_probs(T)], lambda x: _F(T).binary_cross_entropy(
        x, _targets(T), weight=T.tensor([1.0, 2.0, 0.5, 3.0], dtype=T.float64), reduction=r)),
    "bce_target_grad": lambda T, r: ([_probs(T), _targets(T).clamp(0.1, 0.9).requires_grad_()],
                                     lambda x, t: _F(T).binary_cross_entropy(x, t, reduction=r)),
    "kl_div": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).kl_div(
        x, _targets(T), reduction=r if r != "mean" else "batchmean")),
    "kl_div_log_target": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).kl_div(
        x, _y(T).detach(), reduction=r, log_target=True)),
    "kl_div_target_grad": lambda T, r: ([_x(T, "float64", True), _targets(T).requires_grad_()],
                                        lambda x, t: _F(T).kl_div(x, t, reduction="sum")),
    "margin_ranking": lambda T, r: ([_x(T, "float64")[0].requires_grad_(), _y(T)[1].detach().requires_grad_()],
                                    lambda a, b: _F(T).margin_ranking_loss(
                                        a, b, T.tensor([1.0, -1.0, 1.0, -1.0], dtype=T.float64), 0.5, reduction=r)),
    "hinge_embedding": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).hinge_embedding_loss(
        x, _signs(T), margin=2.0, reduction=r)),
    "soft_margin": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).soft_margin_loss(
        x, _signs(T), reduction=r)),
    "cosine_embedding": lambda T, r: ([_x(T, "float64", True), _y(T)], lambda a, b: _F(T).cosine_embedding_loss(
        a, b, T.tensor([1.0, -1.0, -1.0], dtype=T.float64), margin=-0.2, reduction=r)),
    "cosine_embedding_1d": lambda T, r: ([_x(T, "float64", True), _y(T)], lambda a, b: _F(T).cosine_embedding_loss(
        a[0], b[1], T.tensor(-1.0, dtype=T.float64), reduction=r)),
    "triplet": lambda T, r: ([_x(T, "float64", True), _y(T)], lambda a, p: _F(T).triplet_margin_loss(
        a, p, _targets(T), margin=2.0, reduction=r)),
    "triplet_swap_p1": lambda T, r: ([_x(T, "float64", True), _y(T)], lambda a, p: _F(T).triplet_margin_loss(
        a, p, _targets(T) * 3, margin=3.0, p=1, swap=True, reduction=r)),
    "poisson": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).poisson_nll_loss(
        x, _targets(T) * 4, reduction=r)),
    "poisson_full": lambda T, r: ([_probs(T)], lambda x: _F(T).poisson_nll_loss(
        x, _targets(T) * 4, log_input=False, full=True, reduction=r)),
    "gaussian": lambda T, r: ([_x(T, "float64", True), _probs(T)], lambda x, v: _F(T).gaussian_nll_loss(
        x, _targets(T), v, reduction=r)),
    "gaussian_full_homoscedastic": lambda T, r: (
        [_x(T, "float64", True), T.tensor([0.5, 2.0, 1e-9], dtype=T.float64, requires_grad=True)],
        lambda x, v: _F(T).gaussian_nll_loss(x, _targets(T), v, full=True, reduction=r)),
    "gaussian_float_var": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).gaussian_nll_loss(
        x, _targets(T), 0.5, reduction=r)),
    "multilabel_soft_margin": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).multilabel_soft_margin_loss(
        x, _targets(T), reduction=r)),
    "multilabel_soft_margin_weight": lambda T, r: ([_x(T, "float64", True)], lambda x: (
        _F(T).multilabel_soft_margin_loss(x, _targets(T), weight=T.tensor([1.0, 2.0, 0.5, 3.0],
                                                                                      dtype=T.float64), reduction=r))),
    "multi_margin": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).multi_margin_loss(
        x, T.tensor([0, 3, 1]), reduction=r)),
    "multi_margin_p2_weight": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).multi_margin_loss(
        x, T.tensor([2, 1, 0]), p=2, margin=2.5, weight=T.tensor([1.0, 2.0, 0.5, 3.0], dtype=T.float64),
        reduction=r)),
    "multi_margin_1d": lambda T, r: ([_x(T, "float64", True)], lambda x: _F(T).multi_margin_loss(
        x[1], T.tensor([2]), reduction=r)),
}


def _run_loss(T, name, reduction):
    leaves, fn = LOSSES[name](T, reduction)
    out = fn(*leaves)
    saved = _saved(out)  # before backward frees them
    (out * _weights(T, out)).sum().backward()
    return _layout(out), _graph(out), saved, [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_values_graph_saved_and_gradients(name, reduction):
    assert_same(lambda T: _run_loss(T, name, reduction), rtol=1e-12, atol=1e-14)


LOW_PRECISION = {
    "bce": lambda T, d, x: T.nn.functional.binary_cross_entropy(_probs(T, d), _targets(T, d)),
    "bce_weight": lambda T, d, x: T.nn.functional.binary_cross_entropy(
        _probs(T, d), _targets(T, d), weight=T.tensor([1.0, 2.0, 0.5, 3.0], dtype=getattr(T, d)), reduction="sum"),
    "soft_margin": lambda T, d, x: T.nn.functional.soft_margin_loss(x, _signs(T, d)),
    "multi_margin": lambda T, d, x: T.nn.functional.multi_margin_loss(x, T.tensor([0, 3, 1]), p=2),
    "kl_div": lambda T, d, x: T.nn.functional.kl_div(x, _targets(T, d), reduction="batchmean"),
    "hinge_embedding": lambda T, d, x: T.nn.functional.hinge_embedding_loss(x, _signs(T, d)),
    "poisson": lambda T, d, x: T.nn.functional.poisson_nll_loss(x, _targets(T, d) * 4),
    "cosine_embedding": lambda T, d, x: T.nn.functional.cosine_embedding_loss(
        x, _targets(T, d), T.tensor([1.0, -1.0, -1.0], dtype=getattr(T, d))),
    "triplet": lambda T, d, x: T.nn.functional.triplet_margin_loss(x, _targets(T, d), _signs(T, d)),
    "gaussian": lambda T, d, x: T.nn.functional.gaussian_nll_loss(x, _targets(T, d), _probs(T, d, False) + 0.5),
    "multilabel_soft_margin": lambda T, d, x: T.nn.functional.multilabel_soft_margin_loss(x, _targets(T, d)),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(LOW_PRECISION))
def test_loss_in_lower_precision(name, dtype):
    def prog(T):
        x = _x(T, dtype, requires_grad=True)
        out = LOW_PRECISION[name](T, dtype, x)
        out.backward()
        return _layout(out), x.grad
    loose = dtype != "float32"
    assert_same(prog, rtol=1e-2 if loose else 1e-6, atol=1e-2 if loose else 1e-6)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["bce", "soft_margin", "multi_margin", "margin_ranking", "cosine_embedding"])
def test_loss_legacy_size_average_and_reduce(name, reduction):
    import warnings

    def prog(T):
        legacy = {"mean": {}, "sum": {"size_average": False}, "none": {"reduce": False}}[reduction]
        leaves, _ = LOSSES[name](T, reduction)
        F = T.nn.functional
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if name == "bce":
                out = F.binary_cross_entropy(leaves[0], _targets(T), size_average=legacy.get("size_average"),
                                             reduce=legacy.get("reduce", True if not legacy else None))
            elif name == "soft_margin":
                out = F.soft_margin_loss(leaves[0], _signs(T), size_average=legacy.get("size_average"),
                                         reduce=legacy.get("reduce", True))
            elif name == "multi_margin":
                out = F.multi_margin_loss(leaves[0], T.tensor([0, 3, 1]), size_average=legacy.get("size_average"),
                                          reduce=legacy.get("reduce", True))
            elif name == "margin_ranking":
                out = F.margin_ranking_loss(leaves[0], leaves[1], T.tensor([1.0, -1.0, 1.0, -1.0], dtype=T.float64),
                                            size_average=legacy.get("size_average"),
                                            reduce=legacy.get("reduce", True))
            else:
                out = F.cosine_embedding_loss(leaves[0], leaves[1], T.tensor([1.0, -1.0, -1.0], dtype=T.float64),
                                              size_average=legacy.get("size_average"),
                                              reduce=legacy.get("reduce", True))
        return out, [str(w.message) for w in caught]
    assert_same(prog)


def test_kl_div_mean_warns_and_reductions():
    import warnings

    def prog(T):
        x, t = _x(T, "float64", True), _targets(T)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outs = [T.nn.functional.kl_div(x, t), T.nn.functional.kl_div(x, t, reduction="batchmean"),
                    T.nn.functional.kl_div(x[0, 0], t[0, 0], reduction="batchmean"),
                    T.nn.KLDivLoss()(x, t), T.nn.KLDivLoss(reduction="batchmean", log_target=True)(x, t),
                    T.nn.functional.kl_div(x, t, size_average=False)]
        return [(_layout(o), _graph(o)) for o in outs], [(str(w.message), w.category.__name__) for w in caught]
    assert_same(prog)


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([1.5]), T.tensor([1.0])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([-0.1]), T.tensor([1.0])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5]), T.tensor([2.0])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5, 1.5]), T.tensor([2.0, 1.0])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([float("nan")]), T.tensor([1.0])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5, 0.2]), T.tensor([[1.0], [0.0]])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5]), T.tensor([1.0], dtype=T.float64)),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5], dtype=T.float64), T.tensor([1.0])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([1]), T.tensor([1])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5]), T.tensor([1.0]), weight=T.tensor([2.0],
                                                                                                    dtype=T.float64)),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([[0.5, 0.25]]), T.tensor([[1.0, 0.0]]),
                                                   weight=T.tensor([[2.0], [3.0]])),
    lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5]), T.tensor([1.0]), reduction="bad"),
    lambda T: T.nn.functional.kl_div(T.tensor([1]), T.tensor([1]), reduction="sum"),
    lambda T: T.nn.functional.kl_div(T.tensor([-1.0]), T.tensor([0.5], dtype=T.float64), reduction="sum"),
    lambda T: T.nn.functional.kl_div(T.tensor([-1.0]), T.tensor([0.5]), reduction="bad"),
    lambda T: T.nn.functional.margin_ranking_loss(T.ones(3), T.ones(3, 1), T.ones(3)),
    lambda T: T.nn.functional.margin_ranking_loss(T.tensor([1, 2]), T.tensor([1, 3]), T.tensor([1, -1])),
    lambda T: T.nn.functional.hinge_embedding_loss(T.tensor([[1, 2]]), T.tensor([[1, -1]])),
    lambda T: T.nn.functional.cosine_embedding_loss(T.ones(3), T.ones(3), T.ones(3)),
    lambda T: T.nn.functional.cosine_embedding_loss(T.ones(2, 3), T.ones(2, 3), T.tensor(1.0)),
    lambda T: T.nn.functional.cosine_embedding_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2, 1)),
    lambda T: T.nn.functional.triplet_margin_loss(T.ones(2, 3), T.ones(2, 3), T.ones(3)),
    lambda T: T.nn.functional.triplet_margin_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2, 3), margin=0),
    lambda T: T.nn.TripletMarginLoss(margin=-1),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3), T.tensor([0, 1]), p=3),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3), T.tensor([0, 3])),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3), T.tensor([0, -1])),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3), T.tensor([0, 1, 2])),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3), T.tensor([0, 1]), weight=T.ones(2)),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3), T.tensor([0, 1]), weight=T.ones(1, 3)),
    lambda T: T.nn.MultiMarginLoss(weight=T.ones(1, 3)),
    lambda T: T.nn.MultiMarginLoss(p=0),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3, 1), T.tensor([0, 1])),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 0), T.tensor([0, 1])),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3), T.tensor([0.0, 1.0])),
    lambda T: T.nn.functional.multi_margin_loss(T.tensor([0.1, 0.5, 0.2]), T.tensor([1]), reduction="none"),
    lambda T: T.nn.functional.multi_margin_loss(T.tensor(0.3), T.tensor(0), reduction="none"),
    lambda T: T.nn.functional.multi_margin_loss(T.tensor([[1, 2]]), T.tensor([0])),
    lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3), -T.ones(2, 3)),
    lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3), -1.0),
    lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3), T.ones(3, 2)),
    lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.zeros(2, 3), T.ones(2, 1) * 2),
    lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2, 3), reduction="x"),
    lambda T: T.nn.functional.poisson_nll_loss(T.ones(2, 3), T.ones(2, 3), reduction="x"),
    lambda T: T.nn.functional.multilabel_soft_margin_loss(T.ones(2, 3), T.ones(2, 3), reduction="x"),
    lambda T: T.nn.functional.soft_margin_loss(T.tensor([[1, 2]]), T.tensor([[1, 3]])),
    lambda T: T.nn.functional.soft_margin_loss(T.tensor([[1.0, 2.0]]), T.tensor([[1, -1]])),
    lambda T: T.nn.functional.soft_margin_loss(T.tensor([[1.0, 2.0]]), T.tensor([1.0, -1.0, 1.0])),
    lambda T: T.nn.functional.cosine_similarity(T.tensor([[1, 2]]), T.tensor([[1, 3]])),
    lambda T: T.nn.functional.cosine_similarity(T.tensor([[1, 2]]), T.tensor([[1.0, 3.0]])),
    lambda T: T.nn.functional.cosine_similarity(T.ones(2, 3), T.ones(4, 3)),
    lambda T: T.nn.functional.cosine_similarity(T.zeros(2, 3), T.ones(2, 3)),
    lambda T: T.nn.functional.pairwise_distance(T.tensor([[1, 2]]), T.tensor([[1, 3]])),
    lambda T: T.nn.functional.pairwise_distance(T.ones(2, 3), T.ones(3), keepdim=True),
], ids=lambda p: "program")
def test_loss_errors_and_edge_cases(program):
    assert_same(lambda T: _layout(program(T)))


# ----------------------------------------------------------------------------- distances

DISTANCES = {
    "cosine_similarity": lambda T, a, b: T.nn.functional.cosine_similarity(a, b),
    "cosine_similarity_dim0": lambda T, a, b: T.nn.functional.cosine_similarity(a, b, dim=0, eps=0.5),
    "cosine_similarity_broadcast": lambda T, a, b: T.nn.functional.cosine_similarity(a, b[0], dim=-1),
    "torch_cosine_similarity": lambda T, a, b: T.cosine_similarity(a, b, 1),
    "pairwise_distance": lambda T, a, b: T.nn.functional.pairwise_distance(a, b),
    "pairwise_distance_p1_keepdim": lambda T, a, b: T.nn.functional.pairwise_distance(a, b, p=1.0, keepdim=True),
    "pairwise_distance_p3": lambda T, a, b: T.nn.functional.pairwise_distance(a, b, 3, 1e-3),
    "pairwise_distance_inf": lambda T, a, b: T.nn.functional.pairwise_distance(a, b, float("inf")),
    "pairwise_distance_broadcast": lambda T, a, b: T.pairwise_distance(a, b[1]),
    "pairwise_distance_1d": lambda T, a, b: T.pairwise_distance(a[0], b[0]),
}


@pytest.mark.parametrize("name", sorted(DISTANCES))
def test_distance_values_graph_saved_and_gradients(name):
    def prog(T):
        a, b = _x(T, "float64", True), _y(T)
        out = DISTANCES[name](T, a, b)
        saved = _saved(out)
        (out * _weights(T, out)).sum().backward()
        return _layout(out), _graph(out), saved, a.grad, b.grad
    assert_same(prog, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(DISTANCES))
def test_distance_in_float32(name):
    def prog(T):
        a, b = _x(T, "float32", True), _y(T, "float32")
        out = DISTANCES[name](T, a, b)
        out.sum().backward()
        return _layout(out), a.grad, b.grad
    assert_same(prog)


# ----------------------------------------------------------------------------- loss modules

LOSS_MODULES = [
    lambda T: T.nn.BCELoss(), lambda T: T.nn.BCELoss(weight=T.tensor([1.0, 2.0, 0.5, 3.0], dtype=T.float64)),
    lambda T: T.nn.BCELoss(reduction="sum"), lambda T: T.nn.BCELoss(size_average=False),
    lambda T: T.nn.KLDivLoss(reduction="batchmean"), lambda T: T.nn.KLDivLoss(reduction="sum", log_target=True),
    lambda T: T.nn.HingeEmbeddingLoss(), lambda T: T.nn.HingeEmbeddingLoss(margin=0.5, reduction="none"),
    lambda T: T.nn.SoftMarginLoss(), lambda T: T.nn.SoftMarginLoss(reduce=False),
    lambda T: T.nn.PoissonNLLLoss(), lambda T: T.nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-4),
    lambda T: T.nn.MultiLabelSoftMarginLoss(), lambda T: T.nn.MultiLabelSoftMarginLoss(
        weight=T.tensor([1.0, 2.0, 0.5, 3.0], dtype=T.float64), reduction="sum"),
    lambda T: T.nn.MultiMarginLoss(), lambda T: T.nn.MultiMarginLoss(p=2, margin=0.5, reduction="none"),
]


@pytest.mark.parametrize("make", LOSS_MODULES)
def test_loss_module_repr_attributes_and_forward(make):
    def prog(T):
        m = make(T)
        x = _probs(T)
        name = type(m).__name__
        target = (T.tensor([0, 3, 1]) if name == "MultiMarginLoss" else _signs(T)
                  if name in ("HingeEmbeddingLoss", "SoftMarginLoss") else _targets(T))
        out = m(x, target)
        (out * _weights(T, out)).sum().backward()
        attrs = {k: v for k, v in vars(m).items() if not k.startswith("_")}
        return repr(m), attrs, list(m.state_dict()), _layout(out), _graph(out), x.grad
    assert_same(prog, rtol=1e-12, atol=1e-14)


PAIR_MODULES = [
    lambda T: T.nn.MarginRankingLoss(), lambda T: T.nn.MarginRankingLoss(margin=0.5, reduction="sum"),
    lambda T: T.nn.CosineEmbeddingLoss(), lambda T: T.nn.CosineEmbeddingLoss(0.1, reduction="none"),
    lambda T: T.nn.TripletMarginLoss(), lambda T: T.nn.TripletMarginLoss(margin=2.0, p=1, eps=1e-3, swap=True),
    lambda T: T.nn.GaussianNLLLoss(), lambda T: T.nn.GaussianNLLLoss(full=True, eps=0.5, reduction="sum"),
    lambda T: T.nn.CosineSimilarity(), lambda T: T.nn.CosineSimilarity(dim=0, eps=1e-3),
    lambda T: T.nn.PairwiseDistance(), lambda T: T.nn.PairwiseDistance(p=1.5, eps=0.0, keepdim=True),
]


@pytest.mark.parametrize("make", PAIR_MODULES)
def test_two_input_loss_and_distance_modules(make):
    def prog(T):
        m = make(T)
        a, b = _x(T, "float64", True), _y(T)
        name = type(m).__name__
        if name == "MarginRankingLoss":
            out = m(a[0], b[1], T.tensor([1.0, -1.0, 1.0, -1.0], dtype=T.float64))
        elif name == "CosineEmbeddingLoss":
            out = m(a, b, T.tensor([1.0, -1.0, 1.0], dtype=T.float64))
        elif name == "TripletMarginLoss":
            out = m(a, b, _targets(T))
        elif name == "GaussianNLLLoss":
            out = m(a, _targets(T), b.abs())
        else:
            out = m(a, b)
        (out * _weights(T, out)).sum().backward()
        attrs = {k: v for k, v in vars(m).items() if not k.startswith("_")}
        return repr(m), attrs, _layout(out), _graph(out), a.grad, b.grad
    assert_same(prog, rtol=1e-12, atol=1e-14)


def test_loss_modules_in_a_repr():
    assert_same(lambda T: repr(T.nn.ModuleList([
        T.nn.BCELoss(), T.nn.KLDivLoss(), T.nn.MarginRankingLoss(), T.nn.HingeEmbeddingLoss(), T.nn.SoftMarginLoss(),
        T.nn.CosineEmbeddingLoss(), T.nn.TripletMarginLoss(), T.nn.PoissonNLLLoss(), T.nn.GaussianNLLLoss(),
        T.nn.MultiLabelSoftMarginLoss(), T.nn.MultiMarginLoss(), T.nn.CosineSimilarity(), T.nn.PairwiseDistance()])))


def test_bce_loss_module_weight_is_a_buffer():
    def prog(T):
        m = T.nn.BCELoss(weight=T.tensor([1.0, 2.0]))
        return list(m.state_dict()), [n for n, _ in m.named_buffers()], m.weight
    assert_same(prog)


DOUBLE_BACKWARD_LOSSES = {
    "bce": lambda T, x, r: T.nn.functional.binary_cross_entropy(x, _targets(T), reduction=r),
    "bce_weight": lambda T, x, r: T.nn.functional.binary_cross_entropy(
        x, _targets(T), weight=T.tensor([1.0, 2.0, 0.5, 3.0], dtype=T.float64), reduction=r),
    "soft_margin": lambda T, x, r: T.nn.functional.soft_margin_loss(x, _signs(T), reduction=r),
    "multi_margin": lambda T, x, r: T.nn.functional.multi_margin_loss(x, T.tensor([0, 3, 1]), reduction=r),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(DOUBLE_BACKWARD_LOSSES))
def test_loss_double_backward(name, reduction):
    def prog(T):
        x = T.tensor([[0.2, 0.7, 0.5, 0.9], [0.05, 0.3, 0.8, 0.35], [0.6, 0.45, 0.99, 0.01]], dtype=T.float64,
                     requires_grad=True)
        out = DOUBLE_BACKWARD_LOSSES[name](T, x, reduction)
        v = _weights(T, out).requires_grad_()
        (g,) = T.autograd.grad(out, x, v, create_graph=True)
        gx, gv = T.autograd.grad((g * g).sum(), [x, v])
        return g, _graph(g), gx, gv
    assert_same(prog, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("weights", [[0.3], [0.1, 0.2, 0.3, 0.4]])
def test_prelu_double_backward(weights):
    def prog(T):
        x = (_x(T, "float64") - 0.5).requires_grad_()
        w = T.tensor(weights, dtype=T.float64, requires_grad=True)
        y = T.nn.functional.prelu(x, w)
        gx, gw = T.autograd.grad((y * _weights(T, y)).sum(), [x, w], create_graph=True)
        only_x = T.autograd.grad((gx * gx).sum(), [x, w], retain_graph=True, allow_unused=True)
        second = T.autograd.grad((gx * gx).sum() + (gw * gw).sum(), [x, w])
        return gx, gw, _graph(gx), second, only_x
    assert_same(prog, rtol=1e-12, atol=1e-14)



# ----------------------------------------------------------------------------- edge cases: layouts, 0-dim, empty, ints

EDGE_CASES = {
    "bce0d": lambda T: _layout(_F(T).binary_cross_entropy(T.tensor(0.3, requires_grad=True), T.tensor(1.0))),
    "bce_empty": lambda T: _layout(_F(T).binary_cross_entropy(T.ones(0), T.ones(0))),
    "bce_empty_sum": lambda T: _layout(_F(T).binary_cross_entropy(T.ones(0), T.ones(0), reduction="sum")),
    "bce_noncontig":
        lambda T: _layout(_F(T).binary_cross_entropy(T.full((3, 2), 0.3).t(), T.ones(2, 3), reduction="none")),
    "smargin_empty": lambda T: _layout(_F(T).soft_margin_loss(T.ones(0), T.ones(0))),
    "smargin_noncontig":
        lambda T: _layout(_F(T).soft_margin_loss(T.arange(6.).reshape(3, 2).t(), T.ones(2, 3), reduction="none")),
    "smargin_bcast": lambda T: _layout(_F(T).soft_margin_loss(T.ones(2, 3), T.ones(3), reduction="none")),
    "mm_none_2d":
        lambda T: _layout(_F(T).multi_margin_loss(T.tensor([[0.1, 0.2, 0.4, 0.8]]), T.tensor([3]), reduction="none")),
    "mm_sum":
        lambda T: _layout(_F(T).multi_margin_loss(T.tensor([[0.1, 0.2, 0.4, 0.8], [0.3, 0.1, 0.1, 0.9]],
            dtype=T.float64), T.tensor([3, 1]), reduction="sum")),
    "glu_empty": lambda T: _layout(_F(T).glu(T.ones(0, 4))),
    "hs_empty": lambda T: _layout(_F(T).hardsigmoid(T.ones(0, 4))),
    "logsig_0d": lambda T: _layout(_F(T).logsigmoid(T.tensor(-3.0))),
    "prelu_0d_scalar_w": lambda T: _layout(_F(T).prelu(T.tensor(-3.0), T.tensor(0.25))),
    "prelu_1d_w1": lambda T: _layout(_F(T).prelu(T.tensor([-3.0, 2.0]), T.tensor([0.25]))),
    "prelu_3d_noncontig":
        lambda T: _layout(_F(T).prelu(T.arange(-6., 6.).reshape(2, 3, 2).transpose(0, 2), T.tensor([0.1, 0.2, 0.3]))),
    "threshold_noncontig": lambda T: _layout(T.threshold(T.arange(-6., 6.).reshape(3, 4).t(), 0.0, 5.0)),
    "softsign_int": lambda T: _layout(_F(T).softsign(T.tensor([1, -2]))),
    "cos_sim_1d": lambda T: _layout(_F(T).cosine_similarity(T.tensor([1.0, 2.0]), T.tensor([2.0, 1.0]), dim=0)),
    "cos_sim_graph_bcast":
        lambda T: _graph(_F(T).cosine_similarity(T.ones(2, 3, requires_grad=True), T.ones(3,
            requires_grad=True), dim=-1)),
    "pdist_0d": lambda T: _layout(_F(T).pairwise_distance(T.tensor(1.0), T.tensor(3.0))),
    "kl_batchmean_1d":
        lambda T: _layout(_F(T).kl_div(T.tensor([-1.0, -2.0]), T.tensor([0.3, 0.7]), reduction="batchmean")),
    "poisson_int_target": lambda T: _layout(_F(T).poisson_nll_loss(T.tensor([0.5, 1.0]), T.tensor([1, 3]))),
    "poisson_full_int": lambda T: _layout(_F(T).poisson_nll_loss(T.tensor([0.5, 1.0]), T.tensor([1, 3]), full=True)),
    "gauss_int_var": lambda T: _layout(_F(T).gaussian_nll_loss(T.ones(2, 3), T.zeros(2, 3), 1)),
    "hinge_float_margin_int":
        lambda T: _layout(_F(T).hinge_embedding_loss(T.tensor([0.5, -1.0]), T.tensor([1, -1]), margin=2)),
    "mlsm_1d": lambda T: _layout(_F(T).multilabel_soft_margin_loss(T.tensor([0.5, -1.0]), T.tensor([1.0, 0.0]))),
    "triplet_1d":
        lambda T: _layout(_F(T).triplet_margin_loss(T.tensor([0.5, -1.0]), T.tensor([1.0, 0.0]), T.tensor([0.0, 0.0]))),
    "cel_int_target": lambda T: _layout(_F(T).cosine_embedding_loss(T.ones(2, 3), T.ones(2, 3), T.tensor([1, -1]))),
    "mrl_margin_int":
        lambda T: _layout(_F(T).margin_ranking_loss(T.tensor([1.0, 2.0]), T.tensor([2.0, 1.0]),
            T.tensor([1.0, 1.0]), margin=1)),
    "rrelu_train_noncontig":
        lambda T: (T.manual_seed(0), _layout(_F(T).rrelu(T.arange(-6., 6.).reshape(3, 4).t(), training=True)))[1],
    "celu_neg_alpha": lambda T: _layout(_F(T).celu(T.tensor([-1.0, 1.0]), alpha=-0.5)),
    "softshrink_inf": lambda T: _layout(_F(T).softshrink(T.tensor([1.0]), float("inf"))),
    "softshrink_0": lambda T: _layout(_F(T).softshrink(T.tensor([-1.0, 0.0, 1.0]), 0)),
    "hardshrink_int_lambd": lambda T: _layout(_F(T).hardshrink(T.tensor([-1.0, 0.5, 1.0]), 1)),
    "relu6_inplace_int": lambda T: _layout(_F(T).relu6(T.tensor([-1, 7, 3]), inplace=True)),
    "threshold_int_graph": lambda T: _layout(_F(T).threshold(T.tensor([-1.0, 7.0], requires_grad=True), 1, 2)),
    "glu_neg_dim": lambda T: _layout(_F(T).glu(T.arange(8.).reshape(2, 4), -2)),
    "mish_big": lambda T: _layout(_F(T).mish(T.tensor([-100.0, 100.0, 20.0, -20.0]))),
    "softmin_3d": lambda T: _layout(_F(T).softmin(T.arange(8.).reshape(2, 2, 2), dim=-1)),
    "elu_via_selu_f16": lambda T: _layout(_F(T).selu(T.tensor([-1.0, 2.0], dtype=T.float16))),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases(name):
    assert_same(EDGE_CASES[name])
