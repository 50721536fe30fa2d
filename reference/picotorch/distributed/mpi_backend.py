"""Real processes: one rank per process, talking MPI through ``mpi4py`` (MPI from the ``mpich`` wheel).

    mpiexec -n 2 python examples/train_digits_distributed.py

Models Horovod's MPI pieces (``horovod/common/mpi/mpi_context.cc``, ``mpi_controller.cc``,
``horovod/common/ops/mpi_operations.cc``), reduced to the communicator the runtime calls: ``allreduce``
(in place, SUM), ``broadcast``, ``broadcast_object``, ``allgather_object``, ``barrier``, ``split`` -- the
threads backend's ``ThreadCommunicator`` has the same methods.

The story of one collective: start it non-blocking (``Iallreduce``, ``Ibcast``, ``Ibarrier``...), then
poll the request with ``Test`` until it completes or a deadline passes. A blocking ``Allreduce`` would
wait forever for a peer that died, is stuck, or never joined; polling lets this rank give up with a
``HorovodInternalError`` that says what it waited for. (Polling back to back while the transfer may still
be running keeps it as fast as a blocking call: each ``Test`` moves MPI's progress on. After that the peer is
late, and the poll sleeps between tries, so a slow peer costs no CPU.) The deadline is Horovod's own setting
``HOROVOD_STALL_SHUTDOWN_TIME_SECONDS`` (seconds; Horovod's default 0 means "never shut down", picotorch
never waits forever: unset or 0 means 60 s, Horovod's stall *warning* time).

Two more things a real MPI job needs:

- Threads. ``hvd.init()`` runs on the main thread and initialises MPI there; after that, only the
  runtime's background thread calls MPI, one call at a time. That is ``MPI_THREAD_SERIALIZED``
  (``MPI_THREAD_FUNNELED`` is not enough: the calling thread is not the main one). ``init`` asks mpi4py
  for it (``mpi4py.rc.thread_level``, read when ``mpi4py.MPI`` is first imported) and checks what the
  library provided.
- Ending the job. A rank that raises exits normally (MPI is finalised at exit); its peers then time
  out on their next collective. A rank that fails *because* of a peer (``HorovodInternalError``) calls
  ``MPI_Abort`` after printing its traceback: the peer may be stuck rather than dead, and only
  ``mpiexec`` can end it.
"""

from __future__ import annotations

import os
import pickle
import sys
import time

import numpy as np

from .exceptions import HorovodInternalError
from .state import RankState

__all__ = ["DEFAULT_TIMEOUT", "MPICommunicator", "collective_timeout", "rank_state"]

TIMEOUT_ENV = "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS"
DEFAULT_TIMEOUT = 60.0  # seconds: Horovod's HOROVOD_STALL_CHECK_TIME_SECONDS default (when a stall is reported)
SPIN_SECONDS = 1e-3  # poll back to back for this long plus the bytes' time at SPIN_BANDWIDTH (a healthy transfer:
SPIN_BANDWIDTH = 1e9  # each Test moves MPI's progress on), then sleep between polls, doubling up to MAX_SLEEP
MAX_SLEEP = 1e-3  # (the peer is late: waiting for it should cost no CPU)
OBJECT_SLOT = 4096  # bytes per rank in allgather_object's first (often only) round: a length, then the pickle


ABORT_GRACE = 0.5  # seconds between printing a HorovodInternalError and aborting the job


def collective_timeout() -> float:
    """Seconds a rank waits for one collective: ``HOROVOD_STALL_SHUTDOWN_TIME_SECONDS``, else 60."""
    value = os.environ.get(TIMEOUT_ENV, "")
    try:
        seconds = float(value) if value else 0.0
    except ValueError:
        raise ValueError(f"{TIMEOUT_ENV} must be a number of seconds, got {value!r}") from None
    return seconds if seconds > 0 else DEFAULT_TIMEOUT


def _mpi():
    """The ``mpi4py.MPI`` module (imported here, lazily: mpi4py is optional, threads need none of it)."""
    try:
        import mpi4py
    except ImportError as error:
        raise ImportError('the mpi backend needs mpi4py and an MPI library: pip install "picotorch[mpi]"') \
            from error
    if "mpi4py.MPI" not in sys.modules:  # MPI starts when mpi4py.MPI is imported: ask for our level first
        mpi4py.rc.thread_level = "serialized"
    from mpi4py import MPI

    return MPI


