"""Exercise 7.3: ``_DistributedOptimizer.synchronize`` (``picotorch/distributed/optimizer.py``).

Each test fails on the stub (``step()`` calls ``synchronize()``) and passes on the reference. Expected
gradients come from one process on the full batch, or from each rank's shard alone.
"""

from __future__ import annotations

import numpy as np
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

import picotorch as torch
import picotorch.distributed as hvd
import picotorch.nn as nn
import picotorch.nn.functional as F


def synchronized(models, batch, passes):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(make_optimizer("sgd", model.parameters()),
                                         named_parameters=model.named_parameters(),
                                         backward_passes_per_step=passes)
    x, y = shard(batch, hvd.rank())
    F.cross_entropy(model(x), y).backward()
    optimizer.synchronize()
    state = (dict(optimizer._handles), sorted(optimizer._allreduce_delay.values()))
    grads = snapshot(model)[0]
    with optimizer.skip_synchronize():
        optimizer.step()
    return state, (grads, snapshot(model)[1])


@pytest.mark.exercise("7.3")
def test_synchronize_waits_on_every_handle_and_clears_them():
    """Wait on each handle (mpi_ops.synchronize writes the average into p.grad), then clear self._handles."""
    model, batches = make_mlp(), make_batches(3, 1)
    (expected,) = reference_run(model, "sgd", batches)
    for (handles, delays), got in hvd.launch(synchronized, 3, per_rank_models(model, 3), batches[0], 1,
                                             timeout=TIMEOUT):
        assert handles == {} and delays == [1] * 4
        assert_close_history([got], [expected])


@pytest.mark.exercise("7.3")
def test_synchronize_launches_what_the_hooks_only_counted():
    """A None handle (p counted, delay not yet 0) is launched by synchronize, and the delay is reset."""
    model, batches = make_mlp(), make_batches(2, 1)
    (expected,) = reference_run(model, "sgd", batches)
    for (handles, delays), got in hvd.launch(synchronized, 2, per_rank_models(model, 2), batches[0], 2,
                                             timeout=TIMEOUT):
        assert handles == {} and delays == [2] * 4
        assert_close_history([got], [expected])


class TwoHeads(nn.Module):
    """Head a on every rank, head b on rank 0 only (computed first, so its gradients are ready last)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = nn.Linear(5, 3)
        self.b = nn.Linear(5, 3)

    def forward(self, x, use_b):
        side = self.b(x) if use_b else None
        return self.a(x) + side if use_b else self.a(x)


def one_step(models, batch):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                         named_parameters=model.named_parameters())
    x, y = shard(batch, hvd.rank())
    F.cross_entropy(model(x, hvd.rank() == 0), y).backward()
    optimizer.step()
    return {name: p.grad.numpy().copy() for name, p in model.named_parameters()}


def alone(model, batch, rank) -> dict:
    model = per_rank_models(model, 1)[0]
    x, y = shard(batch, rank)
    F.cross_entropy(model(x, rank == 0), y).backward()
    return {name: (p.grad.numpy() if p.grad is not None else 0.0) for name, p in model.named_parameters()}


@pytest.mark.exercise("7.3")
def test_synchronize_submits_zeros_for_parameters_whose_hook_did_not_fire():
    """self._requires_update minus the launched ones: _allreduce_grad_async each (it zero-fills), in name order."""
    model, batch = TwoHeads(), make_batches(2, 1)[0]
    rank0, rank1 = alone(model, batch, 0), alone(model, batch, 1)
    for grads in hvd.launch(one_step, 2, per_rank_models(model, 2), batch, timeout=TIMEOUT):
        for name, grad in grads.items():
            np.testing.assert_allclose(grad, (rank0[name] + rank1[name]) / 2, rtol=1e-5, atol=1e-7)
