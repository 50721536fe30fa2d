"""``out=`` against PyTorch: the grouped signatures, the result written into ``out``, and its rules.

PyTorch's generator groups each out= overload (``add.out``) with its functional one (``add.Tensor``) into one
Python signature ending in ``*, Tensor out = None``; the call writes into ``out`` and returns it. An ``out`` of
another shape is resized (with a deprecation warning if it had elements), the result's dtype must fit
``out``'s by the rule of the op's kernel, and nothing may require grad while grad mode is on.
"""

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from picotorch.native.device import use_backend
from picotorch_course.difftest import assert_same, run_both

pytest.importorskip("torch")


def x(T):
    return T.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])


def i(T):
    return T.tensor([[6, 3, 5], [2, 7, 12]])


# each writes into an `out` of the right shape and dtype
RESULTS = {
    "add": lambda T: T.add(x(T), x(T), out=T.empty(2, 3)),
    "add with alpha": lambda T: T.add(x(T), 2, alpha=3, out=T.empty(2, 3)),
    "sub": lambda T: T.sub(x(T), x(T) * 2, alpha=0.5, out=T.empty(2, 3)),
    "mul": lambda T: T.mul(x(T), 3, out=T.empty(2, 3)),
    "div": lambda T: T.div(x(T), 4, out=T.empty(2, 3)),
    "remainder": lambda T: T.remainder(i(T), 4, out=T.empty(2, 3, dtype=T.int64)),
    "remainder of tensors": lambda T: T.remainder(i(T), i(T) - 1, out=T.empty(2, 3, dtype=T.int64)),
    "pow": lambda T: T.pow(x(T), 2, out=T.empty(2, 3)),
    "pow of a number": lambda T: T.pow(2, x(T), out=T.empty(2, 3)),
    "clamp": lambda T: T.clamp(x(T), -1, 2, out=T.empty(2, 3)),
    "clamp with tensors": lambda T: T.clamp(x(T), min=T.zeros(3), out=T.empty(2, 3)),
    "where": lambda T: T.where(x(T) > 0, x(T), -x(T), out=T.empty(2, 3)),
    "sum over a dim": lambda T: T.sum(x(T), 1, out=T.empty(2)),
    "sum keepdim": lambda T: T.sum(x(T), (0, 1), keepdim=True, out=T.empty(1, 1)),
    "mean over a dim": lambda T: T.mean(x(T), 0, out=T.empty(3)),
    "bitwise_and": lambda T: T.bitwise_and(i(T), 6, out=T.empty(2, 3, dtype=T.int64)),
    "bitwise_or of tensors": lambda T: T.bitwise_or(i(T), i(T) * 2, out=T.empty(2, 3, dtype=T.int64)),
    "exp": lambda T: T.exp(x(T), out=T.empty(2, 3)),
    "log": lambda T: T.log(x(T).abs(), out=T.empty(2, 3)),
    "abs": lambda T: T.abs(x(T), out=T.empty(2, 3)),
    "neg": lambda T: T.neg(x(T), out=T.empty(2, 3)),
    "sqrt": lambda T: T.sqrt(x(T).abs(), out=T.empty(2, 3)),
    "eq": lambda T: T.eq(x(T), 3.0, out=T.empty(2, 3, dtype=T.bool)),
    "matmul": lambda T: T.matmul(x(T), x(T).t(), out=T.empty(2, 2)),
    "mm": lambda T: T.mm(x(T).t(), x(T), out=T.empty(3, 3)),
    "bmm": lambda T: T.bmm(x(T)[None], x(T).t()[None], out=T.empty(1, 2, 2)),
    "cat": lambda T: T.cat([x(T), x(T)], 1, out=T.empty(2, 6)),
    "stack": lambda T: T.stack([x(T), x(T)], out=T.empty(2, 2, 3)),
    "argmax": lambda T: T.argmax(x(T), 1, out=T.empty(2, dtype=T.int64)),
    "maximum": lambda T: T.maximum(x(T), x(T).t().t() * 0, out=T.empty(2, 3)),
    "amax": lambda T: T.amax(x(T), 0, out=T.empty(3)),
    "index_select": lambda T: T.index_select(x(T), 1, T.tensor([2, 0]), out=T.empty(2, 2)),
    "gather": lambda T: T.gather(x(T), 1, T.tensor([[0], [2]]), out=T.empty(2, 1)),
    "torch._C._nn.gelu": lambda T: T._C._nn.gelu(x(T), approximate="tanh", out=T.empty(2, 3)),
    "torch._C._nn.mse_loss": lambda T: T._C._nn.mse_loss(x(T), x(T) * 2, 0, out=T.empty(2, 3)),
    "torch.linalg.vector_norm": lambda T: T.linalg.vector_norm(x(T), 1, 0, out=T.empty(3)),
    "softmax": lambda T: T.softmax(x(T), 1, out=T.empty(2, 3)),
    "max of all": lambda T: T.max(x(T), out=T.empty(())),
    "mean of all": lambda T: T.mean(x(T), out=T.empty((), dtype=T.float64)),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_out_result_as_pytorch(name):
    assert_same(RESULTS[name])


def test_the_result_is_out_itself_and_its_version_moves():
    def program(T):
        out = T.zeros(2, 3)
        view = out[0]
        before = out._version
        result = T.add(x(T), 1, out=out)
        return result is out, out._version - before, view, out
    assert_same(program)


def test_a_float_result_cast_into_a_wider_or_integer_out():
    """TensorIterator computes in the inputs' dtype and casts into out's, if ``can_cast`` allows it."""
    assert_same(lambda T: (T.add(x(T), 1, out=T.empty(2, 3, dtype=T.float64)),
                           T.abs(i(T), out=T.empty(2, 3, dtype=T.int64)),
                           T.add(i(T), 1, out=T.empty(2, 3))))


def test_sum_takes_its_dtype_from_out():
    """``sum.IntList_out`` infers the dtype from ``out``: each element is cast first (1.5 -> 1)."""
    assert_same(lambda T: T.sum(T.tensor([1.5, 1.5, 2.5]), 0, out=T.empty((), dtype=T.int64)))


def _warnings_of(program):
    def recorded(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = program(T)
        for w in caught:
            print(w.category.__name__, w.message)
        return result
    return recorded


@pytest.mark.parametrize("shape", [(5,), (3, 2), (2, 3, 1)])
def test_an_out_of_another_shape_is_resized_with_a_warning(shape):
    assert_same(_warnings_of(lambda T: T.add(x(T), 1, out=T.zeros(*shape))))


def test_an_empty_out_is_resized_silently():
    assert_same(_warnings_of(lambda T: (T.mul(x(T), 2, out=T.empty(0)), T.sum(x(T), 0, out=T.empty(0)))))


def test_the_warning_is_pytorchs_text():
    ours, _ = run_both(_warnings_of(lambda T: T.neg(x(T), out=T.zeros(4))))
    assert ours.stdout == (
        "UserWarning An output with one or more elements was resized since it had shape [4], which does not match "
        "the required output shape [2, 3]. This behavior is deprecated, and in a future PyTorch release outputs will "
        "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
        "inplace, to zero elements with t.resize_(0). (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)\n")


DTYPE_ERRORS = {
    "TensorIterator: float into long": lambda T: T.add(x(T), x(T), out=T.empty(2, 3, dtype=T.int64)),
    "TensorIterator: unary float op": lambda T: T.exp(i(T), out=T.empty(2, 3, dtype=T.int64)),
    "TensorIterator: division": lambda T: T.div(i(T), 2, out=T.empty(2, 3, dtype=T.int64)),
    "TensorIterator: clamp": lambda T: T.clamp(x(T), 0, out=T.empty(2, 3, dtype=T.int32)),
    "reduction: mean": lambda T: T.mean(x(T), 0, out=T.empty(3, dtype=T.int64)),
    "matmul wants the exact dtype": lambda T: T.mm(x(T), x(T).t(), out=T.empty(2, 2, dtype=T.float64)),
    "matmul into long": lambda T: T.matmul(x(T), x(T).t(), out=T.empty(2, 2, dtype=T.int64)),
    "argmax wants long": lambda T: T.argmax(x(T), out=T.empty((), dtype=T.int32)),
    "cat raises a TypeError": lambda T: T.cat([x(T)], out=T.empty(2, 3, dtype=T.int64)),
    "stack calls cat": lambda T: T.stack([x(T)], out=T.empty(1, 2, 3, dtype=T.int64)),
    "abs wants the exact dtype": lambda T: T.abs(x(T), out=T.empty(2, 3, dtype=T.int64)),
    "where wants the exact dtype": lambda T: T.where(x(T) > 0, x(T), x(T), out=T.empty(2, 3, dtype=T.float64)),
    "clamp with a tensor casts": lambda T: T.clamp(x(T), x(T), out=T.empty(2, 3, dtype=T.int32)),
    "clamp_min with a number": lambda T: T.clamp_min(x(T), 0, out=T.empty(2, 3, dtype=T.float64)),
    "amax: input and out": lambda T: T.amax(x(T), 0, out=T.empty(3, dtype=T.float64)),
    "index_select": lambda T: T.index_select(x(T), 0, T.tensor([0]), out=T.empty(1, 3, dtype=T.int64)),
    "gather": lambda T: T.gather(x(T), 0, T.tensor([[0]]), out=T.empty(1, 1, dtype=T.int64)),
    "dot": lambda T: T.dot(x(T)[0], x(T)[1], out=T.empty((), dtype=T.int64)),
    "mv is addmv": lambda T: T.mv(x(T), x(T)[0], out=T.empty(2, dtype=T.int64)),
    "logsumexp wants a floating out": lambda T: T.logsumexp(x(T), 0, out=T.empty(3, dtype=T.int64)),
    "max of all: a bare canCast check": lambda T: T.max(x(T), out=T.empty((), dtype=T.int64)),
    "mean of all": lambda T: T.mean(x(T), out=T.empty((), dtype=T.int32)),
    "softmax wants the exact dtype": lambda T: T.softmax(x(T), 1, out=T.empty(2, 3, dtype=T.float64)),
    "argsort wants long": lambda T: T.argsort(x(T), stable=True, out=T.empty(2, 3, dtype=T.int32)),
    "sum: a dtype given and another out": lambda T: T.sum(x(T), 0, dtype=T.float64, out=T.empty(3)),
}


@pytest.mark.parametrize("name", sorted(DTYPE_ERRORS))
def test_out_dtype_errors_as_pytorch(name):
    ours, theirs = run_both(DTYPE_ERRORS[name])
    assert theirs.error is not None, "the program must fail on torch"
    assert_same(DTYPE_ERRORS[name])


AUTOGRAD = {
    "an input requires grad": lambda T: T.add(x(T).requires_grad_(), 1, out=T.empty(2, 3)),
    "the other input": lambda T: T.mul(x(T), x(T).requires_grad_(), out=T.empty(2, 3)),
    "a reduction": lambda T: T.sum(x(T).requires_grad_(), 0, out=T.empty(3)),
    "a list of tensors": lambda T: T.cat([x(T), x(T).requires_grad_()], out=T.empty(4, 3)),
    "out itself requires grad": lambda T: T.neg(x(T), out=T.zeros(2, 3, requires_grad=True)),
    "a composite": lambda T: T.matmul(x(T).requires_grad_(), x(T).t(), out=T.empty(2, 2)),
}


@pytest.mark.parametrize("name", sorted(AUTOGRAD))
def test_out_refuses_autograd_as_pytorch(name):
    ours, theirs = run_both(AUTOGRAD[name])
    assert theirs.error is not None and "out=" in theirs.error[1], "the program must fail on torch"
    assert_same(AUTOGRAD[name])


def test_out_under_no_grad_is_allowed():
    """Under ``no_grad`` the same calls work; ``out`` keeps its own requires_grad and gets no grad_fn."""
    def program(T):
        out = T.zeros(2, 3, requires_grad=True)
        with T.no_grad():
            result = T.add(x(T).requires_grad_(), 1, out=out)
        return result is out, out
    assert_same(program)


MESSAGES = {
    "out is not a tensor": lambda T: T.add(x(T), x(T), out="a"),
    "out is a number": lambda T: T.exp(x(T), out=1),
    "out is a number that becomes a tensor (mul takes numbers as tensors)": lambda T: T.mul(x(T), 2, out=1),
    "out given positionally": lambda T: T.neg(x(T), T.empty(2, 3)),
    "out with an unknown keyword": lambda T: T.mul(x(T), x(T), out=T.empty(2, 3), foo=1),
    "a bad argument beside out": lambda T: T.mul(x(T), "a", out=T.empty(2, 3)),
    "a list of tensors and a bad out": lambda T: T.cat([x(T)], out=[x(T)]),
    "sum with a str dim and out": lambda T: T.sum(x(T), "a", out=T.empty(3)),
    "out for the overload without one": lambda T: T.sum(x(T), out=T.empty(())),
    "clamp with a str and out": lambda T: T.clamp(x(T), "a", out=T.empty(2, 3)),
    "where with a str and out": lambda T: T.where(x(T) > 0, x(T), 1, out="a"),
    "remainder of numbers and out": lambda T: T.remainder(2, 3, out=T.empty(())),
    "pow with a str": lambda T: T.pow(x(T), "a"),
    "add with too many and out": lambda T: T.add(x(T), x(T), 2, 3, out=T.empty(2, 3)),
    "methods never take out": lambda T: x(T).add(x(T), out=T.empty(2, 3)),
    "the deprecated add(input, alpha, other) has out= too": lambda T: T.add(x(T), 2, x(T), out="a"),
    "the deprecated add, one too many": lambda T: T.add(x(T), 2, x(T), x(T), out=x(T)),
    "out is keyword-only": lambda T: T.add(x(T), x(T), 1, x(T)),
    "a bad third positional beside out": lambda T: T.add(x(T), 2, "a", out=x(T)),
    "a method with a bad argument": lambda T: x(T).exp(out=T.empty(2, 3)),
}


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_function_form_messages_as_pytorch(name):
    ours, theirs = run_both(MESSAGES[name])
    assert theirs.error is not None, "the program must fail on torch"
    assert_same(MESSAGES[name])


def test_a_number_for_out_is_a_wrapped_tensor_where_numbers_are_tensors():
    """PyTorch's parser turns ``out=2.5`` into a zero-dim tensor for ``add``, and fills it. (Resizing one, PyTorch
    warns twice: not modelled.)"""
    assert_same(_warnings_of(lambda T: (T.add(T.ones(()), 1, out=2.5), T.mul(T.ones(()), 3, out=True))))


def test_out_none_is_the_functional_call():
    assert_same(lambda T: (T.add(x(T), 1, out=None), T.sum(x(T), 0, out=None), T.cat([x(T)], out=None)))


# several outputs: out=(values, indices), a tuple or a list, returned as torch.return_types.<name>_out
SEVERAL = {
    "sort": lambda T: T.sort(x(T), 1, out=(T.empty(2, 3), T.empty(2, 3, dtype=T.int64))),
    "sort descending, a list": lambda T: T.sort(x(T), descending=True,
                                                out=[T.empty(2, 3), T.empty(2, 3, dtype=T.int64)]),
    "sort stable": lambda T: T.sort(x(T), stable=True, dim=0, out=(T.empty(0), T.empty(0, dtype=T.int64))),
    "max over a dim": lambda T: T.max(x(T), 1, out=(T.empty(2), T.empty(2, dtype=T.int64))),
    "min keepdim": lambda T: T.min(x(T), 0, True, out=(T.empty(1, 3), T.empty(1, 3, dtype=T.int64))),
    "topk": lambda T: T.topk(x(T), 2, out=(T.empty(2, 2), T.empty(2, 2, dtype=T.int64))),
    "one tensor too few": lambda T: T.sort(x(T), out=(T.empty(2, 3),)),
    "one tensor too many": lambda T: T.max(x(T), 0, out=(T.empty(3), T.empty(3, dtype=T.int64), T.empty(3))),
    "a tensor for the tuple": lambda T: T.sort(x(T), out=T.empty(2, 3)),
    "a number in the tuple": lambda T: T.sort(x(T), out=(T.empty(2, 3), 1)),
    "values of the wrong dtype": lambda T: T.sort(x(T), out=(T.empty(2, 3, dtype=T.int64), T.empty(2, 3))),
    "indices of the wrong dtype": lambda T: T.max(x(T), 1, out=(T.empty(2), T.empty(2))),
    "a resized values": _warnings_of(lambda T: T.max(x(T), 1, out=(T.empty(5), T.empty(2, dtype=T.int64)))),
    "requires grad": lambda T: T.sort(x(T).requires_grad_(), out=(T.empty(2, 3), T.empty(2, 3, dtype=T.int64))),
}


@pytest.mark.parametrize("name", sorted(SEVERAL))
def test_out_of_several_tensors_as_pytorch(name):
    assert_same(SEVERAL[name])


def test_several_outputs_are_the_tensors_given():
    def program(T):
        values, indices = T.empty(2, 3), T.empty(2, 3, dtype=T.int64)
        result = T.sort(x(T), out=(values, indices))
        return type(result).__name__, result.values is values, result[1] is indices, values._version, indices._version
    assert_same(program)


VALUES = [1, 2.5, "a", None, True, (1, 2), [0], -1]
# functions whose overloads agree with PyTorch's (not mm: mm.dtype, nor div, where, amax, bitwise_*, softmax: see
# DIFFERENT in test_arg_parser_vs_torch.py)
FUNCTIONS = ["mul", "sum", "clamp", "remainder", "pow", "exp", "neg", "cat", "argmax", "max", "min", "sort", "topk",
             "eq", "maximum", "gather", "index_select", "logsumexp", "mean", "argsort"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FUNCTIONS), st.lists(st.sampled_from(range(len(VALUES))), max_size=2),
       st.sampled_from([None, "out", "dim", "foo"]), st.sampled_from(range(len(VALUES) + 1)))
def test_function_forms_with_out_fuzz(name, positions, keyword, keyword_value):
    """Function calls on a tensor with values of every kind, maybe ``out=`` (a tensor or not): same outcome."""
    def program(T):
        value = T.zeros(2) if keyword_value == len(VALUES) else VALUES[keyword_value]
        kwargs = {} if keyword is None else {keyword: value}
        return getattr(T, name)(x(T), *[VALUES[p] for p in positions], **kwargs)
    assert_same(_warnings_of(program))


def test_out_on_a_device_under_the_array_api():
    """A ``cuda`` backed by ``array_api_strict``: out= writes there; an ``out`` on another device is refused with
    TensorIterator's message (no GPU to compare with PyTorch here)."""
    xps = pytest.importorskip("array_api_strict")  # optional third-party backend: skipped where missing
    T = picotorch
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        a = T.tensor([3.0, 1.0], device="cuda")
        out = T.empty(2, device="cuda")
        assert T.add(a, 1, out=out) is out and out.tolist() == [4.0, 2.0] and out.device.type == "cuda"
        values, indices = T.empty(0, device="cuda"), T.empty(0, dtype=T.int64, device="cuda")
        T.sort(a, out=(values, indices))
        assert (values.tolist(), indices.tolist()) == ([1.0, 3.0], [1, 0])
        with pytest.raises(RuntimeError, match=r"^Expected all tensors to be on the same device, but found at least "
                                               r"two devices, cpu and cuda:0!$"):
            T.add(a, 1, out=T.empty(2))
