"""What the runtime does when ranks disagree or fail: Horovod's errors (``controller.cc`` ConstructResponse,
``stall_inspector.cc``, ``common.h``), raised on every rank within a short time, never a hang."""

import logging
import time

import numpy as np
import pytest

import picotorch
import picotorch.distributed as hvd
from picotorch.distributed import HorovodInternalError
from picotorch.distributed import state as dist_state

SHUT_DOWN = "Horovod has been shut down. This was caused by an exception on one of the ranks"


def ones(*shape, dtype=np.float32):
    return picotorch.tensor(np.ones(shape, dtype=dtype))


def error_on_each_rank(submit, world_size=2):
    """Run ``submit(rank)`` (returns a handle) on every rank; return each rank's error from synchronize and
    that a following allreduce still works."""
    def run():
        hvd.init()
        handle = submit(hvd.rank())
        started = time.perf_counter()
        with pytest.raises(HorovodInternalError) as caught:
            hvd.synchronize(handle)
        waited = time.perf_counter() - started
        after = hvd.allreduce(ones(2), name="after", op=hvd.Sum).numpy()
        hvd.shutdown()
        return str(caught.value), waited, after
    results = hvd.launch(run, world_size, timeout=10)
    for _, waited, after in results:
        assert waited < 2.0
        np.testing.assert_array_equal(after, np.full(2, float(world_size), dtype=np.float32))
    return [message for message, _, _ in results]


def test_mismatched_shapes_name_the_tensor_and_each_rank_s_shape():
    shapes = {0: (2, 3), 1: (3,)}
    messages = error_on_each_rank(lambda rank: hvd.allreduce_async_(ones(*shapes[rank]), name="layer.weight"))
    for message in messages:
        assert message.startswith("Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [2, 3], "
                                  "but another rank sent a tensor of shape [3].")
        assert "'layer.weight'" in message and "rank 0: [2, 3]" in message and "rank 1: [3]" in message


def test_mismatched_dtypes_are_named():
    dtypes = {0: np.float32, 1: np.float64}
    messages = error_on_each_rank(lambda rank: hvd.allreduce_async_(ones(4, dtype=dtypes[rank]), name="b"))
    assert all(m.startswith("Mismatched data types: One rank had type float32, but another rank had type "
                            "float64.") and "rank 1: float64" in m for m in messages)


def test_mismatched_operations_are_named():
    def submit(rank):
        if rank == 0:
            return hvd.allreduce_async_(ones(4), name="w")
        return hvd.broadcast_async_(ones(4), root_rank=0, name="w")
    messages = error_on_each_rank(submit)
    assert all(m.startswith("Mismatched operations: One rank did an ALLREDUCE, but another rank did an "
                            "BROADCAST.") for m in messages)


def test_mismatched_reduction_ops_and_root_ranks_are_named():
    ops = {0: hvd.Average, 1: hvd.Sum}
    messages = error_on_each_rank(lambda rank: hvd.allreduce_async_(ones(4), name="g", op=ops[rank]))
    assert all("Mismatched reduction operation: One rank sent reduction op AVERAGE, but another rank sent "
               "reduction op SUM." in m for m in messages)
    messages = error_on_each_rank(lambda rank: hvd.broadcast_async_(ones(4), root_rank=rank, name="p"))
    assert all(m.startswith("Mismatched BROADCAST root ranks: One rank specified root rank 0, but another rank "
                            "specified root rank 1.") for m in messages)


def test_a_name_in_flight_cannot_be_requested_again():
    def run():
        hvd.init()
        if hvd.rank() == 1:
            time.sleep(0.3)  # keeps "x" in flight on rank 0
        handle = hvd.allreduce_async_(ones(2), name="x", op=hvd.Sum)
        if hvd.rank() == 0:
            with pytest.raises(ValueError, match="Requested to allreduce, allgather, or broadcast a tensor with "
                                                 "the same name as another tensor that is currently being "
                                                 "processed.  If you want to request another tensor, use a "
                                                 "different tensor name."):
                hvd.allreduce_async_(ones(2), name="x")
        result = hvd.synchronize(handle).numpy()
        again = hvd.allreduce(ones(2), name="x", op=hvd.Sum).numpy()  # done: the name is free again
        hvd.shutdown()
        return result, again

    for result, again in hvd.launch(run, 2, timeout=10):
        np.testing.assert_array_equal(result, [2.0, 2.0])
        np.testing.assert_array_equal(again, [2.0, 2.0])


