"""The eighth ops batch against PyTorch: convolutions (``conv1d``, ``conv2d``, ``nn.Conv1d``, ``nn.Conv2d``:
``ConvolutionBackward0``, ``ConvolutionBackwardBackward0``), pooling and batch norm.

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``,
gradients (double backward too), module reprs and initial weights, error types and texts. The expected values
always come from torch. Convolutions sum in another order than torch's kernels (oneDNN's for float32; the double
backward is another decomposition), so their values are compared with a tolerance: float64 to 1e-10 (relative;
second gradients add thousands of products), float32 to 1e-4 (picotorch sums in float64 and rounds once, oneDNN
in float32: its weight gradients lose a few digits to cancellation).
"""

from __future__ import annotations

import numpy as np
import pytest

from op_helpers import _graph, _layout, _node
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

F64 = {"rtol": 1e-10, "atol": 1e-10}
F32 = {"rtol": 1e-4, "atol": 1e-5}


def _r(T, *shape, dtype="float64", requires_grad=True, seed=0):
    """A leaf of ``shape`` holding distinct pseudo-random values (the same on both libraries)."""
    n = int(np.prod(shape))
    values = np.random.default_rng(seed + n).standard_normal(n).reshape(shape)
    return T.tensor(values.tolist(), dtype=getattr(T, dtype), requires_grad=requires_grad)


def _channels_last(T, t):
    """``t`` laid out N, H, W, C (picotorch has no ``memory_format=channels_last``; the strides are the same)."""
    return t.detach().permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2).requires_grad_(t.requires_grad)


def _twice(y, leaves, T):
    """The first gradients (with a graph), their nodes, and the second gradients of their squares' sum."""
    leaves = [t for t in leaves if t is not None]
    firsts = T.autograd.grad((y * y).sum(), leaves, create_graph=True)
    seconds = T.autograd.grad(sum((g * g).sum() for g in firsts), leaves)
    return firsts, [_node(g) for g in firsts], seconds


# ----------------------------------------------------------------------------- conv2d, conv1d

