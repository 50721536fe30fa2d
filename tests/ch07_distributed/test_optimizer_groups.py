"""Groups: formed from rank 0's parameter names, so identical on every rank whatever each rank's order."""

from __future__ import annotations

import pytest
from dist_optimizer_helpers import (
    TIMEOUT,
    assert_close_history,
    gathered_names,
    make_batches,
    make_mlp,
    per_rank_models,
    reference_run,
    shard,
    snapshot,
)

import picotorch as torch
import picotorch.distributed as hvd
import picotorch.nn.functional as F
from picotorch.distributed.optimizer import split_list

RANK0_ORDER = ["0.weight", "0.bias", "2.weight", "2.bias"]


def rotated(pairs, rank):
    """Rank k lists its parameters rotated by k (and reversed on odd ranks): every rank has its own order."""
    pairs = pairs[rank % len(pairs):] + pairs[:rank % len(pairs)]
    return pairs[::-1] if rank % 2 else pairs


def train_grouped(models, batches, groups_of):
    hvd.init()
    model = models[hvd.rank()]
    pairs = rotated(list(model.named_parameters()), hvd.rank())
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD([p for _, p in pairs], lr=0.1, momentum=0.9),
                                         named_parameters=pairs, groups=groups_of(model))
    history = []
    for batch in batches:
        optimizer.zero_grad()
        x, y = shard(batch, hvd.rank())
        F.cross_entropy(model(x), y).backward()
        launched = list(optimizer._handles)
        optimizer.synchronize()
        grads = snapshot(model)[0]
        with optimizer.skip_synchronize():
            optimizer.step()
        history.append((grads, snapshot(model)[1]))
    assert all(isinstance(key, tuple) for key in launched)  # every group was complete: one grouped allreduce each
    return gathered_names(optimizer), history


@pytest.mark.parametrize("world_size", [2, 4])
def test_num_groups_are_the_same_on_every_rank_and_split_rank_0s_order(world_size):
    model, batches = make_mlp(), make_batches(world_size, 2)
    expected = reference_run(model, "sgd", batches)
    results = hvd.launch(train_grouped, world_size, per_rank_models(model, world_size), batches, lambda m: 2,
                         timeout=TIMEOUT)
    rank0_params_order = rotated(RANK0_ORDER, 0)
    for groups, history in results:
        assert groups == [[["0.weight", "0.bias"], ["2.weight", "2.bias"]]] * world_size
        assert groups[0] == [list(chunk) for chunk in split_list(rank0_params_order, 2)]
        assert_close_history(history, expected)


def test_explicit_groups_in_any_order_and_leftovers_alone():
    """An explicit group listed differently per rank is still one group; a parameter in none is its own."""
    model, batches = make_mlp(), make_batches(3, 2)
    expected = reference_run(model, "sgd", batches)

    def groups_of(m):
        members = [m[0].weight, m[2].weight]
        return [members[::-1] if hvd.rank() == 1 else members]

    results = hvd.launch(train_grouped, 3, per_rank_models(model, 3), batches, groups_of, timeout=TIMEOUT)
    for groups, history in results:
        assert groups == [[["0.weight", "2.weight"], ["0.bias"], ["2.bias"]]] * 3
        assert_close_history(history, expected)


def test_split_list_as_horovod():
    assert split_list(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert split_list([1, 2], 3) == [[1], [2], []]