class MPICommunicator:
    """One rank's MPI endpoint: the collectives the runtime runs, each started non-blocking and polled.

    NOTE [Keep the buffers alive until the collective completes] (see ``mpi_ops.py``): between
    ``Iallreduce`` and its completion MPI reads and writes the buffer in the background. ``_wait`` keeps
    the request *and* the buffer referenced until ``Test`` reports completion; if the buffer were freed
    first, MPI would write into freed memory.
    """

    def __init__(self, comm, timeout: float | None = None) -> None:
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = collective_timeout() if timeout is None else timeout
        self.MPI = _mpi()
        self._in_place, self._sum = self.MPI.IN_PLACE, self.MPI.SUM

    def split(self, ranks: list[int], tag: str) -> MPICommunicator:
        """The communicator of a process set (``ranks`` in this communicator's numbering).

        ``MPI_Comm_create_group`` is collective over ``ranks`` only and has no non-blocking form: unlike
        the collectives below it would wait for a member that never calls it.
        """
        group = self.comm.Get_group().Incl(list(ranks))
        return MPICommunicator(self.comm.Create_group(group), self.timeout)

    # ---- the collectives: start, then wait with a deadline
    def allreduce(self, buffer: np.ndarray) -> None:
        """Sum ``buffer`` over the ranks, in place (``buffer`` must be C-contiguous)."""
        request = self.comm.Iallreduce(self._in_place, buffer, op=self._sum)
        # (the description is written only for an error: formatting it costs more than a 1 KB allreduce)
        self._wait(request, buffer, lambda: f"allreduce of {_describe(buffer)}")

    def broadcast(self, buffer: np.ndarray, root: int) -> None:
        request = self.comm.Ibcast(buffer, root=root)
        self._wait(request, buffer, lambda: f"broadcast of {_describe(buffer)} from rank {root}")

    def broadcast_object(self, obj, root: int):
        """Rank ``root``'s ``obj`` everywhere: its pickled size first, then the bytes."""
        payload = _pickled(obj) if self.rank == root else None
        length = np.array([0 if payload is None else len(payload)], dtype=np.int64)
        self.broadcast(length, root)
        if payload is None:
            payload = np.empty(int(length[0]), dtype=np.uint8)
        self.broadcast(payload, root)
        return obj if self.rank == root else pickle.loads(payload.tobytes())

    def allgather_object(self, obj) -> list:
        """Every rank's ``obj``, by rank, pickled: one ``Iallgather`` of fixed-size slots (each the pickle's
        length, then its bytes if they fit); only when some pickle does not fit, an ``Iallgatherv`` of them all.

        The runtime's negotiation calls this every cycle with a few hundred bytes: one round trip, not two.
        """
        payload = _pickled(obj)
        slot = np.zeros(OBJECT_SLOT, dtype=np.uint8)
        slot[:8].view(np.int64)[0] = len(payload)
        if len(payload) <= OBJECT_SLOT - 8:
            slot[8:8 + len(payload)] = payload
        slots = np.empty((self.size, OBJECT_SLOT), dtype=np.uint8)
        request = self.comm.Iallgather(slot, slots)
        self._wait(request, (slot, slots), "allgather of the pickled objects")
        lengths = slots[:, :8].copy().view(np.int64).reshape(-1)
        if lengths.max() <= OBJECT_SLOT - 8:
            return [pickle.loads(slots[r, 8:8 + n].tobytes()) for r, n in enumerate(lengths.tolist())]
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        gathered = np.empty(int(lengths.sum()), dtype=np.uint8)
        request = self.comm.Iallgatherv(payload, [gathered, lengths, offsets, self.MPI.BYTE])
        self._wait(request, (payload, gathered), "allgather of the pickled objects")
        return [pickle.loads(gathered[o:o + n].tobytes()) for o, n in zip(offsets.tolist(), lengths.tolist())]

    def barrier(self) -> None:
        self._wait(self.comm.Ibarrier(), None, "barrier")

    # ---- waiting
    def _wait(self, request, buffers, what) -> None:
        """Poll ``request`` until done; ``buffers`` stays referenced until then (see the NOTE above).

        ``what``: the collective, for the timeout's message (a string, or a function that writes it)."""
        if request.Test():
            return
        start = time.monotonic()
        nbytes = sum(b.nbytes for b in buffers) if isinstance(buffers, tuple) else getattr(buffers, "nbytes", 0)
        spin_until = start + SPIN_SECONDS + nbytes / SPIN_BANDWIDTH
        deadline, pause = start + self.timeout, 0.0
        while not request.Test():
            now = time.monotonic()
            if now > deadline:
                what = what() if callable(what) else what
                raise HorovodInternalError(
                    f"rank {self.rank} waited {self.timeout:g} s for the {what} among ranks {self._members()} "
                    f"to complete: a peer is stuck, died or never joined (set {TIMEOUT_ENV} to wait longer)")
            if now > spin_until:
                pause = min(MAX_SLEEP, max(pause * 2, 1e-5))
                time.sleep(pause)

    def _members(self) -> list[int]:
        """This communicator's ranks, numbered as in the whole job (``COMM_WORLD``)."""
        world = self.MPI.COMM_WORLD.Get_group()
        return list(self.MPI.Group.Translate_ranks(self.comm.Get_group(), list(range(self.size)), world))


