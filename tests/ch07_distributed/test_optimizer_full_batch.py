"""``DistributedOptimizer`` on 1–4 thread ranks trains exactly as one process on the full batch.

Expected values come from ``dist_optimizer_helpers.reference_run``: picotorch without
``picotorch.distributed``, on the concatenated batch.
"""

from __future__ import annotations

import pytest
from dist_optimizer_helpers import (
    TIMEOUT,
    assert_close_history,
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
from picotorch.distributed.optimizer import PostAccumulateDistributedOptimizer

STEPS = 3


def train(models, kind, batches, wrap=hvd.DistributedOptimizer, **options):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = wrap(make_optimizer(kind, model.parameters()), named_parameters=model.named_parameters(), **options)
    history = []
    for batch in batches:
        optimizer.zero_grad()
        x, y = shard(batch, hvd.rank())
        F.cross_entropy(model(x), y).backward()
        optimizer.synchronize()
        grads = snapshot(model)[0]
        with optimizer.skip_synchronize():
            optimizer.step()
        history.append((grads, snapshot(model)[1]))
    hvd.shutdown()
    return history


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("world_size", [1, 2, 3, 4])
def test_every_rank_matches_full_batch_training(world_size, kind):
    model, batches = make_mlp(), make_batches(world_size, STEPS)
    expected = reference_run(model, kind, batches)
    for history in hvd.launch(train, world_size, per_rank_models(model, world_size), kind, batches, timeout=TIMEOUT):
        assert_close_history(history, expected)


@pytest.mark.parametrize("wrap", [hvd.DistributedOptimizer, PostAccumulateDistributedOptimizer])
@pytest.mark.parametrize("options", [{}, {"gradient_predivide_factor": 2.0}, {"groups": 2}],
                         ids=["plain", "predivide", "groups"])
def test_variants_match_full_batch_training(wrap, options):
    model, batches = make_mlp(), make_batches(2, STEPS)
    expected = reference_run(model, "sgd", batches)
    for history in hvd.launch(train, 2, per_rank_models(model, 2), "sgd", batches, wrap, timeout=TIMEOUT,
                              **options):
        assert_close_history(history, expected)


def test_op_sum_adds_the_ranks_gradients():
    """``op=hvd.Sum``: the gradient is the sum of the shard means, i.e. world_size times the full-batch mean."""
    model, batches = make_mlp(), make_batches(2, 1)
    (want_grads, _), = reference_run(model, "sgd", batches)
    history = hvd.launch(train, 2, per_rank_models(model, 2), "sgd", batches, op=hvd.Sum, timeout=TIMEOUT)
    for (grads, _), in history:
        for got, want in zip(grads, want_grads):
            assert abs(got - 2 * want).max() < 1e-5


def accumulate(models, batches, passes):
    """``passes`` backward passes over halves of each rank's shard, then one step."""
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(make_optimizer("sgd", model.parameters()),
                                         named_parameters=model.named_parameters(), backward_passes_per_step=passes)
    history = []
    for batch in batches:
        optimizer.zero_grad()
        x, y = shard(batch, hvd.rank())
        launched = []
        for part in range(passes):
            rows = slice(part * len(x) // passes, (part + 1) * len(x) // passes)
            (F.cross_entropy(model(x[rows]), y[rows]) / passes).backward()
            launched.append(sum(handle is not None for handle in optimizer._handles.values()))
        optimizer.synchronize()
        grads = snapshot(model)[0]
        with optimizer.skip_synchronize():
            optimizer.step()
        history.append((grads, snapshot(model)[1]))
        assert launched == [0] * (passes - 1) + [4], launched  # allreduces start at the last pass only
    hvd.shutdown()
    return history


def test_backward_passes_per_step_accumulates_locally_then_reduces_once():
    model, batches = make_mlp(), make_batches(2, STEPS)
    expected = reference_run(model, "sgd", batches)
    for history in hvd.launch(accumulate, 2, per_rank_models(model, 2), batches, 2, timeout=TIMEOUT):
        assert_close_history(history, expected)
