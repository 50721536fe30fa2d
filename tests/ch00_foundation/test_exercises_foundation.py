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
