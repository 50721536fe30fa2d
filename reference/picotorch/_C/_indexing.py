"""``tensor[index]``: how an index expression becomes a chain of view ops.

Models ``torch/csrc/autograd/python_variable_indexing.cpp`` (``THPVariable_getitem`` and
``applySlicing``): an integer becomes ``select``, a slice ``slice``, ``None`` ``unsqueeze``, ``...``
skips dimensions, and tensors (or lists) are collected for one advanced-indexing ``index`` call at the
end. That is why ``x[0, 1]`` shows two ``SelectBackward0`` nodes and ``x[idx]`` an ``IndexBackward0``.
A lone index takes a short path; in a tuple, full slices (``:``) are skipped, and if nothing at all
was applied the result is an ``alias`` of the tensor (``x[...]`` shows ``AliasBackward0``).
"""

from __future__ import annotations

import operator

from .._generated import variable_type
from ..autograd import variable_type_manual as manual
from ..autograd.grad_mode import no_grad
from ..c10 import scalar_type as st
from ..native.dispatcher import ops
from ..native.helpers import as_operand, check_scalar_fits, is_reduced_float
from ..native.tensor_impl import TensorImpl
from . import _torch_function
from ._factories import tensor
from ._torch_function import STATE as _TORCH_FUNCTION


def __getitem__(self, index):
    if _TORCH_FUNCTION.active and _torch_function.check_has_torch_function(self):  # THPVariable_getitem's check
        return _torch_function.handle_torch_function_indexing(self, "__getitem__", (self, index))
    if isinstance(index, tuple):
        return _apply_slicing(self, index)
    if index is Ellipsis:
        return ops.alias(self)
    if index is None:
        return ops.unsqueeze(self, 0)
    if index is True or index is False:  # unsqueeze, then index with [0] or with nothing
        result = ops.unsqueeze(self, 0)
        return ops.index(result, [_bool_index(result, index)])
    if _is_integer(index):
        if self.dim() == 0:
            _zero_dim_select_error(index)
        return _select(self, 0, index)
    if isinstance(index, slice):
        return _slice(self, 0, index, optimize=False)
    return _apply_slicing(self, (index,))


def _zero_dim_select_error(index) -> None:
    """``applySelect`` on a 0-dim tensor: index 0 gets the advice to call ``item()``, any other number is out of
    bounds of a size-0 dimension; an integer tensor is one index too many."""
    if isinstance(index, TensorImpl):
        raise IndexError("too many indices for tensor of dimension 0")
    if operator.index(index) == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    raise IndexError(f"index {operator.index(index)} is out of bounds for dimension 0 with size 0")


def _is_integer(item) -> bool:
    if isinstance(item, bool):
        return False
    if isinstance(item, int):
        return True
    return isinstance(item, TensorImpl) and item._data.ndim == 0 and not item._dtype.is_floating_point \
        and item._dtype.name != "bool"


def _as_int(item) -> int:
    return int(item.item()) if isinstance(item, TensorImpl) else int(item)


def _select(result, dim: int, item, real_dim: int = 0):
    """An integer index: PyTorch checks the bound here, with indexing's own message. ``real_dim`` counts
    the index's items before this one (an ellipsis or a None counts one), as ``applySlicing`` does."""
    index, size = _as_int(item), result.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return ops.select(result, dim, index)


def _count_dims(index) -> int:
    count = 0
    for item in index:
        if item is None or item is Ellipsis or isinstance(item, bool):
            continue
        if isinstance(item, TensorImpl) and item._dtype.name in ("bool", "uint8"):  # uint8: a (deprecated) mask
            count += item._data.ndim
        else:
            count += 1
    return count


def _apply_slicing(self, index):
    """``x[a, b, ...]``: the views, then one ``index`` call for the tensors (or an alias if nothing applied)."""
    result, tensor_indices = _slicing(self, index)
    if any(i is not None for i in tensor_indices):
        return ops.index(result, _trimmed(tensor_indices))
    return ops.alias(self) if result is self else result


def _slicing(self, index: tuple):
    """``applySlicing``: ints, slices, None and bools as views; tensor indices gathered for one call."""
    specified = _count_dims(index)
    if specified > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    result, dim, tensor_indices = self, 0, []
    for real_dim, item in enumerate(index):  # real_dim: where an error says an integer index is
        result, dim = _apply_item(result, item, dim, tensor_indices, self.dim() - specified, real_dim)
    return result, tensor_indices


def _trimmed(tensor_indices: list) -> list:
    while tensor_indices[-1] is None:
        tensor_indices.pop()
    return tensor_indices


def _bool_index(result, value: bool):
    """``boolToIndexingTensor``: True selects the new dimension's one element, False none."""
    with no_grad():
        return tensor([0] if value else [], dtype=st.int64, device=result.device)


