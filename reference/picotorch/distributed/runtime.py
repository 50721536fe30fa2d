"""The queue and the background cycle that run every collective: Horovod's ``horovod/common/operations.cc``
(``BackgroundThreadLoop``, ``RunLoopOnce``), ``controller.cc`` (``ComputeResponseList``, ``ConstructResponse``,
``FuseResponses``), ``tensor_queue.cc``, ``fusion_buffer_manager.cc`` and ``stall_inspector.cc``.

``allreduce_async_`` does not communicate. It puts a request on this rank's tensor queue and returns at
once, so a gradient hook never waits for the network. One background thread per rank, named
``"rank K: background"``, does all the communication; it wakes every ``HOROVOD_CYCLE_TIME`` ms and runs
one cycle (the exceptions, for an idle runtime, are under "Settings" below):

1. **negotiation**: the ranks of each process set exchange the names they newly requested; a name is
   *ready* once every rank of the set has requested it. Ready names come out in one order, the same on
   every rank, however differently the ranks enqueued them — so every rank then runs the same collectives
   in the same order, which is what keeps a collective library from deadlocking;
2. **response construction**: for each ready name the ranks' requests are checked against each other
   (same operation, dtype, shape, scale factors, root rank); a mismatch becomes an error for that name on
   every rank, never a hang;
3. **fusion**: consecutive ready allreduces of one dtype (and the same average/scale flags) are packed
   into one buffer up to ``HOROVOD_FUSION_THRESHOLD`` bytes, so 100 small gradients cost one collective
   instead of 100;
4. **execution**: per fused buffer, copy the tensors in, one ``communicator.allreduce``, copy them out,
   mark the handles done (``synchronize`` returns).

Only this thread calls the communicator, so a backend need not be thread-safe (MPI runs at
``MPI_THREAD_SERIALIZED``).

Settings, read when ``init()`` starts the runtime, with Horovod's names and defaults:
``HOROVOD_FUSION_THRESHOLD`` (bytes, 64 MiB; 0 turns fusion off), ``HOROVOD_CYCLE_TIME`` (ms, 1),
``HOROVOD_STALL_CHECK_TIME_SECONDS`` (60), ``HOROVOD_STALL_SHUTDOWN_TIME_SECONDS`` (0: never),
``HOROVOD_STALL_CHECK_DISABLE``. ``runtime_stats()`` counts the cycles, collectives, tensors and bytes
this rank ran.

What ``HOROVOD_CYCLE_TIME`` means here. In Horovod it is the minimum time between the starts of two
cycles: a request waits for the next tick, and the requests that arrive meanwhile fuse. picotorch keeps
that after any cycle that took a new request or ran a collective and left something in flight. After an
*idle* cycle (this rank took nothing new and ran nothing, or has nothing left in flight), two things differ:

- an enqueue ends the wait at once: nothing is in flight to fuse with, and the tick would only add latency
  (up to a whole cycle, about 1 ms, to a lone ``hvd.allreduce_`` of a loss for logging, or a barrier);
- without an enqueue, the next tick comes ``IDLE_CYCLE_SECONDS`` (20 ms) after the last, not one cycle
  time: every cycle is a negotiation, a few hundred microseconds of Python, and on the threads backend
  all ranks pay it from the interpreter and cores their backward passes use (1000 idle cycles a second
  made two ranks' compute-only steps a third slower). The stall inspector and shutdown still run in
  those ticks.

The next cycle is still a collective step every rank takes together: a rank woken early waits in the
negotiation for the others (they wake at their own enqueue of the same collective, or at their idle tick),
so the order of the responses, and the fusion of whatever arrives while that cycle runs, are unchanged.

Where picotorch simplifies: Horovod's workers send their new requests to the coordinator (rank 0 of the
set), which alone keeps the table of who asked for what and answers with the response list. Here every
rank receives every rank's requests (one ``allgather_object``) and runs the coordinator's bookkeeping
itself on the same data, so all ranks reach the same responses without the second message. There is no
response cache, no autotuner, no ``join``, and the stall times may be fractions of a second (for tests).
"""

from __future__ import annotations

import atexit
import logging
import math
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .exceptions import HorovodInternalError
from .state import NOT_INITIALIZED, RankState, adopt, current, register_process_set

__all__ = ["DUPLICATE_NAME_ERROR", "SHUT_DOWN_ERROR", "Request", "Runtime", "Settings", "runtime_stats",
           "start", "stop"]

logger = logging.getLogger("picotorch.distributed")