def test_a_tensor_some_ranks_never_submit_fails_after_the_stall_shutdown_time(monkeypatch):
    monkeypatch.setenv("HOROVOD_STALL_CHECK_TIME_SECONDS", "0.2")
    monkeypatch.setenv("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", "0.5")

    def run():
        hvd.init()
        if hvd.rank() != 0:
            time.sleep(1.3)  # ranks 1 and 2 never submit "lonely"
            return None
        started = time.perf_counter()
        handle = hvd.allreduce_async_(ones(2), name="lonely")
        with pytest.raises(HorovodInternalError) as caught:
            hvd.synchronize(handle)
        return str(caught.value), time.perf_counter() - started

    message, waited = hvd.launch(run, 3, timeout=10)[0]
    assert 0.5 < waited < 1.3
    assert "waiting for remainder of ranks for more than 0.2 seconds" in message
    assert "Missing ranks:\n1!: [lonely]\n2!: [lonely]" in message
    assert 'stalled for longer than 0.5 seconds. Will shutdown.' in message


def test_the_stall_inspector_only_warns_before_the_shutdown_time(monkeypatch, caplog):
    monkeypatch.setenv("HOROVOD_STALL_CHECK_TIME_SECONDS", "0.2")

    def run():
        hvd.init()
        if hvd.rank() == 1:
            time.sleep(0.8)  # late, but it comes: a warning, no failure
        result = hvd.allreduce(ones(2), name="slow", op=hvd.Sum).numpy()
        hvd.shutdown()
        return result

    with caplog.at_level(logging.WARNING, logger="picotorch.distributed"):
        for result in hvd.launch(run, 2, timeout=10):
            np.testing.assert_array_equal(result, [2.0, 2.0])
    warnings = [r.getMessage() for r in caplog.records if r.name == "picotorch.distributed"]
    assert any("Missing ranks:\n1: [slow]" in w for w in warnings)


def test_a_rank_that_raises_makes_the_others_fail_quickly():
    seen = {}

    def run():
        hvd.init()
        if hvd.rank() == 1:
            time.sleep(0.2)
            raise RuntimeError("boom on rank 1")
        started = time.perf_counter()
        handle = hvd.allreduce_async_(ones(2), name="never")  # rank 1 dies before submitting it
        try:
            hvd.synchronize(handle)
        except HorovodInternalError as error:
            seen["error"], seen["waited"] = str(error), time.perf_counter() - started
        hvd.shutdown()

    with pytest.raises(RuntimeError, match="boom on rank 1"):
        hvd.launch(run, 2, timeout=10)
    assert "rank 1 failed: RuntimeError: boom on rank 1" in seen["error"]
    assert seen["waited"] < 2.0


def test_a_rank_that_never_joins_makes_the_others_fail_within_the_timeout():
    def run_job():
        if dist_state.current().rank == 1:
            time.sleep(1.5)  # stuck: never calls hvd.init()
            return None
        hvd.init()
        started = time.perf_counter()
        with pytest.raises(HorovodInternalError, match="waited 1 s for rank 1, which never sent") as caught:
            hvd.allreduce(ones(2), name="x")
        return str(caught.value), time.perf_counter() - started

    (_, waited), _ = hvd.launch(run_job, 2, timeout=1.0)
    assert waited < 3.0


def test_shutdown_fails_pending_handles_and_then_the_api_is_not_initialized():
    def run():
        hvd.init()
        if hvd.rank() == 1:
            hvd.barrier()
            time.sleep(0.3)  # rank 0 has shut down meanwhile
            with pytest.raises(HorovodInternalError, match=SHUT_DOWN):
                hvd.allreduce(ones(2), name="too late")
            hvd.shutdown()
            return None
        handle = hvd.allreduce_async_(ones(2), name="pending")  # rank 1 never submits it
        hvd.barrier()
        hvd.shutdown()
        with pytest.raises(HorovodInternalError, match=SHUT_DOWN):
            hvd.synchronize(handle)
        for call in (hvd.rank, hvd.size, lambda: hvd.allreduce_async_(ones(2), name="y")):
            with pytest.raises(ValueError, match=r"Horovod has not been initialized; use hvd.init\(\)."):
                call()
        with pytest.raises(ValueError, match="not been initialized"):
            hvd.runtime_stats()
        return None

    hvd.launch(run, 2, timeout=10)
