"""Tensor fusion (Horovod's ``FuseResponses``, ``fusion_buffer_manager.cc``): ready allreduces of one dtype
share one buffer and one collective, up to ``HOROVOD_FUSION_THRESHOLD`` bytes; the results do not change."""

import numpy as np
import pytest

import picotorch
import picotorch.distributed as hvd
from picotorch.distributed import state as dist_state
from picotorch.distributed.runtime import Response, Settings, fuse_responses


class Recorder:
    def __init__(self):
        self.events = []

    def record(self, phase, names, start_ns, end_ns):
        self.events.append((phase, list(names), start_ns, end_ns))


SHAPES = [(3,), (2, 5), (7,), (4, 4), ()]
DTYPES = [np.float32, np.float64]


def values(rank, i):
    shape, dtype = SHAPES[i % len(SHAPES)], DTYPES[(i // 3) % 2]
    return np.asarray(np.random.default_rng(100 * rank + i).standard_normal(shape), dtype=dtype)


def allreduce_many(count, op=hvd.Sum, **kwargs):
    """Every rank allreduces ``count`` tensors asynchronously; returns (results, this rank's stats)."""
    def run():
        hvd.init()
        hvd.barrier()  # the tensors below are enqueued in the gap before the next cycle
        hvd.runtime_stats(reset=True)
        tensors = [picotorch.tensor(values(hvd.rank(), i)) for i in range(count)]
        handles = [hvd.allreduce_async_(t, name=f"g{i}", op=op, **kwargs) for i, t in enumerate(tensors)]
        for handle in handles:
            hvd.synchronize(handle)
        stats = hvd.runtime_stats()
        hvd.shutdown()
        return [t.numpy() for t in tensors], stats
    return hvd.launch(run, 4, timeout=10)


def expected_sum(i, ranks=4):
    return sum(values(r, i) for r in range(ranks))


def test_fusion_changes_the_number_of_collectives_not_the_results(monkeypatch):
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "50")
    fused = allreduce_many(40)
    monkeypatch.setenv("HOROVOD_FUSION_THRESHOLD", "0")
    unfused = allreduce_many(40)
    for results in (fused, unfused):
        for tensors, _ in results:
            for i, tensor in enumerate(tensors):
                assert tensor.dtype == values(0, i).dtype
                np.testing.assert_allclose(tensor, expected_sum(i), rtol=1e-5, atol=1e-6)
    fused_stats, unfused_stats = fused[0][1], unfused[0][1]
    assert unfused_stats["collectives"] == unfused_stats["tensors"] == 40  # threshold 0: one per tensor
    assert fused_stats["tensors"] == 40 and fused_stats["bytes"] == unfused_stats["bytes"]
    assert 2 <= fused_stats["collectives"] <= 6  # two dtypes: at least two buffers


def test_the_threshold_bounds_each_fused_buffer(monkeypatch):
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "200")
    monkeypatch.setenv("HOROVOD_FUSION_THRESHOLD", str(4 * 1024))  # four 1 KiB tensors per buffer

    def run():
        hvd.init()
        hvd.barrier()
        hvd.runtime_stats(reset=True)
        tensors = [picotorch.tensor(np.full(256, float(hvd.rank() + i), dtype=np.float32)) for i in range(20)]
        for handle in [hvd.allreduce_async_(t, name=f"w{i}", op=hvd.Sum) for i, t in enumerate(tensors)]:
            hvd.synchronize(handle)
        stats = hvd.runtime_stats()
        hvd.shutdown()
        return [t.numpy()[0] for t in tensors], stats

    for firsts, stats in hvd.launch(run, 2, timeout=10):
        assert firsts == [1.0 + 2 * i for i in range(20)]
        assert stats["collectives"] == 5
        assert stats["bytes"] == 20 * 1024


def test_average_and_scale_factors_survive_fusion(monkeypatch):
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "50")
    for tensors, stats in allreduce_many(12, op=hvd.Average, prescale_factor=2.0, postscale_factor=0.5):
        assert stats["collectives"] < 12
        for i, tensor in enumerate(tensors):
            np.testing.assert_allclose(tensor, expected_sum(i) * 2.0 * 0.5 / 4, rtol=1e-5, atol=1e-6)