# Horovod's texts (``horovod/common/common.h``).
SHUT_DOWN_ERROR = (
    "Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to "
    "allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the shutdown "
    "was caused by an exception, you should see the exception in the log before the first shutdown message.")
DUPLICATE_NAME_ERROR = (
    "Requested to allreduce, allgather, or broadcast a tensor with the same name as another tensor that is "
    "currently being processed.  If you want to request another tensor, use a different tensor name.")

# Horovod's request types, as its messages and timeline spell them.
_TYPE_NAMES = {"allreduce": "ALLREDUCE", "broadcast": "BROADCAST", "broadcast_object": "BROADCAST",
               "allgather_object": "ALLGATHER", "barrier": "BARRIER"}


@dataclass(eq=False)
class Request:
    """One collective a rank asked for (Horovod's ``Request`` + ``TensorTableEntry``).

    ``kind``: "allreduce", "broadcast", "broadcast_object", "allgather_object" or "barrier"; ``arrays``: the
    NumPy arrays to reduce or broadcast in place (a grouped allreduce has several); ``done`` is set when
    they hold the result, or when ``error`` says why they never will.
    """

    kind: str
    name: str
    arrays: list
    process_set: object = None  # process_sets.ProcessSet (None: the global set)
    average: bool = False
    prescale_factor: float = 1.0
    postscale_factor: float = 1.0
    root_rank: int = 0
    grouped: bool = False  # a grouped_allreduce: synchronize returns a list
    payload: object = None  # broadcast_object / allgather_object: the Python object sent
    result: object = None  # ... and what came back
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    enqueued_ns: int = 0  # when enqueue() took it (the timeline's NEGOTIATE phase starts here)
    remaining: int = 0  # arrays not yet written back (a grouped request may span fused buffers)

    def set_id(self) -> int:
        return 0 if self.process_set is None else self.process_set.process_set_id


# ----------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    """The runtime's knobs, with Horovod's defaults; ``from_environ`` reads Horovod's variables."""

    fusion_threshold: int = 64 * 1024 * 1024  # bytes; 0: one collective per tensor
    cycle_time_ms: float = 1.0  # Horovod's default (operations.cc: SetCycleTimeMs(1) unless the env says)
    stall_check: bool = True
    stall_check_seconds: float = 60.0  # warn about tensors some ranks never submitted
    stall_shutdown_seconds: float = 0.0  # ... and shut down after this long (0: never)

    @classmethod
    def from_environ(cls, environ=None) -> Settings:
        environ = os.environ if environ is None else environ
        default = cls()

        def read(variable, convert, value):
            text = environ.get(variable)
            if text is None or text.strip() == "":
                return value
            try:
                return convert(text)
            except ValueError:
                raise ValueError(f"{variable}={text!r} is not a number") from None

        return cls(
            fusion_threshold=read("HOROVOD_FUSION_THRESHOLD", int, default.fusion_threshold),
            cycle_time_ms=read("HOROVOD_CYCLE_TIME", float, default.cycle_time_ms),
            stall_check=not _flag(environ.get("HOROVOD_STALL_CHECK_DISABLE", "")),
            stall_check_seconds=read("HOROVOD_STALL_CHECK_TIME_SECONDS", float, default.stall_check_seconds),
            stall_shutdown_seconds=read("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", float,
                                        default.stall_shutdown_seconds),
        )


def _flag(text: str) -> bool:
    """Horovod's boolean variables: a positive number, or "true"."""
    text = text.strip().lower()
    return text == "true" or (text.isdigit() and int(text) > 0)


# ----------------------------------------------------------------------------- the tensor queue


