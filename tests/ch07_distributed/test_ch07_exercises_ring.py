"""Exercise 7.1: the ring allreduce (``picotorch/distributed/ring.py``: reduce-scatter, then all-gather).

Each test fails on the stub (its NotImplementedError, re-raised by ``launch``) and passes on the reference.
Inputs are small integers, so the expected sums (NumPy, here) are exact whatever the order of additions.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import picotorch.distributed as hvd
from picotorch.distributed.state import current

TIMEOUT = 5.0


def _rank_input(rank: int, n: int) -> np.ndarray:
    return np.random.default_rng([rank, n]).integers(-8, 9, size=n).astype(np.float32)


def _allreduce_on_every_rank(world_size: int, n: int, record=None) -> list:
    def fn():
        comm = current().communicator
        if record is not None:  # watch what the ring sends, then send it
            send = comm.send
            comm.send = lambda dest, message: (record.append((comm.rank, dest, np.size(message))), send(dest, message))
        buffer = _rank_input(comm.rank, n)
        comm.allreduce(buffer)
        return buffer

    return hvd.launch(fn, world_size, timeout=TIMEOUT)


@pytest.mark.exercise("7.1")
@pytest.mark.parametrize("world_size", [2, 3, 4])
def test_ring_allreduce_gives_every_rank_the_sum(world_size):
    """Every rank ends with the element-wise sum of all ranks' buffers (here 12 floats)."""
    expected = np.sum([_rank_input(r, 12) for r in range(world_size)], axis=0)
    for rank, result in enumerate(_allreduce_on_every_rank(world_size, 12)):
        np.testing.assert_array_equal(result, expected, err_msg=f"rank {rank}")


@pytest.mark.exercise("7.1")
@pytest.mark.parametrize("n", [1, 2, 5, 11])
def test_ring_allreduce_handles_sizes_not_divisible_by_the_world_size(n):
    """Chunks may differ in size by one, or be empty (fewer elements than ranks): use the chunks you were given."""
    expected = np.sum([_rank_input(r, n) for r in range(4)], axis=0)
    for result in _allreduce_on_every_rank(4, n):
        np.testing.assert_array_equal(result, expected)


@pytest.mark.exercise("7.1")
def test_ring_allreduce_talks_only_to_the_right_neighbour_one_chunk_at_a_time():
    """A ring: 2(N-1) messages per rank, all to rank+1, each one chunk (N-1 reduce-scatter, N-1 all-gather)."""
    record: list = []
    _allreduce_on_every_rank(4, 400, record)
    for rank in range(4):
        sent = [(dest, size) for source, dest, size in record if source == rank]
        assert sent == [((rank + 1) % 4, 100)] * 6, f"rank {rank} sent {sent}"


@pytest.mark.exercise("7.1")
def test_ring_allreduce_leaves_nothing_for_a_slow_neighbour_to_read_after_it_returns():
    """All-gather: send a copy of your finished chunk and pass on what you receive, not views of your buffer."""
    def fn():
        comm = current().communicator
        recv, delays = comm.recv, iter(np.random.default_rng(comm.rank).uniform(0, 0.002, size=1000))
        comm.recv = lambda source: (time.sleep(next(delays)), recv(source))[1]
        out = []
        for round_ in range(10):
            buffer = _rank_input(comm.rank * 100 + round_, 37)
            comm.allreduce(buffer)
            out.append(buffer.copy())
            buffer[...] = np.nan  # the caller reuses its buffer at once
        return out

    results = hvd.launch(fn, 4, timeout=TIMEOUT)
    for round_ in range(10):
        expected = np.sum([_rank_input(r * 100 + round_, 37) for r in range(4)], axis=0)
        for rank in range(4):
            np.testing.assert_array_equal(results[rank][round_], expected, err_msg=f"round {round_}, rank {rank}")
