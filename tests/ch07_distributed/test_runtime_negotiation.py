"""The runtime's negotiation (Horovod's ``controller.cc``): only tensors requested on every rank of a process
set run, in one order identical on all ranks, whatever order each rank enqueued them in."""

import random
import time

import numpy as np
import pytest

import picotorch
import picotorch.distributed as hvd
from picotorch.distributed import runtime
from picotorch.distributed import state as dist_state


class Recorder:
    """Stands in for the timeline: keeps what the runtime reports, in order."""

    def __init__(self):
        self.events = []

    def record(self, phase, names, start_ns, end_ns):
        self.events.append((phase, list(names), start_ns, end_ns))

    def names(self, phase):
        return [name for p, names, _, _ in self.events if p == phase for name in names]


def attach_recorder():
    recorder = Recorder()
    dist_state.current().extra["timeline"] = recorder
    return recorder


def rank_values(rank, i, shape=(3,)):
    return np.random.default_rng(1000 * rank + i).standard_normal(shape).astype(np.float32)


def test_order_is_identical_on_all_ranks_when_ranks_enqueue_in_different_orders(monkeypatch):
    monkeypatch.setenv("HOROVOD_FUSION_THRESHOLD", "0")  # one collective per tensor: the order is visible
    names = [f"grad.{i}" for i in range(12)]

    def run():
        hvd.init()
        recorder = attach_recorder()
        rank = hvd.rank()
        order = list(range(len(names)))
        random.Random(rank).shuffle(order)
        tensors = {i: picotorch.tensor(rank_values(rank, i)) for i in order}
        handles = []
        for i in order:
            handles.append(hvd.allreduce_async_(tensors[i], name=names[i], op=hvd.Sum))
            time.sleep(0.002 * rank)  # the ranks' requests also spread over several cycles
        for handle in handles:
            hvd.synchronize(handle)
        hvd.shutdown()
        return order, recorder.names("ALLREDUCE"), {i: t.numpy() for i, t in tensors.items()}

    results = hvd.launch(run, 3, timeout=10)
    orders = [order for order, _, _ in results]
    assert len({tuple(o) for o in orders}) == 3  # the ranks did enqueue in different orders
    executed = [ran for _, ran, _ in results]
    assert executed[0] == executed[1] == executed[2]
    assert sorted(executed[0]) == sorted(names)
    for _, _, values in results:
        for i in range(len(names)):
            np.testing.assert_allclose(values[i], sum(rank_values(r, i) for r in range(3)), rtol=1e-5, atol=1e-6)


def test_a_tensor_runs_only_once_every_rank_has_requested_it():
    def run():
        hvd.init()
        if hvd.rank() == 1:
            time.sleep(0.3)  # rank 1's gradient comes late
        started = time.perf_counter()
        hvd.allreduce_(picotorch.tensor(np.ones(2, dtype=np.float32)), name="late", op=hvd.Sum)
        waited = time.perf_counter() - started
        hvd.shutdown()
        return waited

    waited = hvd.launch(run, 2, timeout=10)
    assert waited[0] > 0.2  # rank 0 waited for rank 1 ...
    assert waited[1] < waited[0]  # ... and rank 1 found it ready at once


def test_broadcasts_objects_and_barriers_are_negotiated_with_the_allreduces():
    def run():
        hvd.init()
        rank = hvd.rank()
        weight = picotorch.tensor(np.full(4, float(rank + 1), dtype=np.float32))
        grad = picotorch.tensor(np.full(2, float(rank), dtype=np.float32))
        if rank == 0:  # the two ranks ask in opposite orders: negotiation puts them in one order
            b = hvd.broadcast_async_(weight, root_rank=1, name="weight")
            a = hvd.allreduce_async_(grad, name="grad", op=hvd.Sum)
        else:
            a = hvd.allreduce_async_(grad, name="grad", op=hvd.Sum)
            b = hvd.broadcast_async_(weight, root_rank=1, name="weight")
        hvd.synchronize(a)
        hvd.synchronize(b)
        gathered = hvd.allgather_object({"rank": rank})
        config = hvd.broadcast_object({"lr": 0.1 * (rank + 1)}, root_rank=1)
        hvd.barrier()
        hvd.shutdown()
        return weight.numpy(), grad.numpy(), gathered, config

    for weight, grad, gathered, config in hvd.launch(run, 2, timeout=10):
        np.testing.assert_array_equal(weight, np.full(4, 2.0, dtype=np.float32))
        np.testing.assert_array_equal(grad, np.full(2, 1.0, dtype=np.float32))
        assert gathered == [{"rank": 0}, {"rank": 1}]
        assert config == {"lr": 0.2}


def test_process_sets_negotiate_separately():
    def run():
        evens, odds = hvd.ProcessSet([0, 2]), hvd.ProcessSet([1, 3])
        hvd.init(process_sets=[evens, odds])
        rank = hvd.rank()
        mine = evens if rank % 2 == 0 else odds
        x = picotorch.tensor(np.full(3, float(rank), dtype=np.float32))
        handle = hvd.allreduce_async_(x, name="x", op=hvd.Sum, process_set=mine)  # same name in both sets
        everyone = hvd.allreduce(picotorch.tensor(np.ones(1, dtype=np.float32)), name="all", op=hvd.Sum)
        hvd.synchronize(handle)
        hvd.shutdown()
        return x.numpy(), everyone.numpy()

    results = hvd.launch(run, 4, timeout=10)
    for rank, (x, everyone) in enumerate(results):
        partners = [0, 2] if rank % 2 == 0 else [1, 3]
        np.testing.assert_array_equal(x, np.full(3, float(sum(partners)), dtype=np.float32))
        np.testing.assert_array_equal(everyone, [4.0])


