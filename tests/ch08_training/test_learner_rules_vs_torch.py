"""The rules a learner's own program trips over, against PyTorch: ``where`` with Python numbers and its
condition, in-place ops on views made under ``no_grad``, indexing / ``expand`` / ``view`` / factory /
``Size`` / ``arange`` errors, converting a tensor to a Python number, and PyTorch's UserWarnings.

Every program runs on both libraries (``assert_same``): values, dtypes, ``grad_fn`` names, and the
exception's type and text, character for character.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
FLOAT_DTYPES = ["float32", "float64"]


def _warned(prog):
    """The program's result and the warnings it emitted, as (category name, message) pairs."""
    def run(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = prog(T)
        return [result, [(w.category.__name__, str(w.message)) for w in caught]]
    return run


# ----------------------------------------------------------------------------- where


SCALARS = [0.0, 1, -2.5, True, 3]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_where_scalar_other(dtype, scalar):
    assert_same(lambda T: T.where(T.tensor([True, False, True]), T.tensor([1, 0, 2], dtype=getattr(T, dtype)),
                                  scalar))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_where_scalar_self(dtype, scalar):
    assert_same(lambda T: T.where(T.tensor([[True], [False]]), scalar, T.tensor([1, 0, 2], dtype=getattr(T, dtype))))


@pytest.mark.parametrize("pair", [(1, 0), (1.0, 0), (True, False), (1, 2.5), (True, 2)], ids=repr)
def test_where_two_scalars(pair):
    assert_same(lambda T: T.where(T.tensor([True, False]), *pair))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_where_scalar_gradient(dtype):
    def prog(T):
        x = T.tensor([1.0, -2.0, 3.0], dtype=getattr(T, dtype), requires_grad=True)
        y = T.where(x > 0, x, 0.0)
        (y * y).sum().backward()
        return [y, x.grad, y.grad_fn.next_functions[0][0] is None]
    assert_same(prog)


def test_where_method():
    assert_same(lambda T: [T.tensor([1.0, 2.0]).where(T.tensor([True, False]), 0.0),
                           T.tensor([1.0, 2.0]).where(T.tensor([False, True]), T.tensor([5.0, 6.0]))])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int8", "float16"])
def test_where_refuses_a_non_bool_condition(dtype):
    assert_same(lambda T: T.where(T.tensor([1, 0], dtype=getattr(T, dtype)), T.tensor([1.0, 2.0]), 0.0))
    assert_same(lambda T: T.tensor([1.0, 2.0]).where(T.tensor([1, 0], dtype=getattr(T, dtype)), T.ones(2)))


def test_where_uint8_condition_warns():
    assert_same(_warned(lambda T: T.where(T.tensor([1, 0], dtype=T.uint8), T.tensor([1.0, 2.0]), 0.0)))


small_shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)


@given(cond_shape=small_shapes, shape=small_shapes, dtype=st.sampled_from(DTYPES),
       scalar=st.sampled_from(SCALARS), scalar_first=st.booleans(), seed=st.integers(0, 2**16))
@SETTINGS
def test_where_scalar_fuzzed(cond_shape, shape, dtype, scalar, scalar_first, seed):
    """Broadcasting (or its error), promotion with the Python number, either side."""
    rng = np.random.default_rng(seed)
    cond = (rng.random(cond_shape) > 0.5).tolist()
    values = rng.integers(-3, 4, size=shape).tolist()

    def prog(T):
        c, x = T.tensor(cond, dtype=T.bool), T.tensor(values, dtype=getattr(T, dtype))
        return T.where(c, scalar, x) if scalar_first else T.where(c, x, scalar)
    assert_same(prog)


def test_where_broadcast_error():
    assert_same(lambda T: T.where(T.tensor([True, False]), T.ones(3), 0.0))


# ----------------------------------------------------------------------------- views and in-place ops


def _clone_of_leaf(T, shape=(2, 3)):
    return T.ones(*shape, requires_grad=True).clone()


