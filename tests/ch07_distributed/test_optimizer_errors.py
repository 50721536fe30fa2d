"""Bad input and misuse: Horovod's exception types and texts (``horovod/torch/optimizer.py``)."""

from __future__ import annotations

import warnings

import pytest
from dist_optimizer_helpers import TIMEOUT, make_batches, make_mlp, per_rank_models, shard

import picotorch as torch
import picotorch.distributed as hvd
import picotorch.nn as nn
import picotorch.nn.functional as F

DELAY = ("Gradients were computed more than backward_passes_per_step times before call to step(). "
         "Increase backward_passes_per_step to accumulate gradients locally.")
ZERO_GRAD = ("optimizer.zero_grad() was called after loss.backward() but before optimizer.step() or "
             "optimizer.synchronize(). This is prohibited as it can cause a race condition.")
STEP_AFTER_SYNC = ("optimizer.step() called without optimizer.skip_synchronize() context after "
                   "optimizer.synchronize(). This can cause training slowdown. You may want to consider using "
                   "optimizer.skip_synchronize() context if you use optimizer.synchronize() in your code.")


def in_world(fn, world_size=2):
    """Run ``fn(model)`` on every rank of a ``world_size`` launch; return the ranks' results."""
    models = per_rank_models(make_mlp(), world_size)

    def body():
        hvd.init()
        return fn(models[hvd.rank()])

    return hvd.launch(body, world_size, timeout=TIMEOUT)


def error_of(fn, world_size=2):
    with pytest.raises(Exception) as info:
        in_world(fn, world_size)
    return type(info.value), str(info.value)


def sgd(model):
    return torch.optim.SGD(model.parameters(), lr=0.1)


def backward(model):
    x, y = shard(make_batches(hvd.size(), 1)[0], hvd.rank())
    F.cross_entropy(model(x), y).backward()


# ------------------------------------------------------------------------------- construction


def test_named_parameters_must_be_pairs():
    got = error_of(lambda m: hvd.DistributedOptimizer(sgd(m), named_parameters=list(m.parameters())))
    assert got == (ValueError, "named_parameters should be a sequence of tuples (name, parameter), usually "
                               "produced by model.named_parameters().")


def test_named_parameters_must_be_unique():
    def twice(m):
        pairs = list(m.named_parameters())
        return hvd.DistributedOptimizer(sgd(m), named_parameters=pairs + pairs[:1])

    assert error_of(twice) == (ValueError, "Parameter names in named_parameters must be unique. "
                                           "Found duplicates: 0.weight")


def test_every_parameter_must_be_named():
    def partial(m):
        hvd.DistributedOptimizer(sgd(m), named_parameters=list(m.named_parameters())[1:])

    kind, text = error_of(partial)
    assert kind is ValueError
    assert text.startswith("named_parameters was specified, but one or more model parameters were not named. "
                           "Python object ids: ")
    assert text.split(": ")[-1].isdigit()


@pytest.mark.parametrize("groups, message", [
    (0, "groups should be a non-negative integer or a list of list of torch.Tensor."),
    ("lists", "groups must consist of torch.Tensor."),
    ("twice", "A parameter can only appear once in groups."),
])
def test_groups_are_checked(groups, message):
    def make(m):
        chosen = {"lists": [["0.weight"]], "twice": [[m[0].weight], [m[0].weight]]}.get(groups, groups)
        hvd.DistributedOptimizer(sgd(m), named_parameters=m.named_parameters(), groups=chosen)

    assert error_of(make) == (ValueError, message)


def test_backward_passes_per_step_must_be_positive():
    make = lambda m: hvd.DistributedOptimizer(sgd(m), m.named_parameters(), backward_passes_per_step=0)  # noqa: E731
    assert error_of(make) == (ValueError, "backward_passes_per_step must be > 0")


def test_gradient_predivide_factor_needs_average():
    make = lambda m: hvd.DistributedOptimizer(sgd(m), m.named_parameters(), op=hvd.Sum,  # noqa: E731
                                              gradient_predivide_factor=2.0)
    assert error_of(make) == (ValueError, "gradient_predivide_factor not supported with op != Average")


