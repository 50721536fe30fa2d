"""``matmul``'s rules that both its composite (``composite.py``) and its hand-written out= (the autograd layer's
``variable_type_manual.py``) follow. Models the helpers of ``aten/src/ATen/native/LinearAlgebra.cpp``
(``should_fold``, ``_matmul_impl``'s checks): whether a batch folds into one ``mm``/``mv``, which out= kernel the
product ends in and that kernel's dtype check, the result's shape, the dims check.
"""

from __future__ import annotations

from . import checks
from .resize import check_out_dtype


def matmul_out_kernel(self, other) -> str:
    """The out= kernel ``matmul(self, other, out=)`` ends in when an operand holds a batch: ``mv``'s or ``mm``'s
    when the batch folds into the rows of one matrix (``should_fold`` with an out), else ``bmm``'s."""
    if should_fold(self, other, has_out=True):
        return "mv.out" if min(self.dim(), other.dim()) == 1 else "mm.out"
    return "bmm.out"


def check_matmul_out_dtype(kernel: str, self, other, out) -> None:
    """That kernel's dtype check: ``mv``'s compares the three (out, the batched operand, the vector), ``mm``'s
    wants the batched operand's dtype, ``bmm``'s the second operand's."""
    big, small = (self, other) if self.dim() >= other.dim() else (other, self)
    if kernel == "mv.out":
        if not (out.dtype is big.dtype and big.dtype is small.dtype):
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {out.dtype.c10_name}, "
                               f"{big.dtype.c10_name}, and {small.dtype.c10_name}")
        return
    check_out_dtype(kernel, big.dtype if kernel == "mm.out" else other.dtype, out)


def matmul_shape(self, other) -> tuple:
    """The shape of ``self @ other`` (operands that can be multiplied): the batch dims broadcast, then the rows
    of ``self`` and the columns of ``other`` (none for a vector)."""
    batch = checks.broadcast_shapes(tuple(self.shape[:-2]), tuple(other.shape[:-2]))
    return tuple(batch) + tuple(self.shape[-2:-1] if self.dim() > 1 else ()) + tuple(
        other.shape[-1:] if other.dim() > 1 else ())


def check_matmul_dims(dim1: int, dim2: int) -> None:
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D")


def should_fold(self, other, has_out: bool = False) -> bool:
    """``should_fold``: can the operand with a batch be folded into the rows of one ``mm``/``mv``, without a copy?

    The batched one is ``self``, or ``other`` transposed (``other.mT``) when ``other`` has more dims. A small
    operand that needs a gradient always folds (not with an ``out``): its gradient is then one ``mm``, not a sum
    over an expanded batch. Otherwise the batch folds only when its dims are laid out as one (the strides say so).
    """
    self_larger = self.dim() >= other.dim()
    big_sizes, big_strides = list(self.shape), list(self.stride())
    small_dim, small_requires_grad = other.dim(), other.requires_grad
    if not self_larger:
        big_sizes, big_strides = list(other.shape), list(other.stride())
        big_sizes[-2:], big_strides[-2:] = big_sizes[:-3:-1], big_strides[:-3:-1]
        small_dim, small_requires_grad = self.dim(), self.requires_grad
    if not (len(big_sizes) >= 3 and small_dim <= 2):
        return False
    if small_requires_grad and not has_out:
        return True
    if self.dim() == 2:
        return False
    if checks.numel(big_sizes) == 0:
        return True
    return all(big_strides[i] == big_strides[i + 1] * big_sizes[i + 1] for i in range(len(big_sizes) - 2))
