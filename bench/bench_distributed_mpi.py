"""Real MPI, 2 ranks: picotorch's allreduce (``hvd.allreduce_``, through the runtime) vs raw ``mpi4py``.

    python bench/bench_distributed_mpi.py                  # starts itself under the venv's mpiexec -n 2
    python bench/bench_distributed_mpi.py --plot mpi.png   # and draws bytes/s against size for both

For each size from 1 KB to 64 MB (float32), both sides reduce the same buffer: raw
``comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)``, and ``hvd.allreduce_(tensor, op=hvd.Sum)``, which
copies the tensor into a request, hands it to the runtime, runs the mpi backend's ``Iallreduce`` polled
with ``Test``, and copies the result back. Every repetition starts after a barrier; the time is rank 0's
median. "bytes/s" is the buffer's size over that time (what the program sees, not the wire's traffic).
The target: picotorch ≥ 0.8× raw.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SIZES = [1 << k for k in range(10, 27, 2)]  # 1 KB, 4 KB, ... 64 MB
RANKS = 2


def repeats_for(nbytes: int, scale: float) -> int:
    return max(5, int((200 if nbytes <= 1 << 16 else 40 if nbytes <= 1 << 22 else 10) * scale))


def timed(fn, barrier, repeats: int) -> float:
    fn()  # warm up
    times = []
    for _ in range(repeats):
        barrier()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(scale: float) -> list[tuple[int, float, float, float]]:
    """On every rank, per size: ``(bytes, raw, picotorch's communicator, hvd.allreduce_)`` in seconds."""
    from mpi4py import MPI  # lazy: only the ranks import MPI (the launcher must not start it)

    import picotorch
    import picotorch.distributed as hvd
    from picotorch.distributed.mpi_backend import MPICommunicator

    comm = MPI.COMM_WORLD
    raw_buffers = {n: np.ones(n // 4, dtype=np.float32) for n in SIZES}
    raw = {n: timed(lambda b=raw_buffers[n]: comm.Allreduce(MPI.IN_PLACE, b, op=MPI.SUM), comm.Barrier,
                    repeats_for(n, scale)) for n in SIZES}
    ours = MPICommunicator(comm.Dup())  # the transport alone: Iallreduce polled with Test, no request, no copies
    transport = {n: timed(lambda b=raw_buffers[n]: ours.allreduce(b), ours.barrier, repeats_for(n, scale))
                 for n in SIZES}
    hvd.init(backend="mpi")
    tensors = {n: picotorch.ones(n // 4) for n in SIZES}
    pico = {n: timed(lambda t=tensors[n]: hvd.allreduce_(t, op=hvd.Sum, name="bench"), hvd.barrier,
                     repeats_for(n, scale)) for n in SIZES}
    hvd.shutdown()
    return [(n, raw[n], transport[n], pico[n]) for n in SIZES]


def report(rows: list[tuple[int, float, float, float]]) -> None:
    print(f"allreduce of one float32 buffer, {RANKS} ranks (mpiexec -n {RANKS}), medians; B/s = size / time")
    print("  mpi4py: comm.Allreduce | transport: picotorch's MPICommunicator.allreduce (Iallreduce + Test) | "
          "hvd: hvd.allreduce_ (request, runtime, copies in and out)")
    print(f"{'size':>8} {'mpi4py':>10} {'transport':>10} {'hvd':>10} {'mpi4py B/s':>11} {'transp. B/s':>11} "
          f"{'hvd B/s':>9} {'transp./mpi4py':>14} {'hvd/mpi4py':>10}")
    for n, raw, transport, pico in rows:
        print(f"{_size(n):>8} {raw * 1e6:>8.1f}us {transport * 1e6:>8.1f}us {pico * 1e6:>8.1f}us {n / raw:>11.3g} "
              f"{n / transport:>11.3g} {n / pico:>9.3g} {raw / transport:>14.2f} {raw / pico:>10.2f}")


def plot(rows: list[tuple[int, float, float, float]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [row[0] for row in rows]
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.loglog(sizes, [n / raw for n, raw, _, _ in rows], marker="o", label="mpi4py comm.Allreduce")
    ax.loglog(sizes, [n / t for n, _, t, _ in rows], marker="^", label="picotorch MPICommunicator.allreduce")
    ax.loglog(sizes, [n / pico for n, _, _, pico in rows], marker="s", label="picotorch hvd.allreduce_")
    ax.set(xlabel="buffer size (bytes)", ylabel="bytes / second", title=f"allreduce, {RANKS} MPI ranks")
    ax.set_xticks(sizes, [_size(n) for n in sizes], rotation=45)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", metavar="PNG", help="write bytes/s against size for both to this file")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the number of repetitions")
    parser.add_argument("--rank-process", action="store_true", help=argparse.SUPPRESS)  # set by the launcher
    args = parser.parse_args()
    if not args.rank_process:  # the launcher: start the ranks under the venv's mpiexec
        mpiexec = Path(sys.executable).parent / "mpiexec"
        if not mpiexec.exists():
            print(f'skipped: no mpiexec beside {sys.executable} (pip install "picotorch[mpi]")')
            return
        command = [str(mpiexec), "-n", str(RANKS), sys.executable, __file__, "--rank-process", *sys.argv[1:]]
        sys.exit(subprocess.run(command, env=os.environ.copy()).returncode)
    rows = measure(args.scale)
    from mpi4py import MPI  # lazy: as in measure

    if MPI.COMM_WORLD.Get_rank() == 0:
        report(rows)
        if args.plot:
            plot(rows, args.plot)


if __name__ == "__main__":
    main()
