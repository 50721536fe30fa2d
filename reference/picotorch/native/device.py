"""Which array library backs which device type.

Models the role of ``c10/core/DeviceType.h`` plus the allocator lookup in ``c10/core/Allocator.h``:
``cpu`` arrays are NumPy arrays, ``cuda`` arrays are CuPy arrays, both reached through
``array-api-compat`` so one kernel serves both. Tests can back ``cuda`` with ``array_api_strict``'s
extra devices (:func:`use_backend`), which exercises every device rule without a GPU.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..c10.device import CPU, device
from .cuda import lazy_init
from .numpy_namespace import np_xp


@dataclass
class Backend:
    xp: object                 # the Array-API namespace
    devices: list | None       # array-library device objects, by index (None: the library's default)

    def array_device(self, index: int | None):
        if self.devices is None:
            return None
        return self.devices[index or 0]


_BACKENDS: dict[str, Backend] = {"cpu": Backend(np_xp, None)}


def has_accelerator() -> bool:
    """Is any device type besides ``cpu`` backed (CuPy found a GPU, or a test's ``use_backend``)?"""
    return len(_BACKENDS) > 1


def normalize(dev) -> device:
    """A tensor's device: ``cuda`` means the current CUDA device (``cuda:0`` here), a tensor always has an
    index there; every CPU tensor has the one shared ``CPU``."""
    if dev is CPU:
        return CPU
    dev = device(dev)
    if dev.type == "cpu":  # a CPU tensor has no index, as PyTorch's (``cpu:0`` makes one on ``cpu``)
        return CPU
    if dev.index is None:
        return device(dev.type, 0)
    return dev


def backend(dev: device) -> Backend:
    """The backend of a device, raising what PyTorch raises when the device type is unusable."""
    found = _BACKENDS.get(dev.type)
    if found is not None:
        return found
    if dev.type == "cuda":
        return _cupy_backend()
    raise RuntimeError(f"picotorch has no kernels for device type {dev.type}")


def _cupy_backend() -> Backend:
    lazy_init()  # raises the no-GPU error PyTorch raises
    import cupy  # only now: without a GPU, picotorch never imports CuPy
    from array_api_compat import cupy as cp_xp

    found = Backend(cp_xp, [cupy.cuda.Device(i) for i in range(cupy.cuda.runtime.getDeviceCount())])
    _BACKENDS["cuda"] = found
    return found


@contextlib.contextmanager
def use_backend(device_type: str, xp, devices: list | None = None):
    """Temporarily back ``device_type`` with another Array-API namespace (for tests)."""
    previous = _BACKENDS.get(device_type)
    _BACKENDS[device_type] = Backend(xp, devices)
    try:
        yield
    finally:
        if previous is None:
            del _BACKENDS[device_type]
        else:
            _BACKENDS[device_type] = previous


def to_numpy(array) -> np.ndarray:
    """A host NumPy copy (or view) of any backend's array."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get"):  # CuPy
        return array.get()
    module = type(array).__module__
    if module.startswith("array_api_strict"):
        return np.asarray(array._array)
    return np.asarray(array)
