"""``F.pad`` in every mode, the padding layers and convolutions with a ``padding_mode``, against torch.

Each program runs on picotorch and on torch from the same float64 data: values, dtype, shape and strides, the
graph (names and next_functions three levels deep), the gradients (exact: padding only moves and adds values),
double backward, and the errors (type and text).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")

def _names(node, depth=3):
    if node is None or depth == 0:
        return None
    return (node.name(), [_names(n, depth - 1) for n, _ in node.next_functions])


def _run(module, shape, program, dtype="float64", grad=True):
    data = np.arange(np.prod(shape)).reshape(shape) * 0.5 - 1.25
    x = module.tensor(data, dtype=getattr(module, dtype), requires_grad=grad)
    F = module.nn.functional  # noqa: N806 - torch's own spelling
    try:
        y = eval(program, {"T": module, "F": F, "x": x})
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return f"{type(error).__name__}: {error}"
    result = [repr(y.detach()), tuple(y.stride())]
    if grad:
        result.append(_names(y.grad_fn))
        weights = module.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) % 7 - 3.0, dtype=y.dtype)
        (y * weights).sum().backward()
        result.append(repr(x.grad))
    return result


CASES = [((2, 5), "(2, 1)"), ((1, 2, 5), "(2, 3)"), ((1, 2, 5), "(0, 4)"), ((1, 2, 5), "(-1, 2)"),
         ((1, 2, 5), "(-2, -1)"), ((2, 3, 4), "(1, 2, 2, 1)"), ((1, 2, 3, 4), "(3, 0, 2, 2)"),
         ((1, 2, 3, 4), "(-1, 2, 0, -1)"), ((2, 3, 4, 2), "(1, 1, 1, 2, 1, 0)"),
         ((1, 1, 2, 3, 4), "(1, 2, 0, 2, 1, 1)"), ((1, 1, 2, 3, 4), "(-1, 1, 1, -1, 0, 1)")]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", CASES)
def test_pad_matches_torch(mode, shape, pad):
    program = f"F.pad(x, {pad}, mode={mode!r})"
    assert _run(picotorch, shape, program) == _run(torch, shape, program)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_dtypes_match_torch(dtype, mode):
    program = f"F.pad(x, (2, 1), mode={mode!r})"
    assert _run(picotorch, (1, 2, 4), program, dtype, grad=False) == _run(torch, (1, 2, 4), program, dtype, grad=False)


LAYOUTS = ["F.pad(x.transpose(2, 3), (1, 1, 1, 1), mode='reflect')",
           "F.pad(x.transpose(2, 3), (1, 1, 1, 1), mode='circular')",
           "F.pad(x[:, :, ::2], (1, 2), mode='replicate')", "F.pad(x[0], (2, 2), mode='reflect')"]


@pytest.mark.parametrize("program", LAYOUTS)
def test_pad_of_views_matches_torch(program):
    assert _run(picotorch, (1, 2, 3, 4), program) == _run(torch, (1, 2, 3, 4), program)


ERRORS = [
    ((1, 1, 5), "F.pad(x, (5, 1), mode='reflect')"), ((1, 1, 3, 4), "F.pad(x, (1, 1, 3, 0), mode='reflect')"),
    ((1, 1, 2, 3, 4), "F.pad(x, (1, 1, 1, 1, 2, 0), mode='reflect')"),
    ((1, 1, 3, 4), "F.pad(x, (1, 1, 1, 1, 1, 1), mode='reflect')"),
    ((1, 1, 3, 4), "F.pad(x, (1, 2), mode='reflect')"), ((1, 1, 3, 4), "F.pad(x, (-1, 1), mode='replicate')"),
    ((1, 1, 3, 4), "F.pad(x, (5, 5), mode='circular')"), ((3, 4), "F.pad(x, (1, 1, 1, 1), mode='reflect')"),
    ((1, 1, 5), "F.pad(x, (-3, -3), mode='reflect')"), ((1, 1, 5), "F.pad(x, (-3, -3), mode='replicate')"),
    ((1, 1, 5), "F.pad(x, (6, 1), mode='circular')"), ((1, 1, 5), "F.pad(x, (-3, -3), mode='circular')"),
    ((1, 0, 3), "F.pad(x, (1, 1), mode='replicate')"), ((1, 2, 0), "F.pad(x, (1, 1), mode='reflect')"),
    ((0, 2, 3), "F.pad(x, (1, 1), mode='reflect')"), ((2, 0, 3, 4), "F.pad(x, (1, 1, 1, 1), mode='reflect')"),
    ((1, 1, 5), "F.pad(x, (1, 1), mode='nope')"), ((1, 1, 5), "F.pad(x, (1, 1, 1), mode='reflect')"),
    ((1, 1, 5), "F.pad(x, (1, 1), mode='reflect', value=2)"), ((1, 1, 5), "F.pad(x, (1, 1), mode='reflect', value=0)"),
    ((1, 1, 5), "T._C._nn.reflection_pad1d(x, [1, 1])"), ((1, 1, 3, 4), "T._C._nn.replication_pad2d(x, [1, 1])"),
    ((1, 1, 3, 4), "T.nn.CircularPad2d(1)(x[0, 0])"), ((1, 1, 3, 4), "T.nn.CircularPad1d(1)(x)"),
    ((1, 1, 3, 4), "T.nn.ReflectionPad2d(1)(x[0, 0])"), ((4,), "T.nn.ZeroPad2d(1)(x)"),
]


@pytest.mark.parametrize("shape,program", ERRORS)
def test_pad_errors_match_torch(shape, program):
    assert _run(picotorch, shape, program, grad=False) == _run(torch, shape, program, grad=False)


MODULES = ["T.nn.ReflectionPad1d(2)", "T.nn.ReflectionPad2d((1, 0, 2, 0))", "T.nn.ReflectionPad3d(1)",
           "T.nn.ReplicationPad1d((1, 2))", "T.nn.ReplicationPad2d(1)", "T.nn.ReplicationPad3d((1, 0, 1, 0, 0, 1))",
           "T.nn.CircularPad1d(1)", "T.nn.CircularPad2d((1, 2, 0, 1))", "T.nn.CircularPad3d(1)", "T.nn.ZeroPad1d(1)",
           "T.nn.ZeroPad2d((1, 2, 3, 4))", "T.nn.ZeroPad3d(1)", "T.nn.ConstantPad1d(1, 2.5)",
           "T.nn.ConstantPad2d(1, 0)", "T.nn.ConstantPad3d((1, 1, 1, 1, 1, 1), -1.)"]


@pytest.mark.parametrize("layer", MODULES)
def test_padding_layers_match_torch(layer):
    dims = int(layer.split("Pad")[1][0])
    shape = (1, 2, 3, 4, 5)[: dims + 2]

    def run(module):
        m = eval(layer, {"T": module})
        return [repr(m), m.padding, getattr(m, "value", None)] + _run(module, shape, f"{layer}(x)")

    assert run(picotorch) == run(torch)


@pytest.mark.parametrize("mode,dims", itertools.product(["reflect", "replicate", "circular"], [1, 2]))
def test_conv_with_padding_mode_matches_torch(mode, dims):
    def run(module):
        module.manual_seed(0)
        conv = getattr(module.nn, f"Conv{dims}d")(2, 3, 3, padding=1, padding_mode=mode, dtype=module.float64)
        x = module.tensor(RNG_DATA[dims], requires_grad=True)
        y = conv(x)
        y.pow(2).sum().backward()
        return repr(conv), y.detach().numpy(), _names(y.grad_fn), x.grad.numpy(), conv.weight.grad.numpy()

    ours, theirs = run(picotorch), run(torch)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    for a, b in zip(ours[1::2][:1] + ours[3:], theirs[1::2][:1] + theirs[3:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)  # the convolution sums in another order


RNG_DATA = {1: np.random.default_rng(1).standard_normal((2, 2, 6)),
            2: np.random.default_rng(2).standard_normal((2, 2, 4, 5))}


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_double_backward_matches_torch(mode):
    def run(module):
        x = module.tensor(np.arange(10.0).reshape(1, 2, 5), requires_grad=True)
        y = module.nn.functional.pad(x, (2, 1), mode=mode)
        (g,) = module.autograd.grad(y.pow(3).sum(), x, create_graph=True)
        names = _names(g.grad_fn)
        g.sum().backward()
        return names, repr(g.detach()), repr(x.grad)

    assert run(picotorch) == run(torch)