CONV2D_CASES = {
    "plain": ((2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    "no_bias": ((2, 3, 7, 6), (4, 3, 3, 3), False, {}),
    "stride": ((2, 3, 7, 6), (4, 3, 3, 2), True, {"stride": 2}),
    "stride_tuple": ((1, 2, 9, 8), (3, 2, 2, 3), True, {"stride": (2, 3)}),
    "padding": ((2, 3, 5, 5), (4, 3, 3, 3), True, {"padding": 1}),
    "padding_tuple": ((2, 3, 5, 5), (4, 3, 3, 3), True, {"padding": (2, 0)}),
    "padding_one_element": ((2, 3, 5, 5), (4, 3, 3, 3), True, {"padding": (1,)}),
    "dilation": ((1, 2, 9, 9), (3, 2, 3, 3), True, {"dilation": 2}),
    "dilation_stride_padding": ((1, 2, 9, 10), (3, 2, 3, 2), True, {"dilation": (2, 1), "stride": 2, "padding": 1}),
    "groups": ((2, 4, 6, 6), (6, 2, 3, 3), True, {"groups": 2}),
    "depthwise": ((2, 3, 6, 6), (6, 1, 3, 3), True, {"groups": 3, "padding": 1}),
    "same_odd": ((2, 3, 6, 5), (4, 3, 3, 3), True, {"padding": "same"}),
    "same_dilated": ((1, 2, 7, 7), (3, 2, 3, 2), True, {"padding": "same", "dilation": 2}),
    "same_even": ((1, 2, 6, 5), (3, 2, 2, 4), True, {"padding": "same"}),
    "valid": ((2, 3, 6, 5), (4, 3, 3, 3), True, {"padding": "valid"}),
    "one_by_one": ((2, 3, 4, 4), (5, 3, 1, 1), True, {}),
    "kernel_equals_input": ((2, 3, 3, 3), (4, 3, 3, 3), True, {}),
    "unbatched": ((3, 6, 5), (4, 3, 3, 3), True, {}),
    "unbatched_same_even": ((2, 5, 5), (3, 2, 2, 2), True, {"padding": "same"}),
}


@pytest.mark.parametrize("case", CONV2D_CASES, ids=list(CONV2D_CASES))
def test_conv2d_values_graph_and_double_backward_float64(case):
    x_shape, w_shape, with_bias, kwargs = CONV2D_CASES[case]

    def prog(T):
        x, w = _r(T, *x_shape), _r(T, *w_shape, seed=1)
        b = _r(T, w_shape[0], seed=2) if with_bias else None
        y = T.nn.functional.conv2d(x, w, b, **kwargs)
        return _layout(y), _graph(y), _twice(y, [x, w, b], T)
    assert_same(prog, **F64)


def test_conv2d_saved_values():
    def prog(T):
        x, w, b = _r(T, 2, 3, 6, 6), _r(T, 4, 3, 3, 3, seed=1), _r(T, 4, seed=2)
        fn = T.conv2d(x, w, b, (2, 1), (1, 0), (1, 2)).grad_fn
        return (fn._saved_stride, fn._saved_padding, fn._saved_dilation, fn._saved_groups, fn._saved_transposed,
                fn._saved_output_padding, fn._saved_input is x, fn._saved_weight is w, fn._saved_bias_sym_sizes_opt,
                T.conv2d(x, w).grad_fn._saved_bias_sym_sizes_opt,
                sorted(n for n in dir(fn) if n.startswith("_saved_")),
                T.conv2d(x, w, padding="valid").grad_fn._saved_padding,
                T.conv2d(x, w, padding="same").grad_fn._saved_padding)
    assert_same(prog)


@pytest.mark.parametrize("case", ["plain", "stride", "padding", "dilation", "groups", "same_even", "unbatched"])
def test_conv2d_float32(case):
    x_shape, w_shape, with_bias, kwargs = CONV2D_CASES[case]

    def prog(T):
        x, w = _r(T, *x_shape, dtype="float32"), _r(T, *w_shape, dtype="float32", seed=1)
        b = _r(T, w_shape[0], dtype="float32", seed=2) if with_bias else None
        y = T.conv2d(x, w, b, **kwargs)
        return _layout(y), _graph(y), T.autograd.grad((y * y).sum(), [t for t in (x, w, b) if t is not None])
    assert_same(prog, **F32)


def test_conv2d_mnist_sized_batch():
    def prog(T):
        x, w, b = (_r(T, 64, 1, 28, 28, dtype="float32"), _r(T, 8, 1, 3, 3, dtype="float32", seed=1),
                   _r(T, 8, dtype="float32", seed=2))
        y = T.nn.functional.conv2d(x, w, b, padding=1)
        return _layout(y), T.autograd.grad(y.pow(2).mean(), (x, w, b))
    assert_same(prog, **F32)


@pytest.mark.parametrize("which", ["input", "weight", "both", "strided_input"])
def test_conv2d_output_layout_follows_channels_last(which):
    def prog(T):
        x, w = _r(T, 2, 3, 6, 5), _r(T, 4, 3, 3, 3, seed=1)
        if which in ("input", "both"):
            x = _channels_last(T, x)
        if which in ("weight", "both"):
            w = _channels_last(T, w)
        if which == "strided_input":
            x = _r(T, 2, 3, 12, 5)[:, :, ::2]
        y = T.conv2d(x, w, stride=2)
        gx, gw = T.autograd.grad(y.sum(), (x, w))
        return _layout(y), _layout(gx), _layout(gw)
    assert_same(prog, **F64)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_conv2d_integer_inputs(dtype):
    def prog(T):
        x = T.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5).to(getattr(T, dtype)) % 7 - 3
        w = T.arange(4 * 3 * 3 * 3).reshape(4, 3, 3, 3).to(getattr(T, dtype)) % 5 - 2
        return _layout(T.conv2d(x, w, T.arange(4).to(getattr(T, dtype)), padding=1))
    assert_same(prog)


CONV1D_CASES = {
    "plain": ((2, 3, 9), (4, 3, 3), True, {}),
    "stride_padding_dilation": ((2, 3, 11), (4, 3, 3), True, {"stride": 2, "padding": 2, "dilation": 2}),
    "groups": ((2, 4, 8), (6, 2, 3), False, {"groups": 2}),
    "same_even": ((2, 3, 8), (4, 3, 4), True, {"padding": "same"}),
    "valid": ((2, 3, 8), (4, 3, 4), True, {"padding": "valid"}),
    "unbatched": ((3, 8), (4, 3, 2), True, {}),
}


@pytest.mark.parametrize("case", CONV1D_CASES, ids=list(CONV1D_CASES))
def test_conv1d_values_graph_and_double_backward(case):
    x_shape, w_shape, with_bias, kwargs = CONV1D_CASES[case]

    def prog(T):
        x, w = _r(T, *x_shape), _r(T, *w_shape, seed=1)
        b = _r(T, w_shape[0], seed=2) if with_bias else None
        y = T.nn.functional.conv1d(x, w, b, **kwargs)
        return _layout(y), _graph(y), _twice(y, [x, w, b], T)
    assert_same(prog, **F64)


def _e(T):
    return _r(T, 2, 3, 8, 8, dtype="float32", requires_grad=False), _r(T, 4, 3, 3, 3, dtype="float32", seed=1,
                                                                         requires_grad=False)


CONV_ERRORS = {
    "input_2d": lambda T: T.nn.functional.conv2d(_e(T)[0][0, 0], _e(T)[1]),
    "input_5d": lambda T: T.nn.functional.conv2d(_e(T)[0][None], _e(T)[1]),
    "channels": lambda T: T.nn.functional.conv2d(_e(T)[0][:, :2], _e(T)[1]),
    "channels_unbatched": lambda T: T.nn.functional.conv2d(_e(T)[0][0, :2], _e(T)[1]),
    "kernel_too_large": lambda T: T.nn.functional.conv2d(_e(T)[0][:, :, :2, :2], _e(T)[1]),
    "kernel_too_large_dilated": lambda T: T.nn.functional.conv2d(_e(T)[0][:, :, :4], _e(T)[1], dilation=2),
    "padding_rescues": lambda T: _layout(T.nn.functional.conv2d(_e(T)[0][:, :, :2, :2], _e(T)[1], padding=1)),
    "padding_string": lambda T: T.nn.functional.conv2d(_e(T)[0], _e(T)[1], padding="foo"),
    "same_strided": lambda T: T.nn.functional.conv2d(_e(T)[0], _e(T)[1], padding="same", stride=2),
    "groups_channels": lambda T: T.nn.functional.conv2d(_e(T)[0], _e(T)[1], groups=2),
    "groups_weight": lambda T: T.conv2d(T.ones(2, 4, 8, 8), T.ones(3, 2, 3, 3), groups=2),
    "groups_zero": lambda T: T.conv2d(_e(T)[0], _e(T)[1], groups=0),
    "bias_size": lambda T: T.conv2d(_e(T)[0], _e(T)[1], T.ones(3)),
    "bias_2d": lambda T: T.conv2d(_e(T)[0], _e(T)[1], T.ones(4, 1)),
    "weight_3d": lambda T: T.conv2d(_e(T)[0], _e(T)[1][0]),
    "weight_empty": lambda T: T.conv2d(_e(T)[0], T.ones(0, 3, 3, 3)),
    "stride_zero": lambda T: T.conv2d(_e(T)[0], _e(T)[1], stride=0),
    "stride_three": lambda T: T.conv2d(_e(T)[0], _e(T)[1], stride=(1, 1, 1)),
    "padding_negative": lambda T: T.conv2d(_e(T)[0], _e(T)[1], padding=-1),
    "dilation_zero": lambda T: T.conv2d(_e(T)[0], _e(T)[1], dilation=0),
    "double_input": lambda T: T.conv2d(_e(T)[0].double(), _e(T)[1]),
    "double_weight": lambda T: T.conv2d(_e(T)[0], _e(T)[1].double()),
    "double_bias": lambda T: T.conv2d(_e(T)[0], _e(T)[1], T.ones(4, dtype=T.float64)),
    "float_bias_double": lambda T: T.conv2d(_e(T)[0].double(), _e(T)[1].double(), T.ones(4)),
    "int_input": lambda T: T.conv2d(_e(T)[0].int(), _e(T)[1]),
    "int_weight": lambda T: T.conv2d(_e(T)[0], _e(T)[1].int()),
    "empty_batch": lambda T: _layout(T.conv2d(T.ones(0, 3, 8, 8), _e(T)[1])),
    "conv1d_4d": lambda T: T.nn.functional.conv1d(_e(T)[0], _e(T)[1]),
    "conv1d_same_strided": lambda T: T.conv1d(T.ones(1, 3, 8), T.ones(2, 3, 3), padding="same", stride=2),
    "module_channels": lambda T: T.nn.Conv2d(4, 4, 3)(T.ones(1, 3, 5, 5)),
    "module_dtype": lambda T: T.nn.Conv2d(3, 4, 3)(_e(T)[0].double()),
    "module_2d_input": lambda T: T.nn.Conv2d(3, 4, 3)(T.ones(5, 5)),
    "module_groups": lambda T: T.nn.Conv2d(3, 4, 3, groups=2),
    "module_out_groups": lambda T: T.nn.Conv2d(4, 3, 3, groups=2),
    "module_groups_zero": lambda T: T.nn.Conv2d(4, 4, 3, groups=0),
    "module_same_strided": lambda T: T.nn.Conv2d(4, 4, 3, padding="same", stride=2),
}


@pytest.mark.parametrize("name", CONV_ERRORS, ids=list(CONV_ERRORS))
def test_conv_bad_input_errors(name):
    assert_same(CONV_ERRORS[name])


@pytest.mark.parametrize("program", [
    # the valid strings and modes print as a set, whose order differs between runs: compare the start only
    lambda T: _head(lambda: T.nn.Conv2d(4, 4, 3, padding="foo")),
    lambda T: _head(lambda: T.nn.Conv2d(4, 4, 3, padding_mode="foo")),
])
def test_conv_module_value_errors(program):
    assert_same(program)


def _head(make):
    try:
        make()
    except ValueError as err:
        return str(err).split("{")[0]
    return None


@pytest.mark.parametrize("make", [
    lambda T: T.nn.Conv2d(1, 8, 3),
    lambda T: T.nn.Conv2d(3, 6, (3, 2), stride=2, padding=1, dilation=(2, 1), groups=3, bias=False),
    lambda T: T.nn.Conv2d(2, 4, 3, padding="same"),
    lambda T: T.nn.Conv2d(2, 4, 4, padding="valid", stride=(1, 2)),
    lambda T: T.nn.Conv2d(2, 4, 3, dtype=T.float64),
    lambda T: T.nn.Conv1d(2, 4, 3),
    lambda T: T.nn.Conv1d(4, 4, 5, stride=2, padding=2, groups=4),
    lambda T: T.nn.Conv1d(2, 4, 2, padding="same", bias=False),
])
def test_conv_modules_repr_init_and_forward(make):
    def prog(T):
        T.manual_seed(0)
        m = make(T)
        x = T.randn((2, m.in_channels) + (7,) * len(m.kernel_size), dtype=m.weight.dtype)
        y = m(x)
        return (repr(m), m.weight.tolist(), None if m.bias is None else m.bias.tolist(), list(m.state_dict()),
                [(n, tuple(p.shape)) for n, p in m.named_parameters()], _layout(y), _graph(y),
                m.kernel_size, m.stride, m.padding, m.dilation, m.output_padding, m.transposed,
                m._reversed_padding_repeated_twice)
    assert_same(prog, **(F64 if "float64" in repr(make) else F32))


def test_conv_training_step():
    def prog(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Conv2d(1, 4, 3, padding=1), T.nn.ReLU(), T.nn.Flatten(),
                                T.nn.Linear(4 * 6 * 6, 3))
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        x, target = T.randn(8, 1, 6, 6), T.tensor([0, 1, 2, 0, 1, 2, 0, 1])
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return repr(model), losses, model[0].weight.grad
    assert_same(prog, **F32)


# ----------------------------------------------------------------------------- pooling

POOL_CASES = {
    "max2": lambda T, x: T.nn.functional.max_pool2d(x, 2),
    "max3_stride2": lambda T, x: T.nn.functional.max_pool2d(x, 3, stride=2),
    "max_tuple": lambda T, x: T.nn.functional.max_pool2d(x, (2, 3), stride=(1, 2)),
    "max_padding": lambda T, x: T.nn.functional.max_pool2d(x, 3, stride=2, padding=1),
    "max_dilation": lambda T, x: T.nn.functional.max_pool2d(x, 2, stride=1, dilation=2),
    "max_ceil": lambda T, x: T.nn.functional.max_pool2d(x, 2, ceil_mode=True),
    "max_ceil_padding": lambda T, x: T.nn.functional.max_pool2d(x, 3, 2, 1, ceil_mode=True),
    "max_indices": lambda T, x: T.nn.functional.max_pool2d(x, 2, return_indices=True),
    "max_indices_positional": lambda T, x: T.nn.functional.max_pool2d(x, 3, 2, 1, 1, True, True),
    "max_torch": lambda T, x: T.max_pool2d(x, 2),
    "max_with_indices_nn": lambda T, x: T._C._nn.max_pool2d_with_indices(x, 2),
    "max_unbatched": lambda T, x: T.nn.functional.max_pool2d(x[0], 2, return_indices=True),
    "max1d": lambda T, x: T.nn.functional.max_pool1d(x[0], 3, stride=2, padding=1),
    "max1d_indices": lambda T, x: T.nn.functional.max_pool1d(x[:, 0], 2, return_indices=True),
    "max1d_unbatched": lambda T, x: T.nn.functional.max_pool1d(x[0, 0], 2, ceil_mode=True),
    "avg2": lambda T, x: T.nn.functional.avg_pool2d(x, 2),
    "avg_stride_padding": lambda T, x: T.nn.functional.avg_pool2d(x, 3, stride=2, padding=1),
    "avg_no_pad_count": lambda T, x: T.nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "avg_ceil": lambda T, x: T.nn.functional.avg_pool2d(x, 2, ceil_mode=True, padding=1),
    "avg_ceil_no_pad_count": lambda T, x: T.nn.functional.avg_pool2d(x, 2, 2, 1, True, False),
    "avg_divisor": lambda T, x: T.nn.functional.avg_pool2d(x, (2, 3), divisor_override=5),
    "avg_unbatched": lambda T, x: T.nn.functional.avg_pool2d(x[0], 2),
    "avg1d": lambda T, x: T.nn.functional.avg_pool1d(x[0], 3, stride=2, padding=1),
    "avg1d_ceil": lambda T, x: T.nn.functional.avg_pool1d(x[0], 2, ceil_mode=True, count_include_pad=False),
    "adaptive_avg_1": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 1),
    "adaptive_avg_1_1": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (1, 1)),
    "adaptive_avg_2_3": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (2, 3)),
    "adaptive_avg_uneven": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (3, 4)),
    "adaptive_avg_larger": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 7),
    "adaptive_avg_none": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (None, 2)),
    "adaptive_avg_unbatched": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x[0], 3),
    "adaptive_avg_unbatched_1": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x[0], 1),
    "adaptive_avg1d": lambda T, x: T.nn.functional.adaptive_avg_pool1d(x[0], 3),
    "adaptive_max": lambda T, x: T.nn.functional.adaptive_max_pool2d(x, (2, 3)),
    "adaptive_max_indices": lambda T, x: T.nn.functional.adaptive_max_pool2d(x, 3, return_indices=True),
    "adaptive_max_unbatched": lambda T, x: T.nn.functional.adaptive_max_pool2d(x[0], (4, 1), True),
}


