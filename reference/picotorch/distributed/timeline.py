"""What each rank did when: ``horovod/common/timeline.cc``, as one Chrome trace per run.

Horovod's timeline (``hvd.start_timeline(path)`` or ``HOROVOD_TIMELINE=path``) is a Chrome-trace JSON that
Perfetto (ui.perfetto.dev) and ``chrome://tracing`` open. It has one row per tensor, and on each row the
phases the tensor went through, named as ``operations.cc`` names them:

- ``NEGOTIATE_ALLREDUCE`` (or ``NEGOTIATE_BROADCAST``): from the request to the moment every rank had
  asked for that tensor, with a zero-length mark named ``"0"``, ``"1"``... when each rank's request
  arrived (``NegotiateRankReady``): the rank that marks last is the one everybody waited for;
- ``QUEUE``, ``MEMCPY_IN_FUSION_BUFFER``, ``ALLREDUCE`` (the collective itself), ``MEMCPY_OUT_FUSION_BUFFER``
  (or ``BROADCAST``): the work the background thread did for it;
- with ``mark_cycles=True``, an instant ``CYCLE_START`` each time the background cycle wakes up.

picotorch's trace holds the same rows and adds what Horovod's cannot show, the gradients being computed,
so the overlap of backward and communication is seen at a glance. Process rows are ranks (``pid`` = the
rank, named ``"rank K"``); in each, the thread rows are:

- ``backward``: the engine's nodes (``autograd::engine::evaluate_function: MmBackward0``...), recorded by
  ``picotorch.autograd.profiler`` (the rank threads of ``launch`` are named ``"rank K"``: that is how a
  node finds its rank; so the nodes a device's worker thread runs, ``pt_autograd_0`` for cuda, are left
  out of a threads run's trace);
- ``communication``: one bar per piece of work the runtime's background thread did (a fused buffer's
  ``ALLREDUCE`` is one bar, whatever the number of tensors in it; their names are in ``args``);
- one row per tensor, as in Horovod's file (negotiation marks on rank 0's rows: rank 0 is Horovod's
  coordinator, the rank that hears every request).

Two ways to record:

- ``hvd.start_timeline(path, mark_cycles=False)`` / ``hvd.stop_timeline()``, Horovod's calls, made by
  every rank (they are collectives here: they agree on a time origin, and at the stop rank 0 writes the
  one file). Under ``launch`` the ranks share one recorder (``broadcast_object`` hands rank 0's object to
  every thread); under MPI each process records its own ranks, and at the stop rank 0 gathers every
  rank's records with ``allgather_object`` and writes them all (the records are small tuples, so gathering
  is safe: no per-rank files).
- ``with Timeline(path): hvd.launch(train, 4)``: around a whole launch, without touching ``train``: every
  rank state made while it records joins it (``state.STATE_OBSERVERS``).

The runtime calls ``state.extra["timeline"].record(phase, tensor_names, start_ns, end_ns)`` (times from
``time.perf_counter_ns``) from its background thread; ``record("CYCLE_START", [], t, t)`` marks a cycle.
Simplification: Horovod's coordinator alone writes, while the file is being recorded; picotorch keeps the
records in memory and writes at the stop, and the end event carries no dtype or shape.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass

from ..autograd import profiler
from .basics import initialized_state
from .functions import allgather_object, broadcast_object
from .mpi_ops import barrier
from .state import STATE_OBSERVERS, RankState, current_or_none

__all__ = ["RankRecorder", "Timeline", "chrome_trace", "start_timeline", "stop_timeline"]

# Work the background thread does: the "communication" row shows these, one bar per call.
WORK_PHASES = ("MEMCPY_IN_FUSION_BUFFER", "ALLREDUCE", "MEMCPY_OUT_FUSION_BUFFER", "BROADCAST")
NEGOTIATE_PREFIX = "NEGOTIATE_"
CYCLE_START = "CYCLE_START"

# Thread rows inside each rank's process row.
BACKWARD_TID, COMMUNICATION_TID, ANNOTATIONS_TID, FIRST_TENSOR_TID = 0, 1, 2, 10
ROW_NAMES = {BACKWARD_TID: "backward", COMMUNICATION_TID: "communication", ANNOTATIONS_TID: "annotations"}

_RANK_THREAD = re.compile(r"rank (\d+)\b")  # launch names its threads "rank K"


# ----------------------------------------------------------------------------- hvd.start_timeline / stop_timeline


def start_timeline(file_path, mark_cycles=False) -> None:
    """``hvd.start_timeline``: record this rank's communication (and backward) until ``stop_timeline``.

    Every rank calls it, as every rank calls any collective. ``mark_cycles``: an instant event each time
    the background cycle starts.
    """
    state = initialized_state()
    if state.extra.get("timeline") is not None:
        raise ValueError("a timeline is already recording on this rank; call hvd.stop_timeline() first")
    if state.backend == "threads":  # one process: the ranks share rank 0's recorder (no copy is made)
        timeline = broadcast_object(Timeline(file_path, mark_cycles).start() if state.rank == 0 else None, 0)
    else:
        timeline = Timeline(file_path, mark_cycles)
        timeline.start(origin_ns=_agreed_origin(state))
    timeline.world_size = state.size
    state.extra["timeline"] = timeline.recorder(state.rank)


def stop_timeline() -> None:
    """``hvd.stop_timeline``: stop recording; rank 0 writes every rank's records into the one file."""
    state = initialized_state()
    recorder = state.extra.pop("timeline", None)
    if recorder is None:
        return  # Horovod logs "Timeline is already stopped" and goes on
    timeline = recorder.timeline
    if state.backend == "threads":
        barrier()  # every rank has stopped recording before rank 0 writes
        if state.rank == 0:
            timeline.stop()
        barrier()  # ... and the file exists when stop_timeline returns on any rank
        return
    timeline.stop(write=False)
    records = allgather_object(timeline.items())
    if state.rank == 0:
        timeline.export_chrome_trace(timeline.path, [item for rank_items in records for item in rank_items])