def test_a_set_used_by_some_ranks_does_not_hold_up_the_others():
    def run():
        hvd.init()
        pair = hvd.add_process_set([0, 1])  # every rank registers it, in the same order
        rank = hvd.rank()
        total = None
        if rank in (0, 1):
            values = [picotorch.tensor(np.full(2, float(rank + i), dtype=np.float32)) for i in range(5)]
            handles = [hvd.allreduce_async_(v, name=f"p{i}", op=hvd.Sum, process_set=pair)
                       for i, v in enumerate(values)]
            total = [hvd.synchronize(h).numpy()[0] for h in handles]
        hvd.barrier()
        hvd.shutdown()
        return total

    results = hvd.launch(run, 3, timeout=10)
    assert results[0] == results[1] == [1.0 + 2 * i for i in range(5)]
    assert results[2] is None


def test_a_rank_outside_a_set_cannot_use_it():
    def run():
        hvd.init(process_sets=[hvd.ProcessSet([0])])
        ps = dist_state.current().extra["process_sets"][0]
        if hvd.rank() == 1:
            with pytest.raises(ValueError, match="is not a member of the provided process set"):
                hvd.allreduce_async_(picotorch.tensor(np.ones(1, dtype=np.float32)), name="x", process_set=ps)
        hvd.shutdown()

    hvd.launch(run, 2, timeout=10)


def test_an_unregistered_set_is_horovods_error():
    def run():
        hvd.init()
        with pytest.raises(ValueError, match="Allreduce: Process set provided does not exist, or has not been"):
            hvd.allreduce_async_(picotorch.tensor(np.ones(1, dtype=np.float32)), name="x",
                                 process_set=hvd.ProcessSet([0]))
        hvd.shutdown()

    hvd.launch(run, 1, timeout=10)


def test_the_cycle_time_sets_how_often_the_background_thread_wakes(monkeypatch):
    def cycles_in(seconds):
        def run():
            hvd.init()
            hvd.runtime_stats(reset=True)
            time.sleep(seconds)
            cycles = hvd.runtime_stats()["cycles"]
            hvd.shutdown()
            return cycles
        return hvd.launch(run, 2, timeout=10)[0]

    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "100")
    slow = cycles_in(0.5)
    assert 2 <= slow <= 7  # about 5 cycles of 100 ms
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "5")
    assert cycles_in(0.5) > 2 * slow


def test_enqueue_returns_before_the_collective_runs(monkeypatch):
    """Rank 0 enqueues at once, rank 1 only 0.3 s later: rank 0's call returns at once, its handle pending."""
    def run():
        hvd.init()
        hvd.barrier()
        if hvd.rank() == 1:
            time.sleep(0.3)
        started = time.perf_counter()
        handle = hvd.allreduce_async_(picotorch.tensor(np.ones(1, dtype=np.float32)), name="x")
        returned = time.perf_counter() - started
        pending = not hvd.poll(handle)
        hvd.synchronize(handle)
        hvd.shutdown()
        return returned, pending

    (returned, pending), (returned_1, _) = hvd.launch(run, 2, timeout=10)
    assert returned < 0.05 and returned_1 < 0.05
    assert pending


def test_an_idle_runtime_negotiates_every_20_ms_not_every_cycle(monkeypatch):
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "1")

    def run():
        hvd.init()
        hvd.barrier()
        hvd.runtime_stats(reset=True)
        time.sleep(0.3)
        cycles = hvd.runtime_stats()["cycles"]
        hvd.shutdown()
        return cycles

    for cycles in hvd.launch(run, 2, timeout=10):
        assert 3 <= cycles <= 0.3 / runtime.IDLE_CYCLE_SECONDS + 4  # Horovod's loop: about 300


def test_a_request_after_everything_is_done_does_not_wait_for_the_next_tick(monkeypatch):
    """Back-to-back synchronous allreduces: each finds the runtime with nothing in flight and wakes it."""
    monkeypatch.setenv("HOROVOD_CYCLE_TIME", "500")

    def run():
        hvd.init()
        t = picotorch.ones(3)
        hvd.allreduce_(t, name="first")
        started = time.perf_counter()
        for i in range(3):
            hvd.allreduce_(t, name=f"again.{i}")
        elapsed = time.perf_counter() - started
        hvd.shutdown()
        return elapsed, t.tolist()

    for elapsed, values in hvd.launch(run, 2, timeout=10):
        assert elapsed < 0.5  # a tick after each: 1.5 s
        assert values == [1.0] * 3


def test_the_background_thread_is_named_after_its_rank():
    def run():
        hvd.init()
        name = dist_state.current().runtime.thread.name
        hvd.shutdown()
        return name

    assert hvd.launch(run, 2, timeout=10) == ["rank 0: background", "rank 1: background"]
