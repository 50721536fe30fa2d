"""Real MPI, 2 ranks: picotorch's allreduce (through the runtime) vs raw ``mpi4py`` on the same buffers.

    python bench/bench_distributed_mpi.py                  # starts itself under the venv's mpiexec -n 2
    python bench/bench_distributed_mpi.py --plot mpi.png   # and draws bytes/s against size for all

For each size s from 1 KB to 64 MB (float32), two cases:

- one buffer: raw ``comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)``; picotorch's transport alone
  (``MPICommunicator.allreduce``: ``Iallreduce`` polled with ``Test``); and ``hvd.allreduce_(tensor,
  op=hvd.Sum)``: a request on the runtime's queue, a negotiation, the transport, in the tensor's own memory;
- fused: k = clamp(16 MB / s, 1, 64) buffers of size s, as a backward pass hands them over: raw, k
  ``Allreduce`` calls one after the other; picotorch, k ``hvd.allreduce_async_`` then ``synchronize`` of each
  (the runtime fuses what is ready into one ``Iallreduce`` per cycle, as Horovod's tensor fusion does).

Every repetition starts after a raw ``COMM_WORLD.Barrier()``, the same for both sides (mpi4py's default
thread level, ``MPI_THREAD_MULTIPLE``, lets the main thread call it while picotorch's background thread
negotiates; ``hvd.barrier`` would itself be a runtime cycle, which the next request would wait
``HOROVOD_CYCLE_TIME`` behind). The time is rank 0's median. "B/s" is the bytes reduced over that time
(what the program sees, not the wire's traffic). The target: picotorch ≥ 0.8× raw.

What bounds the small sizes: ``hvd.allreduce_`` finds the runtime with nothing in flight and wakes it at once
(``runtime.py``), then pays a request, a negotiation round trip and two thread hand-offs in Python (about
0.1-0.2 ms). The fused case pays that once per cycle plus about 20 µs of Python per tensor; a burst's first
request goes alone and the rest wait one ``HOROVOD_CYCLE_TIME`` (1 ms), as in Horovod; above a few MB the
copies into and out of the fusion buffer (as Horovod's fusion does) cost as much as the allreduce, where raw
MPI reduces each buffer in place. The transport column is the allreduce of the (fused) buffer itself.
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


def fused_count(nbytes: int) -> int:
    return max(1, min(64, (16 << 20) // nbytes))


def measure(scale: float) -> list[tuple]:
    """On every rank, per size: ``(bytes, raw, transport, hvd, k, raw fused, hvd fused)``, times in seconds."""
    from mpi4py import MPI  # lazy: only the ranks import MPI (the launcher must not start it)

    import picotorch
    import picotorch.distributed as hvd
    from picotorch.distributed.mpi_backend import MPICommunicator

    comm = MPI.COMM_WORLD
    raw_buffers = {n: [np.ones(n // 4, dtype=np.float32) for _ in range(fused_count(n))] for n in SIZES}

    def raw_allreduce(buffers):
        for buffer in buffers:
            comm.Allreduce(MPI.IN_PLACE, buffer, op=MPI.SUM)

    raw = {n: timed(lambda b=raw_buffers[n][:1]: raw_allreduce(b), comm.Barrier, repeats_for(n, scale))
           for n in SIZES}
    raw_fused = {n: timed(lambda b=raw_buffers[n]: raw_allreduce(b), comm.Barrier,
                          repeats_for(n * fused_count(n), scale)) for n in SIZES}
    ours = MPICommunicator(comm.Dup())  # the transport alone: Iallreduce polled with Test, no request
    transport = {n: timed(lambda b=raw_buffers[n][0]: ours.allreduce(b), comm.Barrier, repeats_for(n, scale))
                 for n in SIZES}
    hvd.init(backend="mpi")
    tensors = {n: [picotorch.ones(n // 4) for _ in range(fused_count(n))] for n in SIZES}

    def hvd_allreduce(tensors):
        handles = [hvd.allreduce_async_(t, op=hvd.Sum, name=f"bench.{i}") for i, t in enumerate(tensors)]
        for handle in handles:
            hvd.synchronize(handle)

    pico = {n: timed(lambda t=tensors[n][0]: hvd.allreduce_(t, op=hvd.Sum, name="bench"), comm.Barrier,
                     repeats_for(n, scale)) for n in SIZES}
    pico_fused = {n: timed(lambda t=tensors[n]: hvd_allreduce(t), comm.Barrier,
                           repeats_for(n * fused_count(n), scale)) for n in SIZES}
    hvd.shutdown()
    return [(n, raw[n], transport[n], pico[n], fused_count(n), raw_fused[n], pico_fused[n]) for n in SIZES]


def report(rows: list[tuple]) -> None:
    print(f"allreduce, float32, {RANKS} ranks (mpiexec -n {RANKS}), medians; B/s = bytes reduced / time")
    print("one buffer -- mpi4py: comm.Allreduce | transport: picotorch's MPICommunicator.allreduce "
          "(Iallreduce + Test) | hvd: hvd.allreduce_ (request, negotiation, transport)")
    print(f"{'size':>8} {'mpi4py':>10} {'transport':>10} {'hvd':>10} {'mpi4py B/s':>11} {'hvd B/s':>9} "
          f"{'transp./mpi4py':>14} {'hvd/mpi4py':>10}")
    for n, raw, transport, pico, *_ in rows:
        print(f"{_size(n):>8} {raw * 1e6:>8.1f}us {transport * 1e6:>8.1f}us {pico * 1e6:>8.1f}us {n / raw:>11.3g} "
              f"{n / pico:>9.3g} {raw / transport:>14.2f} {raw / pico:>10.2f}")
    print("fused -- k buffers of the size: mpi4py: k comm.Allreduce | hvd: k hvd.allreduce_async_, then "
          "synchronize each (the runtime fuses them)")
    print(f"{'size':>8} {'k':>3} {'mpi4py':>10} {'hvd':>10} {'mpi4py B/s':>11} {'hvd B/s':>9} {'hvd/mpi4py':>10}")
    for n, *_, k, raw, pico in rows:
        print(f"{_size(n):>8} {k:>3} {raw * 1e6:>8.1f}us {pico * 1e6:>8.1f}us {k * n / raw:>11.3g} "
              f"{k * n / pico:>9.3g} {raw / pico:>10.2f}")


def plot(rows: list[tuple], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [row[0] for row in rows]
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.loglog(sizes, [n / raw for n, raw, *_ in rows], marker="o", color="C0", label="mpi4py Allreduce")
    ax.loglog(sizes, [n / t for n, _, t, *_ in rows], marker="^", color="C2", label="picotorch transport")
    ax.loglog(sizes, [n / pico for n, _, _, pico, *_ in rows], marker="s", color="C1", label="hvd.allreduce_")
    ax.loglog(sizes, [k * n / raw for n, *_, k, raw, _ in rows], marker="o", ls="--", color="C0",
              label="mpi4py, k buffers")
    ax.loglog(sizes, [k * n / pico for n, *_, k, _, pico in rows], marker="s", ls="--", color="C1",
              label="hvd, k buffers fused")
    ax.set(xlabel="buffer size (bytes)", ylabel="bytes / second", title=f"allreduce, {RANKS} MPI ranks")
    ax.set_xticks(sizes, [_size(n) for n in sizes], rotation=45)
    ax.legend(fontsize=8)
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
