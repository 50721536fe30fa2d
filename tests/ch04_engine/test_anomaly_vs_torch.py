"""Anomaly mode against PyTorch: the flags, the forward stack kept in ``node.metadata``, the warnings
printed when a node's backward fails (with the chain of parent nodes), the NaN check and the in-place
error's hint (``anomaly_mode.cpp``, ``python_anomaly_mode.cpp``, ``engine.cpp``, ``torch/autograd/anomaly_mode.py``).

Warnings are compared up to their traceback lines (``  File ...`` and the code under it), which name
different files in the two libraries; the last forward frame (the user's line) is compared too.
"""

from __future__ import annotations

import warnings

import pytest

import picotorch
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def attempt(fn):
    try:
        return fn()
    except Exception as err:  # the error is what we compare
        return ("raised", type(err).__name__, str(err))


def without_traceback(message: str) -> str:
    """A warning's text without its stack lines (they start with two spaces)."""
    return "\n".join(line for line in message.split("\n") if not line.startswith("  "))


def warned(fn):
    """(what ``fn()`` returned or raised, [(category, text without traceback lines), ...])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = attempt(fn)
    return result, [(w.category.__name__, without_traceback(str(w.message))) for w in caught]


@pytest.fixture(autouse=True)
def anomaly_mode_off_after_each_test():
    yield
    for lib in (picotorch, torch):
        lib.set_anomaly_enabled(False, True)


# --- the flags ------------------------------------------------------------------------------------


def test_flags_and_their_defaults():
    def prog(t):
        states = [(t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled())]
        t.autograd.set_detect_anomaly(True)  # a plain call sets the flags and keeps them
        states.append((t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()))
        t.set_anomaly_enabled(True, False)
        states.append((t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()))
        t.set_anomaly_enabled(False)
        states.append((t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()))
        return states

    assert_same(prog)


def test_context_managers_nest_and_restore():
    def prog(t):
        states = []
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            states.append((t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()))
            with t.autograd.set_detect_anomaly(False):
                states.append((t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()))
            states.append((t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()))
        states.append((t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()))
        return states

    assert_same(prog)


def test_detect_anomaly_warns_and_is_only_a_context_manager():
    def prog(t):
        def enter():
            with t.autograd.detect_anomaly(check_nan=False):
                return t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()

        inside, warnings_seen = warned(enter)
        not_a_decorator, _ = warned(lambda: t.autograd.detect_anomaly()(print))
        return inside, warnings_seen, not_a_decorator, t.is_anomaly_enabled()

    assert assert_same(prog).value[2] == ["raised", "TypeError", "'detect_anomaly' object is not callable"]


def test_bad_arguments():
    def prog(t):
        return (attempt(lambda: t.set_anomaly_enabled(1)), attempt(lambda: t.set_anomaly_enabled()),
                attempt(lambda: t.autograd.set_detect_anomaly()))

    assert_same(prog)


# --- what a node remembers ------------------------------------------------------------------------


def test_metadata_holds_the_forward_stack_only_in_anomaly_mode():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        plain = a * 2
        with t.autograd.set_detect_anomaly(True):
            watched = a * 2
        stack = watched.grad_fn.metadata["traceback_"]
        last = stack[-1].split("\n")
        return (dict(plain.grad_fn.metadata), sorted(watched.grad_fn.metadata), type(stack).__name__,
                all(s.startswith("  File ") for s in stack), last[1].strip(), last[0].rsplit(", ", 1)[1])

    assert assert_same(prog).value[-2:] == ["watched = a * 2", "in prog"]


def test_nodes_made_by_a_backward_know_their_parent():
    def prog(t):
        with t.autograd.set_detect_anomaly(True):
            a = t.tensor([1.0, 2.0], requires_grad=True)
            y = a.exp()
            (g,) = t.autograd.grad(y.sum(), a, create_graph=True)
        meta = g.grad_fn.metadata
        return sorted(meta), meta["parent_"].name(), meta["parent_"] is y.grad_fn, sorted(y.grad_fn.metadata)

    assert_same(prog)


# --- a failing backward ---------------------------------------------------------------------------


def test_nan_check_names_the_node_and_the_output():
    def prog(t):
        with t.autograd.set_detect_anomaly(True):
            a = t.tensor([0.0, 1.0], requires_grad=True)
            b = t.tensor([1.0, 2.0], requires_grad=True)
            y = (a / a) * b  # 0/0 is nan: the gradient of b, MulBackward0's second output, is nan
            return warned(lambda: y.sum().backward()), a.grad, b.grad

    result = assert_same(prog).value
    assert result[0][0][2] == "Function 'MulBackward0' returned nan values in its 1th output."


def test_nan_in_a_later_output():
    def prog(t):
        with t.autograd.set_detect_anomaly(True):
            a = t.tensor([1.0, 2.0], requires_grad=True)
            b = t.tensor([0.0, 2.0], requires_grad=True)
            y = a * b
            return warned(lambda: y.backward(t.tensor([0.0, 1.0]) / b.detach()))

    assert_same(prog)


def test_check_nan_off_lets_nan_through():
    def prog(t):
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            a = t.tensor([0.0, 1.0], requires_grad=True)
            result = warned(lambda: (a / a).sum().backward())
        return result, a.grad

    assert_same(prog)


def test_no_nan_check_outside_anomaly_mode():
    def prog(t):
        a = t.tensor([0.0, 1.0], requires_grad=True)
        result = warned(lambda: (a / a).sum().backward())
        return result, a.grad

    assert_same(prog)


def test_a_node_made_before_anomaly_mode_has_no_stack_to_show():
    def prog(t):
        a = t.tensor([0.0, 1.0], requires_grad=True)
        y = a / a
        with t.autograd.set_detect_anomaly(True):
            z = y * 1
            return warned(lambda: z.sum().backward())

    assert_same(prog)


def test_the_parent_chain_is_printed():
    def prog(t):
        with t.autograd.set_detect_anomaly(True):
            a = t.tensor([1.0, 2.0], requires_grad=True)
            y = a.exp()
            (g,) = t.autograd.grad(y.sum(), a, create_graph=True)
            (g2,) = t.autograd.grad(g.sum(), a, create_graph=True)
            return warned(lambda: g2.backward(t.tensor([float("nan"), 1.0])))

    result = assert_same(prog).value
    assert [text.split(".")[0] for _, text in result[1]] == ["Error detected in MulBackward0",
                                                             "\n\nPrevious calculation was induced by ExpBackward0"]


def test_a_parent_made_before_anomaly_mode():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        y = a.exp()
        with t.autograd.set_detect_anomaly(True):
            (g,) = t.autograd.grad(y.sum(), a, create_graph=True)
            return warned(lambda: g.backward(t.tensor([float("nan"), 1.0])))

    assert_same(prog)


def test_the_in_place_error_in_anomaly_mode():
    def prog(t):
        with t.autograd.set_detect_anomaly(True):
            a = t.ones(3, requires_grad=True)
            y = a.exp()
            y.add_(1)
            return warned(lambda: y.sum().backward())

    assert_same(prog)


def test_an_error_in_a_hook_is_reported_for_its_node():
    def prog(t):
        def hook(grad):
            raise ValueError("hook failed")

        with t.autograd.set_detect_anomaly(True):
            a = t.ones(2, requires_grad=True)
            y = a * 2
            z = y * 3
            y.register_hook(hook)
            return warned(lambda: z.sum().backward())

    assert_same(prog)


def test_the_engine_is_usable_after_an_anomaly():
    def prog(t):
        with t.autograd.set_detect_anomaly(True):
            a = t.tensor([0.0, 1.0], requires_grad=True)
            first = warned(lambda: (a / a).sum().backward())
            (a * 3).sum().backward()
        return first, a.grad, t.is_anomaly_enabled()

    assert_same(prog)


def test_the_warning_text_with_its_traceback():
    """The whole warning, with the file of each frame left out: the user's frame is the last one."""
    def prog(t):
        with t.autograd.set_detect_anomaly(True):
            a = t.tensor([0.0, 1.0], requires_grad=True)
            y = a / a
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                attempt(lambda: y.sum().backward())
        (message,) = [str(w.message) for w in caught]
        lines = message.split("\n")
        return lines[0], lines[-3].split(", ", 1)[1], lines[-2].strip(), lines[-1]

    assert_same(prog)
