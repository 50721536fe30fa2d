"""``picotorch.distributed``: Horovod's ``horovod.torch`` API, on threads or on real MPI processes.

Models ``horovod/torch/__init__.py`` (the names a program imports as ``hvd``). A program reads as a
Horovod program does::

    import picotorch.distributed as hvd

    def train():
        hvd.init()
        model = ...
        optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        ...

    hvd.launch(train, world_size=4)       # 4 ranks as threads of this process (notebooks, tests)
    # or: mpiexec -n 2 python train.py    # with hvd.init() choosing the mpi backend

The autograd engine never imports this package: the optimizer hooks into the graph from outside, on the
gradient accumulators, as Horovod does. Where the pieces live:

- ``state.py``, ``basics.py``: the rank's state; ``init``, ``rank``, ``size``...
- ``threads_backend.py`` (``launch``, ``NetworkModel``), ``ring.py`` (the ring allreduce), ``mpi_backend.py``;
- ``runtime.py``: the background cycle: negotiation, tensor fusion, execution (``operations.cc``);
- ``mpi_ops.py``: ``allreduce_async_``, ``synchronize``, ``poll``, ``broadcast_``...;
- ``functions.py``: ``broadcast_parameters``, ``broadcast_optimizer_state``, ``broadcast_object``...;
- ``process_sets.py``; ``optimizer.py`` (``DistributedOptimizer``); ``timeline.py`` (``start_timeline``,
  ``stop_timeline``, ``Timeline``); ``ddp.py`` (``DistributedDataParallel``, PyTorch's buckets, for comparison).
"""

from __future__ import annotations

from .basics import init, is_initialized, local_rank, local_size, rank, shutdown, size
from .ddp import _compute_bucket_assignment_by_size  # noqa: F401  (torch.distributed's, for comparisons)
from .exceptions import HorovodInternalError
from .functions import allgather_object, broadcast_object, broadcast_optimizer_state, broadcast_parameters
from .mpi_ops import (
    Adasum,
    Average,
    Sum,
    allreduce,
    allreduce_,
    allreduce_async,
    allreduce_async_,
    barrier,
    broadcast,
    broadcast_,
    broadcast_async,
    broadcast_async_,
    grouped_allreduce,
    grouped_allreduce_,
    grouped_allreduce_async,
    grouped_allreduce_async_,
    poll,
    synchronize,
)
from .optimizer import DistributedOptimizer
from .process_sets import ProcessSet, add_process_set, global_process_set, remove_process_set
from .runtime import runtime_stats
from .threads_backend import NetworkModel, launch
from .timeline import start_timeline, stop_timeline

__all__ = [
    "Adasum", "Average", "DistributedOptimizer", "HorovodInternalError", "ProcessSet", "Sum", "add_process_set",
    "allgather_object", "allreduce", "allreduce_", "allreduce_async", "allreduce_async_", "barrier", "broadcast",
    "broadcast_", "broadcast_async", "broadcast_async_", "broadcast_object", "broadcast_optimizer_state",
    "broadcast_parameters", "global_process_set", "grouped_allreduce", "grouped_allreduce_",
    "grouped_allreduce_async", "grouped_allreduce_async_", "init", "is_initialized", "launch", "local_rank",
    "local_size", "poll", "rank", "remove_process_set", "runtime_stats", "shutdown", "size", "start_timeline",
    "stop_timeline", "synchronize", "NetworkModel",
]