def _outputs(out):
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("case", POOL_CASES, ids=list(POOL_CASES))
def test_pooling_values_graph_and_double_backward(case):
    def prog(T):
        x = _r(T, 2, 3, 6, 5)
        outs = _outputs(POOL_CASES[case](T, x))
        y = outs[0]
        saved = {name: getattr(y.grad_fn, name) for name in dir(y.grad_fn)
                 if name.startswith("_saved_") and not isinstance(getattr(y.grad_fn, name), T.Tensor)}
        return [_layout(o) for o in outs], _graph(y), sorted(saved.items()), _twice(y, [x], T)
    assert_same(prog, **F64)


def test_pooling_second_order_nodes_save_what_torch_saves():
    def prog(T):
        x = _r(T, 2, 3, 6, 6)
        nodes = []
        for y in (T.nn.functional.max_pool2d(x, 2), T.nn.functional.avg_pool2d(x, 3, 2, 1),
                  T.nn.functional.adaptive_avg_pool2d(x, (4, 3)), T.nn.functional.adaptive_max_pool2d(x, 4)):
            g, = T.autograd.grad((y * y).sum(), x, create_graph=True)
            fn = g.grad_fn
            saved = [(n, getattr(fn, n)) for n in sorted(dir(fn)) if n.startswith("_saved_")]
            nodes.append((fn.name(), [(n, "tensor" if isinstance(v, T.Tensor) else v) for n, v in saved]))
        return nodes
    assert_same(prog)


