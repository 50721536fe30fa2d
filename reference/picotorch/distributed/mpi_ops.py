"""The collectives a program calls: ``horovod/torch/mpi_ops.py``.

Every collective comes in Horovod's three spellings: ``allreduce_async_`` (in place, returns a handle at
once), ``allreduce_`` (in place, waits) and ``allreduce`` (returns a new tensor). The async form is the one
the ``DistributedOptimizer``'s hooks use: it copies the tensor into a request, hands the request to this
rank's runtime (``runtime.py``) and returns an integer handle; ``synchronize(handle)`` waits for the result
and writes it into the tensor; ``poll(handle)`` asks without waiting.

NOTE [Keep the buffers alive until the collective completes]: the handle map (``_handle_map`` in
Horovod) holds the tensor and the request's arrays from the call until ``synchronize``. A non-blocking MPI
collective writes into those buffers later, from another thread; if they were freed first, it would write
into freed memory (with mpi4py's ``Iallreduce``: a segfault).
"""

from __future__ import annotations

import itertools

import numpy as np

from .._C import from_numpy
from ..autograd import no_grad
from ..native.device import to_numpy
from ..native.tensor_impl import TensorImpl
from .basics import initialized_state
from .process_sets import global_process_set
from .runtime import Request
from .state import current

__all__ = ["Adasum", "Average", "Sum", "allreduce", "allreduce_", "allreduce_async", "allreduce_async_",
           "barrier", "broadcast", "broadcast_", "broadcast_async", "broadcast_async_", "grouped_allreduce",
           "grouped_allreduce_", "grouped_allreduce_async", "grouped_allreduce_async_", "poll", "synchronize"]

# The reduction ops, spelled as Horovod spells them (``hvd.Average`` ...); Adasum is left out (``_resolve_op``).
Average, Sum, Adasum = "Average", "Sum", "Adasum"


def _handle_map(state) -> dict:
    return state.extra.setdefault("handle_map", {})


def _next_handle(state) -> int:
    # itertools.count: one step, so hooks of one rank running on two device threads never share a handle
    return next(state.extra.setdefault("handles", itertools.count()))


def _buffer_of(tensor, in_place: bool) -> tuple[np.ndarray, bool]:
    """The request's buffer for ``tensor``, and whether it is the tensor's own memory.

    An in-place collective on a CPU tensor whose storage is one contiguous, writable NumPy array works
    in that array, as Horovod works in the tensor's memory: no copy in, none out (a gradient hook that
    copied would delay the backward it runs in, and ``synchronize`` would copy again before the step).
    Anything else (another device, a strided view, a read-only broadcast) gets a private NumPy copy,
    written back by ``synchronize``. Until then the tensor belongs to the collective: reading it shows
    a partial sum, writing it corrupts the result, as in Horovod.
    """
    if not isinstance(tensor, TensorImpl):
        raise TypeError(f"expected a Tensor, got {type(tensor).__name__}")
    data = tensor._data
    if in_place and type(data) is np.ndarray and data.flags.c_contiguous and data.flags.writeable:
        return data, True
    return np.array(to_numpy(tensor.detach()._data), copy=True), False


def _resolve_op(average, op) -> str:
    if op is not None and average is not None:
        raise ValueError("The op parameter supersedes average. Please provide only one of them.")
    if op is None:
        op = Average if average is None or average else Sum
    if op == Adasum:
        raise NotImplementedError("picotorch.distributed leaves out Adasum: use hvd.Average or hvd.Sum")
    if op not in (Average, Sum):
        raise ValueError(f"op must be hvd.Average or hvd.Sum, got {op!r}")
    return op


def _submit(kind: str, tensors: list, outputs: list, name, process_set, grouped=False, **fields) -> int:
    """Queue the collective on ``tensors``, whose results go to ``outputs`` (the same tensors: in place)."""
    state = initialized_state()
    buffers = [_buffer_of(t, t is out) for t, out in zip(tensors, outputs)] if outputs else []
    request = Request(kind, name if name is not None else f"{kind}.noname.{len(_handle_map(state))}",
                      [array for array, _ in buffers], process_set=process_set, grouped=grouped, **fields)
    state.runtime.enqueue(request)  # raises (duplicate name, shut down) before a handle exists
    handle = _next_handle(state)
    _handle_map(state)[handle] = (request, outputs, [shared for _, shared in buffers])
    return handle


# ----------------------------------------------------------------------------- allreduce


def allreduce_async_(tensor, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                     process_set=global_process_set) -> int:
    """Start averaging (or summing) ``tensor`` over the ranks, in place; returns a handle."""
    op = _resolve_op(average, op)
    return _submit("allreduce", [tensor], [tensor], name, process_set, average=op == Average,
                   prescale_factor=prescale_factor, postscale_factor=postscale_factor)