def _apply_item(result, item, dim, tensor_indices, ellipsis_span, real_dim):
    if item is Ellipsis:
        tensor_indices.extend([None] * ellipsis_span)
        return result, dim + ellipsis_span
    if item is None:
        tensor_indices.append(None)
        return ops.unsqueeze(result, dim), dim + 1
    if item is True or item is False:
        result = ops.unsqueeze(result, dim)
        tensor_indices.append(_bool_index(result, item))
        return result, dim + 1
    if _is_integer(item):
        return _select(result, dim, item, real_dim), dim
    if isinstance(item, slice):
        tensor_indices.append(None)
        return _slice(result, dim, item, optimize=True), dim + 1
    if isinstance(item, (list, tuple)) or isinstance(item, TensorImpl):
        index = _as_index_tensor(item)
        tensor_indices.append(index)
        return result, dim + (index._data.ndim if index._dtype.name in ("bool", "uint8") else 1)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                     "valid indices (got " + type(item).__name__ + ")")


def _as_index_tensor(item):
    if isinstance(item, TensorImpl):
        return item
    return tensor(item)


INT64_MAX = 2**63 - 1


def _slice(result, dim, item: slice, optimize: bool):
    """``a:b:c`` becomes ``slice(dim, a or 0, b or INT64_MAX, c or 1)``; the kernel clamps the bounds."""
    if item.step is not None and item.step == 0:
        raise ValueError("slice step cannot be zero")  # Python's own check, in PySlice_Unpack
    if item.step is not None and item.step < 0:
        raise ValueError("step must be greater than zero")
    if result.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    start = 0 if item.start is None else _as_int(item.start)
    stop = INT64_MAX if item.stop is None else _as_int(item.stop)
    step = 1 if item.step is None else _as_int(item.step)
    if optimize and start == 0 and step == 1 and stop >= result.shape[dim]:  # as written: -3: is still a slice
        return result
    return ops.slice(result, dim, start, stop, step)


# ----------------------------------------------------------------------------- tensor[index] = value


getitem = __getitem__  # the name the code below calls it by


def __setitem__(self, index, value) -> None:
    """``THPVariable_setitem``: the index makes a view of ``self`` (a view like any other, recorded in grad
    mode) and the value is copied into it (``copy_to``); with tensors in the index, ``index_put_`` writes
    through them into that view. Autograd then records the write as any in-place op on a view: the base
    gets ``CopySlices`` around the write's own node."""
    if _TORCH_FUNCTION.active and _torch_function.check_has_torch_function(self):
        return _torch_function.handle_torch_function_indexing(self, "__setitem__", (self, index, value))
    value = _as_value(self, value)
    if isinstance(index, TensorImpl) and index._dtype.name == "uint8" and value.numel() == 1:
        # THPVariable_setitem: one mask and one value is masked_fill_, which takes bool masks only
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    if index is False:
        return  # nothing is written, and nothing checked
    if index is Ellipsis:
        return _copy_to(self, value)
    if index is None or index is True:
        return _copy_to(ops.unsqueeze(self, 0), value)
    if _is_integer(index) and not isinstance(index, TensorImpl):
        if self.dim() == 0:
            _zero_dim_select_error(index)
        return _copy_to(_select(self, 0, index), value)
    if isinstance(index, slice):
        return _copy_to(_slice(self, 0, index, optimize=True), value)
    sliced, tensor_indices = _slicing(self, index if isinstance(index, tuple) else (index,))
    if not any(i is not None for i in tensor_indices):
        return _copy_to(sliced, value)
    manual.index_put_(sliced, _trimmed(tensor_indices), _without_leading_ones(value))


def _copy_to(dst, src) -> None:
    """``copy_to`` (ATen/TensorIndexing.h): a value of the target's shape is copied; a zero-dim value on the
    CPU fills; any other is viewed without its leading ones and expanded to the target (``setitem``'s
    ``expand_inplace``) first."""
    if tuple(dst.shape) == tuple(src.shape):
        ops.copy_(dst, src)
    elif src.dim() == 0 and src._device.type == "cpu":
        variable_type.fill__Tensor(dst, src)  # the Tensor overload, as C++ calls it (FillBackward3)
    else:
        src = _without_leading_ones(src, always=True)
        ops.copy_(dst, src if tuple(src.shape) == tuple(dst.shape) else ops.expand(src, tuple(dst.shape)))


def _without_leading_ones(value, always: bool = False):
    """``slicePrefix1sSize``: the value's leading size-1 dimensions are dropped (``copy_to`` views the value
    even when there are none)."""
    shape = tuple(value.shape)
    kept = 0
    while kept < len(shape) and shape[kept] == 1:
        kept += 1
    return ops.view(value, shape[kept:]) if kept or always else value


def _as_value(self, value):
    """``valueToTensor``: a Python number becomes a zero-dim CPU tensor of ``self``'s dtype, so it must fit that
    dtype (float16 and bfloat16 excepted: ``scalarToTensor`` fills those unchecked, so 1e6 becomes inf)."""
    if isinstance(value, TensorImpl):
        return value
    if isinstance(value, (bool, int, float)):
        if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
        if not isinstance(value, bool) and not is_reduced_float(self._dtype):
            check_scalar_fits(value, self._dtype)
        with no_grad():
            return ops._to_copy(as_operand(value), dtype=self.dtype)  # the number cast as a fill casts it
    raise TypeError(f"can't assign a {type(value).__name__} to a torch.{self.dtype.c10_name}Tensor")
