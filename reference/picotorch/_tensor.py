"""``Tensor``: the Python class every picotorch tensor is an instance of.

Models ``torch/_tensor.py``: ``class Tensor(torch._C.TensorBase)`` adds what PyTorch writes in
Python — ``__repr__`` (via ``_tensor_str``), ``backward``, ``register_hook``,
``register_post_accumulate_grad_hook``, ``split`` (which picks ``split`` or ``split_with_sizes``) and the
reflected operators (``2 - x``, ``2 ** x``, ``2 / x``, ``2 // x``, ``2 % x``). Also ``torch.norm`` of
``torch/functional.py``, which ``Tensor.norm`` calls.
"""

from __future__ import annotations

import copy

import numpy as np

from . import _C, _tensor_str, autograd
from ._C import _is_operand
from ._C._torch_function import (
    DisableTorchFunctionSubclass,
    _has_torch_function,
    check_has_torch_function,
    get_default_nowrap_functions,
    handle_torch_function,
    note_tensor_subclass,
)
from .autograd.hooks import RemovableHandle, new_hooks_dict
from .native.dispatcher import ops
from .native.helpers import tensor_in_storage
from .storage import TypedStorage, _warn_typed_storage_removal


def _reflected(method):
    """``_handle_torch_function_and_wrap_type_error_to_not_implemented``: the reflected operators written in
    Python hand themselves (``__rsub__``...) to ``__torch_function__``, and answer NotImplemented for an
    operand they cannot take, or when a TypeError says so."""
    def operator(*args, **kwargs):
        if not _is_operand(args[1]) and not check_has_torch_function(args[1]):
            return NotImplemented
        try:
            if _has_torch_function(args):
                return handle_torch_function(operator, args, *args, **kwargs)
            return method(*args, **kwargs)
        except TypeError:
            return NotImplemented
    operator.__name__, operator.__qualname__, operator.__doc__ = method.__name__, method.__qualname__, method.__doc__
    return operator


