"""Joining and leaving the job, and who am I in it: ``horovod/common/basics.py``.

``init()`` starts this rank's runtime (the background cycle that runs collectives, ``runtime.py``) on the
backend the program runs under: inside ``picotorch.distributed.launch`` the threads backend, else MPI
(``mpiexec -n 2 python train.py``). ``rank()``, ``size()``, ``local_rank()`` read the rank's state
(``state.py``) and, as Horovod's, raise ``ValueError`` before ``init``.
"""

from __future__ import annotations

from . import mpi_backend, runtime
from .state import NOT_INITIALIZED, RankState, current_or_none, set_process_state

__all__ = ["init", "is_initialized", "local_rank", "local_size", "rank", "shutdown", "size"]


def init(backend: str | None = None, process_sets=None) -> None:
    """``hvd.init()``: join the job. Inside ``launch`` the threads backend is already chosen; else MPI.

    ``process_sets``: ``ProcessSet`` objects to register on every rank, as Horovod's.
    """
    state = current_or_none()
    if backend is None:
        backend = state.backend if state is not None else "mpi"
    if backend == "threads":
        if state is None or state.backend != "threads":
            raise ValueError('init(backend="threads") runs inside picotorch.distributed.launch(fn, world_size=N); '
                             'for real processes use init(backend="mpi") under mpiexec')
    elif backend == "mpi":
        if state is None:
            state = mpi_backend.rank_state()
            set_process_state(state)
    else:
        raise ValueError(f'unknown backend {backend!r}: expected "threads" or "mpi"')
    if state.runtime is None:
        runtime.start(state, process_sets)


def shutdown() -> None:
    """``hvd.shutdown()``: stop the background cycle; collectives after this raise ``ValueError``."""
    state = current_or_none()
    if state is None:
        return
    if state.runtime is not None:
        runtime.stop(state)
    if state.backend == "mpi":
        set_process_state(None)


def is_initialized() -> bool:
    state = current_or_none()
    return state is not None and state.runtime is not None


def initialized_state() -> RankState:
    state = current_or_none()
    if state is None or state.runtime is None:
        raise ValueError(NOT_INITIALIZED)
    return state


def rank() -> int:
    return initialized_state().rank


def size() -> int:
    return initialized_state().size


def local_rank() -> int:
    return initialized_state().local_rank


def local_size() -> int:
    return initialized_state().local_size
