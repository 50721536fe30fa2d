"""Shared by the chapter-07 optimizer tests: a small MLP, its data split by rank, and the reference run.

The reference is picotorch's own non-distributed training on the whole batch (no ``picotorch.distributed``
involved): data-parallel training with averaged gradients must reproduce it, since the mean of the ranks'
shard-mean gradients is the full-batch mean gradient when the shards have equal sizes.
"""

from __future__ import annotations

import copy

import numpy as np

import picotorch as torch
import picotorch.distributed as hvd
import picotorch.nn as nn
import picotorch.nn.functional as F

TIMEOUT = 10.0  # seconds: a hang fails a test instead of blocking it
PER_RANK = 4  # rows of the batch each rank sees


def make_mlp(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))


def make_batches(world_size: int, steps: int, seed: int = 1) -> list:
    """``steps`` full batches of ``world_size * PER_RANK`` rows: (x float32, y int64) as NumPy arrays."""
    rng = np.random.default_rng(seed)
    rows = world_size * PER_RANK
    return [(rng.standard_normal((rows, 5)).astype(np.float32), rng.integers(0, 3, rows)) for _ in range(steps)]


def shard(batch, rank: int):
    x, y = batch
    rows = slice(rank * PER_RANK, (rank + 1) * PER_RANK)
    return torch.from_numpy(x[rows].copy()), torch.from_numpy(y[rows].copy())


def full(batch):
    x, y = batch
    return torch.from_numpy(x.copy()), torch.from_numpy(y.copy())


def make_optimizer(kind: str, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9)
    return torch.optim.Adam(params, lr=0.01)


def reference_run(model, kind: str, batches) -> list:
    """Train a copy of ``model`` on the full batches, one process; each step's (grads, params) as NumPy."""
    model = copy.deepcopy(model)
    optimizer = make_optimizer(kind, model.parameters())
    history = []
    for batch in batches:
        optimizer.zero_grad()
        x, y = full(batch)
        F.cross_entropy(model(x), y).backward()
        grads = [p.grad.numpy().copy() for p in model.parameters()]
        optimizer.step()
        history.append((grads, [p.detach().numpy().copy() for p in model.parameters()]))
    return history


def per_rank_models(model, world_size: int) -> list:
    """One copy per rank, made on the main thread (rank threads then never touch the global RNG)."""
    return [copy.deepcopy(model) for _ in range(world_size)]


def snapshot(model) -> tuple:
    return ([p.grad.numpy().copy() for p in model.parameters()],
            [p.detach().numpy().copy() for p in model.parameters()])


def assert_close_history(got, expected) -> None:
    assert len(got) == len(expected)
    for (grads, params), (want_grads, want_params) in zip(got, expected):
        for a, b in zip(grads, want_grads):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        for a, b in zip(params, want_params):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def gathered_names(optimizer, process_set=hvd.global_process_set) -> list:
    """Every rank's groups in the order formed, as lists of names (tests compare them across ranks)."""
    mine = [[optimizer._parameter_names[p] for p in group] for group in optimizer._group_counts]
    return hvd.allgather_object(mine, process_set=process_set)
