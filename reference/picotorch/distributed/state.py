"""Where a rank finds itself: one state per process (MPI) or per thread (threads backend).

Horovod keeps one global state per process (the C++ ``horovod_global`` in ``horovod/common/operations.cc``):
``hvd.init()`` fills it, every other call reads it. picotorch runs a job two ways, and finds the state
accordingly:

- ``backend="mpi"``: one process per rank (``mpiexec -n 2 python train.py``), so the state is a module
  global, as in Horovod;
- ``backend="threads"``: N ranks as N threads of one process (``picotorch.distributed.launch``); each
  thread has its own state, kept in a context variable, so ``rank()`` answers differently per thread —
  and a hook that the autograd engine runs on a device's worker thread still finds the rank of the
  thread that called backward (the variable is part of the thread-local state a backward carries to its
  workers: ``autograd/thread_local_state.py``).

A ``RankState`` is that state: the rank, the world size, the communicator (the backend's point-to-point
and collective primitives) and the runtime (the background cycle that runs the collectives). Threads that
work for a rank (the runtime's own background thread) ``adopt`` its state.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field

from ..autograd.thread_local_state import propagate

__all__ = ["NOT_INITIALIZED", "STATE_OBSERVERS", "RankState", "adopt", "current", "current_or_none",
           "register_process_set", "set_process_state"]

NOT_INITIALIZED = "Horovod has not been initialized; use hvd.init()."

STATE_OBSERVERS: list = []  # called with each new RankState (a timeline.Timeline around a whole launch joins it)


@dataclass(eq=False)
class RankState:
    """One rank's view of the job (Horovod's ``HorovodGlobalState``, reduced to what picotorch needs)."""

    rank: int
    size: int
    communicator: object  # the backend's Communicator for this rank (``threads_backend``, ``mpi_backend``)
    backend: str  # "threads" or "mpi"
    local_rank: int = 0
    local_size: int = 1
    runtime: object = None  # runtime.Runtime: the queue and background cycle, set by ``init``
    extra: dict = field(default_factory=dict)  # per-rank odds and ends (process sets, timeline...)

    def __post_init__(self) -> None:
        for observe in list(STATE_OBSERVERS):
            observe(self)


# carried into the autograd engine's worker threads, so a hook there knows its rank (NOTE [ThreadLocalState])
_thread_state = propagate(contextvars.ContextVar("picotorch_rank_state", default=None))
_process_state: RankState | None = None  # mpi backend: one per process


def current_or_none() -> RankState | None:
    return _thread_state.get() or _process_state


def current() -> RankState:
    """The calling rank's state; Horovod's ``ValueError`` when ``init`` has not run."""
    state = current_or_none()
    if state is None:
        raise ValueError(NOT_INITIALIZED)
    return state


def adopt(state: RankState | None) -> None:
    """Make the calling thread act for ``state``'s rank (launch's rank threads, the runtime's thread)."""
    _thread_state.set(state)


def set_process_state(state: RankState | None) -> None:
    global _process_state
    _process_state = state


def register_process_set(state: RankState, process_set) -> None:
    """Give ``process_set`` this rank's next id (1, 2, ...; never reused) and register it on this rank.

    Every rank registers the same sets in the same order, so the ids agree; under ``launch`` the ranks
    share the ``ProcessSet`` object, and the first rank to register it sets the id they all compute.
    """
    registered = state.extra.setdefault("process_sets", [])
    if any(ps is process_set or ps.ranks == process_set.ranks for ps in registered):
        raise ValueError(f"Attempted to add a duplicate process set: {process_set}")
    state.extra["last_process_set_id"] = set_id = state.extra.get("last_process_set_id", 0) + 1
    if process_set.process_set_id is None:
        process_set.process_set_id = set_id
    registered.append(process_set)
