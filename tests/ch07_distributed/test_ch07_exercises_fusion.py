"""Exercise 7.5: tensor fusion's packing rule (``fuse_responses`` in ``picotorch/distributed/runtime.py``,
Horovod's ``Controller::FuseResponses``).

Each test fails on the stub (its NotImplementedError, raised on the background thread and chained under the
handle's ``HorovodInternalError``) and passes on the reference. Expected values come from NumPy.
"""

import numpy as np
import pytest

import picotorch
import picotorch.distributed as hvd
from picotorch.distributed.runtime import Response, fuse_responses


def allreduce_response(name, nbytes, dtype="float32"):
    return Response("allreduce", [(name, 0)], [nbytes], dtype, True)


def buffers(responses, threshold):
    return [[name for name, _ in r.entries] for r in fuse_responses(responses, threshold)]


@pytest.mark.exercise("7.5")
def test_allreduces_of_one_dtype_share_buffers_up_to_the_threshold():
    """Append the following responses to the first while the sum of nbytes stays <= threshold."""
    responses = [allreduce_response(name, 4) for name in "abcde"]
    assert buffers(responses, 8) == [["a", "b"], ["c", "d"], ["e"]]
    assert buffers(responses, 1024) == [["a", "b", "c", "d", "e"]]


@pytest.mark.exercise("7.5")
def test_a_response_that_does_not_fuse_is_stepped_over_and_keeps_its_turn():
    """A response of another dtype is skipped (put back in front afterwards) while buffer + skipped bytes fit."""
    responses = [allreduce_response("a", 4), allreduce_response("d", 8, "float64"), allreduce_response("b", 4),
                 allreduce_response("e", 8, "float64")]
    assert buffers(responses, 1024) == [["a", "b"], ["d", "e"]]
    assert buffers(responses, 11) == [["a"], ["d"], ["b"], ["e"]]  # 4 + 8 skipped > 11: stop looking ahead


@pytest.mark.exercise("7.5")
def test_fused_allreduces_on_four_ranks_equal_numpy(monkeypatch):
    """Fusion runs fewer collectives than tensors, and every tensor still holds the sum over the ranks."""
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "50")

    def values(rank, i):
        return np.random.default_rng([rank, i]).integers(-8, 9, size=i + 1).astype(np.float32)

    def run():
        hvd.init()
        hvd.barrier()  # the tensors below arrive in the gap before the next cycle
        hvd.runtime_stats(reset=True)
        tensors = [picotorch.tensor(values(hvd.rank(), i)) for i in range(10)]
        for handle in [hvd.allreduce_async_(t, name=f"w{i}", op=hvd.Sum) for i, t in enumerate(tensors)]:
            hvd.synchronize(handle)
        collectives = hvd.runtime_stats()["collectives"]
        hvd.shutdown()
        return [t.numpy() for t in tensors], collectives

    for tensors, collectives in hvd.launch(run, 4, timeout=10):
        assert collectives < 10
        for i, tensor in enumerate(tensors):
            np.testing.assert_array_equal(tensor, sum(values(r, i) for r in range(4)))
