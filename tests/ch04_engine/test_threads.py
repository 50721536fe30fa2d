"""Which thread runs each backward node: CPU nodes on the caller, each device's nodes on its own worker.

``cuda`` is backed by ``array_api_strict``'s two extra devices (``cuda:0``, ``cuda:1``), so the device
threads run without a GPU. A pre hook on every node records the thread that ran it. The order within
one queue is compared with PyTorch's order for the same program on the CPU (one queue, one rule).
"""

import contextvars
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import picotorch
from picotorch.autograd import profiler, set_multithreading_enabled, thread_local_state
from picotorch.autograd.engine import get_default_engine

xps = pytest.importorskip("array_api_strict")

from picotorch.native.device import use_backend  # noqa: E402


@pytest.fixture
def fake_cuda():
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        yield


def record_threads(root):
    """Give every node of the graph a pre hook; return the list they fill with (node, thread name)."""
    ran, seen, stack = [], set(), [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda grads, node=node: ran.append((node, threading.current_thread().name)))
        stack.extend(fn for fn, _ in node.next_functions)
    return ran


def expected_thread(node) -> str:
    device = node.device()
    return threading.current_thread().name if device.type == "cpu" else f"pt_autograd_{device.index}"


def two_device_graph(T):
    x = T.ones(3, requires_grad=True)
    a = x.cuda()
    b = a.to("cuda:1")
    return x, (a * 2).sum().cpu() + (b.exp() * 3).sum().cpu()


def test_cpu_nodes_run_on_the_caller_and_device_nodes_on_their_device_thread(fake_cuda):
    x, out = two_device_graph(picotorch)
    ran = record_threads(out)
    out.backward()
    assert {name for _, name in ran} == {threading.current_thread().name, "pt_autograd_0", "pt_autograd_1"}
    assert all(name == expected_thread(node) for node, name in ran)
    assert len(ran) == 11
    assert x.grad.tolist() == pytest.approx([2 + 3 * 2.718281828459045] * 3)


def test_a_node_runs_on_the_device_of_its_inputs_gradients(fake_cuda):
    """``.cuda()``'s ToCopyBackward0 receives a cuda gradient: the cuda thread runs it; ``.cpu()``'s: the caller."""
    _, out = two_device_graph(picotorch)
    ran = record_threads(out)
    out.backward()
    copies = [(str(node.device()), name) for node, name in ran if node.name() == "ToCopyBackward0"]
    assert sorted(copies) == [("cpu", "MainThread"), ("cpu", "MainThread"), ("cuda:0", "pt_autograd_0"),
                              ("cuda:1", "pt_autograd_1")]


UNARY = ["exp", "tanh", "sigmoid", "neg", "relu"]
BINARY = ["add", "mul", "sub"]
steps = st.lists(st.tuples(st.sampled_from(UNARY + BINARY + ["sum_to_scalar", "t"]), st.integers(0, 50),
                           st.integers(0, 50)), min_size=1, max_size=10)


def _build(T, program, n_leaves, device):
    leaves = [T.ones(2, 2, device=device, requires_grad=True) * (i + 1) if i % 2
              else T.ones(2, 2, device=device, requires_grad=True) for i in range(n_leaves)]
    values = list(leaves)
    for op, i, j in program:
        a, b = values[i % len(values)], values[j % len(values)]
        if op in UNARY:
            values.append(getattr(a, op)())
        elif op in BINARY:
            values.append(getattr(a, op)(b))
        elif op == "sum_to_scalar":
            values.append(a.sum() * b)
        else:
            values.append(a.t())
    return sum(v.sum() for v in values[n_leaves:])


def _order(T, program, n_leaves, device="cpu"):
    """The nodes that ran (numbered breadth-first from the root, with their names) and their threads."""
    root = _build(T, program, n_leaves, device)
    index, queue, fired = {}, [root.grad_fn], []
    while queue:
        node = queue.pop(0)
        if node is None or node in index:
            continue
        index[node] = len(index)
        node.register_prehook(lambda grads, k=index[node], node=node:
                              fired.append((k, node.name(), threading.current_thread().name)))
        queue.extend(n for n, _ in node.next_functions)
    root.backward()
    return [(k, name) for k, name, _ in fired], {thread for _, _, thread in fired}


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(program=steps, n_leaves=st.integers(1, 3))
def test_a_device_queue_runs_its_nodes_in_pytorchs_order(fake_cuda, program, n_leaves):
    """Every node on cuda:0: one worker, one queue; the order is torch's order for the same graph."""
    torch = pytest.importorskip("torch")
    order, threads = _order(picotorch, program, n_leaves, "cuda:0")
    assert threads == {"pt_autograd_0"}
    assert order == _order(torch, program, n_leaves)[0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=steps, n_leaves=st.integers(1, 3))
