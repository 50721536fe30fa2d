"""In-place ops and operators against PyTorch: the same tensor modified, versions, casts, graphs, errors.

Covers ``sub_ div_ pow_ clamp_ copy_ fill_ normal_ uniform_`` and the operators ``+= -= *= /= **=
//= %= &= |=`` (and ``@=``, which PyTorch does not do in place) over dtype pairs: an in-place op
accepts exactly the results ``torch.can_cast`` allows, with PyTorch's error otherwise, and an
integer or bool result never joins the graph.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
OPERATORS = {
    "+=": lambda x, y: x.__iadd__(y),
    "-=": lambda x, y: x.__isub__(y),
    "*=": lambda x, y: x.__imul__(y),
    "/=": lambda x, y: x.__itruediv__(y),
    "**=": lambda x, y: x.__ipow__(y),
    "//=": lambda x, y: x.__ifloordiv__(y),
    "%=": lambda x, y: x.__imod__(y),
    "&=": lambda x, y: x.__iand__(y),
    "|=": lambda x, y: x.__ior__(y),
}


def _tensor(T, dtype, values=(3, 1, 2)):
    if dtype == "bool":
        return T.tensor([bool(v % 2) for v in values])
    return T.tensor(list(values), dtype=getattr(T, dtype))


@pytest.mark.parametrize("other", DTYPES + ["int", "float", "bool_number"])
@pytest.mark.parametrize("self_dtype", DTYPES)
@pytest.mark.parametrize("symbol", sorted(OPERATORS))
def test_inplace_operators_keep_the_tensor_and_cast_as_torch(symbol, self_dtype, other):
    def prog(T):
        x = _tensor(T, self_dtype)
        y = {"int": 2, "float": 1.5, "bool_number": True}.get(other) if other in ("int", "float", "bool_number") \
            else _tensor(T, other, (2, 1, 3))
        before = id(x)
        if symbol == "+=":
            x += y
        elif symbol == "-=":
            x -= y
        elif symbol == "*=":
            x *= y
        elif symbol == "/=":
            x /= y
        elif symbol == "**=":
            x **= y
        elif symbol == "//=":
            x //= y
        elif symbol == "%=":
            x %= y
        elif symbol == "&=":
            x &= y
        else:
            x |= y
        return x, id(x) == before, x._version
    assert_same(prog)


@pytest.mark.parametrize("symbol", sorted(OPERATORS))
def test_operator_and_method_broadcast_into_self_only(symbol):
    def prog(T):
        x = T.ones(2, 3, dtype=T.int64) * 6
        OPERATORS[symbol](x, T.tensor([1, 2, 3]))
        small = T.ones(3, dtype=T.int64)
        return x, OPERATORS[symbol](small, T.ones(2, 3, dtype=T.int64))
    assert_same(prog)


def test_matmul_assignment_makes_a_new_tensor_as_in_torch():
    def prog(T):
        a = T.ones(2, 2)
        alias = a
        a @= T.full((2, 2), 2.0)
        return a, alias, a is alias, alias._version
    assert_same(prog)


def test_sgd_step_under_no_grad_updates_the_parameter_itself():
    def prog(T):
        w = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
        same = w
        loss = (w * w).sum()
        loss.backward()
        with T.no_grad():
            w -= 0.1 * w.grad
            w /= 2
            w.clamp_(-0.5, 0.5)
        w.grad.zero_()
        return w, w is same, w._version, w.is_leaf, w.requires_grad
    assert_same(prog)


LEAF_ERRORS = {
    "sub_": lambda T, w: w.sub_(1),
    "isub": lambda T, w: w.__isub__(1),
    "div_": lambda T, w: w.div_(2),
    "pow_": lambda T, w: w.pow_(2),
    "clamp_": lambda T, w: w.clamp_(0),
    "copy_": lambda T, w: w.copy_(T.zeros(3)),
    "fill_": lambda T, w: w.fill_(1.0),
    "normal_": lambda T, w: w.normal_(),
    "uniform_": lambda T, w: w.uniform_(),
    "view_of_leaf": lambda T, w: w[:2].sub_(1),
    "under_no_grad": lambda T, w: _under_no_grad(T, w),
}


def _under_no_grad(T, w):
    with T.no_grad():
        w.sub_(1).div_(2).clamp_(max=-0.6).copy_(w * 2).fill_(3.0)
    return w, w._version, w.is_leaf


@pytest.mark.parametrize("name", sorted(LEAF_ERRORS))
def test_leaf_that_requires_grad_refuses_inplace(name):
    def prog(T):
        w = T.zeros(3, requires_grad=True)
        return LEAF_ERRORS[name](T, w)
    assert_same(prog)


CAST_ERRORS = {
    "float_into_long": lambda T: T.tensor([1, 2]).sub_(1.5),
    "float_tensor_into_int": lambda T: T.tensor([1, 2], dtype=T.int32).div_(T.tensor([2, 2])),
    "int_into_bool": lambda T: T.tensor([True, False]).sub_(T.tensor([1, 0])),
    "float_into_bool_mul": lambda T: T.tensor([True, False]).mul_(2.0),
    "double_into_float_ok": lambda T: T.ones(2).add_(T.ones(2, dtype=T.float64) / 3),
    "long_into_uint8_ok": lambda T: T.tensor([200], dtype=T.uint8).add_(T.tensor([100])),
    "clamp_float_into_long": lambda T: T.tensor([1, 2]).clamp_(0.5),
    "clamp_tensor_float_into_long": lambda T: T.tensor([1, 2]).clamp_(T.tensor([0.5, 1.5])),
    "pow_float_into_long": lambda T: T.tensor([1, 2]).pow_(0.5),
    "int_negative_pow": lambda T: T.tensor([1, 2]).pow_(-1),
    "floor_divide_float_into_int": lambda T: T.tensor([1, 2]).floor_divide_(1.5),
    "remainder_by_zero": lambda T: T.tensor([1, 2]).remainder_(0),
    "bitwise_on_float": lambda T: T.ones(2).bitwise_and_(1),
    "broadcast_into_smaller": lambda T: T.ones(3).sub_(T.ones(2, 3)),
    "div_int_by_float_tensor": lambda T: T.tensor([4, 6]).div_(T.tensor(2.0)),
}


@pytest.mark.parametrize("name", sorted(CAST_ERRORS))
def test_inplace_result_must_cast_to_self(name):
    assert_same(CAST_ERRORS[name])


def test_integer_and_bool_results_never_join_the_graph():
    def prog(T):
        x = T.tensor([1.5, -2.0, 3.0], requires_grad=True)
        i = T.zeros(3, dtype=T.int64)
        i.copy_(x)
        b = T.zeros(3, dtype=T.bool)
        b.copy_(x)
        f = T.zeros(3, dtype=T.float64)
        f.copy_(x)
        return (i, b, x.long(), x.int(), x.to(T.bool), x > 0, x.sign(), T.floor_divide(T.tensor([5]), 2),
                f, x.double())
    assert_same(prog)


# ----------------------------------------------------------------------------- copy_ and fill_

@pytest.mark.parametrize("src_dtype", DTYPES)
@pytest.mark.parametrize("self_dtype", DTYPES)
def test_copy_broadcasts_and_casts_any_dtype(self_dtype, src_dtype):
    def prog(T):
        x = T.zeros(2, 3, dtype=getattr(T, self_dtype))
        src = T.tensor([[-1.75, 0.0, 2.5]]).to(getattr(T, src_dtype))
        version = x._version
        out = x.copy_(src)
        return x, out is x, x._version - version, T.zeros((), dtype=getattr(T, self_dtype)).copy_(src[0, 2])
    assert_same(prog)


COPY_PROGRAMS = {
    "graph_and_grads": lambda T, x: (T.zeros(2, 3, dtype=T.float64).copy_(x) * 2).sum(),
    "onto_non_leaf": lambda T, x: ((x * 2).clone().copy_(x * 3) ** 2).sum(),
    "onto_view": lambda T, x: _copy_onto_view(T, x),
    "bad_shape": lambda T, x: T.zeros(2).copy_(x),
    "larger_src": lambda T, x: T.zeros(3).copy_(T.zeros(2, 3)),
    "zero_dim_self": lambda T, x: T.zeros(()).copy_(x),
}


def _copy_onto_view(T, x):
    base = T.zeros(2, 3) * x.sum()
    base[1].copy_(x)
    return (base * T.arange(6.0).reshape(2, 3)).sum()


@pytest.mark.parametrize("name", sorted(COPY_PROGRAMS))
def test_copy_graph_gradients_and_errors(name):
    def prog(T):
        x = T.tensor([1.5, -2.0, 3.0], requires_grad=True)
        out = COPY_PROGRAMS[name](T, x)
        out.backward()
        return out, x.grad, [n.name() if n else None for n, _ in out.grad_fn.next_functions]
    assert_same(prog)


FILL_PROGRAMS = {
    "number_into_int": lambda T: T.zeros(3, dtype=T.int64).fill_(2.7),
    "number_into_bool": lambda T: T.zeros(3, dtype=T.bool).fill_(2),
    "zero_dim_tensor": lambda T: T.zeros(2, 2).fill_(T.tensor(3, dtype=T.int64)),
    "one_dim_tensor": lambda T: T.zeros(3).fill_(T.zeros(2)),
    "function": lambda T: T.fill_(T.zeros(3), 4.0),
    "empty": lambda T: T.zeros(0, 3).fill_(1),
    "copy_a_number": lambda T: T.zeros(2, dtype=T.int32).copy_(2.5),
}


@pytest.mark.parametrize("name", sorted(FILL_PROGRAMS))
def test_fill_values_and_errors(name):
    def prog(T):
        x = FILL_PROGRAMS[name](T)
        return x, x._version
    assert_same(prog)


def test_fill_with_a_tensor_value_sends_the_gradient_to_it():
    def prog(T):
        x = T.tensor([1.5, -2.0, 3.0], requires_grad=True)
        y = (x * 1).fill_(x[2])
        (y * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        return y, x.grad, y.grad_fn.name(), [n.name() if n else None for n, _ in y.grad_fn.next_functions]
    assert_same(prog)


# ----------------------------------------------------------------------------- normal_ and uniform_

RANDOM_PROGRAMS = {
    "normal_default": lambda T, x: x.normal_(),
    "normal_args": lambda T, x: x.normal_(2.0, 0.5),
    "normal_keywords": lambda T, x: x.normal_(mean=-1, std=3),
    "normal_std_zero": lambda T, x: x.normal_(5.0, 0.0),
    "normal_negative_std": lambda T, x: x.normal_(0, -1),
    "normal_negative_std_fraction": lambda T, x: x.normal_(0, -0.5),
    "uniform_default": lambda T, x: x.uniform_(),
    "uniform_args": lambda T, x: x.uniform_(-2, 2),
    "uniform_keywords": lambda T, x: x.uniform_(to=3.0),
    "uniform_empty_range": lambda T, x: x.uniform_(1.5, 1.5),
    "uniform_reversed": lambda T, x: x.uniform_(2, 1),
    "normal_long": lambda T, x: T.zeros(3, dtype=T.int64).normal_(),
    "uniform_long": lambda T, x: T.zeros(3, dtype=T.int64).uniform_(),
    "normal_bool": lambda T, x: T.zeros(3, dtype=T.bool).normal_(),
    "uniform_float64": lambda T, x: T.zeros(2, 2, dtype=T.float64).uniform_(),
    "normal_float16": lambda T, x: T.zeros(4, dtype=T.float16).normal_(),
    "normal_non_leaf": lambda T, x: (T.zeros(2, 3, requires_grad=True) * 1).normal_(),
}


@pytest.mark.parametrize("name", sorted(RANDOM_PROGRAMS))
def test_random_fills_keep_shape_dtype_and_bump_the_version(name):
    def prog(T):
        x = T.zeros(2, 3)
        out = RANDOM_PROGRAMS[name](T, x)
        values = out.detach().reshape(-1).tolist()
        low_high = [all(v >= -100 for v in values), out is x]
        return (list(out.shape), str(out.dtype), out._version, out.requires_grad,
                out.grad_fn.name() if out.grad_fn else None, low_high)
    assert_same(prog)


def test_random_fills_follow_their_ranges_and_the_seed():
    import picotorch

    picotorch.manual_seed(0)
    a = picotorch.zeros(10_000).uniform_(-2, 3)
    b = picotorch.zeros(10_000).normal_(1.0, 2.0)
    picotorch.manual_seed(0)
    np.testing.assert_array_equal(a.numpy(), picotorch.zeros(10_000).uniform_(-2, 3).numpy())
    values = a.numpy()
    assert values.min() >= -2 and values.max() < 3 and abs(values.mean() - 0.5) < 0.05
    assert abs(b.numpy().mean() - 1.0) < 0.1 and abs(b.numpy().std() - 2.0) < 0.1


# ----------------------------------------------------------------------------- graphs of in-place ops

@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=3),
       trailing=st.integers(0, 2),
       op=st.sampled_from(["sub_", "div_", "pow_", "clamp_", "copy_", "clamp_min_", "fill_"]))
def test_fuzzed_inplace_graphs_and_gradients(shape, trailing, op):
    rng = np.random.default_rng(len(shape) * 7 + trailing)
    a = rng.standard_normal(tuple(shape)) + 3.0
    b = rng.standard_normal(tuple(shape[len(shape) - trailing:] if trailing <= len(shape) else shape)) + 2.0

    def prog(T):
        x = T.tensor(a, dtype=T.float64, requires_grad=True)
        y = T.tensor(b, dtype=T.float64, requires_grad=True)
        z = x * 1
        if op == "clamp_":
            z.clamp_(y, None)
        elif op == "clamp_min_":
            z.clamp_min_(2.5)
        elif op == "fill_":
            z.fill_(y.sum())
        else:
            getattr(z, op)(y)
        (z * z).sum().backward()
        return z, x.grad, y.grad, z._version
    assert_same(prog, rtol=1e-9, atol=1e-12)


def test_can_cast_is_the_rule_in_place_ops_follow():
    names = ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]

    def prog(T):
        return [[T.can_cast(getattr(T, a), getattr(T, b)) for b in names] for a in names]
    assert_same(prog)


@pytest.mark.parametrize("op", ["-=", "/=", "**=", "clamp_", "fill_", "normal_"])
def test_inplace_on_a_view_rewrites_the_base_history(op):
    def prog(T):
        x = T.tensor([[1.5, -2.0, 3.0], [0.5, 1.0, -1.0]], dtype=T.float64, requires_grad=True)
        base = x * 2
        view = base[1]
        if op == "-=":
            view -= x[0]
        elif op == "/=":
            view /= 4
        elif op == "**=":
            view **= 2
        elif op == "clamp_":
            view.clamp_(0.0, 1.5)
        elif op == "fill_":
            view.fill_(x[0, 0])
        else:
            view.normal_().mul_(0)
        (base * T.arange(6.0, dtype=T.float64).reshape(2, 3)).sum().backward()
        return base, view.grad_fn.name(), base._version, x.grad
    assert_same(prog)
