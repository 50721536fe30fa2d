"""Differential-test helpers: capture prints, values, grads and errors; show readable differences."""

import sys
import types

import pytest

from picotorch_course import difftest, doctor


def fake_module(text: str, value: float, error: str | None = None):
    """A stand-in library: one Tensor class, dtype and device types, and one op."""
    mod = types.SimpleNamespace()

    class Tensor:
        dtype, shape, device, requires_grad, is_leaf, grad_fn, grad = "float32", (2,), "cpu", False, True, None, None

        def detach(self):
            return self

        def tolist(self):
            return [value, 2.0]

    def op():
        if error:
            raise ValueError(error)
        print(text)
        return Tensor()

    mod.Tensor, mod.dtype, mod.device, mod.op = Tensor, type("dtype", (), {}), type("device", (), {}), op
    return mod


def prog(lib):
    return {"t": lib.op(), "n": [1, (2, 3.0)]}


def test_same_behaviour_has_no_differences():
    a = difftest.run(prog, fake_module("hi", 1.0))
    b = difftest.run(prog, fake_module("hi", 1.0 + 1e-9))
    assert difftest.differences(a, b) == []
    assert a.value["t"]["values"] == [1.0, 2.0] and a.stdout == "hi\n"


def test_differences_are_readable():
    a = difftest.run(prog, fake_module("tensor([1.])", 1.0))
    b = difftest.run(prog, fake_module("tensor([1.5])", 1.5))
    lines = "\n".join(difftest.differences(a, b))
    assert "-tensor([1.5])" in lines and "+tensor([1.])" in lines
    assert "value.t.values[0]: picotorch 1.0 != torch 1.5" in lines


def test_exceptions_compare_type_and_message():
    a = difftest.run(prog, fake_module("", 1.0, error="bad size"))
    b = difftest.run(prog, fake_module("", 1.0, error="bad shape"))
    assert a.error == ("ValueError", "bad size")
    assert "torch:     ValueError: bad shape" in "\n".join(difftest.differences(a, b))


def test_assert_same_against_torch_itself(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setitem(sys.modules, "picotorch", torch)

    def graph(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        print(y)
        return x, y, t.ones(2).shape

    out = difftest.assert_same(graph)
    x, y, size = out.value
    assert x["grad"]["values"] == [2.0, 4.0] and y["grad_fn"] == "SumBackward0"
    assert size == {"type": "Size", "items": [2]}
    assert out.stdout == "tensor(5., grad_fn=<SumBackward0>)\n"

    calls = []

    def broken_first_time(t):  # picotorch runs first: give it the size error
        calls.append(t)
        return t.ones(2) + t.ones(3 if len(calls) == 1 else 2)

    with pytest.raises(AssertionError, match=r"(?s)exception differs.*torch:     no exception\n"
                       r"  picotorch: RuntimeError: The size of tensor a \(2\) must match"):
        difftest.assert_same(broken_first_time)


def test_doctor_never_raises_and_has_a_stable_form():
    full = doctor.report()
    assert "numpy" in full and "GPU (cupy)" in full
    stable = doctor.facts(stable=True)
    assert all(isinstance(v, bool) for v in stable.values())
