"""Seeding and saving the default generator: ``torch.manual_seed`` and its neighbours.

Models ``torch/random.py``. Each function works on ``torch.default_generator`` (``_C/_generator.py``,
PyTorch's Mersenne twister). PyTorch's also seeds every accelerator's generators; picotorch has one
kind of generator, the CPU's, which a ``cuda`` tensor's random functions use too.
"""

from __future__ import annotations

import contextlib

from ._C import default_generator

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]


def set_rng_state(new_state) -> None:
    """Restore the default generator from the uint8 tensor ``get_rng_state`` gave."""
    default_generator.set_state(new_state)


def get_rng_state():
    """The default generator's state: a uint8 tensor of 5056 bytes, as PyTorch's."""
    return default_generator.get_state()


def manual_seed(seed):
    """Seed the default generator (``int(seed)`` first: a float is truncated, a string parsed)."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the system's entropy; return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Inside the block, draw freely; after it, the default generator is where it was before."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