def _agreed_origin(state: RankState) -> int:
    """Time zero for every rank: rank 0's clock where all ranks share a host, else each clock after a barrier."""
    if state.local_size == state.size:  # perf_counter_ns is CLOCK_MONOTONIC: one clock per machine
        return broadcast_object(time.perf_counter_ns(), 0)
    barrier()
    return time.perf_counter_ns()


# ----------------------------------------------------------------------------- the recorder


@dataclass(slots=True)
class Record:
    """One ``record`` call: a phase of some tensors on one rank (``perf_counter_ns`` times)."""

    rank: int
    phase: str
    tensor_names: tuple
    start_ns: int
    end_ns: int


class RankRecorder:
    """What one rank's runtime finds in ``state.extra["timeline"]``: ``record`` appends to the timeline."""

    def __init__(self, timeline: Timeline, rank: int) -> None:
        self.timeline = timeline
        self.rank = rank

    @property
    def mark_cycles(self) -> bool:
        return self.timeline.mark_cycles

    def record(self, phase: str, tensor_names, start_ns: int, end_ns: int) -> None:
        if phase == CYCLE_START and not self.timeline.mark_cycles:
            return
        names = (tensor_names,) if isinstance(tensor_names, str) else tuple(tensor_names)
        self.timeline.records.append(Record(self.rank, phase, names, start_ns, end_ns))  # atomic: any thread

    def mark_cycle_start(self, ns: int | None = None) -> None:
        ns = time.perf_counter_ns() if ns is None else ns
        self.record(CYCLE_START, (), ns, ns)


class Timeline:
    """The records of the ranks of this process, and the backward nodes the profiler saw, as one trace.

    ``with Timeline("run.json"): hvd.launch(train, 4)`` records every rank of the launch and writes the
    file at the end; ``Timeline().chrome_trace()`` gives the trace as a dict (``picotorch.viz.
    draw_distributed_timeline`` draws it). ``backward=False`` leaves the profiler off (the engine then keeps
    its lock-free loop).
    """

    def __init__(self, path=None, mark_cycles: bool = False, backward: bool = True) -> None:
        self.path = path
        self.mark_cycles = mark_cycles
        self.backward = backward
        self.records: list[Record] = []
        self.world_size = 0  # the ranks to draw rows for (at least those seen)
        self.origin_ns = 0
        self.profile: profiler.profile | None = None
        self._recorders: dict[int, RankRecorder] = {}
        self._lock = threading.Lock()

    def recorder(self, rank: int) -> RankRecorder:
        with self._lock:
            if rank not in self._recorders:
                self._recorders[rank] = RankRecorder(self, rank)
            return self._recorders[rank]

    # ---- recording
    def start(self, origin_ns: int | None = None) -> Timeline:
        self.origin_ns = time.perf_counter_ns() if origin_ns is None else origin_ns
        if self.backward:
            self.profile = profiler.profile().__enter__()
            self.profile.origin_ns = self.origin_ns
        return self

    def stop(self, write: bool = True) -> Timeline:
        if self.profile is not None:
            self.profile.__exit__(None, None, None)
        if write and self.path is not None:
            self.export_chrome_trace(self.path)
        return self

    def __enter__(self) -> Timeline:
        STATE_OBSERVERS.append(self._join)
        state = current_or_none()
        if state is not None:
            self._join(state)
        return self.start()

    def __exit__(self, *exc) -> bool:
        STATE_OBSERVERS.remove(self._join)
        state = current_or_none()  # an initialized process (MPI) joined at the start: leave it
        if state is not None and state.extra.get("timeline") is self._recorders.get(state.rank):
            del state.extra["timeline"]
        self.stop()
        return False

    def _join(self, state: RankState) -> None:
        state.extra["timeline"] = self.recorder(state.rank)
        self.world_size = max(self.world_size, state.size)

    # ---- what was recorded, as plain tuples (what MPI ranks send to rank 0)
    def items(self) -> list[tuple]:
        """``("comm", rank, phase, names, start_ns, end_ns)`` and ``("span", rank, name, category, start, end)``,
        times in ns since this timeline's origin, ranks known for every item."""
        origin = self.origin_ns
        items = [("comm", r.rank, r.phase, r.tensor_names, r.start_ns - origin, r.end_ns - origin)
                 for r in list(self.records)]
        for span in list(self.profile.spans) if self.profile is not None else ():
            rank = self._rank_of_thread(span.thread_name)
            if rank is not None:
                items.append(("span", rank, span.name, span.category, span.start_ns - origin, span.end_ns - origin))
        return items

    def _rank_of_thread(self, thread_name: str) -> int | None:
        match = _RANK_THREAD.match(thread_name)
        if match:
            return int(match.group(1))
        ranks = list(self._recorders)
        return ranks[0] if len(ranks) == 1 else None  # MPI: this process is one rank; other threads: skipped

    def chrome_trace(self, items: list[tuple] | None = None) -> dict:
        items = self.items() if items is None else items
        return chrome_trace(items, max([self.world_size] + [item[1] + 1 for item in items]))

    def export_chrome_trace(self, path, items: list[tuple] | None = None) -> None:
        with open(path, "w") as file:
            json.dump(self.chrome_trace(items), file)