VIEWS = {
    "slice": lambda x: x[:1],
    "select": lambda x: x[0],
    "view": lambda x: x.view(6),
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(0, 1),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "expand_free_squeeze": lambda x: x.squeeze(),
    "permute": lambda x: x.permute(1, 0),
    "ellipsis": lambda x: x[...],
}
INPLACE = {
    "mul_": lambda v, T: v.mul_(2),
    "add_": lambda v, T: v.add_(1),
    "add_tensor_requiring_grad": lambda v, T: v.add_(T.ones(v.shape, requires_grad=True)),
    "zero_": lambda v, T: v.zero_(),
    "setitem_int": lambda v, T: v.__setitem__(0, 5.0),
    "setitem_full_slice": lambda v, T: v.__setitem__(slice(None), 5.0),
    "setitem_tensor_index": lambda v, T: v.__setitem__(T.tensor([0]), 5.0),
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("inplace", INPLACE)
@pytest.mark.parametrize("base", ["leaf", "non_leaf", "no_grad_base"])
def test_view_made_under_no_grad_modified_with_grad_on(view, inplace, base):
    def prog(T):
        x = {"leaf": lambda: T.ones(2, 3, requires_grad=True), "non_leaf": lambda: _clone_of_leaf(T),
             "no_grad_base": lambda: T.ones(2, 3)}[base]()
        with T.no_grad():
            v = VIEWS[view](x)
        r = [v.requires_grad, v.is_leaf, v.grad_fn]
        INPLACE[inplace](v, T)
        return r + [x]
    assert_same(prog)


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("inplace", INPLACE)
def test_view_and_inplace_both_under_no_grad_is_fine(view, inplace):
    def prog(T):
        x = _clone_of_leaf(T)
        with T.no_grad():
            v = VIEWS[view](x)
            INPLACE[inplace](v, T)
        x.sum().backward()
        return x
    assert_same(prog)


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("inplace", ["mul_", "add_", "setitem_int"])
def test_view_and_inplace_both_with_grad_on(view, inplace):
    def prog(T):
        a = T.ones(2, 3, requires_grad=True)
        x = a * 3
        v = VIEWS[view](x)
        INPLACE[inplace](v, T)
        x.sum().backward()
        return [x, a.grad]
    assert_same(prog)


@pytest.mark.parametrize("view", VIEWS)
def test_view_of_a_leaf_that_requires_grad(view):
    assert_same(lambda T: VIEWS[view](T.ones(2, 3, requires_grad=True)).mul_(2))


def test_view_of_a_no_grad_view_keeps_its_creation():
    def prog(T):
        x = _clone_of_leaf(T)
        with T.no_grad():
            v = x[:1]
        v.view(3).mul_(2)
    assert_same(prog)


def test_view_of_a_no_grad_view_used_out_of_place():
    def prog(T):
        a = T.ones(3, requires_grad=True)
        with T.no_grad():
            v = a[:2]
        y = (v * 2).sum()
        y.backward()
        return [y, v, a, v.is_leaf]
    assert_same(prog)


def test_base_requires_grad_after_the_view_was_made():
    def prog(T):
        b = T.ones(3)
        v = b[:2]
        b.requires_grad_()
        r = [v.requires_grad, v.is_leaf]
        v.mul_(2)
        return r
    assert_same(prog)


# ----------------------------------------------------------------------------- indexing


INDEX_ERRORS = {
    "int": lambda T: T.ones(3)[5],
    "negative_int": lambda T: T.ones(3)[-4],
    "int_second_dim": lambda T: T.ones(2, 3)[0, 5],
    "int_after_slice": lambda T: T.ones(2, 3)[:, 5],
    "int_after_ellipsis": lambda T: T.ones(2, 3, 4)[None, ..., 7],
    "int_after_none": lambda T: T.ones(2, 3)[None, None, 0, 7],
    "int_after_mask": lambda T: T.ones(2, 3, 4)[T.ones(2, 3, dtype=T.bool), 7],
    "int_after_tensor": lambda T: T.ones(2, 3, 4)[T.tensor([0]), 7],
    "too_many": lambda T: T.ones(3)[0, 0],
    "too_many_slices": lambda T: T.ones(2, 3)[0, :, 5],
    "mask_shape": lambda T: T.ones(3)[T.tensor([True, False])],
    "mask_shape_2d": lambda T: T.ones(2, 3)[T.tensor([[True, False], [True, True]])],
    "mask_after_slice": lambda T: T.ones(2, 3)[:, T.tensor([True, False])],
    "mask_after_select": lambda T: T.ones(2, 3, 4)[0, T.ones(3, 3, dtype=T.bool)],
    "float_tensor": lambda T: T.ones(3)[T.tensor([0.0, 1.0])],
    "float_number": lambda T: T.ones(3)[1.0],
    "long_tensor": lambda T: T.ones(3)[T.tensor([0, 5])],
    "long_tensor_negative": lambda T: T.ones(3)[T.tensor([0, -5])],
    "long_tensor_2d": lambda T: T.ones(3)[T.tensor([[0, 5]])],
    "list": lambda T: T.ones(3)[[0, 5]],
    "second_index_tensor": lambda T: T.ones(2, 3)[T.tensor([1]), T.tensor([7])],
    "index_tensor_after_slice": lambda T: T.ones(2, 3)[:, T.tensor([5])],
    "index_tensor_after_mask": lambda T: T.ones(2, 3, 4)[T.ones(2, 3, dtype=T.bool), T.tensor([9])],
    "first_bad_element_wins": lambda T: T.ones(2, 3)[T.tensor([1, -3]), T.tensor([-4, 1])],
    "broadcast": lambda T: T.ones(2, 3)[T.tensor([0, 1]), T.tensor([0, 1, 2])],
    "setitem_int": lambda T: T.ones(3).__setitem__(5, 1.0),
    "setitem_tensor": lambda T: T.ones(3).__setitem__(T.tensor([5]), 1.0),
    "setitem_mask": lambda T: T.ones(2, 3).__setitem__(T.tensor([True]), 1.0),
    "setitem_after_slice": lambda T: T.ones(2, 3).__setitem__((slice(None), T.tensor([9])), 1.0),
}


@pytest.mark.parametrize("name", INDEX_ERRORS)
def test_index_errors(name):
    assert_same(INDEX_ERRORS[name])


def test_uint8_index_is_a_mask_with_a_warning():
    assert_same(_warned(lambda T: T.ones(3)[T.tensor([0, 1, 2], dtype=T.uint8)]))


@pytest.mark.parametrize("value", ["number", "zero_dim", "one_element", "two_elements", "three_elements"])
def test_writing_through_a_uint8_index(value):
    def write(T):
        x = T.zeros(3)
        x[T.tensor([1, 0, 1], dtype=T.uint8)] = {"number": 1.0, "zero_dim": T.tensor(1.0), "one_element": T.ones(1),
                                                "two_elements": T.ones(2), "three_elements": T.ones(3)}[value]
        return x
    assert_same(_warned(write))


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), seed=st.integers(0, 2**16),
       as_tensor=st.booleans())
