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
    if dim2 >= 3 and dim1 in (1, 2) and (self.requires_grad or other.numel() == 0):
        # PyTorch folds these through ``other.mT``; picotorch does not model that path yet
        raise NotImplementedError("picotorch's matmul does not fold a 1-D or 2-D tensor that requires grad "
                                  "times a batch")
    if dim1 >= 3 and dim2 >= 3 and (_batch_is_ones(self) or _batch_is_ones(other)):
        # PyTorch 2.13 squeezes a batch of ones away and folds into mm; not modelled yet
        raise NotImplementedError("picotorch's matmul does not handle a batch of size 1 times a batch yet")
    return _broadcast_into_bmm(self, other)


def _batch_is_ones(t):
    return all(size == 1 for size in t.shape[:-2])


def _broadcast_into_bmm(self, other):
    """Expand both batches to their broadcast shape, flatten them into one, ``bmm``, unfold."""
    dim1, dim2 = self.dim(), other.dim()
    n = self.shape[-2] if dim1 > 1 else 1
    m1 = self.shape[-1]
    m2 = other.shape[-2] if dim2 > 1 else other.shape[0]
    p = other.shape[-1] if dim2 > 1 else 1
    batch = _broadcast_batches(tuple(self.shape[:max(dim1 - 2, 0)]), tuple(other.shape[:max(dim2 - 2, 0)]))
    flat = 1
    for size in batch:
        flat *= size
    left = ops.reshape(ops.expand(self, batch + (n, m1)), (flat, n, m1))
    if dim2 == 1:
        right = ops.unsqueeze(ops.reshape(ops.expand(other, batch + (m2,)), (flat, m2)), 2)
    else:
        right = ops.reshape(ops.expand(other, batch + (m2, p)), (flat, m2, p))
    out_shape = batch + ((n,) if dim1 > 1 else ()) + ((p,) if dim2 > 1 else ())
    product = ops.bmm(left, right)
    if dim2 == 1:
        product = ops.squeeze(product, -1)
    return ops._unsafe_view(product, out_shape)


def _broadcast_batches(a, b):
    """``infer_size`` on the batch dimensions, with PyTorch's message when they disagree."""
    ndim = max(len(a), len(b))
    a, b = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


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
