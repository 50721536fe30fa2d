"""``torch.Generator`` and ``torch.randperm``. Models ``aten/src/ATen/core/Generator.h`` and ``randperm`` in
``aten/src/ATen/native/TensorFactories.cpp``.

A ``Generator`` is a seedable stream of random numbers that code can own instead of sharing the global
one (``DataLoader(shuffle=True, generator=g)``, ``random_split(..., generator=g)``). picotorch's stream is
NumPy's PCG64 (``numpy.random.default_rng(seed)``), not PyTorch's Mersenne Twister (``mt19937``): the same
seed gives a *different* permutation in picotorch and in PyTorch. Programs are reproducible within each
library, and tests compare the rules (sizes, order of batches given a permutation), never the draws.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import device as Device
from ..native import distributions
from . import _factories

_DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val


class Generator:
    def __init__(self, device="cpu") -> None:
        self.device = Device(device) if not isinstance(device, Device) else device
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed & 0xFFFF_FFFF_FFFF_FFFF)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Re-seed from the global stream, as ``Generator.seed()`` re-seeds from a non-deterministic source."""
        return self.manual_seed(int(distributions.default_generator().integers(2**63))).initial_seed()

    def get_state(self) -> dict:
        return self._rng.bit_generator.state

    def set_state(self, state: dict) -> Generator:
        self._rng.bit_generator.state = state
        return self

    def permutation(self, n: int) -> np.ndarray:
        return self._rng.permutation(n)


def randperm(n: int, *, generator: Generator | None = None, dtype=st.int64, device=None, requires_grad=False):
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    order = generator.permutation(n) if generator is not None else distributions.default_generator().permutation(n)
    return _factories.tensor(order.astype(np.int64), dtype=dtype, device=device, requires_grad=requires_grad)