@SETTINGS
def test_index_bounds_fuzzed(shape, seed, as_tensor):
    """Indices in and out of range, integers or long tensors, at every position."""
    rng = np.random.default_rng(seed)
    index = tuple(int(rng.integers(-s - 2, s + 2)) for s in shape[:int(rng.integers(1, len(shape) + 1))])

    def prog(T):
        x = T.arange(int(np.prod(shape)), dtype=T.float32).reshape(shape)
        return x[tuple(T.tensor([i]) for i in index)] if as_tensor else x[index]
    assert_same(prog)


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
       mask_shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), seed=st.integers(0, 2**16))
@SETTINGS
def test_mask_shapes_fuzzed(shape, mask_shape, seed):
    mask = (np.random.default_rng(seed).random(mask_shape) > 0.5).tolist()
    assert_same(lambda T: T.arange(int(np.prod(shape)), dtype=T.float32).reshape(shape)[T.tensor(mask)])


# ----------------------------------------------------------------------------- expand, view, reshape, factories


SHAPE_ERRORS = {
    "expand_non_singleton": lambda T: T.ones(3).expand(2, 4),
    "expand_too_few": lambda T: T.ones(2, 3).expand(3),
    "expand_leading_minus_one": lambda T: T.ones(3).expand(-1, 3),
    "expand_second_leading_minus_one": lambda T: T.ones(3).expand(2, -1, 3),
    "expand_last_bad_reported": lambda T: T.ones(2, 3).expand(-1, 5, 4),
    "expand_as": lambda T: T.ones(2, 3).expand_as(T.ones(3, 3)),
    "view_size": lambda T: T.ones(6).view(4),
    "view_size_inferred": lambda T: T.ones(2, 3).view(4, -1),
    "view_non_contiguous": lambda T: T.ones(2, 3).t().view(6),
    "view_two_inferred": lambda T: T.ones(6).view(-1, -1),
    "reshape_two_inferred": lambda T: T.ones(6).reshape(-1, -1),
    "reshape_size": lambda T: T.ones(6).reshape(4),
    "view_negative": lambda T: T.ones(6).view(-2, 3),
    "reshape_negative": lambda T: T.ones(6).reshape(3, -3),
    "zeros_negative": lambda T: T.zeros(-1),
    "zeros_negative_2d": lambda T: T.zeros(2, -3),
    "ones_negative": lambda T: T.ones(-1),
    "ones_negative_2d": lambda T: T.ones(2, -3),
    "empty_negative": lambda T: T.empty(-1),
    "randn_negative": lambda T: T.randn(3, -1),
    "rand_negative": lambda T: T.rand(-2),
    "full_negative": lambda T: T.full((-1,), 1.0),
    "zeros_float_size": lambda T: T.zeros(1.5),
}


