"""N ranks as N threads of one process: ``launch(fn, world_size=N)`` and the threads communicator.

Stands in for what ``horovodrun``/``mpiexec`` plus MPI give a real job: each rank runs ``fn`` on a thread
of its own, with its own rank state (``state.py``), and ranks talk only through point-to-point channels
(one FIFO queue per ordered pair of ranks), as processes talk through MPI. Collectives are built on those
channels, so the same algorithms a network library runs (a ring allreduce) run here step by step.

If a rank raises, the world is aborted: every other rank blocked on a channel wakes with
``HorovodInternalError`` naming the rank that failed, and ``launch`` re-raises the first error. A rank that
waits longer than the world's ``timeout`` fails the same way, naming who it waited for.

(Skeleton: the allreduce here gathers every rank's array and sums in rank order; the ring and the network
model replace it.)
"""

from __future__ import annotations

import queue
import threading
import time

import numpy as np
import numpy.random  # noqa: F401 - loaded before rank threads start: N threads loading it at once see it half-made

from . import runtime
from .exceptions import HorovodInternalError
from .state import RankState, adopt

__all__ = ["ThreadCommunicator", "World", "launch"]

DEFAULT_TIMEOUT = 60.0  # seconds a rank waits on a channel before failing (Horovod's stall check: 60 s)


class World:
    """What the ranks of one ``launch`` share: the channels, the abort flag, the timeout."""

    def __init__(self, size: int, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.size = size
        self.timeout = timeout
        self.failure: str | None = None  # set once by the first rank that fails
        self._channels: dict[tuple, queue.SimpleQueue] = {}
        self._lock = threading.Lock()

    def channel(self, tag: str, source: int, dest: int) -> queue.SimpleQueue:
        key = (tag, source, dest)
        with self._lock:
            if key not in self._channels:
                self._channels[key] = queue.SimpleQueue()
            return self._channels[key]

    def abort(self, reason: str) -> None:
        with self._lock:
            if self.failure is None:
                self.failure = reason


class ThreadCommunicator:
    """One rank's endpoint: ``send``/``recv`` to other ranks, and the collectives built on them.

    ``ranks`` are the global ranks of the group (a process set); ``rank`` is this one's index in it.
    """

    POLL = 0.05  # seconds between checks of the abort flag while waiting

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
    def send(self, dest: int, obj) -> None:
        self.world.channel(self.tag, self.rank, dest).put(obj)

    def recv(self, source: int):
        channel = self.world.channel(self.tag, source, self.rank)
        deadline = time.monotonic() + self.world.timeout
        while True:
            if self.world.failure is not None:
                raise HorovodInternalError(self.world.failure)
            try:
                return channel.get(timeout=self.POLL)
            except queue.Empty:
                if time.monotonic() > deadline:
                    message = (f"rank {self.ranks[self.rank]} waited {self.world.timeout:g} s for rank "
                               f"{self.ranks[source]}, which never sent: it is stuck, died or never joined")
                    self.world.abort(message)
                    raise HorovodInternalError(message) from None

    # ---- collectives (every rank of the group calls them in the same order)
    def allgather_object(self, obj) -> list:
        for dest in range(self.size):
            if dest != self.rank:
                self.send(dest, obj)
        return [obj if source == self.rank else self.recv(source) for source in range(self.size)]

    def allreduce(self, buffer: np.ndarray) -> None:
        """Sum ``buffer`` over the ranks, in place (every rank ends with the same bits)."""
        arrays = self.allgather_object(buffer.copy())
        total = arrays[0].copy()
        for array in arrays[1:]:
            total += array
        buffer[...] = total

    def broadcast(self, buffer: np.ndarray, root: int) -> None:
        if self.rank == root:
            for dest in range(self.size):
                if dest != root:
                    self.send(dest, buffer.copy())
        else:
            buffer[...] = self.recv(root)

    def broadcast_object(self, obj, root: int):
        if self.rank == root:
            for dest in range(self.size):
                if dest != root:
                    self.send(dest, obj)
            return obj
        return self.recv(root)

    def barrier(self) -> None:
        self.allgather_object(None)


def launch(fn, world_size: int, *args, timeout: float = DEFAULT_TIMEOUT, **kwargs) -> list:
    """Run ``fn(*args, **kwargs)`` on ``world_size`` rank threads; return each rank's result, by rank.

    Each thread starts with its rank state adopted, so ``fn`` calls ``hvd.init()`` as a Horovod program
    does. The first exception of any rank aborts the others and is re-raised here.
    """
    if not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    world = World(world_size, timeout)
    results: list = [None] * world_size
    errors: list = [None] * world_size

    def run(rank: int) -> None:
        state = RankState(rank, world_size, ThreadCommunicator(world, rank), "threads",
                          local_rank=rank, local_size=world_size)
        adopt(state)
        try:
            results[rank] = fn(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - any failure of a rank must stop the others
            errors[rank] = error
            world.abort(f"rank {rank} failed: {type(error).__name__}: {error}")
        finally:
            if state.runtime is not None:  # fn forgot hvd.shutdown(): stop its background thread anyway
                runtime.stop(state)
            adopt(None)

    threads = [threading.Thread(target=run, args=(rank,), name=f"rank {rank}", daemon=True)
               for rank in range(world_size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = next((error for error in errors if error is not None and not isinstance(error, HorovodInternalError)),
                 next((error for error in errors if error is not None), None))
    if first is not None:
        raise first
    return results
