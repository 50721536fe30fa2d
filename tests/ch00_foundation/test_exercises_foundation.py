"""Exercises 0.1 (broadcast shapes) and 0.2 (sum a broadcast gradient back to its shape)."""

import pytest

import picotorch


@pytest.mark.exercise("0.1")
@pytest.mark.parametrize("a, b, expected", [
    ((2, 1, 4), (3, 1), (2, 3, 4)),
    ((), (5,), (5,)),
    ((3,), (3,), (3,)),
    ((1,), (0,), (0,)),
    ((4, 1), (1, 5), (4, 5)),
])
def test_broadcast_shapes(a, b, expected):
    """Shapes line up from the right; a missing size counts as 1 and a 1 stretches to the other size."""
    from picotorch.native.checks import broadcast_shapes

    assert broadcast_shapes(a, b) == expected


@pytest.mark.exercise("0.1")
def test_broadcast_error_names_the_first_clash():
    """Sizes that differ and are both not 1 raise PyTorch's error, naming the rightmost clash."""
    try:
        picotorch.ones(2, 3) + picotorch.ones(4)
    except NotImplementedError:
        raise
    except RuntimeError as error:
        message = str(error)
    else:
        pytest.fail("no error raised")
    assert message == ("The size of tensor a (3) must match the size of tensor b (4) at "
                               "non-singleton dimension 1")


@pytest.mark.exercise("0.2")
@pytest.mark.parametrize("shape, leaf_shape", [((2, 3, 4), (3, 1)), ((2, 3), (3,)), ((2, 3), ()),
                                              ((5, 1, 2), (1, 1, 2))])
def test_broadcast_gradient_is_summed_back(shape, leaf_shape):
    """The gradient of a broadcast operand is summed over the broadcast dims and has the operand's shape."""
    leaf = picotorch.ones(leaf_shape, requires_grad=True)
    big = picotorch.ones(shape)
    (leaf * big).sum().backward()
    assert tuple(leaf.grad.shape) == leaf_shape
    elements = 1
    for s in shape:
        elements *= s
    leaf_elements = 1
    for s in leaf_shape:
        leaf_elements *= s
    assert leaf.grad.tolist() == picotorch.full(leaf_shape, elements / leaf_elements).tolist()


SUM_TO_GRAPHS = {  # a gradient computed with create_graph=True: the ops sum_to ran are in its graph
    "zero_dim_leaf_times_vector": lambda T, x: (x * (x * T.ones(3))).sum(),
    "zero_dim_expanded": lambda T, x: (x.expand(3) ** 2).sum(),
    "zero_dim_expanded_to_itself": lambda T, x: x.expand(()) * x,
    "leading_dims": lambda T, x: (x.expand(2, 3) * x.expand(2, 3)).sum(),
    "a_size_one_dim": lambda T, x: (x.reshape(1, 1).expand(3, 4) * T.arange(12.0).reshape(3, 4) * x).sum(),
}


def _graph_names(fn, depth=3):
    if fn is None or depth == 0:
        return None
    return fn.name(), [_graph_names(next_fn, depth - 1) for next_fn, _ in fn.next_functions]


@pytest.mark.exercise("0.2")
@pytest.mark.parametrize("name", sorted(SUM_TO_GRAPHS))
def test_sum_to_records_torchs_ops(name):
    """Under create_graph the sum is recorded: a zero-dim shape is the plain sum (SumBackward0), any other
    a sum over the broadcast dims (SumBackward1), then a view when leading dims went (ViewBackward0)."""
    torch = pytest.importorskip("torch")
    graphs = []
    for T in (picotorch, torch):
        x = T.tensor(2.0, requires_grad=True)
        (g,) = T.autograd.grad(SUM_TO_GRAPHS[name](T, x), x, create_graph=True)
        graphs.append(_graph_names(g.grad_fn))
    assert graphs[0] == graphs[1]
