"""The functions ``torch/functional.py`` defines in Python over the generated ones: variadic arguments.

Models ``torch/functional.py``: ``broadcast_tensors(a, b)``, ``atleast_1d(a, b)`` and ``meshgrid(a, b)`` take the
tensors as separate arguments and pass them on as one list to the op of the same name (``_VF``, here
``_C._VariableFunctions``), which is built from other ops (``native/composite.py``). ``einsum`` takes the equation
and its operands separately, in one list, or as the sublist form (operand, labels as ints, ..., output labels) that
it turns into an equation; without ``opt_einsum`` it never computes a contraction path. ``tensordot`` turns its
``dims`` (a count, or two lists) into the op's two dim lists. ``broadcast_shapes`` works on shapes alone
(``torch._refs._broadcast_shapes``), without making a tensor. ``unravel_index`` and ``cdist`` are torch's Python
wrappers too. (``split``, ``norm``, ``unique`` and ``unique_consecutive``, also from that file, live in
``picotorch/__init__.py`` and ``_tensor.py``, where ``Tensor``'s methods reach them.)
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from numbers import Integral

from ._C import _VariableFunctions as _VF
from ._C._factories import tensor as _tensor
from ._C._tensor_base import TensorBase
from ._C._torch_function import _has_torch_function, handle_torch_function
from ._tensor import unique, unique_consecutive  # (Tensor.unique's functions live a layer down)
from .c10 import scalar_type as _dtypes
from .c10.size import Size

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "cdist", "einsum", "meshgrid", "tensordot", "unique", "unique_consecutive",
           "unravel_index"]


def broadcast_tensors(*tensors):
    if _has_torch_function(tensors):
        return handle_torch_function(broadcast_tensors, tensors, *tensors)
    return _VF.broadcast_tensors(tensors)


def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of these shapes broadcast to; an int stands for a one-dim shape."""
    shapes = tuple((s,) if isinstance(s, Integral) else s for s in shapes if s is not None)
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * max(len(shape) for shape in shapes)
    for index, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                if shape[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = shape[i]
            if shape[i] != 1 and common[i] != shape[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
    return Size(common)


def _atleast(op, name):
    def atleast(*tensors):
        if _has_torch_function(tensors):
            return handle_torch_function(atleast, tensors, *tensors)
        return op(tensors[0] if len(tensors) == 1 else tensors)
    atleast.__name__ = atleast.__qualname__ = name
    return atleast


atleast_1d = _atleast(_VF.atleast_1d, "atleast_1d")
atleast_2d = _atleast(_VF.atleast_2d, "atleast_2d")
atleast_3d = _atleast(_VF.atleast_3d, "atleast_3d")


def meshgrid(*tensors, indexing: str | None = None):
    """Coordinate grids: tensor ``i`` along dim ``i``. Without ``indexing`` the op warns, once (it means 'ij')."""
    if _has_torch_function(tensors):
        return handle_torch_function(meshgrid, tensors, *tensors, indexing=indexing)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]  # the older call, with the tensors in one list
    return _VF.meshgrid(tensors) if indexing is None else _VF.meshgrid(tensors, indexing=indexing)


def einsum(*args):
    """The Einstein sum ``equation`` describes: ``einsum('ij,jk->ik', a, b)`` is ``a @ b`` (``native/linear.py``)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], TensorBase):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], args[1:]
    if _has_torch_function(operands):
        return handle_torch_function(einsum, operands, equation, *operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return _VF.einsum(equation, operands)


def _sublist_equation(args):
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as ``('AB,BC->AC', (a, b))``: ints 0..51 name 'A'..'Z', 'a'..'z'."""
    def subscript(n):
        if n is Ellipsis:
            return "..."
        if 0 <= n < 26:
            return chr(ord("A") + n)
        if 26 <= n < 52:
            return chr(ord("a") + n - 26)
        raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
    equation = ",".join("".join(subscript(s) for s in labels) for labels in args[1::2])
    if len(args) % 2 == 1:
        return equation + "->" + "".join(subscript(s) for s in args[-1]), args[:-1:2]
    return equation, args[::2]


def tensordot(a, b, dims=2, out=None):
    """Contract the last ``dims`` dims of ``a`` with the first ``dims`` of ``b``, or the dims the two lists name."""
    if _has_torch_function((a, b)):
        return handle_torch_function(tensordot, (a, b), a, b, dims=dims, out=out)
    if not isinstance(dims, (tuple, list, TensorBase, Integral)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    elif isinstance(dims, TensorBase) and dims.numel() > 1:
        if dims.size()[0] != 2:
            raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.size()[0]}")
        dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
    else:
        count = int(dims.item()) if isinstance(dims, TensorBase) else dims
        if count < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if isinstance(dims, Integral) and count > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-count, 0)), list(range(count))
    if out is None:
        return _VF.tensordot(a, b, dims_a, dims_b)
    return _VF.tensordot(a, b, dims_a, dims_b, out=out)


def unravel_index(indices, shape):
    """The coordinates in a tensor of ``shape`` of each flat index in ``indices``, one tensor per dim: the indices
    floor-divided by each dim's stride, modulo its size, then unbound along the last dim."""
    if _has_torch_function((indices,)):
        return handle_torch_function(unravel_index, (indices,), indices, shape=shape)
    if indices.is_complex() or indices.is_floating_point() or indices.dtype == _dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (Integral, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, Integral):
        shape = Size([shape])
    else:
        for size in shape:
            if not isinstance(size, Integral):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(size)}")
        shape = Size(shape)
    if not all(size >= 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    strides = list(reversed(list(itertools.accumulate(reversed(shape[1:] + Size([1])), func=operator.mul))))
    coordinates = indices.unsqueeze(-1).floor_divide(_tensor(strides, device=indices.device, dtype=_dtypes.int64))
    return (coordinates % _tensor(list(shape), device=indices.device, dtype=_dtypes.int64)).unbind(-1)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each pair of rows; ``compute_mode`` named as a string, passed on as 0/1/2."""
    if _has_torch_function((x1, x2)):
        return handle_torch_function(cdist, (x1, x2), x1, x2, p=p, compute_mode=compute_mode)
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _VF.cdist(x1, x2, p, _CDIST_MODES[compute_mode])
def block_diag(*tensors):
    """The tensors along the diagonal of a zero matrix (``_VF.block_diag`` of them as one list)."""
    if _has_torch_function(tensors):
        return handle_torch_function(block_diag, tensors, *tensors)
    return _VF.block_diag(tensors)


def cartesian_prod(*tensors):
    """Every combination of one element of each vector, one per row (``_VF.cartesian_prod``)."""
    if _has_torch_function(tensors):
        return handle_torch_function(cartesian_prod, tensors, *tensors)
    return _VF.cartesian_prod(tensors)