# ----------------------------------------------------------------------------- the Chrome trace


def chrome_trace(items: list[tuple], world_size: int) -> dict:
    """The trace of ``Timeline.items()`` (from one process or gathered from all): rows per rank, as above."""
    events = [event for rank in range(world_size) for event in _rank_metadata(rank)]
    tensor_tids: dict[tuple, int] = {}  # (rank, tensor name) -> its row
    for item in sorted(items, key=lambda item: item[4]):
        if item[0] == "span":
            _, rank, name, category, start, end = item
            tid = BACKWARD_TID if category == "cpu_op" else ANNOTATIONS_TID
            events.append(_complete(name, category, rank, tid, start, end))
        else:
            events.extend(_comm_events(item, tensor_tids))
    events.extend(_negotiation_marks([item for item in items if item[0] == "comm"], tensor_tids))
    events.extend(_row_names(tensor_tids, {(item[1], ANNOTATIONS_TID) for item in items
                                           if item[0] == "span" and item[3] != "cpu_op"}))
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def _rank_metadata(rank: int) -> list[dict]:
    return [{"name": "process_name", "ph": "M", "pid": rank, "args": {"name": f"rank {rank}"}},
            {"name": "process_sort_index", "ph": "M", "pid": rank, "args": {"sort_index": rank}}] + [
        _thread_name(rank, tid, ROW_NAMES[tid]) for tid in (BACKWARD_TID, COMMUNICATION_TID)]


def _thread_name(pid: int, tid: int, name: str) -> dict:
    return {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}


def _row_names(tensor_tids: dict[tuple, int], annotation_rows: set) -> list[dict]:
    events = [_thread_name(pid, tid, ROW_NAMES[tid]) for pid, tid in sorted(annotation_rows)]
    for (rank, name), tid in tensor_tids.items():
        events.append(_thread_name(rank, tid, name))
        events.append({"name": "thread_sort_index", "ph": "M", "pid": rank, "tid": tid, "args": {"sort_index": tid}})
    return events


def _complete(name: str, category: str, pid: int, tid: int, start_ns: int, end_ns: int, args=None) -> dict:
    event = {"name": name, "cat": category, "ph": "X", "ts": start_ns / 1000, "dur": (end_ns - start_ns) / 1000,
             "pid": pid, "tid": tid}
    if args:
        event["args"] = args
    return event


def _comm_events(item: tuple, tensor_tids: dict[tuple, int]) -> list[dict]:
    _, rank, phase, names, start, end = item
    if phase == CYCLE_START:
        return [{"name": CYCLE_START, "ph": "i", "s": "p", "ts": start / 1000, "pid": rank, "tid": COMMUNICATION_TID}]
    events = []
    if phase in WORK_PHASES:
        events.append(_complete(phase, "communication", rank, COMMUNICATION_TID, start, end, {"tensors": list(names)}))
    for name in names:
        if (rank, name) not in tensor_tids:
            tensor_tids[rank, name] = FIRST_TENSOR_TID + sum(r == rank for r, _ in tensor_tids)  # next free row
        tid = tensor_tids[rank, name]
        events.append(_complete(phase, "tensor", rank, tid, start, end))
    return events


def _negotiation_marks(items: list[tuple], tensor_tids: dict[tuple, int]) -> list[dict]:
    """Horovod's ``NegotiateRankReady``: on rank 0's row of each tensor, a mark named after each rank, when
    that rank asked for the tensor."""
    marks = []
    for _, rank, phase, names, start, _end in items:
        if not phase.startswith(NEGOTIATE_PREFIX):
            continue
        for name in names:
            if (0, name) in tensor_tids:
                marks.append(_complete(str(rank), "NEGOTIATE_RANK_READY", 0, tensor_tids[0, name], start, start,
                                       {"rank": rank}))
    return marks
