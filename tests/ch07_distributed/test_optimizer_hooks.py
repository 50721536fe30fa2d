"""Where the optimizer's hooks sit, why ``_grad_accs`` exists, and what the hooks launch during backward."""

from __future__ import annotations

import gc

import numpy as np
from dist_optimizer_helpers import TIMEOUT, make_batches, make_mlp, make_optimizer, per_rank_models, shard

import picotorch as torch
import picotorch.distributed as hvd
import picotorch.nn as nn
import picotorch.nn.functional as F
from picotorch.distributed.optimizer import PostAccumulateDistributedOptimizer


def test_expand_as_reaches_the_leafs_accumulate_grad():
    p = nn.Parameter(torch.ones(3))
    node = p.expand_as(p).grad_fn
    assert type(node).__name__ == "ExpandBackward0"
    grad_acc = node.next_functions[0][0]
    assert type(grad_acc).__name__ == "AccumulateGrad" and grad_acc.variable is p
    assert (p * 2).grad_fn.next_functions[0][0] is grad_acc  # the same node, while someone holds it


def test_a_hook_on_an_unheld_accumulate_grad_is_lost():
    """The leaf holds its AccumulateGrad weakly: drop the node and the next graph gets a fresh one, hookless."""
    calls = []
    p = nn.Parameter(torch.ones(3))
    p.expand_as(p).grad_fn.next_functions[0][0].register_hook(lambda *ignore: calls.append("dropped"))
    gc.collect()
    kept = p.expand_as(p).grad_fn.next_functions[0][0]
    kept.register_hook(lambda *ignore: calls.append("kept"))
    (p * 2).sum().backward()
    assert calls == ["kept"]


def backward_once(models, forget_grad_accs):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(make_optimizer("sgd", model.parameters()),
                                         named_parameters=model.named_parameters())
    if forget_grad_accs:
        optimizer._grad_accs.clear()
        gc.collect()
    x, y = shard(make_batches(hvd.size(), 1)[0], hvd.rank())
    F.cross_entropy(model(x), y).backward()
    launched_in_backward = sorted(optimizer._parameter_names[p] for p in optimizer._handles)
    optimizer.step()  # synchronize submits what the hooks did not
    return launched_in_backward


def test_without_grad_accs_the_hooks_never_fire():
    model = make_mlp()
    everything = sorted(name for name, _ in model.named_parameters())
    assert hvd.launch(backward_once, 2, per_rank_models(model, 2), False, timeout=TIMEOUT) == [everything] * 2
    assert hvd.launch(backward_once, 2, per_rank_models(model, 2), True, timeout=TIMEOUT) == [[], []]


def firing_order(models, wrap):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = wrap(make_optimizer("sgd", model.parameters()), named_parameters=model.named_parameters())
    order = []
    launch = optimizer._allreduce_grad_async
    optimizer._allreduce_grad_async = lambda p: order.append(optimizer._parameter_names[p]) or launch(p)
    x, y = shard(make_batches(hvd.size(), 1)[0], hvd.rank())
    F.cross_entropy(model(x), y).backward()
    fired_during_backward = list(order)
    optimizer.step()
    return fired_during_backward


def test_hooks_fire_during_backward_last_layer_first():
    """The engine's order (chapter 04): the last layer's gradients are ready, and reduced, first."""
    model = make_mlp()
    expected = ["2.bias", "2.weight", "0.bias", "0.weight"]
    for wrap in (hvd.DistributedOptimizer, PostAccumulateDistributedOptimizer):
        assert hvd.launch(firing_order, 2, per_rank_models(model, 2), wrap, timeout=TIMEOUT) == [expected] * 2


class Branchy(nn.Module):
    """An MLP plus a branch that only some ranks take. The branch is computed first, so on ranks that take
    it its gradient is ready last (after the MLP's), as on ranks where synchronize() submits it."""

    def __init__(self):
        super().__init__()
        self.mlp = make_mlp()
        self.branch = nn.Linear(5, 3, bias=False)

    def forward(self, x, use_branch):
        side = self.branch(x) if use_branch else None
        out = self.mlp(x)
        return out + side if use_branch else out


def unused_branch(models, batch, users):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                         named_parameters=model.named_parameters())
    x, y = shard(batch, hvd.rank())
    F.cross_entropy(model(x, hvd.rank() in users), y).backward()
    fired = "branch.weight" in {optimizer._parameter_names[p] for p in optimizer._handles}
    optimizer.step()
    return fired, model.branch.weight.grad.numpy().copy()


def test_an_unused_parameter_is_reduced_with_zeros_and_nobody_hangs():
    model, (batch,) = Branchy(), make_batches(3, 1)
    users = {0, 2}
    results = hvd.launch(unused_branch, 3, per_rank_models(model, 3), batch, users, timeout=TIMEOUT)
    assert [fired for fired, _ in results] == [True, False, True]
    # Expected: (rank 0's + 0 + rank 2's) / 3, each computed alone on one process.
    local = []
    for rank in sorted(users):
        alone = per_rank_models(model, 1)[0]
        x, y = shard(batch, rank)
        F.cross_entropy(alone(x, True), y).backward()
        local.append(alone.branch.weight.grad.numpy())
    for _, grad in results:
        np.testing.assert_allclose(grad, sum(local) / 3, rtol=1e-5, atol=1e-7)


def step_without_backward(models):
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                         named_parameters=model.named_parameters())
    before = [p.detach().numpy().copy() for p in model.parameters()]
    optimizer.step()
    return before, [(p.grad.numpy().copy(), p.detach().numpy().copy()) for p in model.parameters()]


def test_step_before_backward_reduces_zeros_as_horovod_does():
    """No error in Horovod: every gradient is missing, so every rank submits zeros, and SGD moves nothing."""
    for before, after in hvd.launch(step_without_backward, 2, per_rank_models(make_mlp(), 2), timeout=TIMEOUT):
        for value, (grad, new_value) in zip(before, after):
            assert not grad.any()
            np.testing.assert_array_equal(new_value, value)
