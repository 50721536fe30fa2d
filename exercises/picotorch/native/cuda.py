"""CUDA kernels that run hand-written CUDA C (``cupy.RawKernel``) instead of the Array-API code.

Models ``aten/src/ATen/native/cuda/`` (e.g. ``BinaryMulKernel.cu``, ``Activation.cu``): the
dispatcher sends ``CUDA`` tensors here. Each kernel prepares equal-shape, same-dtype, contiguous
operands with the generic kernels' checks and then launches the raw kernel from
:mod:`picotorch.native.cuda_kernels`. When the ``cuda`` device is backed by another array library
(tests without a GPU use ``array_api_strict``), they fall back to the generic kernels.
"""

from __future__ import annotations

from . import kernels
from .tensor_impl import new_tensor

_RAW_DTYPES = ("float32", "float64")


def _is_cupy(*tensors) -> bool:
    return all(type(t._data).__module__.startswith("cupy") for t in tensors)


def _raw_operands(self, other):
    """Broadcast and cast both operands to one shape and dtype, or None when the raw path can't run."""
    _, dev, dtype, shape, xp, a, b = kernels.binary_operands(self, other)
    if dtype.name not in _RAW_DTYPES or not _is_cupy(self):
        return None
    return xp.broadcast_to(a, shape), xp.broadcast_to(b, shape), dtype, dev


def add_cuda(self, other, alpha=1):
    prepared = _raw_operands(self, other)
    if prepared is None:
        return kernels.add(self, other, alpha)
    from . import cuda_kernels

    a, b, dtype, dev = prepared
    return new_tensor(cuda_kernels.add(a, b, alpha), dtype, dev)


def mul_cuda(self, other):
    prepared = _raw_operands(self, other)
    if prepared is None:
        return kernels.mul(self, other)
    from . import cuda_kernels

    a, b, dtype, dev = prepared
    return new_tensor(cuda_kernels.mul(a, b), dtype, dev)


def relu_cuda(self):
    if self._dtype.name not in _RAW_DTYPES or not _is_cupy(self):
        return kernels.relu(self)
    from . import cuda_kernels

    return new_tensor(cuda_kernels.relu(self._data), self._dtype, self._device)


def threshold_backward_cuda(grad_output, self, threshold):
    same = grad_output._dtype is self._dtype and kernels.shape_of(grad_output) == kernels.shape_of(self)
    if not (same and self._dtype.name in _RAW_DTYPES and _is_cupy(grad_output, self)):
        return kernels.threshold_backward(grad_output, self, threshold)
    from . import cuda_kernels

    data = cuda_kernels.threshold_backward(grad_output._data, self._data, threshold)
    return new_tensor(data, grad_output._dtype, grad_output._device)