@pytest.mark.parametrize("case", ["max_padding", "avg_ceil", "adaptive_avg_uneven", "adaptive_max", "max1d"])
def test_pooling_float32_and_channels_last(case):
    def prog(T):
        x = _channels_last(T, _r(T, 2, 3, 6, 5, dtype="float32"))
        outs = _outputs(POOL_CASES[case](T, x))
        return [_layout(o) for o in outs], T.autograd.grad(outs[0].sum(), x)
    assert_same(prog)


@pytest.mark.parametrize("program", [
    # ties go to the first largest in row-major order; NaN wins, the last one; -inf windows keep their first
    lambda T: T.nn.functional.max_pool2d(T.tensor([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 3.0, 3.0]]]]), 2, 2, 0, 1,
                                         False, True),
    lambda T: T.nn.functional.max_pool2d(T.tensor([[[[1.0, float("nan"), 2.0, float("nan")]]]]), (1, 4),
                                         return_indices=True),
    lambda T: T.nn.functional.max_pool2d(T.tensor([[[[-float("inf"), -float("inf"), 2.0, -float("inf")]]]]),
                                         (1, 2), padding=(0, 1), return_indices=True),
    lambda T: T.nn.functional.adaptive_max_pool2d(T.tensor([[[[1.0, float("nan"), 2.0, float("nan")]]]]), 1,
                                                  return_indices=True),
    lambda T: _layout(T.nn.functional.max_pool2d(T.arange(30).reshape(1, 1, 5, 6) % 7 - 3, 2, padding=1)),
    lambda T: _layout(T.nn.functional.avg_pool2d(T.arange(30).reshape(1, 1, 5, 6) % 7 - 3, 2, padding=1)),
    lambda T: _layout(T.nn.functional.avg_pool2d(T.arange(30).reshape(1, 1, 5, 6) % 7 - 3, 3, divisor_override=2)),
    lambda T: _layout(T.nn.functional.max_pool2d(T.ones(0, 3, 4, 4), 2)),
    lambda T: _layout(T.nn.functional.adaptive_avg_pool2d(T.ones(2, 3, 4, 4), 0)),
])
def test_pooling_special_values(program):
    assert_same(program)


def _p(T):
    return _r(T, 2, 3, 8, 8, dtype="float32", requires_grad=False)


POOL_ERRORS = {
    "max_kernel_zero": lambda T: T.nn.functional.max_pool2d(_p(T), 0),
    "max_stride_zero": lambda T: T.nn.functional.max_pool2d(_p(T), 2, stride=0),
    "max_pad_too_large": lambda T: T.nn.functional.max_pool2d(_p(T), 2, padding=2),
    "max_pad_negative": lambda T: T.nn.functional.max_pool2d(_p(T), 2, padding=-1),
    "max_dilation_zero": lambda T: T.nn.functional.max_pool2d(_p(T), 2, dilation=0),
    "max_kernel_too_large": lambda T: T.nn.functional.max_pool2d(_p(T), 9),
    "max_2d_input": lambda T: T.nn.functional.max_pool2d(_p(T)[0, 0], 2),
    "max_5d_input": lambda T: T.nn.functional.max_pool2d(_p(T)[None], 2),
    "max_kernel_three": lambda T: T.nn.functional.max_pool2d(_p(T), (2, 2, 2)),
    "max_stride_three": lambda T: T.nn.functional.max_pool2d(_p(T), 2, stride=(1, 1, 1)),
    "max_padding_three": lambda T: T.nn.functional.max_pool2d(_p(T), 2, padding=(1, 1, 1)),
    "max_dilation_three": lambda T: T.nn.functional.max_pool2d(_p(T), 2, dilation=(1, 1, 1)),
    "max_empty_channels": lambda T: T.nn.functional.max_pool2d(T.ones(2, 0, 4, 4), 2),
    "max_empty_height": lambda T: T.nn.functional.max_pool2d(T.ones(2, 3, 0, 4), 2),
    "max_requires_grad": lambda T: T.nn.functional.max_pool2d(_p(T).requires_grad_(), 9),
    "avg_kernel_zero": lambda T: T.nn.functional.avg_pool2d(_p(T), 0),
    "avg_pad_too_large": lambda T: T.nn.functional.avg_pool2d(_p(T), 2, padding=2),
    "avg_kernel_too_large": lambda T: T.nn.functional.avg_pool2d(_p(T), 9),
    "avg_2d_input": lambda T: T.nn.functional.avg_pool2d(_p(T)[0, 0], 2),
    "avg_divisor_zero": lambda T: T.nn.functional.avg_pool2d(_p(T), 2, divisor_override=0),
    "avg_kernel_three": lambda T: T.nn.functional.avg_pool2d(_p(T), (2, 2, 2)),
    "avg_empty_height": lambda T: T.nn.functional.avg_pool2d(T.ones(2, 3, 0, 4), 2),
    "adaptive_three": lambda T: T.nn.functional.adaptive_avg_pool2d(_p(T), (2, 2, 2)),
    "adaptive_negative": lambda T: T.nn.functional.adaptive_avg_pool2d(_p(T), -1),
    "adaptive_2d_input": lambda T: T.nn.functional.adaptive_avg_pool2d(_p(T)[0, 0], 2),
    "adaptive_2d_input_1": lambda T: _layout(T.nn.functional.adaptive_avg_pool2d(_p(T)[0, 0], 1)),
    "adaptive_empty": lambda T: T.nn.functional.adaptive_avg_pool2d(T.ones(2, 3, 0, 4), 2),
    "adaptive_long": lambda T: T.nn.functional.adaptive_avg_pool2d(T.ones(2, 3, 4, 4, dtype=T.int64), 2),
    "adaptive_none_too_short": lambda T: T.nn.functional.adaptive_avg_pool2d(T.ones(4), (None, 2)),
    "adaptive_max_2d": lambda T: T.nn.functional.adaptive_max_pool2d(_p(T)[0, 0], 2),
}


