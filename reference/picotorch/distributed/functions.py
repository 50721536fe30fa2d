"""Collectives on whole models and Python objects: ``horovod/torch/functions.py``.

``broadcast_parameters`` and ``broadcast_optimizer_state`` make every rank start from rank 0's weights and
optimizer state (call them once, after building the model and the optimizer); ``broadcast_object`` and
``allgather_object`` send any picklable Python object (the ``DistributedOptimizer`` broadcasts the
parameter names with it, so every rank forms the same groups).
"""

from __future__ import annotations

from .basics import initialized_state
from .mpi_ops import broadcast_async_, synchronize
from .process_sets import global_process_set
from .runtime import Request

__all__ = ["allgather_object", "broadcast_object", "broadcast_optimizer_state", "broadcast_parameters"]


def _object_collective(kind: str, obj, root_rank: int, process_set) -> object:
    request = Request(kind, kind, [], process_set=process_set, root_rank=root_rank, payload=obj)
    initialized_state().runtime.enqueue(request)
    request.done.wait()
    if request.error is not None:
        raise request.error
    return request.result


def broadcast_object(obj, root_rank=0, name=None, process_set=global_process_set):
    """Rank ``root_rank``'s ``obj`` on every rank (pickled on the wire under MPI)."""
    return _object_collective("broadcast_object", obj, root_rank, process_set)


def allgather_object(obj, name=None, process_set=global_process_set) -> list:
    """Every rank's ``obj``, as a list indexed by rank."""
    return _object_collective("allgather_object", obj, 0, process_set)


def broadcast_parameters(params, root_rank, process_set=global_process_set) -> None:
    """Overwrite ``params`` with rank ``root_rank``'s values: a ``state_dict``, or a list of ``(name, tensor)``
    pairs (``list(model.named_parameters())``: a generator is refused, as Horovod refuses it)."""
    if isinstance(params, dict):
        params = sorted(params.items())
    elif isinstance(params, list):
        params = [p if isinstance(p, tuple) else (None, p) for p in params]  # list of pairs, or of tensors
    else:
        raise ValueError("invalid params of type: %s" % type(params))
    handles = [broadcast_async_(p, root_rank, name, process_set) for name, p in params]
    for handle in handles:
        synchronize(handle)


def broadcast_optimizer_state(optimizer, root_rank, process_set=global_process_set) -> None:
    """Overwrite ``optimizer``'s state and hyperparameters with rank ``root_rank``'s."""
    state_dict = broadcast_object(optimizer.state_dict(), root_rank, process_set=process_set)
    if initialized_state().rank != root_rank:
        optimizer.load_state_dict(state_dict)
