"""When each backward node ran, and on which thread: ``profile``, ``record_function``, the Chrome trace.

Models the part of ``torch/autograd/profiler.py`` (``profile``, ``record_function``,
``export_chrome_trace``) a learner uses to watch the engine. Inside ``with profile() as prof:`` the
engine records one span per node it runs, named as PyTorch's engine names it
(``autograd::engine::evaluate_function: MulBackward0``, the ``RECORD_FUNCTION`` in ``engine.cpp``),
with the thread that ran it; ``with record_function("all_reduce"):`` adds a span of your own
(chapter 07 marks its communication this way), from any thread.

Off by default, and then free: the engine asks ``current_profile()`` once per backward, never per node.
Simplification: PyTorch's profiler also records every forward operator and the GPU kernels; picotorch
records backward nodes and your own spans.

``prof.export_chrome_trace(path)`` writes the Chrome trace format (``{"traceEvents": [...]}``: one
complete ``"X"`` event per span, times in microseconds, one ``"M"`` event naming each thread), which
Perfetto (ui.perfetto.dev) and ``chrome://tracing`` open, as they open Horovod's timeline.
``picotorch.viz.draw_timeline(prof)`` draws the same events as a Gantt chart, one row per thread.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

__all__ = ["Span", "chrome_trace_event", "current_profile", "profile", "record_function", "thread_name_event"]

ENGINE_SPAN_PREFIX = "autograd::engine::evaluate_function: "

_current: profile | None = None  # the active profile, seen by every thread


def current_profile() -> profile | None:
    """The profile being recorded, or None (what the engine checks once per backward)."""
    return _current


@dataclass(slots=True)
class Span:
    """Something that ran from ``start_ns`` to ``end_ns`` (``time.perf_counter_ns``) on one thread."""

    name: str
    start_ns: int
    end_ns: int
    thread_id: int  # threading.get_native_id() of the thread
    thread_name: str
    category: str = "user_annotation"  # PyTorch's traces: "cpu_op" for engine nodes, this for yours


# ----------------------------------------------------------------------------- Chrome trace events


def thread_name_event(thread_id: int, thread_name: str, pid: int) -> dict:
    """A metadata (``"M"``) event: the trace viewer shows ``thread_name`` for the row of ``thread_id``."""
    return {"name": "thread_name", "ph": "M", "pid": pid, "tid": thread_id, "args": {"name": thread_name}}


def chrome_trace_event(span: Span, origin_ns: int, pid: int) -> dict:
    """A complete (``"X"``) event: name, category, start ``ts`` and ``dur`` in microseconds since ``origin_ns``.

    ``thread_name_event`` above is the worked example: one dict, the keys the trace format names.
    """
    # BEGIN SOLUTION 4.6: one "X" event dict: name, cat, ph, ts and dur (microseconds from origin_ns), pid, tid
    return {"name": span.name, "cat": span.category, "ph": "X",
            "ts": (span.start_ns - origin_ns) / 1000, "dur": (span.end_ns - span.start_ns) / 1000,
            "pid": pid, "tid": span.thread_id}
    # END SOLUTION


# ----------------------------------------------------------------------------- recording


class profile:
    """``torch.autograd.profiler.profile``: record engine nodes and ``record_function`` spans while active."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.spans: list[Span] = []
        self.origin_ns = time.perf_counter_ns()
        self._previous: profile | None = None

    def __enter__(self) -> profile:
        global _current
        if self.enabled:
            self.origin_ns = time.perf_counter_ns()
            self._previous, _current = _current, self
        return self

    def __exit__(self, *exc) -> bool:
        global _current
        if self.enabled:
            _current = self._previous
        return False

    def add_span(self, name: str, start_ns: int, end_ns: int, category: str = "user_annotation") -> Span:
        """Record a span that ran on the calling thread (list.append is atomic: any thread may call this)."""
        span = Span(name, start_ns, end_ns, threading.get_native_id(), threading.current_thread().name, category)
        self.spans.append(span)
        return span

    def trace_events(self) -> list[dict]:
        """The thread names first, then one ``"X"`` event per span, in the order they started."""
        pid = os.getpid()
        threads = {span.thread_id: span.thread_name for span in self.spans}
        events = [thread_name_event(tid, name, pid) for tid, name in threads.items()]
        spans = sorted(self.spans, key=lambda span: span.start_ns)
        return events + [chrome_trace_event(span, self.origin_ns, pid) for span in spans]

    def chrome_trace(self) -> dict:
        return {"traceEvents": self.trace_events(), "displayTimeUnit": "ms"}

    def export_chrome_trace(self, path) -> None:
        """Write the Chrome trace JSON; open it in ui.perfetto.dev or chrome://tracing."""
        import json  # lazy: only this export needs it (chapter 06, import time)

        with open(path, "w") as file:
            json.dump(self.chrome_trace(), file)


class record_function:
    """``torch.autograd.profiler.record_function``: a span of your own, as a context manager or decorator."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.start_ns = 0

    def __enter__(self) -> record_function:
        self.start_ns = time.perf_counter_ns()
        return self

    def __exit__(self, *exc) -> bool:
        prof = _current
        if prof is not None:
            prof.add_span(self.name, self.start_ns, time.perf_counter_ns())
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
        return wrapper
