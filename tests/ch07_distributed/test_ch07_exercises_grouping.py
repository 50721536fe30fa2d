"""Exercise 7.4: ``form_groups`` (``picotorch/distributed/optimizer.py``).

Each test fails on the stub and passes on the reference. The expected groups are written out by hand
from rank 0's parameter order; the last test also needs the group branch of 7.2's hook.
"""

from __future__ import annotations

import numpy as np
import pytest
from dist_optimizer_helpers import (
    TIMEOUT,
    make_batches,
    make_mlp,
    make_optimizer,
    per_rank_models,
    reference_run,
    shard,
    snapshot,
)

import picotorch.distributed as hvd
import picotorch.nn.functional as F
from picotorch.distributed.optimizer import form_groups

ORDERS = {0: [0, 1, 2, 3], 1: [3, 2, 1, 0], 2: [2, 0, 3, 1]}  # each rank lists the parameters its own way


def groups_on_each_rank(models, groups_of):
    hvd.init()
    model = models[hvd.rank()]
    pairs = list(model.named_parameters())
    pairs = [pairs[i] for i in ORDERS[hvd.rank()]]
    names = {p: name for name, p in pairs}
    formed = form_groups([p for _, p in pairs], names, groups_of(dict(pairs)))
    return [[names[p] for p in group] for group in formed], all(isinstance(group, tuple) for group in formed)


@pytest.mark.exercise("7.4")
def test_num_groups_split_rank_0s_order():
    """Broadcast rank 0's names (broadcast_object), sort p_list by them, then split_list(p_list, groups)."""
    expected = [["0.weight", "0.bias"], ["2.weight", "2.bias"]]
    results = hvd.launch(groups_on_each_rank, 3, per_rank_models(make_mlp(), 3), lambda params: 2, timeout=TIMEOUT)
    assert results == [(expected, True)] * 3


@pytest.mark.exercise("7.4")
def test_num_groups_uneven_split():
    """Three groups of four parameters: sizes 2, 1, 1, in rank 0's order (split_list), returned as tuples."""
    expected = [["0.weight", "0.bias"], ["2.weight"], ["2.bias"]]
    results = hvd.launch(groups_on_each_rank, 2, per_rank_models(make_mlp(), 2), lambda params: 3, timeout=TIMEOUT)
    assert results == [(expected, True)] * 2


@pytest.mark.exercise("7.4")
def test_explicit_groups_then_each_leftover_alone():
    """Each explicit list is a group (members in rank 0's order); every other parameter is a group of its own."""
    def groups_of(params):
        chosen = [params["2.bias"], params["0.weight"]]
        return [chosen[::-1] if hvd.rank() == 1 else chosen]

    expected = [["0.weight", "2.bias"], ["0.bias"], ["2.weight"]]
    results = hvd.launch(groups_on_each_rank, 3, per_rank_models(make_mlp(), 3), groups_of, timeout=TIMEOUT)
    assert results == [(expected, True)] * 3


def grouped_backward(models, batch):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(make_optimizer("sgd", model.parameters()),
                                         named_parameters=model.named_parameters(), groups=2)
    x, y = shard(batch, hvd.rank())
    F.cross_entropy(model(x), y).backward()
    launched = [tuple(optimizer._parameter_names[p] for p in key) for key in optimizer._handles]
    for handle in optimizer._handles.values():
        hvd.synchronize(handle)
    return launched, snapshot(model)[0]


@pytest.mark.exercise("7.4")
def test_the_hooks_launch_one_grouped_allreduce_per_formed_group():
    """The groups form_groups returns are what 7.2's hook launches: one grouped allreduce when all members are ready."""
    model, batches = make_mlp(), make_batches(2, 1)
    ((expected, _),) = reference_run(model, "sgd", batches)
    for launched, grads in hvd.launch(grouped_backward, 2, per_rank_models(model, 2), batches[0], timeout=TIMEOUT):
        assert launched == [("2.weight", "2.bias"), ("0.weight", "0.bias")]  # the last layer's group is ready first
        for got, want in zip(grads, expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
