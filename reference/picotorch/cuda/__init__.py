"""``picotorch.cuda``: is there a GPU, which one is current, wait for it to finish.

Models ``torch/cuda/__init__.py`` (``is_available``, ``device_count``, ``current_device``,
``set_device``, ``synchronize``, ``init``, ``_lazy_init``), ``torch/cuda/_utils.py``
(``_get_device_index``) and the errors raised by the C++ they call, in
``c10/cuda/CUDAFunctions.cpp`` (``device_count_ensure_non_zero``).

PyTorch initialises CUDA lazily: ``import torch`` never touches the GPU; the first thing that needs
it (a CUDA tensor, ``current_device()``, ``synchronize()``) calls ``_lazy_init()``, which raises
if CUDA cannot be used. picotorch does the same, with CuPy in the role of PyTorch's CUDA build.

Which error, when (measured on torch 2.13.0+cpu; the RuntimeErrors are from PyTorch's C++):

- CuPy cannot be imported. This is a PyTorch built without CUDA, so we raise what the CPU build
  raises for ``torch.zeros(1, device='cuda')``, ``torch.ones(1).cuda()``, ``current_device()``
  and ``synchronize()``: ``AssertionError: Torch not compiled with CUDA enabled``.
  ``set_device(0)`` on the CPU build fails earlier, with
  ``AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'``; we mirror that too.
- CuPy is installed but no GPU can be used. This is a CUDA build on a machine without one, where
  ``device_count_ensure_non_zero`` raises ``RuntimeError``: "Found no NVIDIA driver on your
  system. ..." when there is no driver, else "No CUDA GPUs are available".

The messages say ``torch``, not ``picotorch``, as every message of picotorch does: the learner
should meet exactly the text PyTorch would show. ``is_available()`` and ``device_count()`` never
raise, as in PyTorch.

``_lazy_init``, ``is_initialized`` and ``current_device`` live one layer down, in
``picotorch.native.cuda`` (the kernels' device lookup needs them, and a lower layer never imports a
higher one); this module re-exports them, as ``torch.cuda`` exposes what ``torch._C`` provides.
"""

from __future__ import annotations

from ..c10.device import device as _device
from ..native.cuda import cupy_available as _cupy_available
from ..native.cuda import cupy_installed as _cupy_installed
from ..native.cuda import current_device, is_initialized
from ..native.cuda import lazy_init as _lazy_init

_NO_SET_DEVICE = "module 'torch._C' has no attribute '_cuda_setDevice'"


def _is_compiled() -> bool:
    """Whether picotorch has CUDA support at all, i.e. whether CuPy can be imported."""
    return _cupy_installed()


def is_available() -> bool:
    """Whether a CUDA GPU can be used now. Never raises."""
    return _cupy_available()


def device_count() -> int:
    """The number of GPUs (0 without CuPy, a driver or a GPU). Never raises."""
    if not is_available():
        return 0
    import cupy  # only once is_available() said CuPy works: without a GPU it is never imported

    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def init() -> None:
    """Initialise CUDA now rather than on first use; raises if it cannot be used."""
    _lazy_init()


def set_device(device) -> None:
    """Make ``device`` (an int, ``'cuda:1'`` or a ``device``) current; a negative int does nothing."""
    index = _get_device_index(device)
    if index < 0:
        return
    if not _is_compiled():
        raise AttributeError(_NO_SET_DEVICE)
    _lazy_init()
    import cupy  # after _lazy_init(): CuPy is installed and has a GPU

    if index >= device_count():
        raise RuntimeError("CUDA error: invalid device ordinal")
    cupy.cuda.Device(index).use()


def synchronize(device=None) -> None:
    """Wait until every kernel queued on ``device`` (default: the current GPU) has finished."""
    _lazy_init()
    import cupy  # after _lazy_init(): CuPy is installed and has a GPU

    index = _get_device_index(device, optional=True)
    with cupy.cuda.Device(index):
        cupy.cuda.runtime.deviceSynchronize()


def _get_device_index(device, optional: bool = False) -> int:
    """The GPU index ``device`` names, with ``torch.cuda._utils._get_device_index``'s errors."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _device(device)
    if isinstance(device, _device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if device.index is not None:
            return device.index
    if optional:
        return current_device()
    raise ValueError(
        f"Expected a torch.device with a specified index or an integer, but got:{device}"
    )


__all__ = [
    "current_device", "device_count", "init", "is_available", "is_initialized", "set_device",
    "synchronize",
]