def warnings_of(fn, world_size=2):
    """The ranks' results and every warning they raised (recorded on this thread: catch_warnings is global,
    so rank threads must not each enter one)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = in_world(fn, world_size)
    return results, sorted((w.category.__name__, str(w.message)) for w in caught)


def test_num_groups_is_deprecated_for_groups():
    results, caught = warnings_of(lambda m: len(hvd.DistributedOptimizer(sgd(m), m.named_parameters(),
                                                                         num_groups=2)._group_counts))
    assert results == [2, 2]
    assert caught == [("DeprecationWarning", "Parameter `num_groups` has been replaced by `groups` and will be "
                                             "removed in v0.23.0.")] * 2


class Wider(nn.Module):
    def __init__(self, hidden, dtype=torch.float32):
        super().__init__()
        self.fc = nn.Linear(5, hidden).to(dtype)
        self.out = nn.Linear(hidden, 3).to(dtype)


def test_ranks_with_different_parameters_fail_fast_naming_tensor_and_ranks():
    """picotorch's check: every rank raises at construction, none waits in an allreduce."""
    def make():
        hvd.init()
        wide = 6 if hvd.rank() == 1 else 4
        model = Wider(wide, torch.float64 if hvd.rank() == 2 else torch.float32)
        hvd.DistributedOptimizer(sgd(model), named_parameters=model.named_parameters())

    with pytest.raises(ValueError) as info:
        hvd.launch(make, 3, timeout=TIMEOUT)
    text = str(info.value)
    assert text.startswith("DistributedOptimizer: the ranks do not hold the same parameters")
    assert "'fc.weight' is float32 [4, 5] on rank 0 but float32 [6, 5] on rank 1 but float64 [4, 5] on rank 2" \
        in text
    assert "'out.bias' is float32 [3] on ranks 0, 1 but float64 [3] on rank 2" in text


# ------------------------------------------------------------------------------- training-time misuse


def test_one_backward_too_many_before_step():
    def twice(m):
        optimizer = hvd.DistributedOptimizer(sgd(m), m.named_parameters())
        backward(m)
        backward(m)  # raises in the hook of the first parameter reached
        optimizer.step()

    assert error_of(twice) == (AssertionError, DELAY)


def test_zero_grad_while_allreduces_are_in_flight():
    def zero_too_soon(m):
        optimizer = hvd.DistributedOptimizer(sgd(m), m.named_parameters())
        backward(m)
        optimizer.zero_grad()

    assert error_of(zero_too_soon) == (AssertionError, ZERO_GRAD)


def test_zero_grad_after_synchronize_is_fine():
    def zero_after_sync(m):
        optimizer = hvd.DistributedOptimizer(sgd(m), m.named_parameters())
        backward(m)
        optimizer.synchronize()
        optimizer.zero_grad()
        return [p.grad for p in m.parameters()]

    assert in_world(zero_after_sync) == [[None] * 4] * 2


def clip_then_step(m, skip):
    """Q7.3: clip the averaged gradients between synchronize() and step()."""
    optimizer = hvd.DistributedOptimizer(sgd(m), m.named_parameters())
    backward(m)
    optimizer.synchronize()
    torch.nn.utils.clip_grad_norm_(m.parameters(), 0.01)
    clipped = [p.grad.numpy().copy() for p in m.parameters()]
    reduced = []
    launch = optimizer._allreduce_grad_async
    optimizer._allreduce_grad_async = lambda p: reduced.append(p) or launch(p)
    if skip:
        with optimizer.skip_synchronize():
            optimizer.step()
    else:
        optimizer.step()
    kept = all((p.grad.numpy() == c).all() for p, c in zip(m.parameters(), clipped))
    return len(reduced), kept


def test_step_after_synchronize_warns_and_reduces_again_unless_skipped():
    assert warnings_of(lambda m: clip_then_step(m, skip=True)) == ([(0, True)] * 2, [])
    results, caught = warnings_of(lambda m: clip_then_step(m, skip=False))
    assert caught == [("UserWarning", STEP_AFTER_SYNC)] * 2
    # Every parameter counts as missing, so all four are reduced a second time; the ranks' clipped
    # gradients are already equal, and the average of two equal floats is exact.
    assert results == [(4, True)] * 2
