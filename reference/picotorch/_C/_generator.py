"""``torch.Generator``, ``torch.default_generator`` and ``torch.randperm``.

Models ``torch/csrc/Generator.cpp`` (the Python type around a C++ generator) and ``randperm`` in
``aten/src/ATen/native/TensorFactories.cpp``; the seeding functions are in ``picotorch/random.py``.
A ``Generator`` owns one ``CPUGeneratorImpl`` (``native/cpu_generator.py``: PyTorch's Mersenne
Twister), so ``torch.Generator().manual_seed(42)`` gives picotorch and PyTorch the same numbers,
batch orders and splits. ``default_generator`` is the process's own, which every random function
uses when no ``generator=`` is given.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import device as Device
from ..native import cpu_generator, distributions
from ..native.tensor_impl import TensorImpl
from . import _factories

_UINT64 = 1 << 64


class Generator:
    __module__ = "picotorch._C"  # where PyTorch's type says it lives: torch._C.Generator

    def __init__(self, device="cpu") -> None:
        self.device = Device(device) if not isinstance(device, Device) else device
        self._own = cpu_generator.CPUGeneratorImpl()

    @property
    def _impl(self) -> cpu_generator.CPUGeneratorImpl:
        return self._own if self._own is not None else cpu_generator.default_cpu_generator()

    def manual_seed(self, seed) -> Generator:
        """``THPGenerator_manualSeed``: an int (a negative one counts from 2**64), never a float or a bool."""
        if type(seed) is bool or not isinstance(seed, int):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not -(1 << 63) <= seed < _UINT64:
            raise ValueError("Overflow when unpacking long long")
        impl = self._impl
        with impl.mutex:
            impl.set_current_seed(seed % _UINT64)
        return self

    def initial_seed(self) -> int:
        return self._impl.current_seed()

    def seed(self) -> int:
        """Re-seed from the operating system's entropy, and say with what."""
        seed = cpu_generator.non_deterministic_seed()
        self._impl.set_current_seed(seed)
        return seed

    def get_state(self):
        """The generator's whole state as a uint8 tensor of 5056 bytes (PyTorch's ``CPUGeneratorImplState``)."""
        with self._impl.mutex:
            state = self._impl.get_state()
        return _factories.from_numpy(state)

    def set_state(self, new_state) -> Generator:
        if not isinstance(new_state, TensorImpl):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not st.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        size = new_state.numel()
        if size != cpu_generator.STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {cpu_generator.STATE_SIZE} but found the "
                               f"input RNG state size to be {size}")
        with self._impl.mutex:
            self._impl.set_state(np.ascontiguousarray(new_state.numpy()).reshape(-1))
        return self


def _default_generator() -> Generator:
    generator = Generator.__new__(Generator)
    generator.device, generator._own = Device("cpu"), None  # its bits are the process's default generator's
    return generator


default_generator = _default_generator()


# ----------------------------------------------------------------------------- randperm


def randperm(n: int, *, generator: Generator | None = None, dtype=st.int64, device=None, requires_grad=False):
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    if dtype is not None and dtype.is_complex:
        raise NotImplementedError(f"\"randperm\" not implemented for '{dtype.c10_name}'")
    impl = distributions.generator_impl(generator)
    with impl.mutex:
        order = distributions.randperm_values(impl, n)
    return _factories.tensor(order, dtype=dtype, device=device, requires_grad=requires_grad)
