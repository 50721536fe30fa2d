"""``Tensor``: the Python class every picotorch tensor is an instance of.

Models ``torch/_tensor.py``: ``class Tensor(torch._C.TensorBase)`` adds what PyTorch writes in
Python — ``__repr__`` (via ``_tensor_str``), ``backward``, ``register_hook``,
``register_post_accumulate_grad_hook``, ``split`` (which picks ``split`` or ``split_with_sizes``) and the
reflected operators (``2 - x``, ``2 ** x``, ``2 / x``, ``2 // x``, ``2 % x``). Also ``torch.norm`` of
``torch/functional.py``, which ``Tensor.norm`` calls.
"""

from __future__ import annotations

from . import _C, _tensor_str, autograd
from ._C import _is_operand
from .autograd.hooks import RemovableHandle, new_hooks_dict
from .native.dispatcher import ops


class Tensor(_C.TensorBase):
    def __repr__(self, *, tensor_contents=None) -> str:
        return _tensor_str._str(self, tensor_contents=tensor_contents)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. the graph leaves (``torch.autograd.backward``)."""
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook) -> RemovableHandle:
        """Run ``hook(grad)`` each time this tensor's gradient is computed; it may return a new one.

        The hooks live in ``self._backward_hooks``; the first registration hands that dict to the
        tensor's ``grad_fn`` (``Node._register_hook_dict``), so they run as that node's tensor pre
        hooks (NOTE [Hooks ordering]). A leaf keeps them itself: its AccumulateGrad reads them.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._backward_hooks is None:
            self._backward_hooks = new_hooks_dict()
            if self.grad_fn is not None:
                self.grad_fn._register_hook_dict(self)
        return RemovableHandle.add(self._backward_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """Run ``hook(tensor)`` after a gradient has been accumulated into this leaf's ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = new_hooks_dict()
        return RemovableHandle.add(self._post_accumulate_grad_hooks, hook)

    def split(self, split_size, dim=0):
        """Pieces of ``split_size`` along ``dim`` (``split``), or of the sizes listed (``split_with_sizes``)."""
        if isinstance(split_size, Tensor):
            try:
                split_size = int(split_size)
            except ValueError:
                pass
        if isinstance(split_size, int):
            return _C._VariableFunctions.split(self, split_size, dim)
        return _C._VariableFunctions.split_with_sizes(self, split_size, dim)

    def __rsub__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return _C._VariableFunctions.rsub(self, other)

    def __rtruediv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return self.reciprocal() * other

    __rdiv__ = __rtruediv__

    def __rfloordiv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return _C._VariableFunctions.floor_divide(other, self)

    def __rmod__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return _C._VariableFunctions.remainder(other, self)

    def __pow__(self, exponent):
        if not _is_operand(exponent):
            return NotImplemented
        return self.pow(exponent)

    def __rpow__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return _C._VariableFunctions.pow(other, self)

    def __format__(self, format_spec) -> str:
        if self.dim() == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0)) if hasattr(self, "unbind") else (self[i] for i in range(self.shape[0]))

    def __reversed__(self):
        return reversed(list(self))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may "
                               "be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = ops.clone(self.detach())
        new.requires_grad_(self.requires_grad)
        memo[id(self)] = new
        return new

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """See :func:`norm`."""
        return norm(self, p, dim, keepdim, dtype=dtype)

    __array_priority__ = 1000


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm`` (``torch/functional.py``): for a number ``p`` (or ``"fro"`` over at most two dims, which
    is the 2-norm of the elements) it is ``linalg.vector_norm``, whose node is ``LinalgVectorNormBackward0``.

    picotorch has no matrix norms (``"nuc"``, ``"fro"`` over more dims) and no ``out=``.
    """
    if out is not None:
        raise NotImplementedError("picotorch: torch.norm(..., out=) is not in the subset")
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p != "fro" or not (dim is None or isinstance(dim, int) or len(dim) <= 2):
            raise NotImplementedError(f"picotorch: torch.norm with p={p!r} (a matrix norm) is not in the subset")
        p = 2
    return _C._linalg.linalg_vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype)


_C._set_tensor_class(Tensor)