def test_a_grouped_allreduce_may_span_several_buffers(monkeypatch):
    monkeypatch.setenv("HOROVOD_FUSION_THRESHOLD", "64")  # 16 float32 per buffer

    def run():
        hvd.init()
        rank = hvd.rank()
        group = [picotorch.tensor(np.full(n, float(rank + 1), dtype=np.float32)) for n in (10, 10, 3, 30)]
        out = hvd.grouped_allreduce(group, name="group", op=hvd.Sum)
        hvd.shutdown()
        return [t.numpy() for t in out]

    for out in hvd.launch(run, 2, timeout=10):
        assert [o.shape for o in out] == [(10,), (10,), (3,), (30,)]
        for o in out:
            np.testing.assert_array_equal(o, np.full(o.shape, 3.0, dtype=np.float32))


def test_the_timeline_sees_each_phase_of_a_fused_allreduce(monkeypatch):
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "50")

    def run():
        hvd.init()
        recorder = Recorder()
        hvd.barrier()
        dist_state.current().extra["timeline"] = recorder
        tensors = [picotorch.tensor(np.ones(8, dtype=np.float32)) for _ in range(3)]
        for handle in [hvd.allreduce_async_(t, name=f"t{i}") for i, t in enumerate(tensors)]:
            hvd.synchronize(handle)
        del dist_state.current().extra["timeline"]
        hvd.shutdown()
        return recorder.events

    for events in hvd.launch(run, 2, timeout=10):
        phases = [phase for phase, _, _, _ in events]
        assert phases.count("NEGOTIATE_ALLREDUCE") == 3
        assert phases[3:] == ["QUEUE", "MEMCPY_IN_FUSION_BUFFER", "ALLREDUCE", "MEMCPY_OUT_FUSION_BUFFER"]
        assert all(names == ["t0", "t1", "t2"] for _, names, _, _ in events[3:])
        ends = [(start, end) for _, _, start, end in events]
        assert all(start <= end for start, end in ends)
        assert [start for _, _, start, _ in events[3:]] == sorted(start for _, _, start, _ in events[3:])


# ----------------------------------------------------------------------------- the packing rule itself


def response(name, nbytes, dtype="float32", kind="allreduce", average=True):
    return Response(kind, [(name, 0 if kind == "allreduce" else None)], [nbytes], dtype, average)


def packed(responses, threshold):
    return [[name for name, _ in r.entries] for r in fuse_responses(responses, threshold)]


def test_threshold_zero_fuses_nothing():
    assert packed([response("a", 4), response("b", 4)], 0) == [["a"], ["b"]]


def test_a_tensor_larger_than_the_threshold_goes_alone():
    assert packed([response("a", 4), response("big", 100), response("b", 4)], 16) == [["a"], ["big"], ["b"]]


def test_other_dtypes_and_broadcasts_are_stepped_over_and_keep_their_turn():
    responses = [response("a", 4), response("d", 8, "float64"), response("bc", 0, kind="broadcast"),
                 response("b", 4), response("e", 8, "float64")]
    assert packed(responses, 1024) == [["a", "b"], ["d", "e"], ["bc"]]


def test_the_look_ahead_stops_at_the_threshold():
    responses = [response("a", 8), response("d", 8, "float64"), response("b", 4)]
    assert packed(responses, 16) == [["a", "b"], ["d"]]  # a + d fit under 16: d is stepped over
    assert packed(responses, 15) == [["a"], ["d"], ["b"]]  # they do not: the look-ahead stops at d


def test_average_and_sum_are_not_fused():
    assert packed([response("a", 4), response("s", 4, average=False)], 1024) == [["a"], ["s"]]


@pytest.mark.parametrize("text", ["abc", "1.5"])
def test_a_bad_threshold_is_named(monkeypatch, text):
    monkeypatch.setenv("HOROVOD_FUSION_THRESHOLD", text)
    with pytest.raises(ValueError, match="HOROVOD_FUSION_THRESHOLD"):
        Settings.from_environ()


def test_settings_default_to_horovods(monkeypatch):
    for name in ("HOROVOD_FUSION_THRESHOLD", "HOROVOD_CYCLE_TIME", "HOROVOD_STALL_CHECK_TIME_SECONDS",
                 "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", "HOROVOD_STALL_CHECK_DISABLE"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_environ()
    assert (settings.fusion_threshold, settings.cycle_time_ms) == (64 * 1024 * 1024, 1.0)
    assert (settings.stall_check, settings.stall_check_seconds, settings.stall_shutdown_seconds) == (True, 60, 0)


@pytest.mark.parametrize("text, check", [("1", False), ("true", False), ("0", True), ("", True)])
def test_the_stall_check_can_be_disabled(monkeypatch, text, check):
    monkeypatch.setenv("HOROVOD_STALL_CHECK_DISABLE", text)
    assert Settings.from_environ().stall_check is check
