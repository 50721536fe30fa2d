"""The argument parser's messages against PyTorch's (python_arg_parser.cpp, invalid_arguments.cpp).

Every program makes one bad call on both libraries; the exception type and text must match character for
character: a wrong type, a missing or extra argument, an unknown or repeated keyword, and the "invalid
combination" message that lists every signature, with its "didn't match because" lines where PyTorch
prints them. Ops whose overloads differ from PyTorch's are listed in DIFFERENT with the reason.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from picotorch_course.difftest import assert_same, run_both

pytest.importorskip("torch")


def x(T):
    return T.ones(2, 3)


PROGRAMS = {
    # one signature: PyTorch's parser raises its own message
    "wrong type, function": lambda T: T.mul(x(T), "a"),
    "wrong type, method": lambda T: x(T).mul("a"),
    "wrong type for a keyword": lambda T: T.add(x(T), x(T), alpha="a"),
    "a dtype where a tensor goes": lambda T: T.matmul(x(T), T.float32),
    "a NumPy float where an int goes": lambda T: x(T).transpose(0, np.float64(1.0)),
    "div with nothing": lambda T: x(T).div(),  # the overloads with rounding_mode listed as PyTorch lists them
    "a Size where an int goes": lambda T: x(T).transpose(0, T.Size([1])),
    "a device where an int goes": lambda T: x(T).transpose(T.device("cpu"), 1),
    "a Generator where an int goes": lambda T: x(T).transpose(0, T.Generator()),
    "a NumPy bool where a bool goes": lambda T: T.sum(x(T), 0, keepdim=np.bool_(True)),
    "an int where a bool goes": lambda T: x(T).sum(0, keepdim=1),
    "a float where an int list goes": lambda T: T.reshape(x(T), 1.5),
    "missing one, function": lambda T: T.mul(x(T)),
    "missing one, method": lambda T: x(T).mul(),
    "missing two (the plural is PyTorch's)": lambda T: T.transpose(x(T)),
    "missing two, method": lambda T: x(T).transpose(),
    "missing the int list": lambda T: x(T).permute(),
    "too many positional": lambda T: T.mul(x(T), x(T), x(T)),
    "too many, from 1 to 3": lambda T: T.argmax(x(T), 0, True, 1),
    "too many, method": lambda T: x(T).gather(0, T.zeros(1, 1, dtype=T.int64), 1, 2),
    "unexpected keyword": lambda T: T.mul(x(T), x(T), foo=1),
    "unexpected keyword, method": lambda T: x(T).mul(x(T), foo=1),
    "multiple values": lambda T: T.mul(x(T), other=x(T), input=x(T)),
    "multiple values, int list": lambda T: x(T).expand(2, size=3),
    "not a tensor in a list": lambda T: T.cat([x(T), 1]),
    "not a tensor in a list, method-like stack": lambda T: T.stack((x(T), "a")),
    "a tensor for the list": lambda T: T.cat(x(T)),
    "a bad dim after a good list": lambda T: T.cat([x(T), x(T)], "a"),
    "an int list with a bad element": lambda T: x(T).view(2, "a"),
    "an int list with a bad element, tuple": lambda T: x(T).view((2, 3.5)),
    "a bad element later on": lambda T: x(T).permute(0, 1, "a"),
    "a bool first is not": lambda T: x(T).reshape(True, 6),
    "an int list took the first argument only": lambda T: x(T).permute((1, 0), 1),
    "an int[1] takes one int, so no varargs": lambda T: x(T).std(-1, 1, 1),
    "keepdim is not packed into the dims": lambda T: x(T).sum(0, 1),
    "keepdim is not packed into the dims (mean)": lambda T: x(T).mean(1, 1),
    "expand: not ints, and too many": lambda T: x(T).expand("a", 2),
    "expand: one object": lambda T: x(T).expand(object()),
    "expand: by keyword": lambda T: x(T).expand(size="a"),
    "gather index": lambda T: T.gather(x(T), 0, 1),
    "where: too few": lambda T: x(T).where(x(T) > 0),
    "where with a Tensor and an int": lambda T: T.where(x(T) > 0, 1),
    "where function with a str": lambda T: T.where(x(T) > 0, x(T), "a"),
    "a method without parameters given one": lambda T: x(T).abs(1),
    "a method without parameters given a keyword": lambda T: x(T).exp(foo=1),
    "add method, none": lambda T: x(T).add(),
    "unrecognized keyword with one signature listed": lambda T: x(T).sub(x(T), x(T), x(T), foo=1),
    # several signatures: "received an invalid combination of arguments"
    "sum with a str": lambda T: x(T).sum("a"),
    "sum with a bool": lambda T: x(T).sum(True),
    "squeeze with a str": lambda T: x(T).squeeze("a"),
    "squeeze with a list of str": lambda T: x(T).squeeze(["a"]),
    "squeeze with a tuple of str": lambda T: x(T).squeeze(("a",)),
    "max with None": lambda T: x(T).max(None),
    "max with four ints": lambda T: x(T).max(1, 2, 3, 4),
    "max keepdim not a bool": lambda T: x(T).max(dim=0, keepdim=1),
    "bitwise_and method keyword": lambda T: x(T).bitwise_and(other="a"),
    "bitwise_and method unknown keyword": lambda T: x(T).bitwise_and(foo="a"),
    "bitwise_and two arguments": lambda T: x(T).bitwise_and(1, foo="a"),
    "eq with a str": lambda T: x(T).eq("a"),
    "clamp method with a str": lambda T: x(T).clamp("a"),
    "clamp method keywords (PyTorch's map order)": lambda T: x(T).clamp(zeta=1, alpha=2, mid=3, q=4),
    "keywords in the map's order, not reversed": lambda T: x(T).clamp(biqpmz_=1, plsgq=2, jey=3, tz=4, rwzte=5),
    "keywords in the map's order, seven": lambda T: x(T).clamp(fkq=1, dtovf=1, p=1, sqjulm_=1, erwao=1, kx=1, r=1),
    "clamp_min method with a str": lambda T: x(T).clamp_min("a"),
    "where method with a str": lambda T: x(T).where(x(T) > 0, "a"),
    "std method with a str": lambda T: x(T).std("a"),
    "var method too many": lambda T: x(T).var(0, True, True, 1),
    "pow method with a str": lambda T: x(T).pow("a"),
    "argsort method with a str": lambda T: x(T).argsort("a"),
    "split function with a str": lambda T: T.split(x(T), "a"),
    "narrow function with a float": lambda T: T.narrow(x(T), 0, 1.5, 1),
    "mean method with a str": lambda T: x(T).mean("a"),
    "fill_ with a str": lambda T: x(T).fill_("a"),
    "div method with a str": lambda T: x(T).div("a"),
    # function forms: a functional overload and its out= overload are one signature ending in `Tensor out = None`
    "sum function with a str": lambda T: T.sum(x(T), "a"),
    "clamp function with a str": lambda T: T.clamp(x(T), "a"),
    "sub function, too many": lambda T: T.sub(x(T), x(T), x(T), x(T), x(T)),
    "add with one tensor": lambda T: T.add(x(T)),
    "remainder function with two numbers": lambda T: T.remainder(2, 3),
    "sort function with a str (out= of two tensors)": lambda T: T.sort(x(T), "a"),
    "a number for a dtype": lambda T: x(T).softmax(0, -1),  # ScalarType parameters are checked when binding
}

# Programs whose messages differ, and why: picotorch's YAML has fewer overloads than PyTorch's.
DIFFERENT = {
    "bitwise_and function with a str": (lambda T: T.bitwise_and(x(T), "a"),
                                        "no bitwise_and.Scalar_Tensor overload"),
    "an int for an unsized int list": (lambda T: T.reshape(x(T), 6),
                                       "binding takes one int for any int[] (PyTorch only for int[N])"),
    "None for a dim with the default []": (lambda T: x(T).amax(None, True),
                                           "binding does not know that a [] default also allows None"),
    "copy_'s parameter name": (lambda T: x(T).copy_(), "PyTorch's hand-written copy_ calls it other, the YAML src"),
    "addmm too many": (lambda T: T.addmm(x(T)), "no addmm.dtype (out_dtype) overload"),
    "scatter with a str": (lambda T: x(T).scatter(0, "a", "b"), "no scatter.reduce / scatter.value_reduce"),
    "a deprecated add that PyTorch binds": (lambda T: T.add(x(T), 2, x(T)),
                                            "deprecated signatures are known (for messages) but not bound"),
    "a bound builtin method without parameters": (lambda T: (lambda f: f(1))(x(T).abs),
                                                  "CPython names a bound C method after the instance's class"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bad_call_message_as_pytorch(name):
    ours, theirs = run_both(PROGRAMS[name])
    assert theirs.error is not None, "the program must fail on torch"
    assert_same(PROGRAMS[name])


@pytest.mark.filterwarnings("ignore:This overload of add is deprecated")
@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_known_differences_still_differ(name):
    """Each listed difference is real: if it disappears, move the program to PROGRAMS."""
    program, _reason = DIFFERENT[name]
    with pytest.raises(AssertionError, match="differ"):
        assert_same(program)


def test_good_calls_still_bind():
    """Calls PyTorch's parser accepts bind here too: NumPy ints for ints, a bool after the first int of a list."""
    assert_same(lambda T: (x(T).view(3, 2), x(T).sum(0, keepdim=True), T.add(x(T), 1, alpha=2),
                           x(T).max(dim=1).values, T.where(x(T) > 0, x(T), 0.0), x(T).squeeze(0),
                           x(T).transpose(np.int64(0), 1), x(T).flip(np.int64(1)), x(T).mean(np.int32(1)),
                           x(T).view(2, True, 3), x(T).permute(np.int64(1), 0), x(T).sum((0, True))))


VALUES = [1, 2.5, "a", None, True, (1, 2), [1, "a"], np.float32(1.0), np.int64(1), -1, (), [0]]
# methods whose overloads agree with PyTorch's (no deprecated forms, no missing overloads)
OPS = ["mul", "transpose", "sum", "squeeze", "gather", "max", "min", "clamp", "where", "eq", "permute", "argsort",
       "std", "var", "mean", "pow", "bitwise_and", "remainder", "clamp_min", "reshape", "flip", "repeat",
       "unsqueeze", "narrow", "chunk", "argmax", "fill_", "lt", "sort", "topk", "index_select", "floor_divide"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(OPS), st.lists(st.sampled_from(range(len(VALUES))), min_size=0, max_size=3),
       st.sampled_from([None, "dim", "other", "keepdim", "foo", "size", "input"]), st.sampled_from(range(len(VALUES))))
def test_wrong_types_fuzz(name, positions, keyword, keyword_value):
    """Method calls with values of every kind at each place, and maybe one keyword: same result or message."""
    kwargs = {} if keyword is None else {keyword: VALUES[keyword_value]}
    assert_same(lambda T: getattr(T.ones(2, 3), name)(*[VALUES[i] for i in positions], **kwargs))
