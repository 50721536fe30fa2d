"""In-place ops on views: the base gets CopySlices, the view AsStridedBackward0 — graphs and gradients
against PyTorch."""

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _tree(node):
    out, stack = [], [(node, 0)]
    while stack:
        n, depth = stack.pop()
        if n is None:
            continue
        out.append((depth, n.name()))
        stack.extend((c, depth + 1) for c, _ in reversed(n.next_functions))
    return out


PROGRAMS = {
    "mul_on_select": "v = y[0]; v.mul_(w)",
    "add_on_transpose": "v = y.t(); v.add_(1)",
    "iadd_through_setitem": "y[0] += w",
    "imul_on_slice": "y[:, 1:] *= 2",
    "add_on_view_of_view": "v = y[1][1:]; v.add_(w[:2])",
    "two_writes": "y[0].mul_(w); y[1].add_(w)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_graph_and_gradients_match(name):
    def prog(T):
        x = T.arange(6.0).view(2, 3).requires_grad_()
        w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        exec(PROGRAMS[name], {"T": T, "x": x, "w": w, "y": y})
        graph = _tree(y.grad_fn)
        (y * T.arange(6.0).view(2, 3)).sum().backward()
        return graph, y, x.grad, w.grad
    assert_same(prog)


def test_view_of_a_leaf_still_refuses():
    def prog(T):
        x = T.ones(2, 3, requires_grad=True)
        x[0].add_(1)
    assert_same(prog)
