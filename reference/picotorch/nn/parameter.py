"""``nn.Parameter``: a leaf tensor that modules register as trainable. Models ``torch/nn/parameter.py``."""

from __future__ import annotations

from .._C import _disabled_torch_function_impl, empty
from .._tensor import Tensor
from ..c10.scalar_type import is_differentiable_type
from ..native.tensor_impl import TensorImpl


class Parameter(Tensor):
    # Read by _tensor_str (below nn, so it cannot import this class): a Parameter prints as
    # ``Parameter containing:`` and, like plain tensors, as ``tensor(`` (PyTorch sets ``_is_param``
    # for the same kind of check, in ``_ParameterMeta.__instancecheck__``).
    _is_param = True
    __torch_function__ = _disabled_torch_function_impl  # its ops are those of a plain tensor: results are Tensors

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, TensorImpl):
            data = data.detach()  # PyTorch's path for any other type: a list fails here, with its AttributeError
        if requires_grad and not is_differentiable_type(data._dtype):
            # the check of PyTorch's ``Tensor._make_subclass``, worded unlike ``requires_grad_``'s
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        p = object.__new__(cls)
        # a Parameter shares the data of the tensor it wraps, but starts a new graph as a leaf
        TensorImpl.__init__(p, data._data, data._dtype, data._device, version=data._version_counter)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        result = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return (Parameter, (self.detach(), self.requires_grad))
