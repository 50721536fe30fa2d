"""Real processes: one rank per process, talking MPI through ``mpi4py`` (MPI from the ``mpich`` wheel).

    mpiexec -n 2 python examples/train_digits_distributed.py

Horovod's ``MPIController`` and ``MPI_Allreduce`` operations (``horovod/common/mpi/``), reduced to the
communicator interface the runtime uses (the threads backend's ``ThreadCommunicator`` has the same
methods). Only the runtime's background thread calls it, so MPI needs no thread support beyond
``MPI_THREAD_SERIALIZED``... (skeleton: blocking collectives).
"""

from __future__ import annotations

import numpy as np

from .state import RankState

__all__ = ["MPICommunicator", "rank_state"]


class MPICommunicator:
    def __init__(self, comm) -> None:
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    def split(self, ranks: list[int], tag: str) -> MPICommunicator:
        group = self.comm.Get_group().Incl(ranks)
        return MPICommunicator(self.comm.Create_group(group))

    def allgather_object(self, obj) -> list:
        return self.comm.allgather(obj)

    def allreduce(self, buffer: np.ndarray) -> None:
        from mpi4py import MPI  # lazy: mpi4py is optional (the threads backend runs without it)

        self.comm.Allreduce(MPI.IN_PLACE, buffer, op=MPI.SUM)

    def broadcast(self, buffer: np.ndarray, root: int) -> None:
        self.comm.Bcast(buffer, root=root)

    def broadcast_object(self, obj, root: int):
        return self.comm.bcast(obj, root=root)

    def barrier(self) -> None:
        self.comm.Barrier()


def rank_state() -> RankState:
    try:
        from mpi4py import MPI  # lazy: mpi4py is optional (the threads backend runs without it)
    except ImportError as error:
        raise ImportError('the mpi backend needs mpi4py and an MPI library: pip install "picotorch[mpi]"') \
            from error
    comm = MPI.COMM_WORLD
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    return RankState(comm.Get_rank(), comm.Get_size(), MPICommunicator(comm), "mpi",
                     local_rank=local.Get_rank(), local_size=local.Get_size())
