"""The threads backend: the ring allreduce and broadcast, the network model, faults, ``launch``'s arguments.

Expected sums are computed here with NumPy from the same per-rank inputs; the inputs are small integers
(exact in every dtype), so the ring's order of additions cannot change a bit and results compare exactly.
Every ``launch`` has a short timeout: a bug fails the test instead of hanging it.
"""

from __future__ import annotations

import os
import threading
import time
import traceback

import numpy as np
import pytest

import picotorch
import picotorch.distributed as hvd
from picotorch.distributed.exceptions import HorovodInternalError
from picotorch.distributed.state import current

TIMEOUT = 5.0
SIZES = [0, 1, 2, 3, 4, 5, 7, 16, 33, 1000]


def _comm():
    return current().communicator


def _rank_input(rank: int, n: int, dtype, shape=None) -> np.ndarray:
    values = np.random.default_rng([rank, n]).integers(-8, 9, size=n)
    array = values.astype(dtype)
    return array.reshape(shape) if shape is not None else array


# ----------------------------------------------------------------------------- ring allreduce


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int64])
@pytest.mark.parametrize("world_size", [1, 2, 3, 4])
def test_ring_allreduce_is_the_sum_on_every_rank(world_size, dtype):
    def fn():
        comm = _comm()
        out = []
        for n in SIZES:
            buffer = _rank_input(comm.rank, n, dtype)
            comm.allreduce(buffer)
            out.append(buffer)
        return out

    results = hvd.launch(fn, world_size, timeout=TIMEOUT)
    for i, n in enumerate(SIZES):
        expected = np.sum([_rank_input(r, n, dtype) for r in range(world_size)], axis=0, dtype=dtype)
        for rank in range(world_size):
            got = results[rank][i]
            assert got.dtype == np.dtype(dtype) and got.shape == (n,)
            np.testing.assert_array_equal(got, expected, err_msg=f"n={n}, rank {rank}")


def test_ring_allreduce_gives_identical_bits_on_all_ranks():
    def fn(n):
        buffer = np.random.default_rng(_comm().rank).standard_normal(n).astype(np.float32)
        _comm().allreduce(buffer)
        return buffer

    for world_size in (3, 4):
        results = hvd.launch(fn, world_size, 1001, timeout=TIMEOUT)
        assert all(r.tobytes() == results[0].tobytes() for r in results)
        inputs = [np.random.default_rng(r).standard_normal(1001).astype(np.float32) for r in range(world_size)]
        np.testing.assert_allclose(results[0], np.sum(inputs, axis=0), rtol=1e-5, atol=1e-5)


def test_ring_allreduce_survives_slow_receivers_and_callers_that_reuse_the_buffer_at_once():
    """No rank may read a neighbour's buffer after that neighbour's allreduce has returned."""
    def fn():
        comm = _comm()
        delays = np.random.default_rng(comm.rank + 100).uniform(0, 0.002, size=1000)
        recv, calls = comm.recv, iter(delays)
        comm.recv = lambda source: (time.sleep(next(calls)), recv(source))[1]
        out = []
        for round_ in range(12):
            buffer = _rank_input(comm.rank * 100 + round_, 37, np.float64)
            comm.allreduce(buffer)
            out.append(buffer.copy())
            buffer[...] = np.nan  # the caller reuses its buffer (a fusion buffer, an in-place average)
        return out

    results = hvd.launch(fn, 4, timeout=TIMEOUT)
    for round_ in range(12):
        expected = np.sum([_rank_input(r * 100 + round_, 37, np.float64) for r in range(4)], axis=0)
        for rank in range(4):
            np.testing.assert_array_equal(results[rank][round_], expected, err_msg=f"round {round_}, rank {rank}")


def test_ring_allreduce_of_a_non_contiguous_view_writes_only_the_view():
    def fn():
        base = np.full((4, 6), -1.0)
        base[:, ::2] = _rank_input(_comm().rank, 12, np.float64, (4, 3))
        _comm().allreduce(base[:, ::2])
        return base

    results = hvd.launch(fn, 3, timeout=TIMEOUT)
    expected = np.sum([_rank_input(r, 12, np.float64, (4, 3)) for r in range(3)], axis=0)
    for base in results:
        np.testing.assert_array_equal(base[:, ::2], expected)
        np.testing.assert_array_equal(base[:, 1::2], -1.0)


