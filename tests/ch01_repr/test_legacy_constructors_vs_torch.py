"""The legacy constructors and types against PyTorch: ``torch.Tensor(...)``, ``torch.FloatTensor(...)`` and the other
``tensortype`` classes (``python_tensor.cpp``), ``Tensor.new``, ``isinstance`` against a legacy type,
``Tensor.type(cls)``, a ``Tensor`` subclass called like ``torch.Tensor``, the constants ``torch.pi``/``e``/``inf``/
``nan``/``newaxis``, and the element conversion errors of a constructor given a dtype (``store_scalar``)."""

from __future__ import annotations

import numpy as np
import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _named(value):
    """Class objects print with the library's name: compare them as torch's."""
    return repr(value).replace("picotorch", "torch")


PROGRAMS = {
    "the types": lambda T: [_named(c) for c in (T.FloatTensor, type(T.FloatTensor), T.HalfTensor)] + [
        T.LongTensor.dtype, T.BoolTensor.is_cuda, T.IntTensor.is_sparse, T.BFloat16Tensor.dtype, T.ByteTensor.layout,
        T.FloatTensor.__name__, issubclass(T.FloatTensor, T.Tensor), _named(type(T.FloatTensor([1])))],
    "data in each type": lambda T: [T.FloatTensor([1, 2]), T.DoubleTensor([[1], [2]]), T.LongTensor([1.7, -2.2]),
                                    T.BoolTensor([2, 0]), T.ByteTensor([-1]), T.CharTensor([1]), T.ShortTensor([1]),
                                    T.IntTensor([1]), T.HalfTensor([1.1]), T.BFloat16Tensor([1.1])],
    "sizes": lambda T: [tuple(c(2, 3).shape) + (c(2, 3).dtype,) for c in (T.FloatTensor, T.LongTensor, T.Tensor)]
    + [T.FloatTensor().shape, T.Tensor().shape, T.Tensor(T.Size([2])).shape, T.FloatTensor(T.Size([1, 2])).shape],
    "other data": lambda T: [T.Tensor(np.arange(3)), T.LongTensor(np.arange(3.0)), T.Tensor(range(3)),
                             T.Tensor((1, 2)), T.ones(2).new(range(2))],
    "the default dtype": lambda T: (T.set_default_dtype(T.float64), T.Tensor([1]).dtype, T.FloatTensor([1]).dtype,
                                    T.set_default_dtype(T.float32)),
    "a number": lambda T: T.FloatTensor(3.5),
    "a str": lambda T: T.FloatTensor("ab"),
    "a str to torch.Tensor": lambda T: T.Tensor("ab"),
    "a str to new": lambda T: T.ones(2).new("ab"),
    "a str among the data": lambda T: T.Tensor([1, "a"]),
    "dtype= is refused": lambda T: T.FloatTensor([1], dtype=T.float64),
    "dtype= with a size": lambda T: T.Tensor(2, dtype=T.float64),
    "a str among the sizes": lambda T: T.Tensor(2, 3, "a"),
    "a float among the sizes": lambda T: T.ones(1).new(2, 3.5),
    "two lists": lambda T: T.Tensor([1, 2], [3]),
    "device=": lambda T: [T.FloatTensor([1], device="cpu"), T.Tensor([1], device="cpu")],
    "a tensor of another dtype": lambda T: T.FloatTensor(T.ones(2, dtype=T.float64)),
    "torch.Tensor aliases any tensor": lambda T: (lambda x: (T.Tensor(x), T.Tensor(x).grad_fn.name(),
                                                             T.Tensor(x)._base is x))(
        T.ones(2, dtype=T.float64, requires_grad=True)),
    "a legacy type aliases its own dtype": lambda T: (lambda x: (T.FloatTensor(x).grad_fn.name(),
                                                                 T.FloatTensor(x)._base is x))(
        T.ones(2, requires_grad=True)),
    "isinstance": lambda T: [isinstance(T.ones(2), T.FloatTensor), isinstance(T.ones(2).double(), T.FloatTensor),
                             isinstance(T.ones(2), T.DoubleTensor), isinstance(3, T.FloatTensor),
                             isinstance(T.nn.Parameter(T.ones(1)), T.FloatTensor),
                             isinstance(T.ones(1, dtype=T.int64), T.LongTensor)],
    "type(cls)": lambda T: [T.ones(2).type(T.DoubleTensor), T.ones(2).type("torch.IntTensor"),
                            T.ones(2, dtype=T.int64).type(T.Tensor), T.ones(2).type(T.FloatTensor)],
    "type(int)": lambda T: T.ones(2).type(int),
    "type of an unknown name": lambda T: T.ones(2).type("torch.Foo"),
    "constants": lambda T: [T.pi, T.e, T.inf, T.nan, T.newaxis, T.ones(2)[T.newaxis].shape,
                            [n in T.__all__ for n in ("pi", "e", "nan", "newaxis", "FloatTensor", "HalfTensor")]],
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_legacy_constructors(name):
    assert_same(PROGRAMS[name])


def test_a_subclass_called_like_torch_tensor_is_an_instance_of_itself():
    def prog(T):
        class Plain(T.Tensor):
            pass

        class Wrapped(T.Tensor):
            def __new__(cls, data):
                return T.Tensor._make_subclass(cls, data)

            def __init__(self, data):
                self.tag = "initialised"

        made = [Plain([1.0, 2]), Plain(2), Plain(), Plain(T.ones(2)), Wrapped(T.ones(2))]
        return [type(m).__name__ for m in made], made[0], made[1].shape, made[4].tag

    assert_same(prog)


@pytest.mark.parametrize("dtype", ["float32", "float16", "complex64", "int64", "uint8", "bool"])
@pytest.mark.parametrize("bad", ["'a'", "None", "1j", "[1]", "object()"])
def test_an_element_the_given_dtype_cannot_hold(dtype, bad):
    """With a dtype nothing is inferred: each element is converted in order, and Python's conversion error of the
    first that cannot be is the message."""
    assert_same(lambda T: T.tensor([1, eval(bad)], dtype=getattr(T, dtype)))
