"""A Gantt chart of a Chrome trace: one row per thread, one bar per complete ("X") event.

Reads the Chrome trace format (``{"traceEvents": [...]}``, times in microseconds): what
``picotorch.autograd.profiler.profile`` exports, and also what ``torch.profiler`` and Horovod's
timeline write, so the same call draws either. Duck-typed like the rest of ``viz``: it takes the
trace dict, its list of events, a path to the JSON file, or anything with a ``chrome_trace()`` method.
"""

from __future__ import annotations

import json
from os import PathLike

ENGINE_PREFIX = "autograd::engine::evaluate_function: "  # the engine's span names (viz imports no picotorch)


def trace_events(trace) -> list[dict]:
    """The list of events, whatever form the trace came in."""
    if hasattr(trace, "chrome_trace"):
        trace = trace.chrome_trace()
    if isinstance(trace, (str, PathLike)):
        with open(trace) as file:
            trace = json.load(file)
    if isinstance(trace, dict):
        trace = trace["traceEvents"]
    return list(trace)


def timeline_rows(events: list[dict]) -> dict[str, list[dict]]:
    """Row label (the thread's name, else its id) -> that thread's "X" events, in the order they started."""
    names = {(e.get("pid"), e.get("tid")): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    rows: dict[str, list[dict]] = {}
    for event in sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"]):
        key = (event.get("pid"), event.get("tid"))
        rows.setdefault(names.get(key, f"thread {event.get('tid')}"), []).append(event)
    return rows


def draw_timeline(trace, ax=None, label_min_fraction: float = 0.03):
    """Draw the trace's spans as bars (x: microseconds, one row per thread); returns the matplotlib Axes.

    A bar wider than ``label_min_fraction`` of the whole trace carries its name (the engine's prefix
    ``autograd::engine::evaluate_function:`` dropped).
    """
    import matplotlib.pyplot as plt  # lazy: only drawing a timeline needs matplotlib

    rows = timeline_rows(trace_events(trace))
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 0.6 + 0.5 * max(1, len(rows))))
    spans = [e for events in rows.values() for e in events]
    start = min((e["ts"] for e in spans), default=0.0)
    width = max((e["ts"] + e["dur"] for e in spans), default=1.0) - start or 1.0
    colors = {}
    for y, events in enumerate(rows.values()):
        for event in events:
            color = colors.setdefault(event.get("cat", ""), f"C{len(colors) % 10}")
            ax.broken_barh([(event["ts"] - start, event["dur"])], (y - 0.4, 0.8), facecolors=color,
                           edgecolors="white", linewidth=0.5)
            if event["dur"] >= label_min_fraction * width:
                ax.text(event["ts"] - start + event["dur"] / 2, y, event["name"].removeprefix(ENGINE_PREFIX),
                        ha="center", va="center", fontsize=7, clip_on=True)
    ax.set_yticks(range(len(rows)), list(rows))
    ax.invert_yaxis()
    ax.set_xlabel("time (µs)")
    return ax
