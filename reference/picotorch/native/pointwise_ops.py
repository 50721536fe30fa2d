"""The optimizers' in-place pointwise kernels: ``addcmul_``, ``addcdiv_``, ``lerp_``.

Models ``aten/src/ATen/native/PointwiseOps.cpp`` (``addcmul``, ``addcdiv``) and
``aten/src/ATen/native/Lerp.cpp``. Each is a chain of the binary kernels in PyTorch's order of
operations, so a float32 tensor rounds after each step as PyTorch's scalar loop does:
``self + (value * tensor1) * tensor2``, ``self + (value * tensor1) / tensor2`` and, for ``lerp``,
``self + weight * (end - self)`` when ``|weight| < 0.5``, else ``end - (end - self) * (1 - weight)``.
"""

from __future__ import annotations

from .binary_ops import _write, add, div, mul, sub


def addcmul_(self, tensor1, tensor2, value=1):
    _write(self, add(self, mul(mul(tensor1, value), tensor2)))
    return self


def addcdiv_(self, tensor1, tensor2, value=1):
    _write(self, add(self, div(mul(tensor1, value), tensor2)))
    return self


def lerp_(self, end, weight):
    diff = sub(end, self)
    if abs(weight) < 0.5:
        _write(self, add(self, mul(diff, weight)))
    else:
        _write(self, sub(end, mul(diff, 1 - weight)))
    return self
