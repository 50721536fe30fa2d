"""``x[key] = value``: values, versions, CopySlices in the graph, gradients and errors, against PyTorch."""

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _edges(node):
    return [(n.name() if n else None, i) for n, i in node.next_functions]


def test_writes_and_version_counter():
    def prog(T):
        x = T.zeros(2, 3)
        x[0] = 5
        x[:, 1] = T.tensor([1.0, 2.0])
        x[x > 4] = 7
        x[..., -1] = True
        return x.tolist(), x._version
    assert_same(prog)


@pytest.mark.parametrize("key", ["0", "(1, slice(1, None))", "(slice(None), 0)", "(Ellipsis, 2)"])
@pytest.mark.parametrize("value_requires_grad", [False, True])
def test_copy_slices_graph_and_gradients(key, value_requires_grad):
    def prog(T):
        y = T.arange(6.0).view(2, 3).requires_grad_()
        z = y * 2
        target_shape = tuple(z[eval(key)].shape)
        v = T.ones(target_shape[-1:] if target_shape else (), requires_grad=value_requires_grad)
        z[eval(key)] = v * 3
        names = (z.grad_fn.name(), _edges(z.grad_fn))
        (z * T.arange(6.0).view(2, 3)).sum().backward()
        return names, y.grad, v.grad
    assert_same(prog)


@pytest.mark.parametrize("bad", ["'a'", "T.ones(4)", "None"])
def test_bad_values(bad):
    def prog(T):
        x = T.zeros(2, 3)
        x[0] = eval(bad)
    assert_same(prog)


def test_leaf_that_requires_grad_refuses_a_write_and_stays_usable():
    def prog(T):
        y = T.zeros(2, 3, requires_grad=True)
        try:
            y[0] = 1
        except RuntimeError as error:
            message = str(error)
        (y * 2).sum().backward()
        return message, y.grad
    assert_same(prog)


@pytest.mark.parametrize("key", ["y > 2", "[0]", "(T.tensor([0, 1]), 1)", "(slice(None), [0, 2])"])
def test_advanced_index_writes(key):
    def prog(T):
        x = T.arange(6.0).view(2, 3).requires_grad_()
        w = T.tensor(5.0, requires_grad=True)
        y = x * 1
        y[eval(key)] = w
        names = (y.grad_fn.name(), _edges(y.grad_fn))
        (y * T.arange(6.0).view(2, 3)).sum().backward()
        return names, y, x.grad, w.grad
    assert_same(prog)