@pytest.mark.parametrize("name", POOL_ERRORS, ids=list(POOL_ERRORS))
def test_pooling_bad_input_errors(name):
    assert_same(POOL_ERRORS[name])


@pytest.mark.parametrize("make", [
    lambda T: T.nn.MaxPool2d(2),
    lambda T: T.nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=1, ceil_mode=True),
    lambda T: T.nn.MaxPool2d(2, return_indices=True),
    lambda T: T.nn.MaxPool1d(3, stride=2, padding=1),
    lambda T: T.nn.AvgPool2d(2),
    lambda T: T.nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    lambda T: T.nn.AvgPool2d((2, 3), divisor_override=4),
    lambda T: T.nn.AvgPool1d(3, stride=2),
    lambda T: T.nn.AdaptiveAvgPool2d((1, 1)),
    lambda T: T.nn.AdaptiveAvgPool2d(3),
    lambda T: T.nn.AdaptiveAvgPool2d((None, 2)),
    lambda T: T.nn.AdaptiveAvgPool1d(2),
    lambda T: T.nn.AdaptiveMaxPool2d((2, 2), return_indices=True),
])
def test_pooling_modules(make):
    def prog(T):
        m = make(T)
        one_d = type(m).__name__.endswith("1d")
        x = _r(T, 2, 3, 7) if one_d else _r(T, 2, 3, 7, 6)
        outs = _outputs(m(x))
        return repr(m), [_layout(o) for o in outs], _graph(outs[0]), T.autograd.grad(outs[0].pow(2).sum(), x)
    assert_same(prog, **F64)


def test_small_cnn_trains_like_torch():
    def prog(T):
        T.manual_seed(0)
        model = T.nn.Sequential(
            T.nn.Conv2d(1, 4, 3, padding=1), T.nn.ReLU(), T.nn.MaxPool2d(2),
            T.nn.Conv2d(4, 8, 3), T.nn.ReLU(), T.nn.AdaptiveAvgPool2d(1), T.nn.Flatten(), T.nn.Linear(8, 3))
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, target = T.randn(16, 1, 10, 10), T.randint(0, 3, (16,))
        losses = []
        for _ in range(4):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return repr(model), losses, _graph(loss)
    assert_same(prog, **F32)


# ----------------------------------------------------------------------------- batch norm

BN_CASES = {
    "train_affine": ((4, 3, 5), True, True, True),
    "train_2d": ((6, 3), True, True, True),
    "train_4d": ((2, 3, 4, 5), True, True, True),
    "train_no_stats": ((4, 3, 5), True, False, True),
    "train_no_affine": ((2, 3, 4, 2), True, True, False),
    "eval_affine": ((4, 3, 5), False, True, True),
    "eval_4d_no_affine": ((2, 3, 4, 2), False, True, False),
}


@pytest.mark.parametrize("case", BN_CASES, ids=list(BN_CASES))
def test_batch_norm_values_stats_graph_and_double_backward(case):
    shape, training, with_stats, affine = BN_CASES[case]

    def prog(T):
        x = _r(T, *shape)
        w, b = (_r(T, 3, seed=1), _r(T, 3, seed=2)) if affine else (None, None)
        rm, rv = (_r(T, 3, seed=3, requires_grad=False), _r(T, 3, seed=4, requires_grad=False).abs()) \
            if with_stats else (None, None)
        y = T.nn.functional.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3, eps=1e-3)
        fn = y.grad_fn
        saved = (fn._saved_training, fn._saved_eps, _layout(fn._saved_result1), _layout(fn._saved_result2),
                 fn._saved_running_mean is rm, fn._saved_weight is w)
        stats = (rm, rv, rm._version if rm is not None else None)
        return _layout(y), _graph(y), saved, _twice(y * _r(T, *shape, seed=5, requires_grad=False), [x, w, b], T), \
            stats
    assert_same(prog, **F64)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_float32_and_channels_last(training):
    def prog(T):
        x = _channels_last(T, _r(T, 4, 3, 5, 2, dtype="float32"))
        rm, rv = T.zeros(3), T.ones(3)
        y = T.nn.functional.batch_norm(x, rm, rv, T.ones(3), T.zeros(3), training)
        return _layout(y), T.autograd.grad((y * y).sum(), x), rm, rv
    assert_same(prog, **F32)


def test_batch_norm_first_gradient_nodes():
    def prog(T):
        x, w, b = _r(T, 4, 3, 2), _r(T, 3, seed=1), _r(T, 3, seed=2)
        y = T.nn.functional.batch_norm(x, None, None, w, b, training=True)
        gx, gw = T.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        fn = gx.grad_fn
        return _graph(gx), fn._saved_train, fn._saved_eps, fn._saved_save_mean is None
    assert_same(prog)


def _bx(T):
    return _r(T, 4, 3, 5, dtype="float32", requires_grad=False)


