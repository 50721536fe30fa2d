"""Elementwise outputs are laid out in memory as PyTorch's TensorIterator lays them out, which decides
``stride()``, ``is_contiguous()`` and whether a later ``reshape`` is a view or a copy."""

import itertools

import pytest

import picotorch

torch = pytest.importorskip("torch")

VIEWS = ["a", "a.transpose(0, 1)", "a.transpose(1, 2)", "a.permute(2, 0, 1)", "a[:, :1]", "a[0:1]",
         "a.transpose(0, 2)", "a[:, :, 1:2]",
         # one value expanded (every stride 0: tells no order), and an expand that keeps one stride
         "a[1, 2, 3].expand(2, 3, 4)", "a[:1, :1, :1].expand(2, 3, 4)", "a[1:2, :, 0:1].expand(2, 3, 4)"]


def _layout(T, first, second, op):
    x = eval(first, {"a": T.arange(24.0).view(2, 3, 4)})
    y = eval(second, {"a": T.ones(2, 3, 4)})
    try:
        r = op(T, x, y)
    except RuntimeError as error:
        return str(error)
    reshaped = r.detach().requires_grad_().reshape(-1)
    return tuple(r.shape), r.stride(), r.is_contiguous(), reshaped.grad_fn.name()


OPS = {"mul": lambda T, x, y: x * y, "add_scalar_first": lambda T, x, y: x + 1,
       "where": lambda T, x, y: T.where(x > 3, x, y), "exp_of_second": lambda T, x, y: y.exp() + x}


@pytest.mark.parametrize("op", sorted(OPS))
def test_output_layout_matches(op):
    mismatches = []
    for first, second in itertools.product(VIEWS, VIEWS):
        ours, theirs = _layout(picotorch, first, second, OPS[op]), _layout(torch, first, second, OPS[op])
        if ours != theirs:
            mismatches.append((first, second, ours, theirs))
    assert mismatches == []


EXPAND_SOURCES = ["T.ones(())", "T.ones(1)", "T.ones(3)", "T.ones(3, 1)", "T.ones(1, 3)", "T.ones(2, 1, 3)",
                  "T.ones(1, 1)", "T.ones(3, 2).t()", "T.ones(4, 6)[:, ::2][:1]", "T.ones(2, 3, 1).transpose(0, 2)"]
EXPAND_TARGETS = [(1,), (3,), (1, 1), (3, 1), (1, 3), (2, 3), (2, 3, 1), (2, 1, 3), (5, 2, 4, 3), (1, 1, 1),
                  (4, 3, 3), (1, 2, 1, 3), (-1, 3), (2, -1, -1), (1, 2, 3), (3, 2), (2, 3, 2), (1, 3, 1, 1)]


def _expanded(T, source, target):
    try:
        e = eval(source, {"T": T}).expand(*target)
    except RuntimeError as error:
        return str(error)
    return tuple(e.shape), e.stride(), e.is_contiguous(), e.contiguous().stride()


def test_expand_strides_match():
    """``inferExpandGeometry``: a kept dimension keeps its stride (a size-1 one too), a grown one gets 0, a new
    leading size-1 dimension the stride a contiguous one would have; a zero-dim tensor expands with all zeros."""
    mismatches = []
    for source, target in itertools.product(EXPAND_SOURCES, EXPAND_TARGETS):
        ours, theirs = _expanded(picotorch, source, target), _expanded(torch, source, target)
        if ours != theirs:
            mismatches.append((source, target, ours, theirs))
    assert mismatches == []


@pytest.mark.parametrize("program", [
    "x = T.ones(3, 3); x.expand_as(x).add_(1); out = x",          # Horovod's p.expand_as(p), written to
    "x = T.ones(3); x.expand(1, 3).mul_(2); out = x",             # a new size-1 dim: no overlap, writable
    "x = T.ones(3, 1); x.expand(3, 1).sub_(1); out = x",
    "x = T.arange(6.).view(2, 3); y = x.expand(1, 2, 3); y[0, 1, 2] = 9; out = x",
])
def test_an_expand_that_overlaps_nothing_writes_through_to_its_base(program):
    """Writing into an expanded view that repeats no element is allowed and changes the base, as in PyTorch."""
    results = []
    for T in (picotorch, torch):
        scope = {"T": T}
        exec(program, scope)
        results.append(scope["out"].tolist())
    assert results[0] == results[1]


ONE_VALUE_PROGRAMS = {  # NOTE [One value, expanded]: large enough for the fill (4096 elements and more)
    "mean_backward": lambda T: _mean_gradient(T),
    "div_number": lambda T: T.tensor(3.0).expand(64, 512) / 32768,
    "mul_number": lambda T: T.tensor(-0.0).expand(8, 1024) * 2.5,
    "number_over_expanded": lambda T: 2 / T.tensor([[0.0]]).expand(4096, 2),
    "zero_over_zero": lambda T: T.tensor(0.0, dtype=T.float64).expand(5000) / 0.0,
    "int_div": lambda T: T.tensor(7).expand(70, 70) / 2,
    "bool_mul": lambda T: T.tensor(True).expand(100, 50) * T.tensor(False),
    "two_expanded": lambda T: T.tensor(1.5).expand(80, 60) * T.tensor([[4.0]]).expand(80, 60),
    "expanded_times_full": lambda T: T.tensor(2.0).expand(100, 50) * T.arange(5000.0).reshape(100, 50),
}


def _mean_gradient(T):
    x = T.ones(64, 512, requires_grad=True)
    (x.mean() * 3).backward()
    return x.grad


def _one_value_result(T, name):
    result = ONE_VALUE_PROGRAMS[name](T)
    values = result.detach().double().numpy() if result.dtype != T.bool else result.numpy()
    return (tuple(result.shape), result.stride(), str(result.dtype).split(".")[-1], values.tobytes())


@pytest.mark.parametrize("name", sorted(ONE_VALUE_PROGRAMS))
def test_one_value_expanded_gives_torchs_result(name):
    assert _one_value_result(picotorch, name) == _one_value_result(torch, name)


@pytest.mark.parametrize("program", [
    "x = T.ones(3, 1).expand(3, 3); x.fill_(2.0); out = x",            # fill_ writes every copy of an element
    "x = T.ones(3, 1).expand(3, 3); x.zero_(); out = x",
    "b = T.ones(3, 1); x = b.expand(3, 3); x[0].fill_(2.0); out = b",
    "x = T.ones(3, 1).expand(3, 3); x[0] = 2.0; out = x",             # fill_ of a tensor value is copy_: refused
    "x = T.ones(3, 1).expand(3, 3); x.fill_(T.tensor(2.0)); out = x",
    "x = T.ones(3, 1).expand(3, 3); x.add_(1); out = x",
    "out = [T.empty(0, 3).stride(), T.zeros(2, 0, 4).stride(), (T.ones(0, 3) * 2).stride(), T.ones(0).stride()]",
])
def test_fill_and_zero_write_into_an_expanded_tensor(program):
    """``fill_`` (a number) and ``zero_`` may write into a tensor that repeats elements; ``copy_``, ``fill_`` of a
    tensor (a copy on its device) and the in-place ops may not. A new empty tensor has row-major strides."""
    results = []
    for T in (picotorch, torch):
        scope = {"T": T}
        try:
            exec(program, scope)
            out = scope["out"]
            results.append(out if isinstance(out, list) else out.tolist())
        except RuntimeError as error:
            results.append(str(error))
    assert results[0] == results[1]
