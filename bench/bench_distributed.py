"""How fast chapter 07's collectives move bytes: the threads backend's ring allreduce against NumPy's bound.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_distributed.py [--quick] [--case ring] [--repeats N] [--rounds R]

Models nothing: it measures ``picotorch/distributed`` (``ring.py`` on the ``threads_backend``).

``ring``: 4 rank threads allreduce a 16 MB float32 buffer each (``comm.allreduce``, no network model: as
fast as memory). Time per allreduce: rank 0's median over ``--repeats`` runs, each ending with a barrier
so that every rank has finished (minus the median of a barrier alone). Against two NumPy bounds, measured
in the same run on one thread:

- ``job bound``: the least memory traffic of any allreduce of N buffers in one address space, done by one
  thread in NumPy: N - 1 in-place adds of the whole buffers (``a0 += a1`` ...), then N - 1 copies of the
  sum into the other buffers. The ring does exactly these adds and copies, spread over its N threads.
  Ratio = bound time / ring time (the issue's target: >= 0.5). The ring and both bounds are measured in
  turns, ``--rounds`` times (medians of ``--repeats`` runs each); the ratios are medians over the rounds.
- ``rank bound``: what one rank of the ring must do itself, done by one thread: N - 1 in-place adds and
  N copies of one chunk (1/N of the buffer), i.e. 2(N-1)/N of the buffer added or copied. On a machine
  with fewer cores than ranks the ring cannot reach it (ranks take turns on the cores).

Bandwidths: ``algbw`` = buffer bytes / time (NCCL's name for what the caller sees); ``busbw`` = algbw x
2(N-1)/N, the bytes each rank sends per second. Not a test: nothing fails when it is slow.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before NumPy loads its BLAS

import numpy as np  # noqa: E402
from _timing import median_seconds  # noqa: E402

import picotorch.distributed as hvd  # noqa: E402
from picotorch.distributed.ring import chunk_views  # noqa: E402
from picotorch.distributed.state import current  # noqa: E402

MB = 1 << 20


# ----------------------------------------------------------------------------- ring


def ring_seconds(world_size: int, nbytes: int, repeats: int) -> float:
    """Median time of one allreduce on ``world_size`` rank threads (rank 0's view, barrier included)."""

    def rank_fn():
        comm = current().communicator
        buffer = np.zeros(nbytes // 4, dtype=np.float32)  # sums of zeros: no growth, no overflow, same speed

        def once():
            comm.allreduce(buffer)
            comm.barrier()

        return median_seconds(once, repeats) - median_seconds(comm.barrier, repeats)

    return hvd.launch(rank_fn, world_size, timeout=120.0)[0]


def job_bound_seconds(world_size: int, nbytes: int, repeats: int) -> float:
    """One thread: N - 1 whole-buffer adds, then N - 1 whole-buffer copies of the sum."""
    buffers = [np.full(nbytes // 4, 1.0, dtype=np.float32) for _ in range(world_size)]

    def once():
        total = buffers[0]
        for other in buffers[1:]:
            total += other
        for other in buffers[1:]:
            other[...] = total

    return median_seconds(once, repeats)


def rank_bound_seconds(world_size: int, nbytes: int, repeats: int) -> float:
    """One thread: one rank's share of the ring, N - 1 chunk adds and N chunk copies."""
    chunks = chunk_views(np.full(nbytes // 4, 1.0, dtype=np.float32), world_size)
    incoming = [chunk.copy() for chunk in chunks]

    def once():
        for i in range(world_size - 1):
            chunks[i] += incoming[i]
        frozen = chunks[-1].copy()
        for i in range(world_size - 1):
            chunks[i][...] = frozen if i == 0 else incoming[i]

    return median_seconds(once, repeats)


def bench_ring(world_size: int, nbytes: int, repeats: int, rounds: int) -> None:
    """The ring and its bounds, measured in turns (``rounds`` times) so that a change of load hits all three."""
    times = []
    for _ in range(rounds):
        times.append((ring_seconds(world_size, nbytes, repeats), job_bound_seconds(world_size, nbytes, repeats),
                      rank_bound_seconds(world_size, nbytes, repeats)))
    ring, job, rank = (statistics.median(column) for column in zip(*times))
    job_ratio = statistics.median(j / r for r, j, _ in times)
    rank_ratio = statistics.median(k / r for r, _, k in times)
    algbw = nbytes / ring / 1e9
    busbw = algbw * 2 * (world_size - 1) / world_size
    print(f"ring allreduce, {world_size} ranks, {nbytes / MB:g} MB float32: {ring * 1e3:8.2f} ms | "
          f"algbw {algbw:6.2f} GB/s | busbw {busbw:6.2f} GB/s", flush=True)
    print(f"  job bound  (one NumPy thread: {world_size - 1} adds + {world_size - 1} copies of the buffer): "
          f"{job * 1e3:8.2f} ms | ring reaches {job_ratio:5.2f}x of it (target >= 0.5)", flush=True)
    print(f"  rank bound (one NumPy thread: one rank's {world_size - 1} chunk adds + {world_size} chunk copies): "
          f"{rank * 1e3:8.2f} ms | ring reaches {rank_ratio:5.2f}x of it", flush=True)


# ----------------------------------------------------------------------------- main


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a few seconds)")
    parser.add_argument("--case", default="ring", help="comma-separated subset")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None, help="ring and bounds measured in turns, this often")
    args = parser.parse_args(argv)
    repeats = args.repeats or (5 if args.quick else 11)
    rounds = args.rounds or (1 if args.quick else 5)
    cases = set(args.case.split(","))
    print(f"medians of {repeats} runs, {rounds} rounds; numpy {np.__version__}; python {sys.version.split()[0]}; "
          f"OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.2f}")
    if "ring" in cases:
        bench_ring(4, (1 if args.quick else 16) * MB, repeats, rounds)


if __name__ == "__main__":
    main()
