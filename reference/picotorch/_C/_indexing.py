"""``tensor[index]``: how an index expression becomes a chain of view ops.

Models ``torch/csrc/autograd/python_variable_indexing.cpp`` (``THPVariable_getitem`` and
``applySlicing``): an integer becomes ``select``, a slice ``slice``, ``None`` ``unsqueeze``, ``...``
skips dimensions, and tensors (or lists) are collected for one advanced-indexing ``index`` call at the
end. That is why ``x[0, 1]`` shows two ``SelectBackward0`` nodes and ``x[idx]`` an ``IndexBackward0``.
A lone index takes a short path; in a tuple, full slices (``:``) are skipped, and if nothing at all
was applied the result is an ``alias`` of the tensor (``x[...]`` shows ``AliasBackward0``).
"""

from __future__ import annotations

from ..autograd import variable as autograd_meta
from ..autograd.copy_slices import SetItemSlices
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..native.dispatcher import ops, raise_if_overlapping
from ..native.helpers import as_operand, check_scalar_fits, const, is_reduced_float, wrap, xp_of
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
    if _is_integer(index):
        if self.dim() == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return _select(self, 0, index)
    if isinstance(index, slice):
        return _slice(self, 0, index, optimize=False)
    return _apply_slicing(self, (index,))


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
    """Apply ints, slices and None as views; gather tensor indices for one ``index`` call."""
    specified = _count_dims(index)
    if specified > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    result, dim, tensor_indices = self, 0, []
    for real_dim, item in enumerate(index):  # real_dim: where an error says an integer index is
        result, dim = _apply_item(result, item, dim, tensor_indices, self.dim() - specified, real_dim)
    if any(i is not None for i in tensor_indices):
        while tensor_indices[-1] is None:
            tensor_indices.pop()
        return ops.index(result, tensor_indices)
    return ops.alias(self) if result is self else result


def _apply_item(result, item, dim, tensor_indices, ellipsis_span, real_dim):
    if item is Ellipsis:
        tensor_indices.extend([None] * ellipsis_span)
        return result, dim + ellipsis_span
    if item is None:
        tensor_indices.append(None)
        return ops.unsqueeze(result, dim), dim + 1
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
    if optimize and item.indices(result.shape[dim]) == (0, result.shape[dim], 1):
        return result
    return ops.slice(result, dim, start, stop, step)


# ----------------------------------------------------------------------------- tensor[index] = value


getitem = __getitem__  # the name the code below calls it by


def __setitem__(self, index, value) -> None:
    """Write ``value`` into the selected elements; record ``CopySlices`` when gradients flow."""
    if _TORCH_FUNCTION.active and _torch_function.check_has_torch_function(self):
        return _torch_function.handle_torch_function_indexing(self, "__setitem__", (self, index, value))
    value = _as_value(self, value)
    if isinstance(index, TensorImpl) and index._dtype.name == "uint8" and value.numel() == 1:
        # THPVariable_setitem: one mask and one value is masked_fill_, which takes bool masks only
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    with no_grad():
        target = getitem(self, index)
    if is_grad_enabled() and self._grad_fn is None and self._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if self._creation_meta != "DEFAULT":
        _check_view_write(self, index, target, value)
    value = _without_leading_ones(value)
    if target._base is None:  # advanced indexing: the write is index_put_, with its own message
        _check_index_put_shape(value, target)
    with no_grad():
        data = ops.expand(ops._to_copy(value, dtype=self.dtype), tuple(target.shape))._data
    key = _array_key(self, index)
    try:
        self._data[key] = data
    except ValueError as error:  # NOTE [Writing into a tensor that overlaps itself] (native/dispatcher.py)
        raise_if_overlapping(error)
        raise
    self._version_counter.bump()
    if is_grad_enabled() and (autograd_meta.requires_grad(self) or autograd_meta.requires_grad(value)):
        base_edge, value_edge = autograd_meta.collect_next_edges(self, value)
        node = SetItemSlices([base_edge, value_edge], tuple(value.shape), region_of=lambda grad: getitem(grad, index),
                             mask_fn=lambda grad: _outside_mask(grad, key), on_view=_makes_a_view_first(self, index))
        autograd_meta.rebase_history(self, node)


def _without_leading_ones(value):
    """``slicePrefix1sSize``: the value's leading size-1 dimensions are dropped before the write."""
    shape = tuple(value.shape)
    kept = 0
    while kept < len(shape) and shape[kept] == 1:
        kept += 1
    return ops.view(value, shape[kept:]) if kept else value


def _check_index_put_shape(value, target) -> None:
    value_shape, target_shape = tuple(value.shape), tuple(target.shape)
    fits = len(value_shape) <= len(target_shape) and all(
        v in (1, t) for v, t in zip(value_shape[::-1], target_shape[::-1]))
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value_shape)} cannot be broadcast to "
                           f"indexing result of shape {list(target_shape)}")


def _check_view_write(self, index, target, value) -> None:
    """The write is ``copy_`` into the view ``self[index]`` (made in grad mode) or ``index_put_`` on ``self``:
    either way, the in-place check of a view that must not be modified in place (NOTE [ View + Inplace
    detection ] in autograd/variable.py)."""
    if not is_grad_enabled():
        return
    if isinstance(index, slice):  # setitem skips a full slice, as in a tuple (getitem does not)
        written = _slice(self, 0, index, optimize=True)
    else:
        written = getitem(self, index) if target._base is not None and target is not self else self
    any_requires_grad = autograd_meta.requires_grad(self) or autograd_meta.requires_grad(value)
    autograd_meta.check_inplace(written, any_requires_grad)


def _makes_a_view_first(self, index) -> bool:
    """Whether ``self[index]`` applies a view op before any tensor index (then a write is CopySlices)."""
    items = index if isinstance(index, tuple) else (index,)
    if not any(_is_advanced(i) for i in items):
        return True
    for item in items:
        if item is Ellipsis or _is_advanced(item):
            continue
        if isinstance(item, slice) and item.indices(1 << 62) == slice(None).indices(1 << 62):
            continue
        return True
    return False


def _is_advanced(item) -> bool:
    return isinstance(item, (list, tuple)) or (isinstance(item, TensorImpl) and not _is_integer(item))


def _as_value(self, value):
    """``valueToTensor``: a Python number becomes a tensor of ``self``'s dtype, so it must fit that dtype
    (float16 and bfloat16 excepted: ``scalarToTensor`` fills those unchecked, so 1e6 becomes inf)."""
    if isinstance(value, TensorImpl):
        return value
    if isinstance(value, (bool, int, float)):
        if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
        if not isinstance(value, bool) and not is_reduced_float(self._dtype):
            check_scalar_fits(value, self._dtype)
        return as_operand(value)
    raise TypeError(f"can't assign a {type(value).__name__} to a torch.{self.dtype.c10_name}Tensor")


def _array_key(self, index):
    """The same index for the array library (tensors become arrays)."""
    items = index if isinstance(index, tuple) else (index,)
    return tuple(_array_item(i) if isinstance(i, TensorImpl) else i for i in items)


def _array_item(index):
    """A uint8 index is a mask (``getitem`` above has warned about it already)."""
    if index._dtype.name != "uint8":
        return index._data
    return xp_of(index).astype(index._data, xp_of(index).bool)


def _outside_mask(grad, key):
    xp = xp_of(grad)
    mask = xp.ones(tuple(grad.shape), dtype=grad._data.dtype, device=grad._data.device)
    mask[key] = const(xp, 0, mask)
    return wrap(grad, mask)
