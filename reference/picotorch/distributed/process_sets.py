"""Subsets of ranks that run collectives among themselves: ``horovod/common/process_sets.py``.

A ``ProcessSet`` is a sorted list of global ranks. ``global_process_set`` (id 0) holds every rank;
others are registered on every rank, in the same order, either through ``hvd.init(process_sets=[...])``
or ``hvd.add_process_set(...)``, and get ids 1, 2, ... Each collective takes ``process_set=`` and then
runs among those ranks only; ``ps.rank()`` is this rank's index inside the set.

One ``ProcessSet`` object is shared by all rank threads of the threads backend, so it holds no per-rank
data: each rank finds its own communicator for the set in its state.
"""

from __future__ import annotations

from .basics import initialized_state
from .state import register_process_set

__all__ = ["ProcessSet", "add_process_set", "global_process_set", "remove_process_set"]


class ProcessSet:
    """``hvd.ProcessSet(ranks)``: the ranks, and (once registered) the id every rank agrees on."""

    def __init__(self, ranks_or_comm=None) -> None:
        self.ranks = None if ranks_or_comm is None else sorted(int(r) for r in ranks_or_comm)
        self.process_set_id = None

    def _ranks(self) -> list[int]:
        return list(range(initialized_state().size)) if self.ranks is None else self.ranks

    def included(self) -> bool:
        return initialized_state().rank in self._ranks()

    def size(self) -> int:
        return len(self._ranks())

    def rank(self) -> int:
        """This rank's index in the set; ``-1`` on a rank outside it."""
        state = initialized_state()
        ranks = self._ranks()
        return ranks.index(state.rank) if state.rank in ranks else -1

    def communicator(self, state):
        """The calling rank's communicator for this set (made once per rank, kept in its state)."""
        if self.ranks is None:
            return state.communicator
        if state.rank not in self.ranks:
            raise ValueError(f"rank {state.rank} is not part of process set {self.ranks}")
        cache = state.extra.setdefault("set_communicators", {})
        key = tuple(self.ranks)
        if key not in cache:
            cache[key] = state.communicator.split(self.ranks, tag=f"process_set {key}")
        return cache[key]

    def __repr__(self) -> str:  # Horovod's __str__
        return f"ProcessSet(process_set_id={self.process_set_id}, ranks={self.ranks}, mpi_comm=None)"


global_process_set = ProcessSet()
global_process_set.process_set_id = 0


def add_process_set(process_set) -> ProcessSet:
    """Register a set on this rank (every rank must add the same sets in the same order); a set of the same
    ranks twice is Horovod's ``ValueError``."""
    ps = process_set if isinstance(process_set, ProcessSet) else ProcessSet(process_set)
    register_process_set(initialized_state(), ps)
    return ps


def remove_process_set(process_set: ProcessSet) -> bool:
    """Unregister a set on this rank and forget its id; ``False`` for the global set or one never added.

    Simplification: a set whose collectives already ran keeps its negotiation going until shutdown."""
    registered = initialized_state().extra.setdefault("process_sets", [])
    if process_set not in registered:  # (the global set never is; under launch, ranks share the object)
        return False
    registered.remove(process_set)
    process_set.process_set_id = None
    return True