BN_ERRORS = {
    "running_mean_size": lambda T: T.nn.functional.batch_norm(_bx(T), T.zeros(2), T.ones(3), training=True),
    "running_var_size": lambda T: T.nn.functional.batch_norm(_bx(T), T.zeros(3), T.ones(2), training=True),
    "weight_size": lambda T: T.nn.functional.batch_norm(_bx(T), T.zeros(3), T.ones(3), T.ones(2), training=True),
    "bias_size": lambda T: T.nn.functional.batch_norm(_bx(T), None, None, T.ones(3), T.ones(4), training=True),
    "eval_without_stats": lambda T: T.nn.functional.batch_norm(_bx(T), None, None),
    "eval_without_mean": lambda T: T.nn.functional.batch_norm(_bx(T), None, T.ones(3)),
    "eval_without_var": lambda T: T.nn.functional.batch_norm(_bx(T), T.zeros(3), None),
    "one_value_per_channel": lambda T: T.nn.functional.batch_norm(_bx(T)[:1, :, :1], None, None, training=True),
    "one_value_eval": lambda T: _layout(T.nn.functional.batch_norm(_bx(T)[:1, :, :1], T.zeros(3), T.ones(3))),
    "1d_input": lambda T: T.nn.functional.batch_norm(_bx(T)[0, 0], None, None, training=True),
    "long_input": lambda T: T.nn.functional.batch_norm(_bx(T).long(), None, None, training=True),
    "mixed_dtypes": lambda T: T.nn.functional.batch_norm(_bx(T).double(), T.zeros(3), T.ones(3), training=True),
    "eps_zero": lambda T: T.nn.functional.batch_norm(_bx(T), None, None, training=True, eps=0.0),
    "eps_negative_eval": lambda T: T.nn.functional.batch_norm(_bx(T), T.zeros(3), T.ones(3), eps=-1.0),
    "empty_batch": lambda T: _graph(T.nn.functional.batch_norm(T.ones(0, 3, 4), T.zeros(3), T.ones(3),
                                                                T.ones(3, requires_grad=True), training=True)),
    "module_1d_4d_input": lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 3, 4, 5)),
    "module_2d_3d_input": lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 3, 4)),
    "module_one_sample": lambda T: T.nn.BatchNorm1d(3)(T.ones(1, 3)),
    "module_features": lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 4)),
}


@pytest.mark.parametrize("name", BN_ERRORS, ids=list(BN_ERRORS))
def test_batch_norm_bad_input_errors(name):
    assert_same(BN_ERRORS[name])


@pytest.mark.parametrize("make,shape", [
    (lambda T: T.nn.BatchNorm1d(3), (4, 3)),
    (lambda T: T.nn.BatchNorm1d(3, eps=1e-3, momentum=0.5), (4, 3, 5)),
    (lambda T: T.nn.BatchNorm1d(3, momentum=None), (4, 3, 2)),
    (lambda T: T.nn.BatchNorm2d(3), (2, 3, 4, 4)),
    (lambda T: T.nn.BatchNorm2d(3, affine=False), (2, 3, 4, 4)),
    (lambda T: T.nn.BatchNorm2d(3, track_running_stats=False), (2, 3, 4, 4)),
    (lambda T: T.nn.BatchNorm2d(3, bias=False, dtype=T.float64), (2, 3, 2, 2)),
    (lambda T: T.nn.BatchNorm2d(3, momentum=None, track_running_stats=False), (2, 3, 2, 2)),
])
def test_batch_norm_modules_train_and_eval(make, shape):
    def prog(T):
        m = make(T)
        state_before = [(k, _layout(v)) for k, v in m.state_dict().items()]
        steps = []
        for i in range(3):
            x = _r(T, *shape, dtype=str(m.weight.dtype if m.weight is not None else T.float32).split(".")[1],
                   seed=10 + i)
            y = m(x)
            y.pow(2).sum().backward()
            steps.append((_layout(y), _graph(y), x.grad, [(k, v.clone()) for k, v in m.state_dict().items()]))
        m.eval()
        y = m(_r(T, *shape, dtype="float64" if m.weight is not None and m.weight.dtype == T.float64 else "float32"))
        return (repr(m), state_before, steps, _layout(y), _graph(y), list(m.state_dict()),
                [(n, p.grad) for n, p in m.named_parameters()], m.num_batches_tracked)
    assert_same(prog, **F32)


def test_cnn_with_batch_norm_trains_like_torch():
    def prog(T):
        T.manual_seed(0)
        model = T.nn.Sequential(
            T.nn.Conv2d(1, 4, 3, padding=1, bias=False), T.nn.BatchNorm2d(4), T.nn.ReLU(), T.nn.MaxPool2d(2),
            T.nn.Flatten(), T.nn.Linear(4 * 4 * 4, 8, bias=False), T.nn.BatchNorm1d(8), T.nn.ReLU(),
            T.nn.Linear(8, 3))
        # (no bias before a batch norm: its gradient is zero up to rounding, which Adam would scale up to lr)
        opt = T.optim.Adam(model.parameters(), lr=0.01)
        x, target = T.randn(16, 1, 8, 8), T.randint(0, 3, (16,))
        losses = []
        for _ in range(4):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        return repr(model), losses, model(x[:2]), list(model.state_dict()), model[1].running_var
    assert_same(prog, **F32)


# ----------------------------------------------------------------------------- transposed convolutions

CONV_T_CASES = {
    "plain": ((2, 4, 5, 4), (4, 3, 3, 3), True, {}),
    "stride": ((2, 4, 3, 4), (4, 3, 3, 2), True, {"stride": 2}),
    "stride_padding_output_padding": ((1, 4, 4, 3), (4, 2, 3, 3), True,
                                      {"stride": (2, 3), "padding": 1, "output_padding": (1, 2)}),
    "dilation": ((1, 2, 4, 4), (2, 3, 2, 3), False, {"dilation": (2, 1), "stride": 2, "output_padding": 1}),
    "groups": ((2, 4, 3, 3), (4, 2, 3, 3), True, {"groups": 2, "stride": 2}),
    "unbatched": ((4, 3, 3), (4, 3, 2, 2), True, {}),
}


@pytest.mark.parametrize("case", CONV_T_CASES, ids=list(CONV_T_CASES))
def test_conv_transpose2d_values_graph_and_double_backward(case):
    x_shape, w_shape, with_bias, kwargs = CONV_T_CASES[case]

    def prog(T):
        x, w = _r(T, *x_shape), _r(T, *w_shape, seed=1)
        groups = kwargs.get("groups", 1)
        b = _r(T, w_shape[1] * groups, seed=2) if with_bias else None
        y = T.nn.functional.conv_transpose2d(x, w, b, **kwargs)
        return _layout(y), _graph(y), y.grad_fn._saved_transposed, _twice(y, [x, w, b], T)
    assert_same(prog, **F64)


