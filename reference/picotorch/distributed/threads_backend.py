"""N ranks as N threads of one process: what ``horovodrun -np N`` (``horovod/runner/``) and MPI give a job.

Stands in for what ``horovodrun``/``mpiexec`` plus MPI give a real job: each rank runs ``fn`` on a thread
of its own, with its own rank state (``state.py``), and ranks talk only through point-to-point links
(one FIFO per ordered pair of ranks), as processes talk through a network. Collectives are built on
those links (``ring.py``: the ring allreduce, the ring broadcast), so the algorithms a network library
runs run here step by step.

Without a network model a message arrives as fast as memory: ``send`` hands over a reference (the
collectives copy where the receiver could otherwise see a later write). With
``launch(..., network=NetworkModel(latency, bandwidth))`` a message of n bytes occupies its link for
``latency + n / bandwidth`` seconds, one message at a time per link, and the receiver cannot have it
before then: communication takes a visible, predictable time, as on a real network.

Faults never hang a job. Every wait on a link checks the world's abort flag, and fails:

- when another rank raised: ``HorovodInternalError`` with Horovod's shut-down text and, after it, which rank
  failed and its error;
- when the rank it waits for finished its function without sending (it died, or returned early);
- after ``timeout`` seconds without a message (a rank stuck, or one that never joined).

``launch`` then re-raises the original error of the rank where the failure started, with its traceback.
(picotorch simplifies: a link is an ordered pair of ranks within one process set; Horovod's transports
share one connection per pair of hosts, and its stall inspector warns after 60 s rather than failing.)
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import queue
import threading
import time
from dataclasses import dataclass

import numpy as np

# NumPy loads these submodules on first use; N rank threads using one at once may see it half-made
# (``np.random.default_rng`` or ``np.ma.isMaskedArray`` missing): load them before any rank starts.
import numpy.fft  # noqa: F401
import numpy.ma  # noqa: F401
import numpy.polynomial  # noqa: F401
import numpy.random  # noqa: F401

from . import runtime
from .exceptions import HorovodInternalError
from .ring import ring_allreduce, ring_broadcast
from .state import RankState, adopt

__all__ = ["NetworkModel", "ThreadCommunicator", "World", "launch"]

DEFAULT_TIMEOUT = 60.0  # seconds a rank waits on a link before failing (Horovod's stall check: 60 s)
POLL = 0.05  # seconds between checks of the abort flag while waiting
OBJECT_BYTES = 64  # what a message counts for in the network model when it cannot be pickled

SHUT_DOWN_ERROR = runtime.SHUT_DOWN_ERROR  # what every other rank reports once one has failed


@dataclass(frozen=True)
class NetworkModel:
    """A network for the threads backend: ``latency`` (seconds) plus ``bytes / bandwidth`` (bytes/second).

    A message occupies its link (one ordered pair of ranks) for ``latency + nbytes / bandwidth`` seconds
    from the moment the link is free; messages on one link go one at a time. An array counts its
    ``nbytes``, another object the length of its pickle.
    """

    latency: float = 0.0
    bandwidth: float = float("inf")

    def __post_init__(self) -> None:
        if not _is_number(self.latency) or not 0 <= self.latency < math.inf:
            raise ValueError(f"latency must be a finite number of seconds >= 0, got {self.latency!r}")
        if not _is_number(self.bandwidth) or not self.bandwidth > 0:
            raise ValueError(f"bandwidth must be a number of bytes per second > 0, got {self.bandwidth!r}")

    def transfer_time(self, nbytes: int) -> float:
        return self.latency + nbytes / self.bandwidth


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def message_bytes(message) -> int:
    if isinstance(message, np.ndarray):
        return message.nbytes
    try:
        return len(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - an unpicklable object still crosses the modelled network
        return OBJECT_BYTES


class Link:
    """One direction between two ranks: a FIFO of (arrival time, message), and when it is free again."""

    __slots__ = ("free_at", "messages")

    def __init__(self) -> None:
        self.messages: queue.SimpleQueue = queue.SimpleQueue()
        self.free_at = 0.0  # time.perf_counter() at which the last message sent on it arrives


class World:
    """What the ranks of one ``launch`` share: the links, the network model, the abort flag, the timeout."""

    def __init__(self, size: int, timeout: float = DEFAULT_TIMEOUT, network: NetworkModel | None = None) -> None:
        self.size = size
        self.timeout = timeout
        self.network = network
        self.failure: str | None = None  # set once, by the first rank that fails...
        self.failed_rank: int | None = None  # ... which is this one
        self.failed_at: float | None = None  # time.monotonic()
        self.finished: set[int] = set()  # ranks whose thread is done: they will never send again
        self.waiting_for: dict[int, int] = {}  # rank -> the rank it is blocked on in recv (global numbering)
        self._links: dict[tuple, Link] = {}
        self._lock = threading.Lock()

    def link(self, tag: str, source: int, dest: int) -> Link:
        key = (tag, source, dest)
        with self._lock:
            if key not in self._links:
                self._links[key] = Link()
            return self._links[key]

    def arrival_time(self, link: Link, nbytes: int) -> float:
        """When a message of ``nbytes`` posted now on ``link`` arrives (0.0: no network model, at once)."""
        if self.network is None:
            return 0.0
        with self._lock:
            link.free_at = max(time.perf_counter(), link.free_at) + self.network.transfer_time(nbytes)
            return link.free_at

    def abort(self, reason: str, rank: int) -> None:
        with self._lock:
            if self.failure is None:
                self.failure, self.failed_rank, self.failed_at = reason, rank, time.monotonic()

    def finish(self, rank: int) -> None:
        with self._lock:
            self.finished.add(rank)

    def wait_chain(self, rank: int) -> list[int]:
        """``rank``, the rank it waits for, the one that one waits for...: ends at a rank not waiting (or a cycle)."""
        chain = [rank]
        while (nxt := self.waiting_for.get(chain[-1])) is not None and nxt not in chain:
            chain.append(nxt)
        return chain


class ThreadCommunicator:
    """One rank's endpoint: ``send``/``recv`` to other ranks, and the collectives built on them.

    ``ranks`` are the global ranks of the group (a process set); ``rank`` is this one's index in it, and
    ``send``/``recv`` take indices in the group too.
    """

    def __init__(self, world: World, rank: int, ranks: list[int] | None = None, tag: str = "global") -> None:
        self.world = world
        self.ranks = list(range(world.size)) if ranks is None else list(ranks)
        self.rank = self.ranks.index(rank)
        self.size = len(self.ranks)
        self.tag = tag

    def split(self, ranks: list[int], tag: str) -> ThreadCommunicator:
        """The communicator of a process set (``ranks``, global numbering) that contains this rank."""
        return ThreadCommunicator(self.world, self.ranks[self.rank], ranks, tag)

    # ---- point to point
    def send(self, dest: int, message) -> None:
        """Post ``message`` to ``dest`` and return at once (the receiver gets this very object)."""
        link = self.world.link(self.tag, self.rank, dest)
        nbytes = message_bytes(message) if self.world.network is not None else 0
        link.messages.put((self.world.arrival_time(link, nbytes), message))

    def recv(self, source: int):
        """The next message from ``source``; ``HorovodInternalError`` instead of waiting forever."""
        link = self.world.link(self.tag, source, self.rank)
        self.world.waiting_for[self.ranks[self.rank]] = self.ranks[source]
        try:
            return self._wait_for_message(link, source)
        finally:
            self.world.waiting_for.pop(self.ranks[self.rank], None)

    def _wait_for_message(self, link: Link, source: int):
        deadline = time.monotonic() + self.world.timeout
        while True:
            self._check_abort()
            try:
                arrival, message = link.messages.get(timeout=POLL)
            except queue.Empty:
                if self.ranks[source] in self.world.finished:  # its last messages were posted before this
                    try:
                        arrival, message = link.messages.get_nowait()
                    except queue.Empty:
                        self._fail(self._finished_message(source))
                elif time.monotonic() > deadline:
                    self._fail(self._timeout_message(source))
                else:
                    continue
            self._wait_until(arrival)
            return message

    def _check_abort(self) -> None:
        if self.world.failure is not None:
            raise HorovodInternalError(self.world.failure)

    def _wait_until(self, arrival: float) -> None:
        """Sleep until the network model delivers the message (checking for an abort meanwhile)."""
        while (left := arrival - time.perf_counter()) > 0:
            self._check_abort()
            time.sleep(min(left, POLL))

    def _fail(self, reason: str):
        self.world.abort(reason, self.ranks[self.rank])
        raise HorovodInternalError(self.world.failure) from None

    def _finished_message(self, source: int) -> str:
        return (f"{SHUT_DOWN_ERROR}\nrank {self.ranks[self.rank]} waited for rank {self.ranks[source]}, which "
                f"finished execution without sending: it died, or returned before this collective")

    def _timeout_message(self, source: int) -> str:
        """Names the rank at the end of the chain of waits: in a ring, most ranks wait for a waiting rank."""
        chain = self.world.wait_chain(self.ranks[source])
        through = "".join(f", which waits for rank {rank}" for rank in chain[1:])
        culprit = f"; rank {chain[-1]}" if len(chain) > 1 else ", which"
        return (f"rank {self.ranks[self.rank]} waited {self.world.timeout:g} s for rank {chain[0]}{through}{culprit} "
                f"never sent: it is stuck, died or never joined (launch(timeout=...) sets the wait)")

    # ---- collectives (every rank of the group calls them in the same order)
    def allreduce(self, buffer: np.ndarray) -> None:
        """Sum ``buffer`` over the ranks, in place: the ring (``ring.py``); every rank ends with the same bits."""
        ring_allreduce(self, buffer)

    def broadcast(self, buffer: np.ndarray, root: int) -> None:
        """Copy the root's ``buffer`` into every rank's, round the ring."""
        ring_broadcast(self, buffer, root)

    def allgather_object(self, obj) -> list:
        for dest in range(self.size):
            if dest != self.rank:
                self.send(dest, obj)
        return [obj if source == self.rank else self.recv(source) for source in range(self.size)]

    def broadcast_object(self, obj, root: int):
        if self.rank == root:
            for dest in range(self.size):
                if dest != root:
                    self.send(dest, obj)
            return obj
        return self.recv(root)

    def barrier(self) -> None:
        self.allgather_object(None)


def launch(fn, world_size: int, *args, timeout: float = DEFAULT_TIMEOUT, network: NetworkModel | None = None,
           **kwargs) -> list:
    """Run ``fn(*args, **kwargs)`` on ``world_size`` rank threads; return the results as a list, by rank.

    Each thread (named ``"rank K"``) starts with its rank state adopted, so ``fn`` calls ``hvd.init()`` as a
    Horovod program does. ``timeout``: seconds any rank waits for a message before the job fails;
    ``network``: a ``NetworkModel`` (default: none, messages arrive at once). If a rank fails, every other
    rank fails within ``timeout``, and ``launch`` re-raises the error of the rank where it started.
    """
    if not isinstance(world_size, int) or isinstance(world_size, bool) or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if not _is_number(timeout) or not timeout > 0 or math.isnan(timeout):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if network is not None and not isinstance(network, NetworkModel):
        raise TypeError(f"network must be a picotorch.distributed.NetworkModel or None, got {type(network).__name__}")
    world = World(world_size, timeout, network)
    results: list = [None] * world_size
    errors: list = [None] * world_size

    def run(rank: int) -> None:
        state = RankState(rank, world_size, ThreadCommunicator(world, rank), "threads",
                          local_rank=rank, local_size=world_size)
        adopt(state)
        try:
            results[rank] = fn(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - any failure of a rank must stop the others
            _record(world, errors, rank, error)
        finally:
            try:
                if state.runtime is not None:  # fn forgot hvd.shutdown(): stop its background thread anyway
                    runtime.stop(state)
            except BaseException as error:  # noqa: BLE001
                if errors[rank] is None:
                    _record(world, errors, rank, error)
            adopt(None)
            world.finish(rank)

    threads = [threading.Thread(target=run, args=(rank,), name=f"rank {rank}", daemon=True)
               for rank in range(world_size)]
    with _blas_threads_per_rank(world_size):
        for thread in threads:
            thread.start()
        stuck = _join(threads, world)
    error = _first_error(world, errors)
    if error is not None:
        if stuck:
            error.add_note(f"launch gave up waiting for rank(s) {stuck}, still running {timeout:g} s after the "
                           f"failure (their threads are left behind as daemons)")
        raise error
    return results


@contextlib.contextmanager
def _blas_threads_per_rank(world_size: int):
    """While the ranks run, each one's BLAS (NumPy's matmul) uses its share of the cores, as a job gives each
    process its own: with every rank's BLAS using them all, the ranks' spinning BLAS threads crowd each other
    out, and one rank's forward and backward can run whole milliseconds behind another's. Needs
    ``threadpoolctl`` (it comes with scikit-learn, in the ``lab`` and ``test`` extras); without it, nothing."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=max(1, (os.cpu_count() or 1) // world_size), user_api="blas"):
        yield


def _record(world: World, errors: list, rank: int, error: BaseException) -> None:
    errors[rank] = error
    world.abort(f"{SHUT_DOWN_ERROR}\nrank {rank} failed: {type(error).__name__}: {error}", rank)


def _join(threads: list[threading.Thread], world: World) -> list[int]:
    """Wait for every rank; once one has failed, wait at most ``timeout`` more. The ranks left running."""
    for thread in threads:
        while thread.is_alive():
            thread.join(POLL)
            if world.failed_at is not None and time.monotonic() > world.failed_at + world.timeout:
                break
    return [rank for rank, thread in enumerate(threads) if thread.is_alive()]


def _first_error(world: World, errors: list) -> BaseException | None:
    """The error of the rank where the failure started; else (a rank raised no error) any other."""
    if world.failed_rank is not None and errors[world.failed_rank] is not None:
        error = errors[world.failed_rank]
    else:
        error = next((e for e in errors if e is not None and not isinstance(e, HorovodInternalError)),
                     next((e for e in errors if e is not None), None))
    if error is not None:
        rank = errors.index(error)
        note = f"(raised on rank {rank} of launch(world_size={len(errors)}))"
        if note not in getattr(error, "__notes__", ()):
            error.add_note(note)
    return error