def allreduce_async(tensor, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                    process_set=global_process_set) -> int:
    op = _resolve_op(average, op)
    output = tensor.detach().clone()
    return _submit("allreduce", [output], [output], name, process_set, average=op == Average,
                   prescale_factor=prescale_factor, postscale_factor=postscale_factor)


def allreduce_(tensor, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
               process_set=global_process_set):
    return synchronize(allreduce_async_(tensor, average, name, op, prescale_factor, postscale_factor, process_set))


def allreduce(tensor, average=None, name=None, compression=None, op=None, prescale_factor=1.0,
              postscale_factor=1.0, process_set=global_process_set):
    return synchronize(allreduce_async(tensor, average, name, op, prescale_factor, postscale_factor, process_set))


def _group(tensors) -> list:
    """The tensors of a grouped allreduce: at least one, all of one dtype (picotorch's runtime negotiates a
    group as one request with one dtype; Horovod's, one request per tensor, allows mixed dtypes)."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("grouped_allreduce needs at least one tensor")
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise ValueError(f"grouped_allreduce: picotorch reduces a group in one dtype, got {sorted(map(str, dtypes))}")
    return tensors


def grouped_allreduce_async_(tensors, average=None, name=None, op=None, prescale_factor=1.0,
                             postscale_factor=1.0, process_set=global_process_set) -> int:
    """One handle for several tensors, reduced together (Horovod fuses a group as one unit)."""
    op = _resolve_op(average, op)
    tensors = _group(tensors)
    return _submit("allreduce", tensors, tensors, name, process_set, grouped=True, average=op == Average,
                   prescale_factor=prescale_factor, postscale_factor=postscale_factor)


def grouped_allreduce_async(tensors, average=None, name=None, op=None, prescale_factor=1.0,
                            postscale_factor=1.0, process_set=global_process_set) -> int:
    op = _resolve_op(average, op)
    outputs = [t.detach().clone() for t in _group(tensors)]
    return _submit("allreduce", outputs, outputs, name, process_set, grouped=True, average=op == Average,
                   prescale_factor=prescale_factor, postscale_factor=postscale_factor)


def grouped_allreduce_(tensors, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                       process_set=global_process_set):
    return synchronize(grouped_allreduce_async_(tensors, average, name, op, prescale_factor, postscale_factor,
                                                process_set))


def grouped_allreduce(tensors, average=None, name=None, compression=None, op=None, prescale_factor=1.0,
                      postscale_factor=1.0, process_set=global_process_set):
    return synchronize(grouped_allreduce_async(tensors, average, name, op, prescale_factor, postscale_factor,
                                               process_set))


# ----------------------------------------------------------------------------- broadcast


def broadcast_async_(tensor, root_rank, name=None, process_set=global_process_set) -> int:
    return _submit("broadcast", [tensor], [tensor], name, process_set, root_rank=root_rank)


def broadcast_async(tensor, root_rank, name=None, process_set=global_process_set) -> int:
    output = tensor.detach().clone()
    return _submit("broadcast", [output], [output], name, process_set, root_rank=root_rank)


def broadcast_(tensor, root_rank, name=None, process_set=global_process_set):
    return synchronize(broadcast_async_(tensor, root_rank, name, process_set))


def broadcast(tensor, root_rank, name=None, process_set=global_process_set):
    return synchronize(broadcast_async(tensor, root_rank, name, process_set))


def barrier(process_set=global_process_set) -> None:
    synchronize(_submit("barrier", [], [], "barrier", process_set))


# ----------------------------------------------------------------------------- waiting


def poll(handle: int) -> bool:
    """True once the collective of ``handle`` has finished (``synchronize`` will not wait)."""
    request, _, _ = _handle_map(current())[handle]
    return request.done.is_set()


def synchronize(handle: int):
    """Wait for ``handle``'s collective, write the result into its output tensor(s), and return them.

    A collective that failed (a mismatch between ranks, a rank that died, ``shutdown``) raises
    ``HorovodInternalError`` here, as Horovod's. On the threads backend a handle still pending when
    ``shutdown`` ran can be synchronized afterwards, and raises Horovod's shutdown message.
    """
    entry = _handle_map(current()).pop(handle, None)
    if entry is None:  # as Horovod's: a handle already synchronized (or never made) gives None
        return None
    request, outputs, shared = entry
    request.done.wait()
    if request.error is not None:
        raise request.error
    with no_grad():
        for output, array, in_place in zip(outputs, request.arrays, shared):
            if in_place:  # the collective wrote into the tensor's own memory: an in-place op, as copy_ is
                output._version_counter.bump()
            else:
                # np.require, not ascontiguousarray (which makes a 0-d array 1-d)
                output.copy_(from_numpy(np.require(array, requirements="C")))
    if request.kind == "barrier":
        return None
    return outputs if request.grouped else outputs[0]
