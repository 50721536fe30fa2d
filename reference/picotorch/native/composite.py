"""Operators built from other operators (PyTorch's ``CompositeImplicitAutograd`` kernels).

Models ``aten/src/ATen/native/LinearAlgebra.cpp`` (``matmul``) and ``TensorShape.cpp`` (``reshape``,
``expand_as``). They call operators through the dispatcher, so autograd records the ops they call:
this is why ``a @ b`` on matrices shows ``MmBackward0`` and ``reshape`` shows ``ViewBackward0`` or
``UnsafeViewBackward0`` — there is no ``MatmulBackward`` or ``ReshapeBackward``.
"""

from __future__ import annotations

from .dispatcher import ops
from .helpers import scalar_tensor
from .tensor_shape import can_view


def reshape(self, shape):
    """A view when the strides allow one, else a copy viewed as the new shape."""
    if can_view(self, shape):
        return ops.view(self, shape)
    return ops._unsafe_view(ops.clone(self), shape)


def expand_as(self, other):
    return ops.expand(self, other.shape)


def matmul(self, other):
    """Pick the op by the operands' dimensions, as ``at::native::matmul`` does."""
    dim1, dim2 = self.dim(), other.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D")
    if dim1 == 1 and dim2 == 1:
        return ops.dot(self, other)
    if dim1 == 2 and dim2 == 1:
        return ops.mv(self, other)
    if dim1 == 1 and dim2 == 2:
        return ops.squeeze_(ops.mm(ops.unsqueeze(self, 0), other), 0)
    if dim1 == 2 and dim2 == 2:
        return ops.mm(self, other)
    if dim1 >= 3 and dim2 in (1, 2):
        return _fold_into_mm(self, other)
    raise NotImplementedError("picotorch's matmul supports operands of at most 2 dimensions, or a batch "
                              "of matrices times a matrix or vector")


def _fold_into_mm(self, other):
    """(..., n, k) @ (k, m): fold the batch into the rows, one mm, unfold (``_unsafe_view``)."""
    batch = tuple(self.shape[:-1])
    folded = ops.reshape(self, (-1, self.shape[-1]))
    if other.dim() == 1:
        return ops._unsafe_view(ops.mv(folded, other), batch)
    return ops._unsafe_view(ops.mm(folded, other), batch + (other.shape[-1],))


# ----------------------------------------------------------------------------- where with Python scalars
# TensorCompare.cpp: a Python number is a wrapped zero-dim tensor, so it takes part in type promotion
# only by its category (``torch.where(c, x16, 0.5)`` stays float16), and gradients flow to the tensor.


def where_scalar_self(condition, self, other):
    return ops.where(condition, scalar_tensor(self), other)


def where_scalar_other(condition, self, other):
    return ops.where(condition, self, scalar_tensor(other))


def where_scalars(condition, self, other):
    return ops.where(condition, scalar_tensor(self), scalar_tensor(other))
