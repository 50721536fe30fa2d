"""Starting every rank from rank 0's state, and averaging over a process set only."""

from __future__ import annotations

import numpy as np
import pytest
from dist_optimizer_helpers import (
    PER_RANK,
    TIMEOUT,
    assert_close_history,
    full,
    make_batches,
    make_mlp,
    make_optimizer,
    per_rank_models,
    shard,
    snapshot,
)

import picotorch as torch
import picotorch.distributed as hvd
import picotorch.nn.functional as F


def local_step(model, optimizer, batch, rank):
    """One step on this rank's shard alone: the optimizer's state (momentum, Adam's moments) becomes its own."""
    x, y = shard(batch, rank)
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
    optimizer.zero_grad()


def expected_from_rank0(kind, batches) -> list:
    """One process: rank 0's local first step, then full-batch steps."""
    model = make_mlp(seed=0)
    optimizer = make_optimizer(kind, model.parameters())
    local_step(model, optimizer, batches[0], 0)
    history = []
    for batch in batches[1:]:
        x, y = full(batch)
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        history.append(snapshot(model))
        optimizer.zero_grad()
    return history


def train_from_rank0(models, batches, kind):
    """Ranks start from their own weights and optimizer states; the two broadcasts make them rank 0's."""
    hvd.init()
    model = models[hvd.rank()]
    local = make_optimizer(kind, model.parameters())
    local_step(model, local, batches[0], hvd.rank())
    optimizer = hvd.DistributedOptimizer(local, named_parameters=model.named_parameters())
    optimizer.load_state_dict(local.state_dict())  # the wrapper is a new optimizer: give it the local state
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    history = []
    for batch in batches[1:]:
        x, y = shard(batch, hvd.rank())
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        history.append(snapshot(model))
        optimizer.zero_grad()
    return history


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_broadcast_parameters_and_optimizer_state_make_the_ranks_rank_0(kind):
    batches = make_batches(3, 3)
    expected = expected_from_rank0(kind, batches)
    models = [make_mlp(seed=rank) for rank in range(3)]  # three different initialisations
    for history in hvd.launch(train_from_rank0, 3, models, batches, kind, timeout=TIMEOUT):
        assert_close_history(history, expected)


def train_in_set(models, batch, members):
    hvd.init()
    process_set = hvd.add_process_set(members)
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(make_optimizer("sgd", model.parameters()),
                                         named_parameters=model.named_parameters(), process_set=process_set)
    x, y = shard(batch, hvd.rank())
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
    hvd.barrier()  # as in Horovod, a rank that finishes shuts the job down: rank 1 (outside the set) waits
    return snapshot(model)[0]


def local_grads(model, x, y):
    model = per_rank_models(model, 1)[0]
    F.cross_entropy(model(x), y).backward()
    return snapshot(model)[0]


def test_a_process_set_averages_among_its_members_only():
    """Ranks 0 and 2 average; rank 1, outside the set, keeps its own gradient (and registers no hooks)."""
    model, (batch,) = make_mlp(), make_batches(3, 1)
    x, y = full(batch)
    members = slice(0, PER_RANK), slice(2 * PER_RANK, 3 * PER_RANK)
    in_set = local_grads(model, *[torch.from_numpy(np.concatenate([t.numpy()[rows] for rows in members]))
                                  for t in (x, y)])
    alone = local_grads(model, *shard(batch, 1))
    results = hvd.launch(train_in_set, 3, per_rank_models(model, 3), batch, [0, 2], timeout=TIMEOUT)
    for rank, grads in enumerate(results):
        for got, want in zip(grads, alone if rank == 1 else in_set):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
