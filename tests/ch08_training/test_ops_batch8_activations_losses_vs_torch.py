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
        return outs
    assert_same(prog)


# ----------------------------------------------------------------------------- rrelu while training

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
        (y * _weights(T, y)).sum().backward()
        return y, y.grad_fn._saved_noise, x.grad, T.rand(1)
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
        (y * _weights(T, y)).sum().backward()
        return _layout(y), _graph(y), _saved(y), x.grad, w.grad
    assert_same(prog)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 2), (3, 4), (2, 3, 4, 2, 1)])
def test_softmax2d(shape):
    def prog(T):
        x = (T.arange(int(T.tensor(shape).prod()), dtype=T.float32).reshape(shape) / 5).requires_grad_()
        y = T.nn.Softmax2d()(x)
        y.sum().backward()
        return _layout(y), _graph(y), x.grad
    assert_same(prog)
