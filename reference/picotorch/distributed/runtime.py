"""The queue and the background cycle that run every collective: ``horovod/common/operations.cc``.

In Horovod, ``allreduce_async_`` does not communicate: it puts a request on this rank's tensor queue
and returns a handle. A background thread wakes every ``HOROVOD_CYCLE_TIME`` ms, agrees with the other
ranks which requested tensors are ready everywhere (negotiation, ``controller.cc``), fuses ready tensors
of one dtype into one buffer up to ``HOROVOD_FUSION_THRESHOLD`` bytes, runs one collective per buffer,
copies the results out and marks the handles done. All communication happens on that one thread, so a
backend need not be thread-safe (MPI), and backward never waits for the network.

(Skeleton: ``enqueue`` runs each request at once on the calling thread. The background cycle, negotiation,
fusion and the timeline replace it.)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .state import RankState

__all__ = ["Request", "Runtime", "start", "stop"]


@dataclass(eq=False)
class Request:
    """One collective a rank asked for (Horovod's ``Request`` + ``TensorTableEntry``).

    ``kind``: "allreduce", "broadcast", "broadcast_object", "allgather_object" or "barrier"; ``arrays``: the
    NumPy arrays to reduce or broadcast in place (a grouped allreduce has several); ``done`` is set when
    they hold the result.
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


class Runtime:
    """One rank's runtime: requests in, collectives out."""

    def __init__(self, state: RankState) -> None:
        self.state = state

    def enqueue(self, request: Request) -> Request:
        try:
            self.execute(request)
        except BaseException as error:  # noqa: BLE001 - handed to whoever synchronizes on the request
            request.error = error
        request.done.set()
        return request

    def communicator_for(self, request: Request):
        ps = request.process_set
        return self.state.communicator if ps is None else ps.communicator(self.state)

    def execute(self, request: Request) -> None:
        comm = self.communicator_for(request)
        if request.kind == "allreduce":
            for array in request.arrays:
                work = array  # reduced in place, in the tensor's own dtype
                if request.prescale_factor != 1.0:
                    work *= array.dtype.type(request.prescale_factor)
                comm.allreduce(work)
                scale = request.postscale_factor / (comm.size if request.average else 1)
                if scale != 1.0:
                    work *= array.dtype.type(scale) if array.dtype.kind == "f" else scale
        elif request.kind == "broadcast":
            for array in request.arrays:
                comm.broadcast(array, request.root_rank)
        elif request.kind == "broadcast_object":
            request.result = comm.broadcast_object(request.payload, request.root_rank)
        elif request.kind == "allgather_object":
            request.result = comm.allgather_object(request.payload)
        elif request.kind == "barrier":
            comm.barrier()
        else:
            raise ValueError(f"unknown collective {request.kind!r}")

    def shutdown(self) -> None:
        pass


def start(state: RankState, process_sets=None) -> None:
    state.runtime = Runtime(state)
    state.extra.setdefault("process_sets", list(process_sets or []))


def stop(state: RankState) -> None:
    runtime, state.runtime = state.runtime, None
    if runtime is not None:
        runtime.shutdown()
