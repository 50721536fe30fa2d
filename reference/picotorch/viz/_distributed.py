"""A Gantt chart of a distributed run: one group of rows per rank, backward and communication bars.

Reads the Chrome trace of ``picotorch.distributed.timeline`` (process rows = ranks, named by ``process_name``
events; thread rows ``backward``, ``communication`` and one per tensor, named by ``thread_name`` events) from
the trace dict, a JSON path, or anything with a ``chrome_trace()`` method. By default it draws the
``backward`` and ``communication`` rows of each rank, one above the other, so the moments when the network
works while gradients are still being computed (overlap) show as bars stacked in the same columns.

Fast on thousands of events: one ``broken_barh`` per row and colour, text only on wide bars.
"""

from __future__ import annotations

from ._timeline import ENGINE_PREFIX, trace_events

DEFAULT_ROWS = ("backward", "communication")
PHASE_COLORS = {  # by the event's name; anything else (a user annotation) is grey
    "backward": "tab:blue", "NEGOTIATE": "tab:olive", "QUEUE": "tab:gray", "MEMCPY_IN_FUSION_BUFFER": "tab:green",
    "ALLREDUCE": "tab:red", "MEMCPY_OUT_FUSION_BUFFER": "tab:purple", "BROADCAST": "tab:orange",
}


def draw_distributed_timeline(trace, rows=DEFAULT_ROWS, ax=None, figsize=None, title=None,
                              label_min_fraction: float = 0.05):
    """Draw each rank's rows (``rows``: thread-row names to show, ``None`` for every row, tensors included);
    x in milliseconds. Returns the matplotlib ``Figure``."""
    import matplotlib.pyplot as plt  # lazy: only drawing needs matplotlib
    from matplotlib.patches import Patch

    events = trace_events(trace)
    groups = trace_groups(events, rows)
    labels = [(group, row) for group, group_rows in groups.items() for row in group_rows]
    if ax is None:
        _, ax = plt.subplots(figsize=figsize or (11, 0.8 + 0.35 * max(1, len(labels))))
    spans = [e for group_rows in groups.values() for row in group_rows.values() for e in row]
    origin = min((e["ts"] for e in spans), default=0.0)
    width = (max((e["ts"] + e["dur"] for e in spans), default=1.0) - origin) / 1000 or 1.0
    used = {}
    for y, (group, row) in enumerate(labels):
        by_color: dict[str, list] = {}
        for event in groups[group][row]:
            color = used.setdefault(_legend_name(event), _color(event))
            by_color.setdefault(color, []).append(((event["ts"] - origin) / 1000, event["dur"] / 1000))
            if event["dur"] / 1000 >= label_min_fraction * width:
                ax.text((event["ts"] - origin + event["dur"] / 2) / 1000, y, _short(event["name"]), ha="center",
                        va="center", fontsize=7, clip_on=True)
        for color, bars in by_color.items():
            ax.broken_barh(bars, (y - 0.4, 0.8), facecolors=color, edgecolors="white", linewidth=0.3)
    _draw_group_separators(ax, groups)
    ax.set_yticks(range(len(labels)), [f"{group} · {row}" for group, row in labels])
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlabel("time (ms)")
    ax.legend(handles=[Patch(color=color, label=name) for name, color in used.items()], loc="upper left",
              bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    ax.figure.tight_layout()
    return ax.figure


def trace_groups(events: list[dict], rows=DEFAULT_ROWS) -> dict[str, dict[str, list[dict]]]:
    """Process name -> thread-row name -> its complete events with a duration, processes and rows in their
    sort order (``rows`` chooses and orders the rows; ``None``: all, in the trace's order)."""
    process_names, process_order, thread_names, thread_order = {}, {}, {}, {}
    for e in events:
        if e.get("ph") != "M":
            continue
        key, args = (e.get("pid"), e.get("tid")), e.get("args", {})
        if e["name"] == "process_name":
            process_names[key[0]] = args.get("name", f"process {key[0]}")
        elif e["name"] == "process_sort_index":
            process_order[key[0]] = args.get("sort_index", 0)
        elif e["name"] == "thread_name":
            thread_names[key] = args.get("name", f"thread {key[1]}")
        elif e["name"] == "thread_sort_index":
            thread_order[key] = args.get("sort_index", 0)
    cells: dict = {}
    for e in events:
        if e.get("ph") == "X" and e.get("dur", 0) > 0:
            cells.setdefault(e.get("pid"), {}).setdefault(e.get("tid"), []).append(e)
    groups = {}
    for pid in sorted(set(process_names) | set(cells), key=lambda pid: (process_order.get(pid, pid), pid)):
        named = {thread_names.get((pid, tid), f"thread {tid}"): cells.get(pid, {}).get(tid, [])
                 for tid in sorted({tid for p, tid in thread_names if p == pid} | set(cells.get(pid, {})),
                                   key=lambda tid: (thread_order.get((pid, tid), tid), tid))}
        chosen = named if rows is None else {row: named.get(row, []) for row in rows}
        groups[process_names.get(pid, f"process {pid}")] = chosen
    return groups


def _legend_name(event: dict) -> str:
    if event.get("cat") == "cpu_op":
        return "backward"
    name = event["name"]
    return "NEGOTIATE" if name.startswith("NEGOTIATE_") else name


def _color(event: dict) -> str:
    return PHASE_COLORS.get(_legend_name(event), "lightgray")


def _short(name: str) -> str:
    return name.removeprefix(ENGINE_PREFIX)


def _draw_group_separators(ax, groups: dict) -> None:
    y = -0.5
    for group_rows in list(groups.values())[:-1]:
        y += len(group_rows)
        ax.axhline(y, color="black", linewidth=0.8)