def _describe(buffer: np.ndarray) -> str:
    return f"{buffer.size} {buffer.dtype} values ({buffer.nbytes} bytes)"


def _pickled(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=np.uint8)


def rank_state() -> RankState:
    """This process's rank state: MPI started with the thread level the runtime needs (see the docstring)."""
    MPI = _mpi()
    provided = MPI.Query_thread()
    if provided < MPI.THREAD_SERIALIZED:
        names = {MPI.THREAD_SINGLE: "MPI_THREAD_SINGLE", MPI.THREAD_FUNNELED: "MPI_THREAD_FUNNELED"}
        raise RuntimeError(
            f"MPI was initialised with {names.get(provided, provided)}, but picotorch's runtime calls MPI from "
            "its background thread and needs MPI_THREAD_SERIALIZED: set mpi4py.rc.thread_level = 'serialized' "
            "(or leave mpi4py's default, 'multiple') before the first `from mpi4py import MPI`")
    _abort_on_peer_failure(MPI)
    comm = _joined(MPI)
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    return RankState(comm.Get_rank(), comm.Get_size(), MPICommunicator(comm), "mpi",
                     local_rank=local.Get_rank(), local_size=local.Get_size())


def _joined(MPI):
    """picotorch's own communicator (the program's MPI calls never mix with ours): a duplicate of COMM_WORLD.

    Duplicating is a collective, so it is where a rank first meets the others; it is started without
    blocking (``Idup``) and polled until the stall time, so a rank that never calls ``hvd.init()`` fails
    the others' ``init`` with a message instead of hanging it.
    """
    comm, request = MPI.COMM_WORLD.Idup()
    timeout = collective_timeout()
    deadline = time.monotonic() + timeout
    while not request.Test():
        if time.monotonic() > deadline:
            raise HorovodInternalError(
                f"rank {MPI.COMM_WORLD.Get_rank()} waited {timeout:g} s in hvd.init() for the other ranks to join "
                f"(COMM_WORLD has {MPI.COMM_WORLD.Get_size()}): a rank never called hvd.init(), is stuck before "
                f"it, or died (set {TIMEOUT_ENV} to wait longer)")
        time.sleep(0.001)
    return comm


def _abort_on_peer_failure(MPI) -> None:
    """Install the exit rule of the module docstring: after a ``HorovodInternalError``'s traceback, abort the job."""
    previous = sys.excepthook
    if getattr(previous, "picotorch_mpi", False):
        return

    def excepthook(kind, error, traceback) -> None:
        previous(kind, error, traceback)
        if issubclass(kind, HorovodInternalError) and MPI.Is_initialized() and not MPI.Is_finalized():
            sys.stderr.flush()
            time.sleep(ABORT_GRACE)  # mpiexec forwards output asynchronously: let it take the traceback first
            MPI.COMM_WORLD.Abort(1)

    excepthook.picotorch_mpi = True
    sys.excepthook = excepthook
