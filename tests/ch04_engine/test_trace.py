"""The execution trace: ``picotorch.autograd.profiler.profile`` records each node's span and thread.

Off by default (the engine never looks per node); on, one span per node named as PyTorch's engine
names it, your own spans from ``record_function``, a Chrome trace JSON, and a Gantt chart.
"""

import json
import threading

import pytest

import picotorch
from picotorch.autograd import profiler
from picotorch.autograd.profiler import ENGINE_SPAN_PREFIX, profile, record_function

xps = pytest.importorskip("array_api_strict")

from picotorch.native.device import use_backend  # noqa: E402


def traced_backward():
    x = picotorch.ones(3, requires_grad=True)
    y = (x.exp() * 2).sum()
    y.grad_fn.register_prehook(lambda grads: _user_span())
    with profile() as prof:
        y.backward()
    return prof


def _user_span():
    with record_function("my_span"):
        pass


def test_off_by_default_nothing_is_recorded():
    assert profiler.current_profile() is None
    with profile(enabled=False) as prof:
        x = picotorch.ones(2, requires_grad=True)
        (x * 2).sum().backward()
    assert prof.spans == [] and profiler.current_profile() is None


def test_one_span_per_node_in_the_order_they_ran_with_the_thread():
    prof = traced_backward()
    names = [span.name for span in prof.spans]
    assert names == ["my_span"] + [ENGINE_SPAN_PREFIX + name for name in
                                   ("SumBackward0", "MulBackward0", "ExpBackward0", "torch::autograd::AccumulateGrad")]
    assert {span.thread_name for span in prof.spans} == {threading.current_thread().name}
    node_spans = [span for span in prof.spans if span.category == "cpu_op"]
    assert all(a.end_ns <= b.start_ns for a, b in zip(node_spans, node_spans[1:]))
    mine = prof.spans[0]
    assert node_spans[0].start_ns <= mine.start_ns <= mine.end_ns <= node_spans[0].end_ns
    assert profiler.current_profile() is None


def test_chrome_trace_json_has_x_events_in_microseconds_and_thread_names(tmp_path):
    prof = traced_backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    meta = [e for e in events if e["ph"] == "M"]
    spans = [e for e in events if e["ph"] == "X"]
    assert [e["args"]["name"] for e in meta] == [threading.current_thread().name]
    assert len(spans) == 5 and all(set(e) == {"name", "cat", "ph", "ts", "dur", "pid", "tid"} for e in spans)
    assert all(e["ts"] >= 0 and e["dur"] >= 0 and e["tid"] == meta[0]["tid"] for e in spans)
    first = min(prof.spans, key=lambda s: s.start_ns)
    assert spans[0]["ts"] == (first.start_ns - prof.origin_ns) / 1000


def test_device_nodes_are_traced_on_their_device_thread():
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        x = picotorch.ones(3, requires_grad=True)
        out = (x.cuda() * 2).sum().cpu()
        with profile() as prof:
            out.backward()
    spans = sorted(prof.spans, key=lambda span: span.start_ns)
    threads = [(span.name.removeprefix(ENGINE_SPAN_PREFIX), span.thread_name) for span in spans]
    assert threads == [("ToCopyBackward0", "MainThread"), ("SumBackward0", "pt_autograd_0"),
                       ("MulBackward0", "pt_autograd_0"), ("ToCopyBackward0", "pt_autograd_0"),
                       ("torch::autograd::AccumulateGrad", "MainThread")]
    events = prof.trace_events()
    assert sorted(e["args"]["name"] for e in events if e["ph"] == "M") == ["MainThread", "pt_autograd_0"]


def test_callers_add_their_own_spans_from_any_thread():
    with profile() as prof:
        worker = threading.Thread(target=_user_span, name="comm")
        worker.start()
        worker.join()
        prof.add_span("all_reduce", 10, 20)

    @record_function("decorated")
    def step():
        return 3

    with profile() as second:
        assert step() == 3
    assert [(s.name, s.thread_name) for s in prof.spans] == [("my_span", "comm"), ("all_reduce", "MainThread")]
    assert [s.name for s in second.spans] == ["decorated"]


def test_draw_timeline_has_one_row_per_thread():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from picotorch.viz import draw_timeline

    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        x = picotorch.ones(3, requires_grad=True)
        out = (x.cuda() * 2).sum().cpu() + (x.to("cuda:1") * 3).sum().cpu()
        with profile() as prof:
            out.backward()
    ax = draw_timeline(prof)
    rows = sorted(t.get_text() for t in ax.get_yticklabels())
    assert rows == ["MainThread", "pt_autograd_0", "pt_autograd_1"]
    assert len(ax.collections) == len(prof.spans)
    assert draw_timeline(prof.chrome_trace()["traceEvents"]).get_xlabel() == "time (µs)"