def test_ring_allreduce_in_a_process_set_uses_only_its_ranks():
    def fn():
        comm = _comm()
        if comm.rank == 1:
            return None
        buffer = _rank_input(comm.rank, 10, np.int64)
        comm.split([0, 2, 3], tag="set").allreduce(buffer)
        return buffer

    results = hvd.launch(fn, 4, timeout=TIMEOUT)
    expected = sum(_rank_input(r, 10, np.int64) for r in (0, 2, 3))
    for rank in (0, 2, 3):
        np.testing.assert_array_equal(results[rank], expected)


def test_public_allreduce_sums_through_the_ring():
    def fn():
        hvd.init()
        tensor = picotorch.tensor(_rank_input(hvd.rank(), 6, np.float32))
        result = hvd.allreduce(tensor, op=hvd.Sum, name="t")
        hvd.shutdown()
        return result.numpy()

    results = hvd.launch(fn, 4, timeout=TIMEOUT)
    expected = np.sum([_rank_input(r, 6, np.float32) for r in range(4)], axis=0)
    for result in results:
        np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("world_size", [1, 2, 4])
def test_ring_broadcast_copies_the_root_buffer(world_size):
    def fn(root):
        buffer = _rank_input(_comm().rank, 9, np.float32, (3, 3))
        _comm().broadcast(buffer, root)
        return buffer

    for root in range(world_size):
        for buffer in hvd.launch(fn, world_size, root, timeout=TIMEOUT):
            np.testing.assert_array_equal(buffer, _rank_input(root, 9, np.float32, (3, 3)))


# ----------------------------------------------------------------------------- network model


def _timed_allreduce(n: int, rounds: int = 1):
    def fn():
        comm = _comm()
        buffer = np.ones(n, dtype=np.float32)
        comm.barrier()
        start = time.perf_counter()
        for _ in range(rounds):
            comm.allreduce(buffer)
        return time.perf_counter() - start

    return fn


def test_network_model_latency_dominated_ring_takes_2_n_minus_1_latencies():
    latency, world_size = 0.02, 4
    times = hvd.launch(_timed_allreduce(8), world_size, timeout=TIMEOUT,
                       network=hvd.NetworkModel(latency=latency))
    model = 2 * (world_size - 1) * latency
    assert model * 0.95 <= max(times) <= model * 1.5 + 0.03, (times, model)


def test_network_model_bandwidth_dominated_ring_moves_2_n_minus_1_over_n_of_the_buffer():
    n, world_size, bandwidth = 1 << 20, 4, 1e8  # 4 MB of float32 over 100 MB/s links
    times = hvd.launch(_timed_allreduce(n), world_size, timeout=TIMEOUT,
                       network=hvd.NetworkModel(bandwidth=bandwidth))
    model = 2 * (world_size - 1) * (n * 4 / world_size) / bandwidth
    assert model * 0.95 <= max(times) <= model * 1.5 + 0.03, (times, model)


def test_network_model_delivers_one_message_at_a_time_per_link():
    sent_at = []

    def fn():
        comm = _comm()
        if comm.rank == 0:
            sent_at.append(time.perf_counter())
            comm.send(1, np.zeros(250_000, dtype=np.float32))  # 1 MB: 0.01 + 0.1 s
            comm.send(1, np.zeros(250_000, dtype=np.float32))  # queued behind it: arrives 0.11 s later
            return None
        comm.recv(0)
        first = time.perf_counter() - sent_at[0]
        comm.recv(0)
        return first, time.perf_counter() - sent_at[0]

    _, (first, second) = hvd.launch(fn, 2, timeout=TIMEOUT, network=hvd.NetworkModel(latency=0.01, bandwidth=1e7))
    # lower bounds 10% loose: the model sleeps on time.monotonic, this test reads time.perf_counter
    assert 0.10 <= first <= 0.16 and 0.20 <= second <= 0.28, (first, second)


