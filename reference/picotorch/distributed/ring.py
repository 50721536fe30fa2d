"""The ring allreduce: reduce-scatter, then all-gather, each rank talking only to its two neighbours.

What Horovod's ring runs when it has no MPI or NCCL to call (``horovod/common/ops/gloo_operations.cc``
hands it to Gloo's ring; NCCL's ring is the same algorithm on GPUs): N ranks sit on a ring; each sends
only to its right neighbour and receives only from its left. The buffer is cut into N chunks.

- **reduce-scatter**, N - 1 steps: at step ``s`` rank ``r`` sends chunk ``r - s`` to the right and adds the
  chunk ``r - s - 1`` coming from the left into its own. A chunk travels once round the ring, gathering one
  rank's contribution per hop; after the last step rank ``r`` holds the full sum of chunk ``r + 1``.
- **all-gather**, N - 1 steps: rank ``r`` sends its finished chunk right; every rank copies the chunk it
  receives and passes it on, so after N - 1 hops every rank holds every finished chunk.

Each rank sends and receives ``2 (N - 1) / N`` of the buffer whatever N is: the ring's bandwidth cost does
not grow with the number of ranks, only its latency (2 (N - 1) steps). Each chunk's sum is computed once,
on one rank, and then copied: so every rank ends with the same bits, though the order of the additions
differs from chunk to chunk.

Why no chunk is copied before it is sent during the reduce-scatter: the chunk rank ``r`` sends at step
``s`` is overwritten by rank ``r`` only in step ``s`` of the all-gather, and that step cannot start before
its right neighbour has done its step ``s`` addition (the messages between form a chain that passes
through it). The all-gather's messages have no such chain behind them (a rank may return, and its caller
write into the buffer, before the last receiver has copied), so the finished chunk is copied once, frozen,
and that copy travels all the way round.
"""

from __future__ import annotations

import numpy as np

__all__ = ["chunk_views", "ring_allreduce", "ring_broadcast"]


def chunk_views(flat: np.ndarray, parts: int) -> list[np.ndarray]:
    """``flat`` cut into ``parts`` consecutive views, the first ``len % parts`` one element longer."""
    base, extra = divmod(flat.size, parts)
    bounds = np.cumsum([0] + [base + (1 if i < extra else 0) for i in range(parts)])
    return [flat[bounds[i]:bounds[i + 1]] for i in range(parts)]


def frozen_copy(array: np.ndarray) -> np.ndarray:
    """A copy nobody may write: safe to hand to any number of receivers, for as long as they like."""
    copy = array.copy()
    copy.flags.writeable = False
    return copy


def ring_broadcast(comm, buffer: np.ndarray, root: int) -> None:
    """Copy ``buffer`` of rank ``root`` into every rank's ``buffer``, passing it round the ring.

    The root sends one frozen copy to its right; every other rank receives it from its left, copies it
    into its own buffer and sends the same message on, until it would come back to the root.
    """
    size, rank = comm.size, comm.rank
    right, left = (rank + 1) % size, (rank - 1) % size
    if size == 1:
        return
    if rank == root:
        comm.send(right, frozen_copy(buffer))
        return
    message = comm.recv(left)
    buffer[...] = message
    if right != root:
        comm.send(right, message)


def ring_allreduce(comm, buffer: np.ndarray) -> None:
    """Sum ``buffer`` over the ranks of ``comm``, in place: reduce-scatter, then all-gather.

    ``ring_broadcast`` above is the worked example of the moves: send right, receive from the left, and
    pass a received message on as it is. ``chunks`` are views of ``buffer``: adding into them is the sum.
    """
    if not buffer.flags.c_contiguous:  # the chunks must be views of one flat run of memory
        work = np.ascontiguousarray(buffer)
        ring_allreduce(comm, work)
        buffer[...] = work
        return
    size, rank = comm.size, comm.rank
    if size == 1 or buffer.size == 0:
        return
    chunks = chunk_views(buffer.reshape(-1), size)
    right, left = (rank + 1) % size, (rank - 1) % size
    # BEGIN SOLUTION 7.1: reduce-scatter (send chunk rank-step right, add the left's in), then all-gather
    for step in range(size - 1):
        comm.send(right, chunks[(rank - step) % size])
        chunks[(rank - step - 1) % size] += comm.recv(left)
    message = frozen_copy(chunks[(rank + 1) % size])  # the chunk this rank finished
    for step in range(size - 1):
        comm.send(right, message)
        message = comm.recv(left)
        chunks[(rank - step) % size][...] = message
    # END SOLUTION
