"""The chapter 06 ``__torch_function__`` exercises: 6.2 (``_get_overloaded_args``) and 6.3 (the default
``Tensor.__torch_function__``). Each test fails on the stub (NotImplementedError) and passes on the reference.

The expected values were printed by PyTorch 2.13 (``torch.overrides._get_overloaded_args`` and the same
programs on ``torch.Tensor`` subclasses); ``test_torch_function_vs_torch.py`` checks them against a live
torch. These tests need no torch.
"""

from __future__ import annotations

import pytest

import picotorch
from picotorch import _C
from picotorch.overrides import _get_overloaded_args


class A(picotorch.Tensor):
    pass


class B(A):
    pass


class C(picotorch.Tensor):
    pass


class Log(picotorch.Tensor):
    calls: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs)


def _names(values) -> list:
    return [type(v).__name__ for v in values]


def _sub(cls, *values, requires_grad=False):
    return picotorch.tensor(list(values) or [1.0], requires_grad=requires_grad).as_subclass(cls)


# --- 6.2: which arguments' handlers to try, in which order ---------------------------------------------------


@pytest.mark.exercise("6.2")
@pytest.mark.parametrize(("kinds", "expected"), [
    ("AB", ["B", "A"]),
    ("BA", ["B", "A"]),
    ("AAB", ["B", "A"]),
    ("CAB", ["C", "B", "A"]),
    ("ACB", ["B", "A", "C"]),
    ("C", ["C"]),
])
def test_subclass_first_each_type_once_otherwise_left_to_right(kinds, expected):
    """A type is listed once (its first argument); a subclass goes before the first superclass already listed."""
    classes = {"A": A, "B": B, "C": C}
    assert _names(_get_overloaded_args([_sub(classes[k]) for k in kinds])) == expected


@pytest.mark.exercise("6.2")
def test_only_arguments_with_a_torch_function_count():
    """Numbers, strings and nn.Parameter (its handler is _disabled_torch_function_impl) are left out; a plain
    Tensor counts here (torch.overrides' rule), after its subclasses."""
    plain, param = picotorch.ones(1), picotorch.nn.Parameter(picotorch.ones(1))
    assert _names(_get_overloaded_args([1, "x", param, _sub(C)])) == ["C"]
    assert _names(_get_overloaded_args([plain, _sub(A)])) == ["A", "Tensor"]
    assert _get_overloaded_args([]) == []


@pytest.mark.exercise("6.2")
def test_the_subclass_handler_answers_first():
    """picotorch.add(a, b) with B a subclass of A asks B's __torch_function__ first, with types (B, A)."""
    asked = []

    class First(picotorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            asked.append((cls.__name__, [t.__name__ for t in types]))
            return NotImplemented if cls is First else "second answered"

    class Second(First):
        pass

    assert picotorch.add(_sub(First), _sub(Second)) == "second answered"
    assert asked == [("Second", ["Second", "First"])]


# --- 6.3: the default Tensor.__torch_function__ -------------------------------------------------------------


@pytest.mark.exercise("6.3")
def test_results_keep_the_subclass():
    """The default handler converts tensor results to cls, also inside tuples, lists and named tuples."""
    x = _sub(A, 1.0, 3.0, 2.0)
    assert type(x * 2) is A
    assert type(picotorch.add(picotorch.ones(3), x)) is A
    assert _names(x.unbind(0)) == ["A", "A", "A"]
    values, indices = x.max(0)
    assert (type(values), type(indices)) == (A, A)
    assert type(x.max(0)).__name__ == "max"


@pytest.mark.exercise("6.3")
def test_func_runs_with_subclass_handling_disabled():
    """Inside the default handler the call runs as for plain tensors: one logged name per user call."""
    Log.calls = []
    x = _sub(Log, 1.0, 2.0, 3.0).requires_grad_()
    y = (x * 2).sum()
    y.backward()
    assert Log.calls == ["requires_grad_", "mul", "sum", "backward"]
    assert type(y) is Log


@pytest.mark.exercise("6.3")
def test_grad_is_not_wrapped():
    """Tensor.grad.__get__ is a no-wrap getter: x.grad stays the stored plain Tensor (x.grad is x.grad)."""
    x = picotorch.Tensor._make_subclass(A, picotorch.tensor([1.0, 2.0]), True)
    (x * x).sum().backward()
    assert type(x.grad) is picotorch.Tensor
    assert x.grad is x.grad
    assert x.grad.tolist() == [2.0, 4.0]


def test_unrelated_types_decline():  # the check written before exercise 6.3's block: it holds on the stub too
    """The default declines (NotImplemented) when cls is not a subclass of every type in types."""
    with pytest.raises(TypeError) as error:
        picotorch.add(_sub(A), _sub(C))
    assert str(error.value) == (
        "Multiple dispatch failed for 'torch.add'; all __torch_function__ handlers returned NotImplemented:\n\n"
        f"  - tensor subclass {A!r}\n  - tensor subclass {C!r}\n\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented")
    assert picotorch.Tensor.__torch_function__.__func__(A, picotorch.add, (A, C), (1, 2)) is NotImplemented


# --- reached only by subclasses ---------------------------------------------------------------------------


def test_plain_tensors_never_reach_the_protocol():
    """Plain tensors and Parameters have no torch function: the bindings' check stops at their type."""
    plain, param = picotorch.ones(2), picotorch.nn.Parameter(picotorch.ones(2))
    assert not _C._has_torch_function((plain, param, 1, None))
    assert type(param * 2) is picotorch.Tensor
