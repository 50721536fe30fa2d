"""The chapter 04 exercises of the engine's threads and trace (4.1, 4.2, 4.6). Each test fails on the
stub (NotImplementedError) and passes on the reference; no torch is needed. ``cuda`` is backed by
``array_api_strict``'s extra devices, so the device threads run without a GPU."""

from __future__ import annotations

import threading

import array_api_strict as xps
import pytest

import picotorch as torch
from picotorch.autograd.engine import Engine, get_default_engine
from picotorch.autograd.profiler import Span, chrome_trace_event
from picotorch.autograd.ready_queue import ThreadSafeReadyQueue
from picotorch.c10.device import device
from picotorch.native.device import use_backend


@pytest.fixture
def fake_cuda():
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        yield


# --- 4.1: Engine.ready_queue, a device's own queue -----------------------------------------------------


@pytest.mark.exercise("4.1")
def test_a_device_gets_one_queue_and_one_thread_the_first_time():
    """A non-CPU device: device_ready_queues[index], made (and its thread started) on first use, then reused."""
    engine = Engine()
    cpu_queue = ThreadSafeReadyQueue()
    assert engine.ready_queue(cpu_queue, device("cpu")) is cpu_queue
    queue = engine.ready_queue(cpu_queue, device("cuda", 1))
    assert isinstance(queue, ThreadSafeReadyQueue) and queue is not cpu_queue
    assert engine.ready_queue(cpu_queue, device("cuda", 1)) is queue
    assert list(engine.device_ready_queues) == [1] and engine.device_ready_queues[1] is queue
    assert engine.ready_queue(cpu_queue, device("cuda", 0)) is not queue


@pytest.mark.exercise("4.1")
def test_each_devices_nodes_run_on_its_thread(fake_cuda):
    """cuda:0's nodes on thread pt_autograd_0, cuda:1's on pt_autograd_1, the CPU's on the caller."""
    ran = []

    def record(name):
        return lambda grads: ran.append((name, threading.current_thread().name))

    x = torch.ones(2, requires_grad=True)
    a, b = x * 2, x.to("cuda:0") * 3
    c = x.to("cuda:1") * 4
    for name, t in (("cpu", a), ("cuda:0", b), ("cuda:1", c)):
        t.grad_fn.register_prehook(record(name))
    (a.sum() + b.sum().cpu() + c.sum().cpu()).backward()
    assert sorted(ran) == [("cpu", threading.current_thread().name), ("cuda:0", "pt_autograd_0"),
                           ("cuda:1", "pt_autograd_1")]
    assert x.grad.tolist() == [9.0, 9.0]


# --- 4.2: Engine.execute_reentrant, the reentrant-depth rule ---------------------------------------------


def nested_backwards(levels: int) -> list[str]:
    """Level k's hook runs level k+1's backward; the thread that ran each level."""
    threads = []

    def level(k):
        x = torch.ones(1, requires_grad=True)
        y = x * 2

        def hook(grads):
            threads.append(threading.current_thread().name)
            if k < levels:
                with torch.enable_grad():
                    level(k + 1)

        y.grad_fn.register_prehook(hook)
        y.sum().backward()
        assert x.grad.tolist() == [2.0]

    level(1)
    return threads


@pytest.mark.exercise("4.2")
def test_reentrant_backwards_stay_on_the_thread_below_the_max_depth():
    """Below max_recursion_depth a backward started inside a node runs on the same thread (thread_main, deeper)."""
    threads = nested_backwards(5)
    assert threads == [threading.current_thread().name] * 5


@pytest.mark.exercise("4.2")
def test_past_the_max_depth_a_new_thread_takes_over(monkeypatch):
    """With max_recursion_depth 2, levels 1-3 run on the caller; level 4 on a pool thread, which nests 2 more."""
    monkeypatch.setattr(get_default_engine(), "max_recursion_depth", 2)
    threads = nested_backwards(8)
    caller = threading.current_thread().name
    assert threads[:3] == [caller] * 3
    assert len(set(threads[3:6])) == 1 and threads[3] != caller
    assert threads[6] not in (caller, threads[3]) and threads[6] == threads[7]


# --- 4.6: chrome_trace_event, one span as one Chrome-trace event -------------------------------------


@pytest.mark.exercise("4.6")
def test_a_span_becomes_one_complete_event_in_microseconds():
    """ph 'X'; ts = start - origin and dur = end - start, both in microseconds; pid and tid as given."""
    span = Span("autograd::engine::evaluate_function: MulBackward0", start_ns=1_500_000, end_ns=1_502_500,
                thread_id=4242, thread_name="MainThread", category="cpu_op")
    event = chrome_trace_event(span, origin_ns=1_000_000, pid=7)
    assert event == {"name": "autograd::engine::evaluate_function: MulBackward0", "cat": "cpu_op", "ph": "X",
                     "ts": 500.0, "dur": 2.5, "pid": 7, "tid": 4242}


@pytest.mark.exercise("4.6")
def test_a_profile_exports_one_event_per_node():
    """Each recorded span is converted with chrome_trace_event: one 'X' event per node that ran."""
    x = torch.ones(2, requires_grad=True)
    with torch.autograd.profiler.profile() as prof:
        (x.exp() * 2).sum().backward()
    events = [e for e in prof.chrome_trace()["traceEvents"] if e["ph"] == "X"]
    assert [e["name"].split(": ")[1] for e in events] == ["SumBackward0", "MulBackward0", "ExpBackward0",
                                                          "torch::autograd::AccumulateGrad"]
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in events)