@pytest.mark.parametrize("program", [
    lambda T: _layout(T.conv_transpose1d(_r(T, 2, 4, 5), _r(T, 4, 3, 3, seed=1), _r(T, 3, seed=2), stride=2,
                                         padding=1, output_padding=1)),
    lambda T: _graph(T.conv_transpose1d(_r(T, 4, 5), _r(T, 4, 2, 2, seed=1))),
    lambda T: _layout(T.conv_transpose2d(_channels_last(T, _r(T, 2, 4, 3, 3)), _r(T, 4, 3, 2, 2, seed=1))),
    lambda T: T.conv_transpose2d(_r(T, 2, 4, 5, 5), _r(T, 4, 3, 3, 3), output_padding=1),
    lambda T: T.conv_transpose2d(_r(T, 2, 4, 5, 5), _r(T, 4, 3, 3, 3), stride=2, output_padding=2),
    lambda T: T.conv_transpose2d(_r(T, 2, 3, 5, 5), _r(T, 4, 3, 3, 3)),
    lambda T: T.conv_transpose2d(_r(T, 2, 4, 5, 5), _r(T, 4, 3, 3, 3), _r(T, 2)),
    lambda T: T.conv_transpose2d(_r(T, 2, 4, 5, 5, dtype="float32"), _r(T, 4, 3, 3, 3, dtype="float32"),
                                 _r(T, 3)),
    lambda T: T.conv_transpose2d(_r(T, 2, 4, 5, 5, dtype="float32"), _r(T, 4, 3, 3, 3)),
    lambda T: T.conv_transpose2d(_r(T, 2, 4, 5, 5), _r(T, 4, 3, 3, 3), groups=3),
    lambda T: T.conv_transpose2d(_r(T, 5, 5), _r(T, 4, 3, 3, 3)),
    lambda T: T.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"),
])
def test_conv_transpose_forms_and_errors(program):
    assert_same(program, **F64)


@pytest.mark.parametrize("make", [
    lambda T: T.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
    lambda T: T.nn.ConvTranspose2d(4, 6, (3, 2), dilation=2, bias=False),
    lambda T: T.nn.ConvTranspose1d(4, 2, 3, stride=2),
])
def test_conv_transpose_modules(make):
    def prog(T):
        T.manual_seed(0)
        m = make(T)
        x = T.randn((2, m.in_channels) + (4,) * len(m.kernel_size))
        y = m(x)
        return repr(m), m.weight.tolist(), None if m.bias is None else m.bias.tolist(), _layout(y), _graph(y)
    assert_same(prog, **F32)


@pytest.mark.parametrize("output_size", [[11, 11], [12, 12], [13, 13], [2, 6, 12, 11], [1, 2, 3], [6, 12, 12]])
def test_conv_transpose_output_size(output_size):
    def prog(T):
        T.manual_seed(0)
        m = T.nn.ConvTranspose2d(4, 6, 3, stride=2)
        return _layout(m(T.randn(2, 4, 5, 5), output_size=output_size)), _layout(m(T.randn(4, 5, 5), output_size))
    assert_same(prog, **F32)


# ----------------------------------------------------------------------------- instance norm, dropout2d

@pytest.mark.parametrize("use_input_stats,with_stats,affine", [
    (True, False, False), (True, False, True), (True, True, True), (False, True, True), (False, True, False)])
def test_instance_norm_values_graph_stats_and_double_backward(use_input_stats, with_stats, affine):
    def prog(T):
        x = _r(T, 2, 3, 4)
        w, b = (_r(T, 3, seed=1), _r(T, 3, seed=2)) if affine else (None, None)
        rm, rv = (T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)) if with_stats else (None, None)
        y = T.nn.functional.instance_norm(x, rm, rv, w, b, use_input_stats, momentum=0.2)
        stats = (rm, rv, rm._version) if with_stats else None
        return _layout(y), _graph(y), stats, _twice(y * _r(T, 2, 3, 4, seed=5, requires_grad=False), [x, w, b], T)
    assert_same(prog, **F64)


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.instance_norm(_r(T, 2, 3, 1)),
    lambda T: T.nn.functional.instance_norm(_r(T, 3, 4)),
    lambda T: T.nn.functional.instance_norm(_r(T, 2, 3, 4), use_input_stats=False),
    lambda T: T.nn.InstanceNorm1d(3, affine=True)(_r(T, 2, 4, 5)),
    lambda T: T.nn.InstanceNorm2d(3)(_r(T, 2, 3, 4)),
    lambda T: T.nn.InstanceNorm1d(3)(_r(T, 2, 3, 4, 5)),
])
def test_instance_norm_errors(program):
    assert_same(program)


@pytest.mark.parametrize("make,shape", [
    (lambda T: T.nn.InstanceNorm1d(3), (2, 3, 5)),
    (lambda T: T.nn.InstanceNorm1d(3, affine=True), (3, 5)),
    (lambda T: T.nn.InstanceNorm2d(3, affine=True, track_running_stats=True), (2, 3, 4, 4)),
    (lambda T: T.nn.InstanceNorm2d(3, track_running_stats=True, momentum=None), (3, 4, 4)),
])
def test_instance_norm_modules(make, shape):
    def prog(T):
        m = make(T)
        x = _r(T, *shape, dtype="float32")
        y = m(x)
        y.pow(2).sum().backward()
        m.eval()
        return repr(m), list(m.state_dict()), _layout(y), _graph(y), x.grad, m.state_dict(), _layout(m(x))
    assert_same(prog, **F32)


@pytest.mark.parametrize("program", [
    lambda T: _dropped(T, lambda x: T.nn.functional.dropout2d(x, 0.5), (4, 3, 2, 2)),
    lambda T: _dropped(T, lambda x: T.nn.functional.dropout2d(x, 0.3, training=True), (2, 5, 3)),
    lambda T: _dropped(T, lambda x: T.nn.functional.dropout2d(x, 0.0), (2, 3, 2, 2)),
    lambda T: _dropped(T, lambda x: T.nn.functional.dropout2d(x, 1.0), (2, 3, 2, 2)),
    lambda T: _dropped(T, lambda x: T.nn.functional.dropout2d(x, 0.5, training=False), (2, 3, 2, 2)),
    lambda T: _dropped(T, lambda x: T.nn.functional.dropout2d(x.clone(), 0.5, inplace=True), (2, 3, 2, 2)),
    lambda T: _dropped(T, lambda x: T.nn.Dropout2d(0.4)(x), (3, 4, 2, 2)),
    lambda T: repr(T.nn.Dropout2d(0.3, inplace=True)),
    lambda T: T.nn.functional.dropout2d(T.ones(2, 2), 1.5),
    lambda T: T.nn.Dropout2d(-0.1),
    lambda T: T.feature_dropout(T.ones(3), 0.5, True),
])
def test_dropout2d(program):
    assert_same(program)


