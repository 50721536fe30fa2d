"""Registering and removing process sets as Horovod's ``process_sets.py`` does: ids are never reused, a set
of the same ranks twice is refused, removal forgets the id and refuses the global set."""

import picotorch as torch
import picotorch.distributed as hvd


def _registry():
    hvd.init()
    a = hvd.add_process_set([0, 1])
    b = hvd.add_process_set([1, 2])
    try:
        hvd.add_process_set([1, 0])
        duplicate = "no error"
    except ValueError as error:
        duplicate = str(error)
    removed, again = hvd.remove_process_set(a), hvd.remove_process_set(a)
    global_removed = hvd.remove_process_set(hvd.global_process_set)
    c = hvd.add_process_set([0, 2])
    total = hvd.allreduce(torch.ones(1) * hvd.rank(), name="c", process_set=c, op=hvd.Sum).item() \
        if c.included() else None
    hvd.barrier()
    return b.process_set_id, c.process_set_id, a.process_set_id, duplicate, removed, again, global_removed, total


def test_ids_are_not_reused_duplicates_are_refused_and_removal_forgets_the_id():
    results = hvd.launch(_registry, 3, timeout=20)
    for rank, (b_id, c_id, a_id, duplicate, removed, again, global_removed, total) in enumerate(results):
        assert (b_id, c_id, a_id) == (2, 3, None)  # c does not take b's id after a is removed
        assert duplicate == "Attempted to add a duplicate process set: ProcessSet(process_set_id=None, " \
                            "ranks=[0, 1], mpi_comm=None)"
        assert (removed, again, global_removed) == (True, False, False)
        assert total == (None if rank == 1 else 2.0)  # ranks 0 and 2: 0 + 2
