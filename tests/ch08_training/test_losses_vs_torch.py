"""The losses against PyTorch: ``mse_loss l1_loss nll_loss cross_entropy binary_cross_entropy_with_logits``.

For each: every reduction, class weights, ``ignore_index``, ``label_smoothing``, probability targets,
1-D to 5-D inputs, empty batches; values, dtypes, ``grad_fn`` graphs (``NllLossBackward0`` over
``LogSoftmaxBackward0``, ``NllLoss2DBackward0`` over ``ViewBackward0``, ``l1_loss`` as ``MeanBackward0``
over ``AbsBackward0``), gradients, PyTorch's error texts on bad input, the loss modules, and
finite-difference checks of gradients computed by picotorch alone.
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

RNG = np.random.default_rng(7)
LOGITS = RNG.standard_normal((4, 5)) * 2
TARGETS = [1, 0, 4, 2]
REDUCTIONS = ["none", "mean", "sum"]


def _graph(t):
    out, stack, seen = [], [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append((node.name(), [n.name() if n is not None else None for n, _ in node.next_functions]))
        stack.extend(n for n, _ in reversed(node.next_functions))
    return out


def _backward(T, loss, *leaves):
    loss.backward(T.ones_like(loss) if loss.dim() else None)
    return [leaf.grad for leaf in leaves]


# ----------------------------------------------------------------------------- mse_loss, l1_loss


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses(name, reduction, dtype):
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))

    def prog(T):
        x = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        y = T.tensor(b, dtype=getattr(T, dtype), requires_grad=True)
        loss = getattr(T.nn.functional, name)(x, y, reduction=reduction)
        return loss, _graph(loss), _backward(T, loss, x, y)
    assert_same(prog, rtol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses_broadcast_with_pytorchs_warning(name):
    for T in (picotorch, torch):
        x = T.tensor(LOGITS, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(T.nn.functional, name)(x, T.tensor(LOGITS[0]))
        assert [str(w.message) for w in caught] == [
            "Using a target size (torch.Size([5])) that is different to the input size (torch.Size([4, 5])). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."]
    assert_same(lambda T: _graph(getattr(T.nn.functional, name)(T.tensor(LOGITS), T.tensor(LOGITS[0],
                                                                                            requires_grad=True))))


@pytest.mark.filterwarnings("ignore:Using a target size")
def test_regression_losses_mixed_dtypes_weights_empty_and_bad_input():
    def prog(T):
        x = T.tensor(LOGITS, dtype=T.float32, requires_grad=True)
        y = T.tensor(LOGITS[::-1].copy())
        w = T.tensor(np.abs(LOGITS))
        return (T.nn.functional.mse_loss(x, y), T.nn.functional.l1_loss(x, y),
                T.nn.functional.mse_loss(x.double(), y, weight=w), T.nn.functional.l1_loss(x.double(), y, weight=w,
                                                                                          reduction="sum"),
                T.nn.functional.mse_loss(T.ones(0), T.ones(0)), T.nn.functional.l1_loss(T.ones(0), T.ones(0)),
                T.nn.functional.mse_loss(T.ones(0), T.ones(0), reduction="sum"))
    assert_same(prog)
    for prog in (lambda T: T.nn.functional.mse_loss(T.ones(3, 5), T.ones(4, 5)),
                 lambda T: T.nn.functional.mse_loss(T.ones(3), T.ones(3), reduction="average"),
                 lambda T: T.nn.functional.l1_loss(T.ones(3), T.ones(3), reduction="max"),
                 lambda T: T.nn.functional.mse_loss(T.arange(3), T.arange(3)),
                 lambda T: T.nn.functional.mse_loss(T.ones(3), T.ones(3), weight=T.ones(2))):
        assert_same(prog)


# ----------------------------------------------------------------------------- nll_loss


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 0, 4])
def test_nll_loss_2d_input(reduction, weighted, ignore_index):
    def prog(T):
        x = T.tensor(LOGITS, requires_grad=True)
        w = T.tensor([0.5, 1.0, 2.0, 0.25, 3.0]) .double() if weighted else None
        loss = T.nn.functional.nll_loss(x, T.tensor(TARGETS), weight=w, ignore_index=ignore_index,
                                        reduction=reduction)
        return loss, _graph(loss), _backward(T, loss, x)
    assert_same(prog, rtol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_1d_and_k_dimensional_inputs(reduction):
    def prog(T):
        out = []
        x1 = T.tensor(LOGITS[0], requires_grad=True)
        out.append((T.nn.functional.nll_loss(x1, T.tensor(3), reduction=reduction), x1))
        for shape in [(2, 3, 4), (2, 3, 2, 2), (2, 3, 2, 1, 2), (0, 3, 2)]:
            n = int(np.prod(shape))
            x = T.tensor(np.sin(np.arange(n)).reshape(shape), requires_grad=True)
            target = T.tensor((np.arange(n // shape[1]) % 3).reshape((shape[0],) + shape[2:]))
            out.append((T.nn.functional.nll_loss(x, target, reduction=reduction,
                                                 weight=T.tensor([1.0, 2.0, 0.5]).double()), x))
        results = []
        for loss, x in out:
            if loss.numel():
                _backward(T, loss, x)
            results.append((loss, _graph(loss), x.grad))
        return results
    assert_same(prog, rtol=1e-12)


def test_nll_loss_all_ignored_empty_and_transposed():
    def prog(T):
        x = T.tensor(LOGITS, requires_grad=True)
        everything_ignored = T.nn.functional.nll_loss(x, T.tensor([-100] * 4))
        empty = T.nn.functional.nll_loss(T.ones(0, 5), T.ones(0).long())
        empty_sum = T.nn.functional.nll_loss(T.ones(0, 5), T.ones(0).long(), reduction="sum")
        spatial = T.tensor(np.arange(24.0).reshape(2, 4, 3), requires_grad=True)
        transposed = T.nn.functional.nll_loss(spatial.transpose(1, 2).transpose(1, 2) * 1,
                                              T.tensor([[0, 1, 3], [2, 2, 0]]))
        return everything_ignored, empty, empty_sum, transposed, _graph(transposed), T.nn.functional.nll_loss(
            x, T.tensor(TARGETS, dtype=T.uint8))
    assert_same(prog)


def test_nll_loss_bad_input():
    x = "T.tensor(LOGITS)"
    cases = [
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2, 7, 0]))",
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2, -1, 0]))",
        "T.nn.functional.nll_loss({x}, T.tensor([1., 2, 3, 0]))",
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2, 3, 0]).int())",
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2]))",
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2, 3, 0]), weight=T.ones(4).double())",
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2, 3, 0]), weight=T.ones(5))",
        "T.nn.functional.nll_loss({x}.long(), T.tensor([1, 2, 3, 0]))",
        "T.nn.functional.nll_loss(T.tensor(1.0), T.tensor(0))",
        "T.nn.functional.nll_loss({x}.view(4, 5, 1), T.tensor([1, 2, 3, 0]))",
        "T.nn.functional.nll_loss({x}.view(2, 5, 2), T.tensor([[1, 2], [3, 9]]))",
        "T.nn.functional.nll_loss({x}.view(4, 5, 1, 1), T.tensor([1, 2, 3, 0]))",
        "T.nn.functional.nll_loss({x}.view(2, 5, 2, 1), T.tensor([[[1], [2]], [[3], [7]]]))",
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2, 3, 0]), reduction='avg')",
        "T.nn.functional.nll_loss({x}, T.tensor([1, 2, 3, 0]), weight=T.ones(5, requires_grad=True).double())",
    ]
    for case in cases:
        source = case.format(x=x)
        assert_same(lambda T, source=source: eval(source, {"T": T, "LOGITS": LOGITS}))


# ----------------------------------------------------------------------------- cross_entropy


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index,smoothing", [(-100, 0.0), (2, 0.0), (-100, 0.1), (0, 0.3), (-100, 1.0)])
def test_cross_entropy_class_indices(reduction, weighted, ignore_index, smoothing):
    def prog(T):
        x = T.tensor(LOGITS, requires_grad=True)
        w = T.tensor([0.5, 1.0, 2.0, 0.25, 3.0], dtype=T.float64) if weighted else None
        loss = T.nn.functional.cross_entropy(x, T.tensor(TARGETS), weight=w, ignore_index=ignore_index,
                                             reduction=reduction, label_smoothing=smoothing)
        return loss, _graph(loss), _backward(T, loss, x)
    assert_same(prog, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_probability_targets(reduction, weighted, smoothing):
    probs = np.exp(LOGITS[::-1]) / np.exp(LOGITS[::-1]).sum(1, keepdims=True)

    def prog(T):
        x = T.tensor(LOGITS, requires_grad=True)
        target = T.tensor(probs, requires_grad=True)
        w = T.tensor([0.5, 1.0, 2.0, 0.25, 3.0], dtype=T.float64) if weighted else None
        loss = T.nn.functional.cross_entropy(x, target, weight=w, reduction=reduction, label_smoothing=smoothing)
        return loss, _graph(loss), _backward(T, loss, x, target)
    assert_same(prog, rtol=1e-12, atol=1e-14)


def test_cross_entropy_k_dimensional_1d_empty_and_float32():
    def prog(T):
        x3 = T.tensor(np.cos(np.arange(24.0)).reshape(2, 3, 4), requires_grad=True)
        t3 = T.tensor([[0, 1, 2, 1], [2, 2, 0, -100]])
        k_dim = T.nn.functional.cross_entropy(x3, t3, label_smoothing=0.1)
        x1 = T.tensor(LOGITS[1], requires_grad=True)
        one = T.nn.functional.cross_entropy(x1, T.tensor(3))
        probs_1d = T.nn.functional.cross_entropy(x1, T.tensor(np.full(5, 0.2)))
        empty = T.nn.functional.cross_entropy(T.ones(0, 5), T.ones(0).long())
        empty_probs = T.nn.functional.cross_entropy(T.ones(0, 5), T.ones(0, 5))
        x32 = T.tensor(LOGITS, dtype=T.float32, requires_grad=True)
        f32 = T.nn.functional.cross_entropy(x32, T.tensor(TARGETS))
        return (k_dim, _graph(k_dim), _backward(T, k_dim, x3), one, _graph(one), probs_1d, empty, empty_probs, f32,
                _backward(T, f32, x32))
    assert_same(prog, rtol=1e-6)


def test_cross_entropy_float32_batch_prints_as_pytorch():
    """A float32 loss over a large batch: the cascade sum of nll_loss replayed, so the printed loss agrees."""
    logits = np.random.default_rng(1).standard_normal((1000, 10)).astype(np.float32) * 3
    targets = np.random.default_rng(2).integers(0, 10, 1000)
    ours = picotorch.nn.functional.cross_entropy(picotorch.tensor(logits), picotorch.tensor(targets))
    theirs = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(targets))
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=2e-7)


def test_cross_entropy_bad_input():
    cases = [
        "F.cross_entropy(T.tensor(LOGITS), T.tensor([1, 2, 7, 0]))",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor([1, 2, -1, 0]))",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor([1., 2, 3, 0]))",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor(LOGITS).long())",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor(LOGITS), ignore_index=1)",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor([1, 2, 3, 0]), label_smoothing=1.5)",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor(LOGITS), label_smoothing=2.0)",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor([1, 2, 3, 0]), weight=T.ones(4).double())",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor(LOGITS), weight=T.ones(4).double())",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor([1, 2, 3]))",
        "F.cross_entropy(T.tensor(LOGITS), T.tensor([1, 2, 3, 0]), reduction='mean ')",
    ]
    for source in cases:
        assert_same(lambda T, source=source: eval(source, {"T": T, "F": T.nn.functional, "LOGITS": LOGITS}))


@settings(max_examples=20, deadline=None)
@given(batch=st.integers(0, 5), classes=st.integers(1, 5), extra=st.lists(st.integers(1, 3), max_size=2),
       smoothing=st.sampled_from([0.0, 0.25]), reduction=st.sampled_from(REDUCTIONS))
def test_cross_entropy_fuzzed_shapes(batch, classes, extra, smoothing, reduction):
    rng = np.random.default_rng(batch * 10 + classes)
    logits = rng.standard_normal((batch, classes, *extra))
    targets = rng.integers(0, classes, (batch, *extra))

    def prog(T):
        x = T.tensor(logits, requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.tensor(targets), reduction=reduction, label_smoothing=smoothing)
        if loss.numel():
            _backward(T, loss, x)
        return loss, x.grad
    assert_same(prog, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- binary_cross_entropy_with_logits


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight", "both"])
def test_bce_with_logits(reduction, weights):
    target = 1 / (1 + np.exp(-LOGITS[::-1]))

    def prog(T):
        x = T.tensor(LOGITS * 20, requires_grad=True)  # large logits: the log-sigmoid form stays finite
        y = T.tensor(target, requires_grad=True)
        w = T.tensor([0.5, 1.0, 2.0, 0.25, 3.0], dtype=T.float64) if weights in ("weight", "both") else None
        pw = T.tensor([2.0, 0.5, 1.0, 3.0, 1.5], dtype=T.float64) if weights in ("pos_weight", "both") else None
        loss = T.nn.functional.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction=reduction)
        return loss, _graph(loss), _backward(T, loss, x, y)
    assert_same(prog, rtol=1e-12, atol=1e-13)


def test_bce_with_logits_bad_input():
    for source in ["F.binary_cross_entropy_with_logits(T.ones(3, 5), T.ones(3, 4))",
                   "F.binary_cross_entropy_with_logits(T.ones(3), T.ones(3), weight=T.ones(3, requires_grad=True))",
                   "F.binary_cross_entropy_with_logits(T.arange(3), T.arange(3))",
                   "F.binary_cross_entropy_with_logits(T.ones(3), T.ones(3), reduction='all')",
                   "F.binary_cross_entropy_with_logits(T.ones(3), T.ones(3).double())"]:
        assert_same(lambda T, source=source: eval(source, {"T": T, "F": T.nn.functional}))


# ----------------------------------------------------------------------------- the loss modules


def test_loss_modules_repr_state_dict_and_forward():
    def prog(T):
        w = T.tensor([1.0, 2.0, 0.5, 1.0, 1.0], dtype=T.float64)
        modules = [T.nn.MSELoss(), T.nn.L1Loss(reduction="sum"), T.nn.NLLLoss(weight=w, ignore_index=1),
                   T.nn.CrossEntropyLoss(label_smoothing=0.1), T.nn.CrossEntropyLoss(weight=w, reduction="none"),
                   T.nn.BCEWithLogitsLoss(pos_weight=w)]
        x = T.tensor(LOGITS, requires_grad=True)
        y = T.tensor(LOGITS[::-1].copy())
        idx = T.tensor(TARGETS)
        outs = [modules[0](x, y), modules[1](x, y), modules[2](x, idx), modules[3](x, idx), modules[4](x, idx),
                modules[5](x, y.sigmoid())]
        return ([repr(m) for m in modules], [list(m.state_dict()) for m in modules], [m.reduction for m in modules],
                outs, [_graph(o) for o in outs])
    assert_same(prog, rtol=1e-12)


def test_legacy_size_average_and_reduce():
    for T in (picotorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = T.nn.MSELoss(size_average=False)
            value = T.nn.functional.nll_loss(T.tensor(LOGITS), T.tensor(TARGETS), reduce=False)
        assert module.reduction == "sum" and tuple(value.shape) == (4,)
        assert [str(w.message) for w in caught] == [
            "size_average and reduce args will be deprecated, please use reduction='sum' instead.",
            "size_average and reduce args will be deprecated, please use reduction='none' instead."]


# ----------------------------------------------------------------------------- finite differences


LOSSES = {
    "mse": lambda F, x: F.mse_loss(x, picotorch.tensor(LOGITS[::-1].copy())),
    "nll_weighted": lambda F, x: F.nll_loss(x, picotorch.tensor(TARGETS), weight=picotorch.tensor(
        [0.5, 1.0, 2.0, 0.25, 3.0], dtype=picotorch.float64), ignore_index=4),
    "cross_entropy_smoothing": lambda F, x: F.cross_entropy(x, picotorch.tensor(TARGETS), label_smoothing=0.2),
    "cross_entropy_probs": lambda F, x: F.cross_entropy(x, picotorch.tensor(np.full((4, 5), 0.2))),
    "bce_pos_weight": lambda F, x: F.binary_cross_entropy_with_logits(
        x, picotorch.tensor(np.full((4, 5), 0.3)), pos_weight=picotorch.tensor(np.arange(1.0, 6.0))),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_gradients_match_finite_differences(name):
    F = picotorch.nn.functional
    x = picotorch.tensor(LOGITS, requires_grad=True)
    LOSSES[name](F, x).backward()

    def value(a):
        with picotorch.no_grad():
            return float(LOSSES[name](F, picotorch.tensor(a)))
    np.testing.assert_allclose(x.grad.numpy(), numeric_grad(value, LOGITS), rtol=1e-5, atol=1e-8)


def test_cross_entropy_double_backward_matches_torch():
    def prog(T):
        x = T.tensor(LOGITS, requires_grad=True)
        (g,) = T.autograd.grad(T.nn.functional.cross_entropy(x, T.tensor(TARGETS)), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        m = T.tensor(LOGITS[::-1].copy(), requires_grad=True)
        (gm,) = T.autograd.grad(T.nn.functional.mse_loss(x, m), x, create_graph=True)
        gmm = T.autograd.grad(gm.sum(), (x, m))
        return g, gg, _graph(g), gm, gmm
    assert_same(prog, rtol=1e-10, atol=1e-12)
