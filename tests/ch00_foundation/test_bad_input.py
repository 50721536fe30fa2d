"""Bad input gets PyTorch's exception type and message, character for character."""

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

PROGRAMS = {
    "int_requires_grad": lambda T: T.ones(2, requires_grad=True, dtype=T.int64),
    "tensor_int_requires_grad": lambda T: T.tensor([1, 2], requires_grad=True),
    "requires_grad_on_int": lambda T: T.tensor([1, 2]).requires_grad_(),
    "broadcast": lambda T: T.ones(2) + T.ones(3),
    "broadcast_2d": lambda T: T.ones(2, 3) * T.ones(4),
    "mm_shapes": lambda T: T.ones(2, 3) @ T.ones(2, 3),
    "mm_not_matrix": lambda T: T.mm(T.ones(2), T.ones(2)),
    "addmm_shapes": lambda T: T.addmm(T.ones(2, 2), T.ones(2, 3), T.ones(2, 3)),
    "item": lambda T: T.ones(2).item(),
    "numpy_requires_grad": lambda T: T.ones(2, requires_grad=True).numpy(),
    "view_size": lambda T: T.ones(2).view(3),
    "view_stride": lambda T: T.ones(2, 3).t().view(6),
    "view_two_infer": lambda T: T.ones(6).view(-1, -1),
    "reshape_bad": lambda T: T.ones(6).reshape(-1, 4),
    "sum_dim": lambda T: T.ones(2, 3).sum(2),
    "transpose_dim": lambda T: T.ones(2, 3).transpose(0, 5),
    "index_out_of_range": lambda T: T.ones(2)[5],
    "expand_bad": lambda T: T.ones(2).expand(3),
    "expand_bad_2d": lambda T: T.ones(3).expand(2, 2),
    "dot_sizes": lambda T: T.dot(T.ones(2), T.ones(3)),
    "dot_2d": lambda T: T.dot(T.ones(2, 2), T.ones(2, 2)),
    "leaf_inplace": lambda T: T.ones(2, requires_grad=True).add_(1),
    "cat_sizes": lambda T: T.cat([T.ones(2, 3), T.ones(2, 4)]),
    "stack_sizes": lambda T: T.stack([T.ones(2), T.ones(3)]),
    "backward_no_grad": lambda T: T.ones(2).sum().backward(),
    "backward_non_scalar": lambda T: (T.ones(2, requires_grad=True) * 2).backward(),
    "ragged": lambda T: T.tensor([[1, 2], [3]]),
    "bad_data": lambda T: T.tensor("a"),
    "unsqueeze_dim": lambda T: T.ones(2).unsqueeze(3),
    "squeeze_dim": lambda T: T.ones(2).squeeze(2),
    "negative_size": lambda T: T.zeros(-1),
    "mean_int": lambda T: T.tensor([1, 2]).mean(),
    "sub_bool": lambda T: T.tensor([True]) - T.tensor([False]),
    "neg_bool": lambda T: -T.tensor([True]),
    "inplace_cast": lambda T: T.ones(2, dtype=T.int64).add_(1.5),
    "non_leaf_requires_grad_false": lambda T: setattr(T.ones(2, requires_grad=True) * 2, "requires_grad", False),
    "bool_ambiguous": lambda T: bool(T.ones(2)),
    "grad_shape_mismatch": lambda T: (T.ones(2, requires_grad=True) * 2).backward(T.ones(3)),
    "autograd_grad_unused": lambda T: T.autograd.grad((T.ones(2, requires_grad=True) * 2).sum(),
                                                      [T.ones(2, requires_grad=True)]),
    "select_0d": lambda T: T.tensor(1.0)[0],
    "too_many_indices": lambda T: T.ones(2)[0, 0],
    "sgd_non_leaf": lambda T: T.optim.SGD([T.ones(2, requires_grad=True) * 2], lr=0.1),
    "sgd_bad_lr": lambda T: T.optim.SGD([T.ones(2, requires_grad=True)], lr=-1),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_error_matches_torch(name):
    outcome = assert_same(PROGRAMS[name])
    assert outcome.error is not None, "expected both libraries to raise"
