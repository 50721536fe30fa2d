"""Exercise 7.2: the hook ``_make_hook`` returns (``picotorch/distributed/optimizer.py``).

Each test fails on the stub (its NotImplementedError, raised during backward on a rank thread, is what
``launch`` re-raises) and passes on the reference. They wait on the hooks' handles with ``hvd.synchronize``
directly, so they need neither 7.3 (``optimizer.synchronize``) nor 7.4 (groups). Expected gradients come
from one process on the full batch.
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
from exercise_helpers import raised


def backward_passes(models, batch, passes, extra_pass=False):
    """``passes`` backward passes on parts of the shard; what ``_handles`` held after each; the averages."""
    hvd.init()
    model = models[hvd.rank()]
    optimizer = hvd.DistributedOptimizer(make_optimizer("sgd", model.parameters()),
                                         named_parameters=model.named_parameters(),
                                         backward_passes_per_step=passes)
    x, y = shard(batch, hvd.rank())
    seen = []
    for part in range(passes + extra_pass):
        rows = slice(part % passes * len(x) // passes, (part % passes + 1) * len(x) // passes)
        (F.cross_entropy(model(x[rows]), y[rows]) / passes).backward()
        seen.append(sorted((optimizer._parameter_names[p], handle is not None)
                           for p, handle in optimizer._handles.items()))
    for handle in optimizer._handles.values():
        hvd.synchronize(handle)  # the average lands in p.grad
    return seen, snapshot(model)[0]


NAMES = ["0.bias", "0.weight", "2.bias", "2.weight"]


@pytest.mark.exercise("7.2")
def test_the_hook_launches_each_allreduce_during_backward():
    """At the last (here: only) pass, launch allreduce for p and store its handle in self._handles[p]."""
    model, batches = make_mlp(), make_batches(2, 1)
    ((expected, _),) = reference_run(model, "sgd", batches)
    for seen, grads in hvd.launch(backward_passes, 2, per_rank_models(model, 2), batches[0], 1, timeout=TIMEOUT):
        assert seen == [[(name, True) for name in NAMES]]
        assert_close_grads(grads, expected)


@pytest.mark.exercise("7.2")
def test_the_hook_counts_passes_and_launches_at_the_last():
    """Decrement self._allreduce_delay[p]; before it reaches 0 store a None handle (counted, not launched)."""
    model, batches = make_mlp(), make_batches(2, 1)
    ((expected, _),) = reference_run(model, "sgd", batches)
    for seen, grads in hvd.launch(backward_passes, 2, per_rank_models(model, 2), batches[0], 2, timeout=TIMEOUT):
        assert seen == [[(name, False) for name in NAMES], [(name, True) for name in NAMES]]
        assert_close_grads(grads, expected)


@pytest.mark.exercise("7.2")
def test_one_pass_too_many_raises_horovods_error():
    """A hook firing when p's handle is set and its delay is 0 raises Horovod's AssertionError text."""
    models, batch = per_rank_models(make_mlp(), 2), make_batches(2, 1)[0]
    err = raised(lambda: hvd.launch(backward_passes, 2, models, batch, 2, True, timeout=TIMEOUT))
    assert (type(err), str(err)) == (
        AssertionError, "Gradients were computed more than backward_passes_per_step times before call to step(). "
                        "Increase backward_passes_per_step to accumulate gradients locally.")


def assert_close_grads(grads, expected):
    for got, want in zip(grads, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
