"""One rank of the MPI tests: ``mpiexec -n 2 python mpi_worker.py CASE`` (run by test_mpi_collectives.py).

Every rank draws every rank's inputs from the same seeds, so it knows the expected results from NumPy alone;
it prints ``PASS CASE rank R`` when its checks hold (an ``AssertionError`` otherwise).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import picotorch
import picotorch.distributed as hvd


def inputs(rank: int, dtype) -> np.ndarray:
    values = np.random.default_rng(100 + rank).normal(size=(3, 5)) * 10
    return values.astype(dtype)


def check_collectives(rank: int, size: int) -> None:
    for dtype in (np.float32, np.float64, np.int64):
        expected = sum(inputs(r, dtype) for r in range(size))  # summed in rank order, in the dtype
        tensor = picotorch.from_numpy(inputs(rank, dtype))
        hvd.allreduce_(tensor, op=hvd.Sum, name=f"sum.{np.dtype(dtype).name}")
        np.testing.assert_array_equal(tensor.numpy(), expected)
    mean = hvd.allreduce(picotorch.from_numpy(inputs(rank, np.float64)), name="mean").numpy()
    np.testing.assert_allclose(mean, sum(inputs(r, np.float64) for r in range(size)) / size, rtol=1e-12)

    tensor = picotorch.from_numpy(inputs(rank, np.float32))
    hvd.broadcast_(tensor, root_rank=size - 1, name="bcast")
    np.testing.assert_array_equal(tensor.numpy(), inputs(size - 1, np.float32))

    obj = {"rank": rank, "payload": list(range(rank * 1000))}  # objects of different sizes per rank
    assert hvd.broadcast_object(obj, root_rank=1) == {"rank": 1, "payload": list(range(1000))}
    gathered = hvd.allgather_object(obj)
    assert gathered == [{"rank": r, "payload": list(range(r * 1000))} for r in range(size)], gathered
    hvd.barrier()


def check_process_sets(rank: int, size: int) -> None:
    both, alone = hvd.add_process_set([0, 1]), hvd.add_process_set([1])
    tensor = picotorch.from_numpy(inputs(rank, np.float64))
    hvd.allreduce_(tensor, op=hvd.Sum, process_set=both, name="set.both")
    np.testing.assert_array_equal(tensor.numpy(), inputs(0, np.float64) + inputs(1, np.float64))
    if rank == 1:  # a set of one: the sum is the rank's own values
        tensor = picotorch.from_numpy(inputs(rank, np.float64))
        hvd.allreduce_(tensor, op=hvd.Sum, process_set=alone, name="set.alone")
        np.testing.assert_array_equal(tensor.numpy(), inputs(1, np.float64))
        assert alone.rank() == 0 and alone.size() == 1
    assert both.rank() == rank and both.size() == 2
    assert hvd.allgather_object(rank, process_set=both) == [0, 1]


def fail_on_rank_1(rank: int, size: int) -> None:
    if rank == 1:
        raise ValueError("rank 1 breaks on purpose")
    hvd.allreduce_(picotorch.ones(4), name="never.completes")


def hang_on_rank_1(rank: int, size: int) -> None:
    if rank == 1:
        time.sleep(120)  # stuck, not dead: only MPI_Abort from rank 0 can end it
    hvd.allreduce_(picotorch.ones(4), name="never.completes")


CASES = {"collectives": check_collectives, "process_sets": check_process_sets,
         "fail": fail_on_rank_1, "hang": hang_on_rank_1}

def never_joins_on_rank_1() -> None:
    """Rank 1 is stuck before ``hvd.init()``: rank 0's init must give up, not wait forever."""
    from mpi4py import MPI  # (hvd.init would import it; here rank 1 must start MPI without joining)

    if MPI.COMM_WORLD.Get_rank() == 1:
        time.sleep(120)


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "late":
        never_joins_on_rank_1()
    hvd.init(backend="mpi")
    CASES[case](hvd.rank(), hvd.size())
    print(f"PASS {case} rank {hvd.rank()}", flush=True)
    hvd.shutdown()
