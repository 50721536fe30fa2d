"""The CUDA kernels the dispatcher calls: hand-written CUDA C instead of the Array-API code.

Models the host side of the CUDA kernels in ``aten/src/ATen/native/cuda/`` (``raw_kernels.py`` lists
which): the dispatcher sends ``CUDA`` tensors here. Each kernel prepares equal-shape, same-dtype,
contiguous operands with the generic kernels' checks and then launches the raw kernel from
:mod:`.raw_kernels`. When the ``cuda`` device is backed by another array library (tests without a GPU
use ``array_api_strict``), or the dtype has no raw kernel, they fall back to the generic kernels of
``binary_ops.py`` and ``activation.py``.
"""

from __future__ import annotations

from .. import activation, binary_ops
from ..helpers import binary_operands, shape_of
from ..tensor_impl import new_tensor
from . import raw_kernels

_RAW_DTYPES = ("float32", "float64")


def add_cuda(self, other, alpha=1):
    prepared = _raw_operands(self, other)
    if prepared is None:
        return binary_ops.add(self, other, alpha)
    a, b, dtype, dev = prepared
    return new_tensor(raw_kernels.add(a, b, alpha), dtype, dev)


def mul_cuda(self, other):
    prepared = _raw_operands(self, other)
    if prepared is None:
        return binary_ops.mul(self, other)
    a, b, dtype, dev = prepared
    return new_tensor(raw_kernels.mul(a, b), dtype, dev)


def relu_cuda(self):
    if self._dtype.name not in _RAW_DTYPES or not _is_cupy(self):
        return activation.relu(self)
    return new_tensor(raw_kernels.relu(self._data), self._dtype, self._device)


def threshold_backward_cuda(grad_output, self, threshold):
    same = grad_output._dtype is self._dtype and shape_of(grad_output) == shape_of(self)
    if not (same and self._dtype.name in _RAW_DTYPES and _is_cupy(grad_output, self)):
        return activation.threshold_backward(grad_output, self, threshold)
    data = raw_kernels.threshold_backward(grad_output._data, self._data, threshold)
    return new_tensor(data, grad_output._dtype, grad_output._device)


def _raw_operands(self, other):
    """Broadcast and cast both operands to one shape and dtype, or None when the raw path can't run."""
    _, dev, dtype, shape, xp, a, b = binary_operands(self, other)
    if dtype.name not in _RAW_DTYPES or not _is_cupy(self):
        return None
    return xp.broadcast_to(a, shape), xp.broadcast_to(b, shape), dtype, dev


def _is_cupy(*tensors) -> bool:
    return all(type(t._data).__module__.startswith("cupy") for t in tensors)
