"""``torch.autograd.Variable``: the name tensors had before PyTorch 0.4, kept so that old code still runs.

Models ``torch/autograd/variable.py`` and ``THPVariable_pynew`` (``torch/csrc/autograd/python_legacy_variable.cpp``):
``Variable(t, requires_grad=True)`` is ``t.detach()`` (the same storage, no history) with ``requires_grad`` set, and
``isinstance(x, Variable)`` is true of every tensor. ``volatile`` only warns: ``no_grad`` replaced it.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import CPU
from ..native.tensor_impl import TensorImpl, new_tensor

__all__ = ["Variable"]


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, TensorImpl)


class Variable(metaclass=VariableMeta):
    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            dtype = st.get_default_dtype()
            data = new_tensor(np.empty((0,), dtype=st.to_numpy_dtype(dtype)), dtype, CPU)
        elif not isinstance(data, TensorImpl):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not st.is_differentiable_type(data.dtype):  # the constructor's own check and words
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return data.detach().requires_grad_(requires_grad)


Variable.__module__ = "torch.autograd.variable"