@pytest.mark.parametrize("name", SHAPE_ERRORS)
def test_shape_errors(name):
    assert_same(SHAPE_ERRORS[name])


@given(shape=st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple),
       target=st.lists(st.integers(-1, 4), min_size=0, max_size=4).map(tuple))
@SETTINGS
def test_expand_and_view_fuzzed(shape, target):
    assert_same(lambda T: T.zeros(shape).expand(*target))
    assert_same(lambda T: T.zeros(shape).view(*target) if target else T.zeros(shape).view(()))
    assert_same(lambda T: T.zeros(shape).reshape(*target) if target else T.zeros(shape).reshape(()))


# ----------------------------------------------------------------------------- tensors as Python numbers


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2,), (0,), (2, 3)], ids=str)
@pytest.mark.parametrize("convert", ["float", "int", "bool", "item", "index"])
def test_python_number_conversions(dtype, shape, convert):
    def prog(T):
        x = T.ones(shape, dtype=getattr(T, dtype))
        if convert == "item":
            return x.item()
        if convert == "index":
            return [10, 20, 30][x]
        return {"float": float, "int": int, "bool": bool}[convert](x)
    assert_same(prog)


# ----------------------------------------------------------------------------- arange and Size


ARANGE = {
    "down_with_positive_step": lambda T: T.arange(5, 0),
    "up_with_negative_step": lambda T: T.arange(0, 5, -1),
    "zero_step": lambda T: T.arange(0, 5, 0),
    "float_zero_step": lambda T: T.arange(0.0, 1.0, 0.0),
    "empty": lambda T: T.arange(0, 0),
    "nan_end": lambda T: T.arange(0, float("nan")),
    "inf_end": lambda T: T.arange(0, float("inf")),
    "minus_inf_start": lambda T: T.arange(float("-inf"), 1.5, 0.5),
    "float_bounds": lambda T: T.arange(0.5, 2.5, 0.5),
    "negative_step": lambda T: T.arange(3, -1, -1),
}


@pytest.mark.parametrize("name", ARANGE)
def test_arange(name):
    assert_same(ARANGE[name])


SIZES = {
    "float": lambda T: T.Size([1.5]),
    "second_float": lambda T: T.Size([2, 1.0]),
    "str": lambda T: T.Size(["a"]),
    "none": lambda T: T.Size([3, None]),
    "not_iterable": lambda T: T.Size(3),
    "ints": lambda T: str(T.Size([1, 2])),
    "negative": lambda T: str(T.Size([-1])),
    "bool": lambda T: str(T.Size([True, 2])),
    "int_tensor": lambda T: str(T.Size([T.tensor(2)])),
    "numpy_int": lambda T: str(T.Size([np.int64(4)])),
    "float_tensor": lambda T: T.Size([T.tensor(2.0)]),
}


@pytest.mark.parametrize("name", SIZES)
def test_size_construction(name):
    assert_same(SIZES[name])


# ----------------------------------------------------------------------------- UserWarnings


def test_grad_of_a_non_leaf_warns():
    def prog(T):
        a = T.ones(3, requires_grad=True)
        b = a * 2
        return b.grad
    assert_same(_warned(prog))


def test_grad_of_a_leaf_or_a_retained_non_leaf_does_not_warn():
    def prog(T):
        a = T.ones(3, requires_grad=True)
        b = a * 2
        b.retain_grad()
        b.sum().backward()
        return [a.grad, b.grad]
    assert_same(_warned(prog))


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_tensor_of_a_tensor_warns(requires_grad, dtype):
    def prog(T):
        source = T.ones(2, dtype=getattr(T, dtype), requires_grad=requires_grad and dtype == "float32")
        return T.tensor(source)
    assert_same(_warned(prog))
