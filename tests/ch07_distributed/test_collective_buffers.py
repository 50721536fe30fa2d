"""Where a collective's result goes: ``mpi_ops._buffer_of`` lets an in-place collective on a contiguous,
writable CPU tensor work in the tensor's own memory (``synchronize`` only bumps its version), gives anything
else a private copy that ``synchronize`` writes into the tensor (through a strided view into its base) with
``copy_``, an in-place op that bumps the version counter; an out-of-place ``allreduce`` never touches its input.
"""

import numpy as np

import picotorch as torch
import picotorch.distributed as hvd
from picotorch.distributed import mpi_ops, state

TIMEOUT = 20


def _on_ranks(fn, world_size=2):
    def run():
        hvd.init()
        try:
            return fn()
        finally:
            hvd.shutdown()
    return hvd.launch(run, world_size, timeout=TIMEOUT)


def test_in_place_allreduce_writes_the_sum_into_the_tensor_and_bumps_its_version():
    def fn():
        t = torch.full((4,), float(hvd.rank() + 1))
        storage, version = t.numpy(), t._version
        hvd.allreduce_(t, name="t", op=hvd.Sum)
        return storage.tolist(), t.tolist(), t._version - version
    for storage, values, bumped in _on_ranks(fn):
        assert storage == values == [3.0] * 4  # the NumPy array under t holds the sum
        assert bumped == 1


def test_an_in_place_allreduce_of_a_contiguous_tensor_works_in_its_own_memory_no_copy():
    def fn():
        t = torch.full((1000,), float(hvd.rank() + 1))
        handle = hvd.allreduce_async_(t, name="t", op=hvd.Sum)
        request = mpi_ops._handle_map(state.current())[handle][0]
        shared = np.shares_memory(request.arrays[0], t.numpy())
        hvd.synchronize(handle)
        column = torch.ones(3, 2)[:, 0]  # strided: a private copy
        handle = hvd.allreduce_async_(column, name="column", op=hvd.Sum)
        request = mpi_ops._handle_map(state.current())[handle][0]
        copied = not np.shares_memory(request.arrays[0], column.numpy())
        hvd.synchronize(handle)
        return shared, copied, t[0].item(), column.tolist()
    for shared, copied, value, column in _on_ranks(fn):
        assert shared and copied and value == 3.0 and column == [2.0] * 3


def test_a_strided_view_is_reduced_through_a_copy_and_written_back_into_its_base():
    def fn():
        base = torch.arange(6, dtype=torch.float32).reshape(2, 3) * (hvd.rank() + 1)
        column = base[:, 1]  # not contiguous
        hvd.allreduce_(column, name="column", op=hvd.Sum)
        return base.tolist()
    for rank, values in enumerate(_on_ranks(fn)):
        k = rank + 1  # column 1 holds (1, 4) * (1 + 2) on both ranks; the other columns are each rank's own
        assert values == [[0.0, 3.0, 2.0 * k], [3.0 * k, 12.0, 5.0 * k]]


def test_out_of_place_allreduce_leaves_its_input_alone():
    def fn():
        t = torch.full((3,), float(hvd.rank()))
        before = t._version
        out = hvd.allreduce(t, name="t")
        return t.tolist(), out.tolist(), t._version - before
    results = _on_ranks(fn, 3)
    for rank, (t, out, bumped) in enumerate(results):
        assert t == [float(rank)] * 3 and out == [1.0] * 3 and bumped == 0


def test_a_read_only_buffer_is_never_written():
    def fn():
        t = torch.from_numpy(np.broadcast_to(np.float32(hvd.rank() + 1), (4,)))  # read-only NumPy view
        out = hvd.allreduce(t, name="t", op=hvd.Sum)
        return t.tolist(), out.tolist()
    for rank, (t, out) in enumerate(_on_ranks(fn)):
        assert t == [float(rank + 1)] * 4 and out == [3.0] * 4


def test_grouped_allreduce_refuses_an_empty_or_mixed_group_and_synchronize_of_a_spent_handle_is_none():
    def fn():
        errors = []
        for group in ([], [torch.ones(2), torch.ones(2, dtype=torch.float64)]):
            try:
                hvd.grouped_allreduce(group, name="g")
            except ValueError as error:
                errors.append(str(error))
        handle = hvd.allreduce_async_(torch.ones(2), name="once")
        hvd.synchronize(handle)
        return errors, hvd.synchronize(handle)
    for errors, again in _on_ranks(fn):
        assert errors == ["grouped_allreduce needs at least one tensor",
                          "grouped_allreduce: picotorch reduces a group in one dtype, got ['torch.float32', "
                          "'torch.float64']"]
        assert again is None  # as Horovod's: a handle not in the handle map gives None