def test_network_model_counts_an_object_by_its_pickle():
    payload = b"x" * 500_000  # pickles to 500_000 bytes and a few: 0.05 s at 10 MB/s
    sent_at = []

    def fn():
        comm = _comm()
        if comm.rank == 0:
            sent_at.append(time.perf_counter())
            comm.send(1, payload)
            return None
        assert comm.recv(0) == payload
        return time.perf_counter() - sent_at[0]

    _, elapsed = hvd.launch(fn, 2, timeout=TIMEOUT, network=hvd.NetworkModel(bandwidth=1e7))
    assert 0.045 <= elapsed <= 0.09, elapsed  # 10% loose below, as above


def test_without_network_model_messages_arrive_at_once():
    times = hvd.launch(_timed_allreduce(1 << 16, rounds=20), 4, timeout=TIMEOUT)
    assert max(times) < 1.0, times


@pytest.mark.parametrize("kwargs, text", [
    ({"latency": -1.0}, "latency must be a finite number of seconds >= 0, got -1.0"),
    ({"latency": float("inf")}, "latency must be a finite number of seconds >= 0, got inf"),
    ({"bandwidth": 0}, "bandwidth must be a number of bytes per second > 0, got 0"),
    ({"bandwidth": "fast"}, "bandwidth must be a number of bytes per second > 0, got 'fast'"),
])
def test_network_model_rejects_bad_values(kwargs, text):
    with pytest.raises(ValueError, match=f"^{text}$".replace("(", r"\(").replace(")", r"\)")):
        hvd.NetworkModel(**kwargs)


# ----------------------------------------------------------------------------- launch's arguments


def test_launch_returns_results_by_rank():
    assert hvd.launch(lambda k: (_comm().rank, threading.current_thread().name, k), 3, k=7, timeout=TIMEOUT) == [
        (0, "rank 0", 7), (1, "rank 1", 7), (2, "rank 2", 7)]


@pytest.mark.parametrize("kwargs, error, text", [
    ({"world_size": 0}, ValueError, "world_size must be a positive int, got 0"),
    ({"world_size": True}, ValueError, "world_size must be a positive int, got True"),
    ({"world_size": 2, "timeout": 0}, ValueError, "timeout must be a positive number of seconds, got 0"),
    ({"world_size": 2, "timeout": -1.5}, ValueError, "timeout must be a positive number of seconds, got -1.5"),
    ({"world_size": 2, "timeout": float("nan")}, ValueError, "timeout must be a positive number of seconds, got nan"),
    ({"world_size": 2, "timeout": "1"}, ValueError, "timeout must be a positive number of seconds, got '1'"),
    ({"world_size": 2, "network": "fast"}, TypeError,
     "network must be a picotorch.distributed.NetworkModel or None, got str"),
])
def test_launch_rejects_bad_arguments(kwargs, error, text):
    with pytest.raises(error) as info:
        hvd.launch(lambda: None, **kwargs)
    assert str(info.value) == text


# ----------------------------------------------------------------------------- faults


def _collective_unless(rank_that_misbehaves: int, misbehave, seen: dict):
    def fn():
        comm = _comm()
        if comm.rank == rank_that_misbehaves:
            return misbehave()
        try:
            comm.allreduce(np.ones(10))
        except HorovodInternalError as error:
            seen[comm.rank] = str(error)
            raise
        return "finished"

    return fn


def _raise_boom():
    raise ValueError("boom")


