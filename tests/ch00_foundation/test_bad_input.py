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
    # writing into an expanded tensor that repeats an element (NOTE [Writing into a tensor that overlaps itself])
    "inplace_add_on_expanded": lambda T: T.ones(3, 1).expand(3, 3).add_(1),
    "inplace_mul_tensor_on_expanded": lambda T: T.ones(1, 3).expand(2, 3).mul_(T.ones(2, 3)),
    "copy_into_expanded": lambda T: T.zeros(3).expand(2, 3).copy_(T.ones(2, 3)),
    "relu_on_expanded": lambda T: T.ones(()).expand(4).relu_(),
    "clamp_on_expanded": lambda T: T.ones(3, 1).expand(3, 2).clamp_(0, 0.5),
    "uniform_on_expanded": lambda T: T.ones(3, 1).expand(3, 2).uniform_(),
    "setitem_row_of_expanded": lambda T: T.ones(3, 1).expand(3, 3).__setitem__(0, 2.0),
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
    "add_str": lambda T: T.add(T.ones(2), "a"),
    "add_unknown_kw": lambda T: T.add(T.ones(2), T.ones(2), beta=2),
    "mm_str": lambda T: T.mm(T.ones(2, 2), "x"),
    "method_bad_arg": lambda T: T.ones(2).mul("x"),
    "sum_bad_arg": lambda T: T.ones(2).sum("x"),
    "sum_bad_kw": lambda T: T.ones(2).sum(dim="a"),
    "exp_extra_arg": lambda T: T.exp(T.ones(2), 3),
    "cat_not_a_list": lambda T: T.cat(T.ones(2)),
    "transpose_missing": lambda T: T.ones(2, 2).transpose(0),
    "plus_str": lambda T: T.ones(2) + "a",
    "pow_str": lambda T: T.ones(2) ** "a",
    "rsub_str": lambda T: "a" - T.ones(2),
    "zeros_str": lambda T: T.zeros("a"),
    "zeros_str_element": lambda T: T.zeros(2, "a"),
    "tensor_none": lambda T: T.tensor(None),
    "tensor_object": lambda T: T.tensor([1, object()]),
    "linear_shape": lambda T: T.nn.Linear(3, 2)(T.ones(4, 5)),
    "matmul_0d": lambda T: T.matmul(T.tensor(1.0), T.ones(2)),
    "device_bad_type": lambda T: T.device("gpu"),
    "device_bad_index": lambda T: T.device("cuda:01"),
    "to_bad_device": lambda T: T.ones(2).to("cuda:x"),
    "item_empty": lambda T: T.ones(0).item(),
    "mm_dtypes": lambda T: T.ones(2, 2) @ T.ones(2, 2, dtype=T.float64),
    "grad_wrong_size": lambda T: setattr(T.ones(2, requires_grad=True), "grad", T.ones(3)),
    "grad_wrong_dtype": lambda T: setattr(T.ones(2, requires_grad=True), "grad", T.ones(2, dtype=T.float64)),
    "len_0d": lambda T: len(T.tensor(1.0)),
    "iter_0d": lambda T: iter(T.tensor(1.0)),
    "rand_int": lambda T: T.rand(2, dtype=T.int64),
    "arange_step_zero": lambda T: T.arange(0, 5, 0),
    "permute_dup": lambda T: T.ones(2, 3).permute(0, 0),
    "squeeze_out_of_range": lambda T: T.ones(2, 1).squeeze(-3),
    "select_out_of_range": lambda T: T.ones(2, 3).select(1, 3),
    "expand_fewer_sizes": lambda T: T.ones(2, 3, dtype=T.float64).expand(3),
    "permute_length": lambda T: T.ones(2, 3).permute(0),
    "mv_sizes": lambda T: T.mv(T.ones(2, 3), T.ones(2)),
    "mv_dims": lambda T: T.mv(T.ones(3), T.ones(2)),
    "addmm_vector": lambda T: T.addmm(T.ones(3), T.ones(2), T.ones(2, 2)),
    "t_3d": lambda T: T.ones(3, 4, 5).t(),
    "cat_ndims": lambda T: T.cat([T.ones(2, 3), T.ones(3)]),
    "cat_empty": lambda T: T.cat([]),
    "stack_empty": lambda T: T.stack([]),
    "sum_repeated_dim": lambda T: T.ones(2, 3).sum((0, -2)),
    "sum_two_repeated_dims": lambda T: T.ones(2, 3, 4).sum((0, 1, 1, 0)),  # the first seen twice: dim 1
    "mean_repeated_dim_later": lambda T: T.ones(2, 3, 4).mean((2, 0, -3)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_error_matches_torch(name):
    outcome = assert_same(PROGRAMS[name])
    assert outcome.error is not None, "expected both libraries to raise"


# A dtype argument: a torch.dtype, or Python's float / int / bool for float64 / int64 / bool; anything else (a
# number, a string like NumPy's "float32") is the argument parser's TypeError, in each binding's own words.
DTYPE_PROGRAMS = {
    "zeros": lambda T, d: T.zeros(2, dtype=d),
    "ones_size_tuple": lambda T, d: T.ones((2, 3), dtype=d),
    "empty": lambda T, d: T.empty(2, dtype=d),
    "full": lambda T, d: T.full((2,), 1, dtype=d),
    "tensor": lambda T, d: T.tensor([1, 0], dtype=d),
    "arange_end": lambda T, d: T.arange(3, dtype=d),
    "arange_start_end": lambda T, d: T.arange(0, 3, dtype=d),
    "arange_step": lambda T, d: T.arange(0, 6, 2, dtype=d),
    "linspace": lambda T, d: T.linspace(0, 1, 3, dtype=d),
    "rand": lambda T, d: T.rand(2, dtype=d),
    "randn_two_sizes": lambda T, d: T.randn(2, 3, dtype=d),
    "randint": lambda T, d: T.randint(3, (2,), dtype=d),
    "eye": lambda T, d: T.eye(2, dtype=d),
    "ones_like": lambda T, d: T.ones_like(T.ones(2), dtype=d),
    "zeros_like": lambda T, d: T.zeros_like(T.ones(2), dtype=d),
    "new_zeros": lambda T, d: T.ones(2).new_zeros(2, dtype=d),
    "to_keyword": lambda T, d: T.ones(2).to(dtype=d),
    "to_positional": lambda T, d: T.ones(2).to(d),
    "to_device_then_dtype": lambda T, d: T.ones(2).to("cpu", d),
    "sum": lambda T, d: T.ones(2).sum(dtype=d),
    "mean": lambda T, d: T.ones(2).mean(dtype=d),
}
DTYPES = {"int": 3, "str": "float32", "list": [1], "float": float, "int_type": int, "bool_type": bool,
          "float64": "float64"}


NOT_MODELLED = {
    # an int there is a device index, and torch without an accelerator says so; picotorch models cuda devices
    ("to_positional", "int"),
    # eye's printed signatures lack ``Tensor out`` and ``requires_grad`` (eye(out=) is not bound)
    ("eye", "int"), ("eye", "str"), ("eye", "list"),
}


@pytest.mark.parametrize("given", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(DTYPE_PROGRAMS))
def test_a_dtype_argument_is_read_or_refused_as_torch_does(name, given):
    """Compared: the result's dtype and shape when torch takes the argument (random and empty values differ by
    design), else the exception's type and text."""
    if (name, given) in NOT_MODELLED:
        pytest.skip("not modelled: see NOT_MODELLED")

    def prog(T):
        value = getattr(T, DTYPES[given]) if given == "float64" else DTYPES[given]
        out = DTYPE_PROGRAMS[name](T, value)
        return str(out.dtype), tuple(out.shape)
    assert_same(prog)


@pytest.mark.parametrize("call", [
    "x.add(x, alpha=True)", "x.clone().add_(x, alpha=False)", "b.add(b, alpha=True)", "i.add(i, alpha=True)",
    "x.sub(x, alpha=True)", "x.add(1, alpha=True)", "T.rsub(x, 2, alpha=True)", "x.clone().sub_(x, alpha=True)",
    "big.clone().add_(big, alpha=True)", "big.clone().sub_(big, alpha=2)", "i.add(i, alpha=0.5)",
])
def test_alpha_of_add_and_sub(call):
    # a bool alpha is refused unless the result is bool, even alpha=True (which equals 1), and on the
    # in-place fused path for large float32 tensors too
    def prog(T):
        env = {"T": T, "x": T.ones(3), "b": T.ones(3, dtype=T.bool), "i": T.ones(3, dtype=T.int64),
               "big": T.ones(100, 100)}
        return eval(call, env)
    assert_same(prog)