def _convert(ret, cls):
    """Tensors in ``ret`` (also inside tuples and lists, named ones included) become instances of ``cls``."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        ret = type(ret)(_convert(r, cls) for r in ret)
    return ret


class Tensor(_C.TensorBase):
    __module__ = "picotorch"  # as torch/_tensor.py: the class prints as torch.Tensor, its namespace's name

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        note_tensor_subclass(cls)  # from now on the bindings look for __torch_function__ (_C/_torch_function.py)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """The default every subclass inherits: run ``func`` as for plain tensors, then make tensor results
        instances of ``cls`` again (a subclass survives ``x * 2``). Declines (``NotImplemented``) when one
        of ``types`` is not a superclass of ``cls``: that type's handler is to answer."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        # BEGIN SOLUTION 6.3: run func with subclass handling disabled, then convert the result to cls
        with DisableTorchFunctionSubclass():
            result = func(*args, **kwargs)
            if func in get_default_nowrap_functions():
                return result  # ``x.grad`` is the stored tensor itself: ``x.grad is x.grad``
            return _convert(result, cls)
        # END SOLUTION

    def as_subclass(self, cls):
        """The same data seen as an instance of ``cls``, still attached to the graph (an alias)."""
        if not isinstance(cls, type):
            raise TypeError(f"cls must be a type (got {type(cls).__name__})")
        result = ops.alias(self)
        result.__class__ = cls
        return result

    @staticmethod
    def _make_subclass(cls, data, require_grad=False):
        """A new leaf of class ``cls`` sharing ``data``'s storage (``nn.Parameter``'s way in PyTorch)."""
        if not isinstance(cls, type):
            raise TypeError(f"cls must be a type (got {type(cls).__name__})")
        result = data.detach_shallow()
        result.__class__ = cls
        with DisableTorchFunctionSubclass():
            result.requires_grad = require_grad
        return result

    def __repr__(self, *, tensor_contents=None) -> str:
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.__repr__, (self,), self, tensor_contents=tensor_contents)
        return _tensor_str._str(self, tensor_contents=tensor_contents)

    def storage(self):
        """The tensor's storage as a ``TypedStorage`` of its dtype (deprecated: warns once, as PyTorch does)."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.storage, (self,), self)
        _warn_typed_storage_removal(stacklevel=2)
        return self._typed_storage()

    def _typed_storage(self):
        """``storage()`` without the warning."""
        return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype, _internal=True)

    def is_shared(self) -> bool:
        """Whether the storage is in shared memory (``share_memory_``)."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.is_shared, (self,), self)
        return self.untyped_storage().is_shared()

    def share_memory_(self):
        """Move the storage to shared memory (a no-op if it is there already); ``self``."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.share_memory_, (self,), self)
        self.untyped_storage().share_memory_()
        return self

    def apply_(self, callable):
        """``callable`` of each element (a Python number), its result written back in the dtype; not recorded
        (``_version`` stays), refused for a tensor that requires grad (``tensor_apply.cpp``)."""
        _check_apply(self, "apply_")
        values = [_stored(callable(v), self.dtype) for v in np.asarray(self._data).ravel().tolist()]
        self._data[...] = np.asarray(values, dtype=self._data.dtype).reshape(self._data.shape)
        return self

    def map_(self, tensor, callable):
        """``callable(a, b)`` of each element of ``self`` and of ``tensor`` expanded to ``self``'s shape."""
        _check_apply(self, "map_")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"map_(): argument 'other' (position 1) must be Tensor, not {type(tensor).__name__}")
        if tensor.dtype != self.dtype:
            raise TypeError(f"map_: expected {self.type()} for 'other' (got {tensor.type()})")
        other = np.asarray(tensor.expand(self.shape)._data).ravel().tolist()
        values = [_stored(callable(a, b), self.dtype) for a, b in zip(np.asarray(self._data).ravel().tolist(), other)]
        self._data[...] = np.asarray(values, dtype=self._data.dtype).reshape(self._data.shape)
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. the graph leaves (``torch.autograd.backward``)."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.backward, (self,), self, gradient=gradient, retain_graph=retain_graph,
                                         create_graph=create_graph, inputs=inputs)
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook) -> RemovableHandle:
        """Run ``hook(grad)`` each time this tensor's gradient is computed; it may return a new one.

        The hooks live in ``self._backward_hooks``; the first registration hands that dict to the
        tensor's ``grad_fn`` (``Node._register_hook_dict``), so they run as that node's tensor pre
        hooks (NOTE [Hooks ordering]). A leaf keeps them itself: its AccumulateGrad reads them.
        """
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.register_hook, (self,), self, hook)
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._backward_hooks is None:
            self._backward_hooks = new_hooks_dict()
            if self.grad_fn is not None:
                self.grad_fn._register_hook_dict(self)
        return RemovableHandle.add(self._backward_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """Run ``hook(tensor)`` after a gradient has been accumulated into this leaf's ``.grad``."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.register_post_accumulate_grad_hook, (self,), self, hook)
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = new_hooks_dict()
        return RemovableHandle.add(self._post_accumulate_grad_hooks, hook)

    def split(self, split_size, dim=0):
        """Pieces of ``split_size`` along ``dim`` (``split``), or of the sizes listed (``split_with_sizes``)."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.split, (self,), self, split_size, dim=dim)
        if isinstance(split_size, Tensor):
            try:
                split_size = int(split_size)
            except ValueError:
                pass
        if isinstance(split_size, int):
            return _C._VariableFunctions.split(self, split_size, dim)
        return _C._VariableFunctions.split_with_sizes(self, split_size, dim)

    @_reflected
    def __rsub__(self, other):
        return _C._VariableFunctions.rsub(self, other)

    @_reflected
    def __rdiv__(self, other):
        return self.reciprocal() * other

    __rtruediv__ = __rdiv__

    @_reflected
    def __rfloordiv__(self, other):
        return _C._VariableFunctions.floor_divide(other, self)

    @_reflected
    def __rmod__(self, other):
        return _C._VariableFunctions.remainder(other, self)

    def __pow__(self, exponent):
        if not _is_operand(exponent):
            return NotImplemented
        return self.pow(exponent)

    @_reflected
    def __rpow__(self, other):
        return _C._VariableFunctions.pow(other, self)

    @_reflected
    def __rlshift__(self, other):
        return _C._VariableFunctions.bitwise_left_shift(other, self)

    @_reflected
    def __rrshift__(self, other):
        return _C._VariableFunctions.bitwise_right_shift(other, self)

    def __format__(self, format_spec) -> str:
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.__format__, (self,), self, format_spec)
        if self.dim() == 0 and type(self) is Tensor:  # a subclass formats as an object
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0)) if hasattr(self, "unbind") else (self[i] for i in range(self.shape[0]))

    def __contains__(self, element) -> bool:
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.__contains__, (self,), self, element)
        if isinstance(element, (Tensor, int, float, bool)):
            return bool((element == self).sum().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    def __reversed__(self):
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.__reversed__, (self,), self)
        return reversed(list(self))

    def __deepcopy__(self, memo):
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.__deepcopy__, (self,), self, memo)
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may "
                               "be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        storage = self.untyped_storage()
        if type(storage._array) is not np.ndarray or type(self) is not Tensor:  # other devices, subclasses: a clone
            new = ops.clone(self.detach())
            new.requires_grad_(self.requires_grad)
        else:  # a copy of the storage (one per storage in memo), the tensor at its place in it (set_ bumps _version)
            new = tensor_in_storage(copy.deepcopy(storage, memo)._array, self)
            new._version_counter.bump()
            if self.requires_grad:
                new.requires_grad_()
            if self.grad is not None:
                new.grad = self.grad.__deepcopy__(memo)
            new.__dict__ = copy.deepcopy(self.__dict__, memo)
        memo[id(self)] = new
        return new

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """See :func:`norm`."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.norm, (self,), self, p=p, dim=dim, keepdim=keepdim, dtype=dtype)
        return norm(self, p, dim, keepdim, dtype=dtype)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """See :func:`picotorch.unique`."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.unique, (self,), self, sorted=sorted, return_inverse=return_inverse,
                                         return_counts=return_counts, dim=dim)
        return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts,
                                  dim=dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """See :func:`picotorch.unique_consecutive`."""
        if check_has_torch_function(self):
            return handle_torch_function(Tensor.unique_consecutive, (self,), self, return_inverse=return_inverse,
                                         return_counts=return_counts, dim=dim)
        return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts,
                                              dim=dim)

    __array_priority__ = 1000


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm`` (``torch/functional.py``): for a number ``p`` (or ``"fro"`` over at most two dims, which
    is the 2-norm of the elements) it is ``linalg.vector_norm``, whose node is ``LinalgVectorNormBackward0``.

    picotorch has no matrix norms (``"nuc"``, ``"fro"`` over more dims) and no ``out=``.
    """
    if check_has_torch_function(input):
        return handle_torch_function(norm, (input,), input, p=p, dim=dim, keepdim=keepdim, out=out, dtype=dtype)
    if out is not None:
        raise NotImplementedError("picotorch: torch.norm(..., out=) is not in the subset")
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p != "fro" or not (dim is None or isinstance(dim, int) or len(dim) <= 2):
            raise NotImplementedError(f"picotorch: torch.norm with p={p!r} (a matrix norm) is not in the subset")
        p = 2
    return _C._linalg.linalg_vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of ``input`` (``_unique2``), or its distinct slices along ``dim`` (``unique_dim``); with
    ``return_inverse`` and ``return_counts`` also where each element went and how often each occurs, in a tuple
    (torch's ``boolean_dispatch`` on those two flags)."""
    if check_has_torch_function(input):
        return handle_torch_function(unique, (input,), input, sorted=sorted, return_inverse=return_inverse,
                                     return_counts=return_counts, dim=dim)
    functions = _C._VariableFunctions
    if dim is not None:
        output, inverse, counts = functions.unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                                                       return_counts=return_counts)
    else:
        output, inverse, counts = functions._unique2(input, sorted=sorted, return_inverse=return_inverse,
                                                     return_counts=return_counts)
    return _unique_result(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive values (or slices along ``dim``) once: ``unique`` without sorting."""
    if check_has_torch_function(input):
        return handle_torch_function(unique_consecutive, (input,), input, return_inverse=return_inverse,
                                     return_counts=return_counts, dim=dim)
    output, inverse, counts = _C._VariableFunctions.unique_consecutive(
        input, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    return _unique_result(output, inverse, counts, return_inverse, return_counts)


def _unique_result(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    return (output, counts) if return_counts else output


_C._set_tensor_class(Tensor)


def _check_apply(self, name: str) -> None:
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")


def _stored(value, dtype):
    """A callable's result as ``store_scalar`` takes it: a float dtype's a real number (``PyFloat_AsDouble``), an
    integer or bool dtype's an integer (``__index__``; a float is truncated)."""
    if dtype.is_complex:
        return value
    if dtype.is_floating_point:
        if isinstance(value, complex) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
            raise TypeError(f"must be real number, not {type(value).__name__}")
        return value
    if isinstance(value, float):
        return int(value)
    if not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    return int(value)
