"""Reentrant backward: a backward called from inside a node (here from a hook), against PyTorch.

The nested backward runs on the same thread, one level deeper, until ``MAX_DEPTH`` (60) levels are
nested on that thread; the next level goes to a new thread (``Engine::reentrant_thread_init``), which
can nest 60 more. Which level ran on which thread, and the order of the nodes, match PyTorch's.
"""

import threading

import pytest

import picotorch
from picotorch.autograd.engine import MAX_DEPTH, get_default_engine

xps = pytest.importorskip("array_api_strict")

from picotorch.native.device import use_backend  # noqa: E402


def nested_backwards(T, levels: int) -> list[int]:
    """Level k's hook starts level k+1's backward; returns, per level, which thread ran it (0, 1, ...)."""
    threads = []

    def level(k):
        x = T.ones(1, requires_grad=True)
        y = x * 2
        def hook(grads):
            threads.append(threading.current_thread().name)
            if k < levels:
                with T.enable_grad():
                    level(k + 1)
        y.grad_fn.register_prehook(hook)
        y.sum().backward()
        assert x.grad.item() == 2.0

    level(1)
    numbers = {}
    return [numbers.setdefault(name, len(numbers)) for name in threads]


def test_reentrant_backwards_change_thread_where_pytorch_does():
    torch = pytest.importorskip("torch")
    ours = nested_backwards(picotorch, 130)
    assert ours == nested_backwards(torch, 130)
    assert ours.index(1) == MAX_DEPTH + 1 and ours.index(2) == 2 * MAX_DEPTH + 2


def test_a_lower_max_recursion_depth_moves_to_a_new_thread_sooner(monkeypatch):
    monkeypatch.setattr(get_default_engine(), "max_recursion_depth", 3)
    assert nested_backwards(picotorch, 10) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]


def order_with_reentrant_backward(T):
    """The outer graph's nodes and an inner backward started by one of them, in the order they ran."""
    fired = []
    x = T.ones(2, requires_grad=True)
    a, b = x.exp(), x * 3
    out = (a * b).sum() + a.sum()

    def start_inner(grads):
        fired.append("inner starts")
        with T.enable_grad():
            w = T.ones(2, requires_grad=True)
            v = (w.tanh() * 2).sum()
            for node in (v.grad_fn, v.grad_fn.next_functions[0][0]):
                node.register_prehook(lambda g, node=node: fired.append("inner " + node.name()))
            v.backward()
        fired.append("inner done")

    stack, seen = [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda g, node=node: fired.append(node.name()))
        stack.extend(fn for fn, _ in node.next_functions)
    a.grad_fn.register_prehook(start_inner)
    out.backward()
    return fired


def test_an_inner_backward_runs_to_the_end_before_the_outer_goes_on():
    torch = pytest.importorskip("torch")
    assert order_with_reentrant_backward(picotorch) == order_with_reentrant_backward(torch)


def test_an_error_in_an_inner_backward_reaches_its_caller_and_the_outer_goes_on():
    caught = []
    x = picotorch.ones(2, requires_grad=True)
    y = x * 2

    def start_failing_inner(grads):
        with picotorch.enable_grad():
            w = picotorch.ones(2, requires_grad=True)
            v = w * 5
            v.grad_fn.register_prehook(lambda g: 1 / 0)
            try:
                v.sum().backward()
            except ZeroDivisionError as error:
                caught.append(str(error))

    y.grad_fn.register_prehook(start_failing_inner)
    y.sum().backward()
    assert caught == ["division by zero"] and x.grad.tolist() == [2.0, 2.0]


def test_a_backward_started_on_a_device_thread_runs_its_cpu_nodes_there():
    """The device thread's own queue is the inner backward's CPU queue (init_local_ready_queue)."""
    inner_threads = []
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        x = picotorch.ones(2, device="cuda", requires_grad=True)
        y = x * 2

        def start_inner(grads):
            with picotorch.enable_grad():
                w = picotorch.ones(2, requires_grad=True)
                v = w * 3
                v.grad_fn.register_prehook(lambda g: inner_threads.append(threading.current_thread().name))
                v.sum().backward()
                assert w.grad.tolist() == [3.0, 3.0]

        y.grad_fn.register_prehook(start_inner)
        y.sum().backward()
    assert inner_threads == ["pt_autograd_0"]