def test_a_rank_that_raises_fails_the_others_at_once_and_launch_reraises_its_error():
    seen: dict = {}
    start = time.monotonic()
    with pytest.raises(ValueError) as info:
        hvd.launch(_collective_unless(1, _raise_boom, seen), 3, timeout=TIMEOUT)
    assert time.monotonic() - start < 2.0
    assert str(info.value) == "boom"
    assert "_raise_boom" in [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert "(raised on rank 1 of launch(world_size=3))" in info.value.__notes__
    assert sorted(seen) == [0, 2]
    for text in seen.values():
        assert text.startswith("Horovod has been shut down. This was caused by an exception on one of the ranks")
        assert text.endswith("rank 1 failed: ValueError: boom")


def test_a_rank_that_raises_fails_the_others_through_the_public_api():
    def fn():
        hvd.init()
        if hvd.rank() == 2:
            raise KeyError("no such parameter")
        hvd.allreduce(picotorch.ones(4), name="g")
        return "finished"

    start = time.monotonic()
    with pytest.raises(KeyError, match="no such parameter"):
        hvd.launch(fn, 3, timeout=TIMEOUT)
    assert time.monotonic() - start < 2.0


def test_a_background_thread_blocked_in_a_collective_wakes_when_another_rank_raises():
    """As the runtime's cycle thread does: it, not the rank's own thread, waits on the links."""
    seen: dict = {}

    def fn():
        comm = _comm()
        if comm.rank == 0:
            time.sleep(0.1)
            raise RuntimeError("rank 0 gives up")

        def background():
            try:
                comm.allreduce(np.ones(8))
            except HorovodInternalError as error:
                seen[comm.rank] = str(error)

        thread = threading.Thread(target=background)
        thread.start()
        thread.join(3.0)
        return thread.is_alive()

    start = time.monotonic()
    with pytest.raises(RuntimeError, match="rank 0 gives up"):
        hvd.launch(fn, 3, timeout=TIMEOUT)
    assert time.monotonic() - start < 2.0
    assert sorted(seen) == [1, 2]
    assert all(text.endswith("rank 0 failed: RuntimeError: rank 0 gives up") for text in seen.values())


def test_a_rank_that_dies_before_the_collective_fails_the_others_naming_it():
    seen: dict = {}
    start = time.monotonic()
    with pytest.raises(HorovodInternalError) as info:
        hvd.launch(_collective_unless(2, lambda: "returned early", seen), 3, timeout=TIMEOUT)
    assert time.monotonic() - start < 2.0
    assert sorted(seen) == [0, 1]
    assert str(info.value) in seen.values()
    assert "finished execution without sending: it died, or returned before this collective" in str(info.value)
    assert "waited for rank 2," in str(info.value)


def test_a_rank_that_never_joins_fails_the_others_after_the_timeout_naming_it():
    seen: dict = {}
    release = threading.Event()
    start = time.monotonic()
    try:
        with pytest.raises(HorovodInternalError) as info:
            hvd.launch(_collective_unless(2, lambda: release.wait(10), seen), 3, timeout=0.3)
    finally:
        release.set()
    elapsed = time.monotonic() - start
    assert 0.3 <= elapsed < 2.0
    assert sorted(seen) == [0, 1]
    assert "waited 0.3 s for rank" in str(info.value)  # rank 2, or a rank waiting for rank 2
    assert str(info.value).endswith((" rank 2, which never sent: it is stuck, died or never joined "
                                     "(launch(timeout=...) sets the wait)",
                                     " waits for rank 2; rank 2 never sent: it is stuck, died or never joined "
                                     "(launch(timeout=...) sets the wait)"))
    assert any("launch gave up waiting for rank(s) [2]" in note for note in info.value.__notes__)


def test_each_rank_gets_its_share_of_the_cores_for_blas_while_the_job_runs():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads():
        return sorted({info["num_threads"] for info in threadpoolctl.threadpool_info()
                       if info["user_api"] == "blas"})

    before = blas_threads()
    if not before:
        pytest.skip("NumPy's BLAS is not visible to threadpoolctl")
    with threadpoolctl.threadpool_limits(limits=4, user_api="blas"):
        assert hvd.launch(blas_threads, 2, timeout=TIMEOUT) == [[max(1, (os.cpu_count() or 1) // 2)]] * 2
        assert hvd.launch(blas_threads, 64, timeout=TIMEOUT)[0] == [1]
        assert blas_threads() == [4]  # given back when the job ends
    assert blas_threads() == before
