"""Elementwise outputs are laid out in memory as PyTorch's TensorIterator lays them out, which decides
``stride()``, ``is_contiguous()`` and whether a later ``reshape`` is a view or a copy."""

import itertools

import pytest

import picotorch

torch = pytest.importorskip("torch")

VIEWS = ["a", "a.transpose(0, 1)", "a.transpose(1, 2)", "a.permute(2, 0, 1)", "a[:, :1]", "a[0:1]",
         "a.transpose(0, 2)", "a[:, :, 1:2]"]


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
