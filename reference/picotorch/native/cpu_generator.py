"""The CPU random number generator: PyTorch's Mersenne Twister, draw for draw.

Models ``aten/src/ATen/CPUGeneratorImpl.{h,cpp}`` and ``aten/src/ATen/core/MT19937RNGEngine.h``.
``torch.manual_seed(0); torch.rand(3)`` prints ``tensor([0.4963, 0.7682, 0.0885])`` in every tutorial;
picotorch prints the same because its generator is the same machine: a 32-bit Mersenne Twister
(MT19937) seeded from the low 32 bits of the seed, read 32 bits at a time (``random()``) or 64
(``random64()``: two draws, the first one high). What each distribution makes of those bits is in
``distributions.py``.

The twister itself is NumPy's ``MT19937`` bit generator (the same algorithm, in C); picotorch only seeds
it the way ``mt19937::init_with_uint32`` does and sets its state, so a draw costs what NumPy's costs.

A generator also remembers one spare normal sample (Box-Muller makes two at a time): the scalar path of
``normal_`` returns it on the next call, and ``manual_seed`` forgets it. ``get_state`` / ``set_state``
move the whole of it as PyTorch's 5056-byte ``CPUGeneratorImplState``, so a state saved by one can be
inspected as torch's.
"""

from __future__ import annotations

import os
import threading

import numpy as np

DEFAULT_RNG_SEED_VAL = 67280421310721  # c10's default_rng_seed_val: a new torch.Generator()'s seed
MERSENNE_STATE_N = 624
STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState)
LEGACY_STATE_SIZE = 5048  # sizeof(THGeneratorState), which set_state also takes


class CPUGeneratorImpl:
    """One stream of random bits, with the lock PyTorch's kernels take while they draw."""

    def __init__(self, seed: int = DEFAULT_RNG_SEED_VAL) -> None:
        self.mutex = threading.Lock()  # Note [Acquire lock when using random generators]
        self.set_current_seed(seed)

    # ---- seeding
    def set_current_seed(self, seed: int) -> None:
        self._seed = seed
        self._twister = np.random.MT19937()
        key = _init_genrand(seed)
        self._twister.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": MERSENNE_STATE_N}}
        self._fresh = True  # seeded and not drawn from: torch's state says next = 0 rather than 624
        self.next_double_normal_sample = None
        self.next_float_normal_sample = None

    def current_seed(self) -> int:
        return self._seed

    # ---- drawing
    def random(self, n: int) -> np.ndarray:
        """``n`` draws of 32 bits (``CPUGeneratorImpl::random``), as uint64 so that sums and products stay exact."""
        self._fresh = False
        return self._twister.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """``n`` draws of 64 bits, each made of two 32-bit draws, the first in the high half."""
        bits = self.random(2 * n)
        return (bits[0::2] << np.uint64(32)) | bits[1::2]

    # ---- state
    def get_state(self) -> np.ndarray:
        """The bytes of ``CPUGeneratorImplState``: seed, the twister's left/seeded/next and 624 words, the spare
        double normal (as ``normal_y`` with ``normal_is_valid``), then the spare float normal."""
        state = np.zeros(STATE_SIZE, np.uint8)
        twister = self._twister.state["state"]
        position = 0 if self._fresh else int(twister["pos"])
        header = np.array([self._seed & 0xFFFF_FFFF_FFFF_FFFF, 0, position], np.uint64).view(np.uint8).copy()
        header[8:16] = np.array([1 if self._fresh else MERSENNE_STATE_N + 1 - position, 1], np.int32).view(np.uint8)
        state[:24] = header
        state[24:5016] = np.asarray(twister["key"], np.uint64).view(np.uint8)
        if self.next_double_normal_sample is not None:
            state[5024:5032] = np.array([self.next_double_normal_sample], np.float64).view(np.uint8)
            state[5040:5044] = np.array([1], np.int32).view(np.uint8)
        if self.next_float_normal_sample is not None:
            state[5048:5052] = np.array([self.next_float_normal_sample], np.float32).view(np.uint8)
            state[5052] = 1
        return state

    def set_state(self, state: np.ndarray) -> None:
        """Restore what ``get_state`` gave (or torch's bytes); the caller has checked dtype and size."""
        words = state[:24].view(np.uint64)
        left, _seeded = (int(v) for v in state[8:16].view(np.int32))
        position = int(words[2])
        if not 1 <= left <= MERSENNE_STATE_N:
            raise RuntimeError("The input RNG state must be a valid MT19937 state")  # not torch's check
        self._seed = int(words[0])
        key = state[24:5016].view(np.uint64).astype(np.uint32)
        self._twister.state = {"bit_generator": "MT19937",
                               "state": {"key": key, "pos": MERSENNE_STATE_N if position == 0 else position}}
        self._fresh = position == 0
        valid = int(state[5040:5044].view(np.int32)[0])
        self.next_double_normal_sample = float(state[5024:5032].view(np.float64)[0]) if valid else None
        self.next_float_normal_sample = None
        if len(state) == STATE_SIZE and state[5052]:
            self.next_float_normal_sample = float(state[5048:5052].view(np.float32)[0])


def _init_genrand(seed: int) -> np.ndarray:
    """The twister's 624 words from the low 32 bits of ``seed`` (Knuth's multiplier, as ``init_with_uint32``)."""
    key = [seed & 0xFFFF_FFFF]
    for i in range(1, MERSENNE_STATE_N):
        previous = key[-1]
        key.append((1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFF_FFFF)
    return np.array(key, np.uint32)


def non_deterministic_seed() -> int:
    """What seeds the default generator at start-up and ``Generator.seed()`` (``getNonDeterministicRandom``)."""
    return int.from_bytes(os.urandom(8), "little")


_default: list[CPUGeneratorImpl] = []


def default_cpu_generator() -> CPUGeneratorImpl:
    """The process's generator (``at::detail::getDefaultCPUGenerator``), made on first use: seeded from the
    system's entropy, as PyTorch seeds it at start-up, until ``torch.manual_seed``."""
    if not _default:
        _default.append(CPUGeneratorImpl(non_deterministic_seed()))
    return _default[0]