def _dropped(T, fn, shape):
    T.manual_seed(0)
    x = _r(T, *shape, dtype="float32")
    y = fn(x)
    return _layout(y), _graph(y), T.autograd.grad(y.sum(), x), T.rand(2)


# ----------------------------------------------------------------------------- group norm

@pytest.mark.parametrize("shape,groups,affine", [
    ((2, 4, 3), 2, True), ((2, 6, 2, 3), 3, True), ((3, 4), 4, True), ((2, 4, 5), 1, False), ((2, 4, 3), 2, "weight")])
def test_group_norm_values_graph_and_double_backward(shape, groups, affine):
    def prog(T):
        x = _r(T, *shape)
        c = shape[1]
        w = _r(T, c, seed=1) if affine else None
        b = _r(T, c, seed=2) if affine is True else None
        y = T.nn.functional.group_norm(x, groups, w, b, eps=1e-3)
        fn = y.grad_fn
        saved = (fn._saved_N, fn._saved_C, fn._saved_HxW, fn._saved_group, fn._saved_eps,
                 _layout(fn._saved_result1), _layout(fn._saved_result2))
        leaves = [t for t in (x, w, b) if t is not None]
        firsts = T.autograd.grad((y * y).sum(), leaves, create_graph=True)
        seconds = T.autograd.grad(sum((g * g).sum() for g in firsts), leaves)
        plain = T.autograd.grad((y * y).sum(), leaves)
        return _layout(y), _graph(y), saved, firsts, [_graph(g) for g in firsts], seconds, plain
    assert_same(prog, **F64)


@pytest.mark.parametrize("program", [
    lambda T: T.nn.functional.group_norm(_r(T, 2, 4, 3), 3),
    lambda T: T.nn.functional.group_norm(_r(T, 2, 4, 3), 2, _r(T, 3)),
    lambda T: T.nn.functional.group_norm(_r(T, 2, 4, 3), 2, None, _r(T, 3)),
    lambda T: T.nn.functional.group_norm(_r(T, 2, 4, 3), 2, _r(T, 4), _r(T, 3)),
    lambda T: T.nn.functional.group_norm(_r(T, 4), 2),
    lambda T: T.nn.functional.group_norm(_r(T, 1, 2, 1), 2),
    lambda T: T.nn.functional.group_norm(_r(T, 2, 4, 3).long(), 2),
    lambda T: T.nn.GroupNorm(3, 4),
    lambda T: _layout(T.unsqueeze_(_r(T, 2, 3).clone(), 1)) if hasattr(T, "unsqueeze_") else None,
    lambda T: _graph(_r(T, 2, 3).clone().unsqueeze_(-1)),
])
def test_group_norm_errors_and_unsqueeze_(program):
    assert_same(program)


@pytest.mark.parametrize("make", [
    lambda T: T.nn.GroupNorm(2, 4), lambda T: T.nn.GroupNorm(4, 4, affine=False),
    lambda T: T.nn.GroupNorm(1, 4, eps=1e-3, bias=False)])
def test_group_norm_modules(make):
    def prog(T):
        m = make(T)
        x = _r(T, 3, 4, 2, 2, dtype="float32")
        y = m(x)
        y.pow(2).sum().backward()
        return repr(m), list(m.state_dict()), _layout(y), _graph(y), x.grad, [(n, p.grad) for n, p in
                                                                              m.named_parameters()]
    assert_same(prog, **F32)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_batch_norm_forward_bits_match_torch(training, dtype):
    """The kernel's arithmetic: statistics stored in the input's dtype, ``alpha = invstd * weight``,
    ``beta = bias - mean * alpha``, and ``x * alpha + beta`` rounded once (a fused multiply-add): bit for bit,
    except a batch's own mean and variance in float64, and in float32 for a half or bfloat16 input, which torch
    sums in its vector lanes' order (float64 to 1e-14; half and bfloat16 to a unit in their last place)."""
    def prog(T):
        T.manual_seed(0)
        x = T.randn(6, 3, 4, 5).to(getattr(T, dtype))
        params = [T.randn(3).to(getattr(T, dtype) if dtype in ("float32", "float64") else T.float32)
                  for _ in range(3)]
        w, b, rm = params
        rv = T.rand(3).to(rm.dtype) + 0.5
        out = T.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
        return out, rm, rv
    tolerance = 0 if not training or dtype == "float32" else 1e-14 if dtype == "float64" else 1e-2
    assert_same(prog, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16"])
@pytest.mark.parametrize("op", [
    lambda T, x: T.nn.functional.max_pool2d(x, 2, return_indices=True),
    lambda T, x: T.nn.functional.avg_pool2d(x, 2),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 2),
    lambda T, x: T.nn.functional.adaptive_max_pool2d(x, 2),
    lambda T, x: T.nn.functional.conv2d(x, T.ones(1, 2, 2, 2, dtype=x.dtype)),
    lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True),
    lambda T, x: T.nn.functional.group_norm(x, 1),
])
def test_dtypes_the_kernels_take(op, dtype):
    assert_same(lambda T: op(T, (T.arange(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) % 7 - 3).to(getattr(T, dtype))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["max3_stride2", "max_padding", "max_ceil_padding", "avg_stride_padding",
                                  "avg_no_pad_count", "avg_ceil_no_pad_count", "avg_divisor", "adaptive_avg_uneven",
                                  "adaptive_avg_larger", "adaptive_max", "avg1d"])
def test_pooling_bits_match_torch(case, dtype):
    """Pooling sums each window element by element in the kernels' order, and backward adds each output's share
    to the input in output order, so values and gradients match torch bit for bit (overlapping windows too)."""
    def prog(T):
        T.manual_seed(0)
        x = T.randn(2, 3, 7, 6, dtype=getattr(T, dtype), requires_grad=True)
        y = _outputs(POOL_CASES[case](T, x))[0]
        return y, T.autograd.grad(y, x, T.randn(y.shape, dtype=y.dtype))
    assert_same(prog, rtol=0, atol=0)