def test_the_threads_path_keeps_pytorchs_cpu_order(program, n_leaves):
    """With a profile recording, a CPU backward runs through thread_main and its thread-safe queue."""
    torch = pytest.importorskip("torch")
    with profiler.profile() as prof:
        order, threads = _order(picotorch, program, n_leaves)
    assert threads == {threading.current_thread().name}
    assert len(prof.spans) == len(order)
    assert order == _order(torch, program, n_leaves)[0]


def test_an_error_on_a_device_thread_reaches_the_caller_and_the_engine_goes_on(fake_cuda):
    def boom(grads):
        raise ValueError("boom on the device thread")

    x = picotorch.ones(2, device="cuda", requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(boom)
    with pytest.raises(ValueError, match="^boom on the device thread$"):
        y.sum().backward()
    for device in ("cuda:0", "cuda:1", "cpu"):
        z = picotorch.ones(2, device=device, requires_grad=True)
        (z * 3).sum().backward()
        assert z.grad.tolist() == [3.0, 3.0]


def test_an_invalid_gradient_on_a_device_thread_raises_pytorchs_text(fake_cuda):
    x = picotorch.ones(2, 3, device="cuda", requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda grads: (picotorch.ones(5, device="cuda"),))
    with pytest.raises(RuntimeError, match=r"^hook '<lambda>' has changed the size of value$"):
        y.sum().backward()


def test_grad_mode_on_a_device_thread_is_create_graph(fake_cuda):
    seen = []
    x = picotorch.ones(2, device="cuda", requires_grad=True)
    y = x * x
    y.grad_fn.register_prehook(lambda grads: seen.append(picotorch.is_grad_enabled()))
    y.sum().backward(create_graph=True)
    assert seen == [True] and x.grad.requires_grad
    z = x * x
    z.grad_fn.register_prehook(lambda grads: seen.append(picotorch.is_grad_enabled()))
    z.sum().backward()
    assert seen == [True, False]


def test_autograd_grad_captures_on_device_threads(fake_cuda):
    x = picotorch.ones(3, requires_grad=True)
    a = x.cuda()
    out = (a * a * 4).sum().cpu() + (a.to("cuda:1") * 5).sum().cpu()
    ga, gx = picotorch.autograd.grad(out, [a, x])
    assert str(ga.device) == "cuda:0" and ga.tolist() == [13.0] * 3
    assert str(gx.device) == "cpu" and gx.tolist() == [13.0] * 3


def test_gradients_from_two_device_threads_add_up_correctly(fake_cuda):
    """A CPU node fed by both device threads: its count and buffer are updated under the GraphTask's mutex."""
    for _ in range(20):
        x = picotorch.ones(4, requires_grad=True)
        parts = [(x.to(f"cuda:{i % 2}") * (i + 1)).sum().cpu() for i in range(8)]
        sum(parts).backward()
        assert x.grad.tolist() == [36.0] * 4


def test_set_multithreading_enabled_false_keeps_every_node_on_the_caller(fake_cuda):
    _, out = two_device_graph(picotorch)
    ran = record_threads(out)
    with set_multithreading_enabled(False):
        out.backward()
    assert {name for _, name in ran} == {threading.current_thread().name}


def test_the_plain_cpu_path_never_enters_the_threads(monkeypatch):
    """No device, no reentrance, no profile: the caller's own loop, not thread_main."""
    def no_threads(*args):
        raise AssertionError("thread_main was entered")

    monkeypatch.setattr(type(get_default_engine()), "thread_main", no_threads)
    x = picotorch.ones(3, requires_grad=True)
    (x.exp() * x).sum().backward()
    assert x.grad is not None


def test_device_threads_are_named_like_pytorchs_and_are_daemons(fake_cuda):
    x = picotorch.ones(1, device="cuda:1", requires_grad=True)
    (x * 2).sum().backward()
    workers = [t for t in threading.enumerate() if t.name.startswith("pt_autograd_")]
    assert "pt_autograd_1" in {t.name for t in workers} and all(t.daemon for t in workers)


def test_a_device_thread_runs_nodes_with_the_callers_thread_local_state(fake_cuda):
    """NOTE [ThreadLocalState]: picotorch's registered per-thread state travels with the backward to the
    device threads (as PyTorch's ThreadLocalState does); a program's own context variable does not."""
    carried = thread_local_state.propagate(contextvars.ContextVar("test_carried", default="default"))
    own = contextvars.ContextVar("test_own", default="default")
    seen = []
    x, out = two_device_graph(picotorch)
    node = out.grad_fn
    while node.device().type == "cpu":  # walk to a cuda node
        node = node.next_functions[0][0]
    node.register_prehook(lambda grads: seen.append((threading.current_thread().name, carried.get(), own.get())))
    carried.set("the caller's")
    own.set("the caller's")
    try:
        out.backward()
    finally:
        thread_local_state._PROPAGATED.remove(carried)
    assert seen == [("pt_autograd_0", "the caller's", "default")]
    assert carried.get() == "the caller's"  # and the caller's own values are untouched
