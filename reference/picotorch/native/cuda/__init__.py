"""CUDA at the bottom of the stack: is it usable, its lazy initialisation, the current GPU.

Models ``torch/csrc/utils/device_lazy_init.cpp`` (CUDA is initialised by the first thing that needs it,
never by ``import``), the checks of ``c10/cuda/CUDAFunctions.cpp`` (``device_count_ensure_non_zero``:
which error when no GPU can be used) and ``torch._C._cuda_getDevice``. The rest of the package:

- ``raw_kernels.py``: hand-written CUDA C sources, compiled and launched with ``cupy.RawKernel``, and
  the probe that asks whether CuPy can run here (it never raises);
- ``elementwise.py``: the kernels the dispatcher calls for CUDA tensors (``add_cuda``, ``mul_cuda``,
  ``relu_cuda``, ``threshold_backward_cuda``), which launch those raw kernels.

``native/device.py`` calls :func:`lazy_init` when it makes the first CUDA array, so this file imports
no kernel (that would be a cycle). The user-facing ``picotorch.cuda`` (``torch.cuda``) re-exports it,
because a lower layer never imports a higher one. CuPy is imported only after the probe said yes.
"""

from __future__ import annotations

from .raw_kernels import cupy_available, cupy_installed

_NOT_COMPILED = "Torch not compiled with CUDA enabled"
_NO_DRIVER = (
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx"
)
_NO_GPUS = "No CUDA GPUs are available"

_initialized = False


def lazy_init() -> None:
    """Make CUDA usable, or raise what PyTorch raises (``picotorch.cuda``'s docstring lists which)."""
    global _initialized
    if _initialized:
        return
    if not cupy_installed():
        raise AssertionError(_NOT_COMPILED)
    if not cupy_available():
        raise RuntimeError(_NO_GPUS if _driver_version() > 0 else _NO_DRIVER)
    _initialized = True


def is_initialized() -> bool:
    """Whether CUDA has been initialised (by the first thing that needed it)."""
    return _initialized


def current_device() -> int:
    """The index of the current GPU."""
    lazy_init()
    import cupy  # after lazy_init: CuPy is installed and has a GPU

    return int(cupy.cuda.runtime.getDevice())


def _driver_version() -> int:
    """The CUDA driver's version number, 0 when there is no driver (as ``cudaDriverGetVersion``)."""
    try:
        import cupy  # may be absent or broken: this runs only to choose an error message

        return int(cupy.cuda.runtime.driverGetVersion())
    except Exception:
        return 0