class TensorQueue:
    """Requests in flight on one rank (``tensor_queue.cc``): enqueue() adds, the background thread takes.

    ``table`` holds every request from enqueue until it is done, keyed by process set and name: a second
    request under a name still in flight is Horovod's duplicate-name error. ``closed`` once the runtime
    stops: nothing more gets in, and whatever is left is failed.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: dict[tuple[int, str], Request] = {}
        self._new: list[Request] = []
        self.closed_reason: str | None = None

    def add(self, request: Request) -> None:
        with self._lock:
            if self.closed_reason is not None:
                raise HorovodInternalError(self.closed_reason)
            key = (request.set_id(), request.name)
            if key in self._table:
                raise ValueError(DUPLICATE_NAME_ERROR)
            self._table[key] = request
            self._new.append(request)

    def in_flight(self) -> bool:
        """Whether some request of this rank is not done yet."""
        return bool(self._table)

    def take_new(self) -> list[Request]:
        with self._lock:
            new, self._new = self._new, []
            return new

    def get(self, set_id: int, name: str) -> Request:
        with self._lock:
            return self._table[(set_id, name)]

    def finish(self, request: Request, error: BaseException | None = None) -> None:
        """Out of the table first, then ``done``: a caller may re-use the name as soon as it wakes."""
        with self._lock:
            self._table.pop((request.set_id(), request.name), None)
        request.error = error
        request.done.set()

    def close(self, reason: str) -> list[Request]:
        """Let nothing more in; return the requests still in flight."""
        with self._lock:
            self.closed_reason = reason
            pending, self._table, self._new = list(self._table.values()), {}, []
            return pending


# ----------------------------------------------------------------------------- negotiation


class Message(NamedTuple):
    """What a rank tells the others about one request (Horovod's ``Request`` message): no data, only facts.

    A named tuple rather than a dataclass: every cycle pickles these, and 64 of them make a 30% shorter
    pickle that round-trips in about 60% of the time (the negotiation runs on the background thread,
    which shares the GIL with the rank's backward in the threads backend).
    """

    name: str
    kind: str
    shapes: tuple = ()
    dtype: str | None = None
    average: bool = False
    prescale_factor: float = 1.0
    postscale_factor: float = 1.0
    root_rank: int = 0

    @classmethod
    def of(cls, request: Request) -> Message:
        dtype = _dtype_name(request.arrays[0].dtype) if request.arrays else None
        return cls(request.name, request.kind, tuple(a.shape for a in request.arrays), dtype, request.average,
                   request.prescale_factor, request.postscale_factor, request.root_rank)


_DTYPE_NAMES: dict = {}  # np.dtype -> its name (``dtype.name`` is slow enough to show in a cycle's profile)


def _dtype_name(dtype: np.dtype) -> str:
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


@dataclass
class Response:
    """What every rank of the set runs, in the same order (Horovod's ``Response``).

    ``entries``: (request name, array index) pairs — several after fusion; ``nbytes`` per entry.
    ``error``: the mismatch found while constructing it (the entries then fail instead of running).
    """

    kind: str
    entries: list
    nbytes: list
    dtype: str | None = None
    average: bool = False
    prescale_factor: float = 1.0
    postscale_factor: float = 1.0
    root_rank: int = 0
    error: str | None = None
    negotiated_ns: int = 0

    def names(self) -> list[str]:
        return list(dict.fromkeys(name for name, _ in self.entries))

    def fuses_with(self, other: Response) -> bool:
        return (self.kind == other.kind == "allreduce" and self.error is None and other.error is None
                and self.dtype == other.dtype and self.average == other.average
                and self.prescale_factor == other.prescale_factor
                and self.postscale_factor == other.postscale_factor)


def _shape_text(shapes: tuple) -> str:
    """Horovod's ``TensorShape::DebugString``: ``[2, 3]`` (a grouped request: one per tensor)."""
    texts = ["[" + ", ".join(str(d) for d in shape) + "]" for shape in shapes]
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def construct_response(name: str, messages: dict[int, Message], global_ranks: list[int]) -> Response:
    """Check the ranks' requests for ``name`` against each other (``Controller::ConstructResponse``).

    The first sentence of an error is Horovod's; picotorch adds which rank sent what, so the message names
    the tensor and the ranks.
    """
    ordered = [messages[r] for r in sorted(messages)]
    first = ordered[0]
    if any(message != first for message in ordered[1:]):
        error = _mismatch(name, messages, global_ranks)
        if error is not None:
            return Response(first.kind, [(name, None)], [0], error=error)
    if first.kind == "allreduce":
        itemsize = np.dtype(first.dtype).itemsize if first.dtype else 0
        sizes = [math.prod(shape) * itemsize for shape in first.shapes]
        return Response("allreduce", [(name, i) for i in range(len(first.shapes))], sizes, first.dtype,
                        first.average, first.prescale_factor, first.postscale_factor)
    return Response(first.kind, [(name, None)], [0], first.dtype, root_rank=first.root_rank)


def _mismatch(name: str, messages: dict[int, Message], global_ranks: list[int]) -> str | None:
    """The first disagreement between the ranks' requests, in Horovod's order of checks, or None."""
    first = messages[min(messages)]
    checks = [
        (lambda m: m.dtype,
         lambda a, b: f"Mismatched data types: One rank had type {a}, but another rank had type {b}."),
        (lambda m: _TYPE_NAMES[m.kind],
         lambda a, b: f"Mismatched operations: One rank did an {a}, but another rank did an {b}."),
        (lambda m: _shape_text(m.shapes) if m.kind in ("allreduce", "broadcast") else None,
         lambda a, b: (f"Mismatched {_TYPE_NAMES[first.kind]} tensor shapes: One rank sent a tensor of shape "
                       f"{a}, but another rank sent a tensor of shape {b}.")),
        (lambda m: (m.prescale_factor, m.postscale_factor) if m.kind == "allreduce" else None,
         lambda a, b: (f"Mismatched prescale and/or postscale factors: One rank sent factors ({a[0]:g}, "
                       f"{a[1]:g}), but another rank sent factors ({b[0]:g}, {b[1]:g}).")),
        # (Horovod prints the op's enum value, 0 or 1; picotorch its name)
        (lambda m: ("AVERAGE" if m.average else "SUM") if m.kind == "allreduce" else None,
         lambda a, b: (f"Mismatched reduction operation: One rank sent reduction op {a}, but another rank "
                       f"sent reduction op {b}.")),
        (lambda m: m.root_rank if m.kind in ("broadcast", "broadcast_object") else None,
         lambda a, b: (f"Mismatched {_TYPE_NAMES[first.kind]} root ranks: One rank specified root rank {a}, "
                       f"but another rank specified root rank {b}.")),
    ]
    for key, sentence in checks:
        values = {r: key(messages[r]) for r in sorted(messages)}
        distinct = list(dict.fromkeys(values.values()))
        if len(distinct) > 1:
            who = ", ".join(f"rank {global_ranks[r]}: {_describe(v)}" for r, v in values.items())
            return f"{sentence(distinct[0], distinct[1])} Tensor {name!r}: {who}."
    return None


def _describe(value) -> str:
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, float) for v in value):
        return f"({value[0]:g}, {value[1]:g})"
    return str(value)


def split_per_tensor(response: Response) -> list[Response]:
    """A grouped allreduce becomes one response per tensor, as Horovod's group members are."""
    if response.kind != "allreduce" or response.error is not None or len(response.entries) == 1:
        return [response]
    return [Response("allreduce", [entry], [size], response.dtype, response.average, response.prescale_factor,
                     response.postscale_factor) for entry, size in zip(response.entries, response.nbytes)]


def fuse_responses(responses: list[Response], threshold: int) -> list[Response]:
    """Pack consecutive allreduces of one dtype into buffers of at most ``threshold`` bytes (``FuseResponses``).

    Horovod's rule: take the first response, then append the following ones that fuse with it while the
    total stays within the threshold. One that does not fuse (another dtype, a broadcast) is stepped over —
    it keeps its place for the next buffer — as long as the bytes stepped over plus the buffer still fit
    under the threshold (a bounded look-ahead: mixed-precision gradients arrive interleaved). A tensor
    larger than the threshold goes alone; a threshold of 0 fuses nothing.
    """
    pending = deque(responses)
    fused: list[Response] = []
    while pending:
        response = pending.popleft()
        if response.kind == "allreduce" and response.error is None and threshold > 0:
            response = Response("allreduce", list(response.entries), list(response.nbytes), response.dtype,
                                response.average, response.prescale_factor, response.postscale_factor,
                                negotiated_ns=response.negotiated_ns)
            # BEGIN SOLUTION 7.5: fuse the next allreduces while bytes <= threshold; step over the rest (look-ahead)
            size, skipped, skipped_size = sum(response.nbytes), [], 0
            while pending:
                candidate = pending[0]
                candidate_size = sum(candidate.nbytes)
                if response.fuses_with(candidate) and size + candidate_size <= threshold:
                    size += candidate_size
                    response.entries += candidate.entries
                    response.nbytes += candidate.nbytes
                    pending.popleft()
                elif size + skipped_size + candidate_size <= threshold:
                    skipped_size += candidate_size
                    skipped.append(pending.popleft())
                else:
                    break
            pending.extendleft(reversed(skipped))
            # END SOLUTION
        fused.append(response)
    return fused


@dataclass
class Payload:
    """What one rank sends in one negotiation (Horovod's ``RequestList``): its new requests, and on the
    global set its shutdown flag (with the reason) and the process sets it has registered."""

    messages: list
    shutdown: str | None = None
    registered: tuple = ()


class Controller:
    """Negotiation for one process set (``controller.cc``): the message table and the stall inspector.

    ``message_table`` maps each name some rank requested but not every rank yet to {set rank: Message}.
    Every rank of the set keeps the same table, because every rank receives the same payloads.
    """

    def __init__(self, set_id: int, communicator, global_ranks: list[int], settings: Settings) -> None:
        self.set_id = set_id
        self.communicator = communicator
        self.global_ranks = global_ranks
        self.settings = settings
        self.message_table: dict[str, dict[int, Message]] = {}
        self.first_seen: dict[str, float] = {}
        self.last_stall_check = time.monotonic()

    @property
    def is_coordinator(self) -> bool:
        return self.communicator.rank == 0

    def compute_response_list(self, payload: Payload) -> tuple[list[Response], list[Payload]]:
        """One round of negotiation: send my payload, take everyone's, return the responses to run."""
        payloads = self.communicator.allgather_object(payload)
        now, ready = time.monotonic(), []
        for set_rank, received in enumerate(payloads):  # the coordinator's messages first, as Horovod's
            for message in received.messages:
                table = self.message_table.setdefault(message.name, {})
                self.first_seen.setdefault(message.name, now)
                table[set_rank] = message
                if len(table) == len(self.global_ranks):
                    ready.append(message.name)
        negotiated_ns = time.perf_counter_ns()
        responses = []
        for name in ready:
            response = construct_response(name, self.message_table.pop(name), self.global_ranks)
            self.first_seen.pop(name, None)
            response.negotiated_ns = negotiated_ns
            responses.extend(split_per_tensor(response))
        return fuse_responses(responses, self.settings.fusion_threshold), payloads

    def check_for_stalled_tensors(self) -> str | None:
        """The coordinator's stall inspector (``stall_inspector.cc``): warn, and maybe decide to shut down.

        Returns the shutdown message when some tensor waited longer than the shutdown time, else None.
        """
        settings = self.settings
        now = time.monotonic()
        if not (settings.stall_check and self.is_coordinator
                and now - self.last_stall_check >= settings.stall_check_seconds):
            return None
        self.last_stall_check = now
        shutdown_after = settings.stall_shutdown_seconds
        if 0 < shutdown_after < settings.stall_check_seconds:
            logger.warning("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS is less than HOROVOD_STALL_CHECK_TIME_SECONDS, "
                           "will not shutdown.")
            shutdown_after = 0
        missing: dict[int, list[str]] = {}
        shutdown_ranks = set()
        for name, table in self.message_table.items():
            lag = now - self.first_seen[name]
            if lag <= settings.stall_check_seconds:
                continue
            for set_rank in range(len(self.global_ranks)):
                if set_rank not in table:
                    missing.setdefault(set_rank, []).append(name)
                    if shutdown_after > 0 and lag > shutdown_after:
                        shutdown_ranks.add(set_rank)
        if not missing:
            return None
        lines = [f"One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks "
                 f"and are waiting for remainder of ranks for more than {settings.stall_check_seconds:g} seconds. "
                 f"This may indicate that different ranks are trying to submit different tensors or that only "
                 f"subset of ranks is submitting tensors, which will cause deadlock. ", "Missing ranks:"]
        for set_rank in sorted(missing):
            names = sorted(missing[set_rank])
            shown = ", ".join(names[:6]) + (" ..." if len(names) > 6 else "")
            mark = "!" if set_rank in shutdown_ranks else ""
            lines.append(f"{self.global_ranks[set_rank]}{mark}: [{shown}]")
        if shutdown_ranks:
            lines.append(f'One or more rank (marked by "!") is stalled for longer than {shutdown_after:g} seconds. '
                         f"Will shutdown.")
            message = "\n".join(lines)
            logger.error(message)
            return message
        logger.warning("\n".join(lines))
        return None


# ----------------------------------------------------------------------------- the runtime

IDLE_CYCLE_SECONDS = 0.02  # an idle runtime's cycle: at least this long, unless an enqueue ends it (see above)


class Runtime:
    """One rank's runtime: the tensor queue, the background thread, the controllers, the fusion buffers."""

    def __init__(self, state: RankState, settings: Settings | None = None) -> None:
        self.state = state
        self.settings = Settings.from_environ() if settings is None else settings
        self.queue = TensorQueue()
        self.controllers: dict[int, Controller | None] = {}  # active sets; None: this rank is not a member
        self.stats = {"cycles": 0, "collectives": 0, "tensors": 0, "bytes": 0, "broadcasts": 0}
        self.fusion_buffers: dict[tuple[int, str], np.ndarray] = {}  # (set id, dtype) -> bytes, grown as needed
        self._shutdown_requested = False
        self._stall_shutdown: str | None = None  # set by the stall inspector, sent with the next negotiation
        self._waiting: list[Request] = []  # requests for process sets not yet registered on every rank
        self._last_cycle_start = 0.0
        self._wakeup = threading.Event()  # set by enqueue: ends an idle wait early (see _wait_for_cycle)
        self._idle = True  # the last cycle took no new request and ran no collective
        self.thread = threading.Thread(target=self._background_thread_loop, name=f"rank {state.rank}: background",
                                       daemon=True)

    # ---- the caller's side
    def enqueue(self, request: Request) -> Request:
        """Put ``request`` on the tensor queue and return at once (the background thread runs it)."""
        self._check_process_set(request)
        request.remaining = len(request.arrays)
        request.enqueued_ns = time.perf_counter_ns()
        self.queue.add(request)
        if not self._wakeup.is_set():  # (set() takes a lock and notifies: a burst of enqueues pays it once)
            self._wakeup.set()
        return request

    def _check_process_set(self, request: Request) -> None:
        ps = request.process_set
        if ps is None or ps.process_set_id == 0:
            return
        registered = self.state.extra.get("process_sets", [])
        if ps.process_set_id is None or ps not in registered:
            kind = _TYPE_NAMES.get(request.kind, request.kind).capitalize()
            raise ValueError(f"{kind}: Process set provided does not exist, or has not been registered.")
        if self.state.rank not in ps.ranks:
            kind = _TYPE_NAMES.get(request.kind, request.kind).capitalize()
            raise ValueError(f"{kind}: Rank {self.state.rank} is not a member of the provided process set.")

    def request_shutdown(self) -> None:
        self._shutdown_requested = True
        self._wakeup.set()

    # ---- the background thread
    def _background_thread_loop(self) -> None:
        adopt(self.state)
        reason, bug = SHUT_DOWN_ERROR, None
        try:
            self.controllers[0] = Controller(0, self.state.communicator, list(range(self.state.size)),
                                             self.settings)
            while True:
                reason = self._run_loop_once()
                if reason is not None:
                    break
            # A rank that raised asks for a shutdown on its way out: the others should hear why.
            reason = self._world_failure() or reason
        except HorovodInternalError as error:
            reason = str(error)
        except BaseException as error:  # noqa: BLE001 - a bug here must fail the handles, not hang them
            # (a bug, or an exercise's stub: its own error reaches synchronize, so its traceback shows)
            reason = f"rank {self.state.rank}'s background thread failed: {type(error).__name__}: {error}"
            bug = error
        finally:
            for request in self.queue.close(reason):
                self.queue.finish(request, bug if bug is not None else HorovodInternalError(reason))
            adopt(None)

    def _world_failure(self) -> str | None:
        """The threads backend's abort reason (a rank raised), if any; MPI has none (mpiexec ends the job)."""
        return getattr(getattr(self.state.communicator, "world", None), "failure", None)

    def _run_loop_once(self) -> str | None:
        """One cycle (``RunLoopOnce``); returns the shutdown reason when the job is shutting down."""
        self._wait_for_cycle()
        self._last_cycle_start = time.perf_counter()
        self.stats["cycles"] += 1
        timeline = self.state.extra.get("timeline")
        if timeline is not None and getattr(timeline, "mark_cycles", False):
            now = time.perf_counter_ns()
            timeline.record("CYCLE_START", [], now, now)

        by_set: dict[int, list[Request]] = {}
        self._waiting, new = [], self._waiting + self.queue.take_new()
        self._idle = not new
        for request in new:
            by_set.setdefault(request.set_id(), []).append(request)

        shutdown = self._stall_shutdown or (SHUT_DOWN_ERROR if self._shutdown_requested else None)
        registered = tuple(ps.process_set_id for ps in self.state.extra.get("process_sets", []))
        payload = Payload([Message.of(r) for r in by_set.pop(0, [])], shutdown, registered)
        responses, payloads = self.controllers[0].compute_response_list(payload)
        self._perform(responses, self.controllers[0], timeline)
        reasons = [p.shutdown for p in payloads if p.shutdown is not None]
        if reasons:  # any rank asked: every rank stops in this same cycle (a stall's reason beats a plain one)
            return next((r for r in reasons if r != SHUT_DOWN_ERROR), reasons[0])
        self._stall_shutdown = self.controllers[0].check_for_stalled_tensors()

        self._activate_process_sets([set(p.registered) for p in payloads])
        for set_id in sorted(self.controllers):
            controller = self.controllers[set_id]
            if set_id == 0 or controller is None:
                continue
            messages = [Message.of(r) for r in by_set.pop(set_id, [])]
            responses, _ = controller.compute_response_list(Payload(messages))
            self._perform(responses, controller, timeline)
            self._stall_shutdown = self._stall_shutdown or controller.check_for_stalled_tensors()
        for requests in by_set.values():  # sets not registered on every rank yet: ask again next cycle
            self._waiting.extend(requests)
        if not self.queue.in_flight():
            self._idle = True
        return None

    def _wait_for_cycle(self) -> None:
        """Sleep until ``HOROVOD_CYCLE_TIME`` after the last cycle's start; after an idle cycle, until
        ``IDLE_CYCLE_SECONDS`` after it or an enqueue, whichever comes first (the module docstring says why)."""
        cycle = max(self.settings.cycle_time_ms / 1000.0, IDLE_CYCLE_SECONDS) if self._idle else \
            self.settings.cycle_time_ms / 1000.0
        sleep = self._last_cycle_start + cycle - time.perf_counter()
        if sleep > 0:
            if self._idle:
                self._wakeup.wait(sleep)
            else:
                time.sleep(sleep)
        self._wakeup.clear()  # before take_new(): a request enqueued after it sets the event again

    def _activate_process_sets(self, registered_per_rank: list[set]) -> None:
        """Start negotiating on the sets every rank has registered, all ranks in the same cycle, by id."""
        agreed = set.intersection(*registered_per_rank) - set(self.controllers)
        if not agreed:
            return
        by_id = {ps.process_set_id: ps for ps in self.state.extra.get("process_sets", [])}
        for set_id in sorted(agreed):
            ps = by_id[set_id]
            member = self.state.rank in ps.ranks
            # Making the set's communicator is collective among its members (MPI_Comm_create_group): here,
            # on this thread, in id order, in the same cycle on every rank.
            self.controllers[set_id] = (Controller(set_id, ps.communicator(self.state), list(ps.ranks),
                                                   self.settings) if member else None)

    # ---- execution
    def _perform(self, responses: list[Response], controller: Controller, timeline) -> None:
        self._idle = self._idle and not responses
        for response in responses:
            requests = [self.queue.get(controller.set_id, name) for name in response.names()]
            if timeline is not None:
                for request in requests:
                    phase = "NEGOTIATE_" + _TYPE_NAMES[request.kind]
                    timeline.record(phase, [request.name], request.enqueued_ns, response.negotiated_ns)
            if response.error is not None:
                for request in requests:
                    self.queue.finish(request, HorovodInternalError(response.error))
                continue
            if response.kind == "allreduce":
                self._allreduce(response, controller, timeline)
            else:
                self._other_collective(requests[0], controller.communicator, timeline)

    def _allreduce(self, response: Response, controller: Controller, timeline) -> None:
        names = response.names()
        requests = {name: self.queue.get(controller.set_id, name) for name in names}
        arrays = [requests[name].arrays[index] for name, index in response.entries]
        start = time.perf_counter_ns()
        if timeline is not None:
            timeline.record("QUEUE", names, response.negotiated_ns, start)
        dtype = np.dtype(response.dtype)
        comm = controller.communicator
        if len(arrays) == 1:  # one tensor: reduced in place, no fusion buffer (as Horovod)
            buffer = arrays[0].reshape(-1)
        else:
            buffer = self._fusion_buffer(controller.set_id, dtype, sum(a.size for a in arrays))
            self._memcpy_in(buffer, arrays)
            if timeline is not None:
                timeline.record("MEMCPY_IN_FUSION_BUFFER", names, start, time.perf_counter_ns())
        _scale(buffer, response.prescale_factor)
        reduce_start = time.perf_counter_ns()
        comm.allreduce(buffer)
        postscale = response.postscale_factor / (comm.size if response.average else 1)
        if len(arrays) == 1:
            _scale(buffer, postscale)
        end = time.perf_counter_ns()
        if timeline is not None:
            timeline.record("ALLREDUCE", names, reduce_start, end)
        if len(arrays) > 1:
            self._memcpy_out(buffer, arrays, postscale)  # scaled on the way out: one pass over the bytes, not two
            if timeline is not None:
                timeline.record("MEMCPY_OUT_FUSION_BUFFER", names, end, time.perf_counter_ns())
        self.stats["collectives"] += 1
        self.stats["tensors"] += len(arrays)
        self.stats["bytes"] += buffer.nbytes
        for name, _ in response.entries:
            request = requests[name]
            request.remaining -= 1
            if request.remaining == 0:
                self.queue.finish(request)

    def _fusion_buffer(self, set_id: int, dtype: np.dtype, count: int) -> np.ndarray:
        """A buffer for ``count`` elements, kept between cycles (``fusion_buffer_manager.cc``)."""
        key = (set_id, dtype.str)
        raw = self.fusion_buffers.get(key)
        if raw is None or raw.nbytes < count * dtype.itemsize:
            raw = self.fusion_buffers[key] = np.empty(count * dtype.itemsize, dtype=np.uint8)
        return raw[:count * dtype.itemsize].view(dtype)

    @staticmethod
    def _memcpy_in(buffer: np.ndarray, arrays: list) -> None:
        offset = 0
        for array in arrays:
            buffer[offset:offset + array.size] = array.reshape(-1)
            offset += array.size

    @staticmethod
    def _memcpy_out(buffer: np.ndarray, arrays: list, factor: float = 1.0) -> None:
        """Each array's part of ``buffer`` back into it, times ``factor`` (as ``_scale`` would, then a copy)."""
        offset = 0
        for array in arrays:
            part = buffer[offset:offset + array.size]
            if factor != 1.0:
                np.multiply(part, factor, out=array.reshape(-1), casting="unsafe")
            else:
                array.reshape(-1)[...] = part
            offset += array.size

    def _other_collective(self, request: Request, comm, timeline) -> None:
        start = time.perf_counter_ns()
        if request.kind == "broadcast":
            for array in request.arrays:
                comm.broadcast(array, request.root_rank)
            self.stats["broadcasts"] += 1
        elif request.kind == "broadcast_object":
            request.result = comm.broadcast_object(request.payload, request.root_rank)
        elif request.kind == "allgather_object":
            request.result = comm.allgather_object(request.payload)
        elif request.kind == "barrier":
            comm.barrier()
        else:
            raise ValueError(f"unknown collective {request.kind!r}")
        if timeline is not None:
            timeline.record(_TYPE_NAMES[request.kind], [request.name], start, time.perf_counter_ns())
        self.queue.finish(request)


def _scale(buffer: np.ndarray, factor: float) -> None:
    """Multiply in place, in the buffer's dtype (integers truncate, as an integer tensor's ``mul_`` would)."""
    if factor != 1.0:
        np.multiply(buffer, factor, out=buffer, casting="unsafe")


# ----------------------------------------------------------------------------- start, stop, stats


def start(state: RankState, process_sets=None) -> None:
    """``hvd.init()``'s part: register the process sets, start the background thread."""
    for ps in process_sets or []:
        if not hasattr(ps, "process_set_id"):  # Horovod's init takes ProcessSet objects only
            raise ValueError(f"process_sets must be hvd.ProcessSet objects, got {ps!r}")
        register_process_set(state, ps)
    state.runtime = Runtime(state)
    state.runtime.thread.start()
    if state.backend == "mpi":  # as Horovod's init: a process that ends (or raises) leaves the job cleanly
        atexit.register(_stop_at_exit, state)


def _stop_at_exit(state: RankState) -> None:
    """The other ranks hear "shut down" (their pending handles fail with Horovod's message) instead of
    waiting for a process that is gone; and MPI is finalized only after this rank's last collective."""
    if state.runtime is not None:
        stop(state)


STOP_TIMEOUT = 120.0  # seconds stop() waits for the last negotiation (the other ranks' threads cycle meanwhile)


def stop(state: RankState) -> None:
    """``hvd.shutdown()``'s part: every rank's runtime stops in the cycle after any rank asks; then the
    handles still pending fail with Horovod's shutdown message."""
    runtime, state.runtime = state.runtime, None
    if runtime is None:
        return
    runtime.request_shutdown()
    if runtime.thread is not threading.current_thread():
        runtime.thread.join(STOP_TIMEOUT)


def runtime_stats(reset: bool = False) -> dict:
    """The calling rank's counters: ``cycles``, ``collectives`` (allreduce calls, one per fused buffer),
    ``tensors`` and ``bytes`` allreduced, ``broadcasts``. ``reset=True`` returns them and starts again at 0."""
    state = current()
    if state.runtime is None:
        raise ValueError(NOT_INITIALIZED)
    stats = dict(state.runtime.stats)
    if reset:
        for key in state.runtime.stats:
            state.runtime.stats[key] = 0
    return stats
