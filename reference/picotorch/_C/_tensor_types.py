"""The legacy tensor types (``torch.FloatTensor``...). Models ``torch/csrc/tensor/python_tensor.cpp``.

Before dtypes existed, each element type had its own tensor class. PyTorch keeps one Python type per (dtype,
backend) whose metaclass is ``torch.tensortype``: calling one is the legacy constructor in that dtype
(``torch.FloatTensor([1, 2])``, ``torch.LongTensor(2, 3)``), and ``isinstance`` asks whether a tensor has that
dtype on the CPU (a ``torch.FloatTensor`` is never a real class of any tensor: ``type(t)`` stays
``torch.Tensor``). ``_initExtension`` puts them on the package, as ``initialize_python_bindings`` does.
"""

from __future__ import annotations

from ..c10 import layout as _layout
from ..c10 import scalar_type as st
from ..c10.device import CPU
from ..native.tensor_impl import TensorImpl
from ._factories import legacy_construct

_PACKAGE = __name__.split(".")[0]  # the classes print as torch's do, in the package: <class 'torch.FloatTensor'>


class tensortype(type):  # noqa: N801  (PyTorch's name for the metaclass)
    """The metaclass of the legacy types: each class carries a dtype."""

    __module__ = _PACKAGE

    dtype: st.dtype

    def __call__(cls, *args, **kwargs):
        return legacy_construct(cls.dtype, None, True, args, kwargs)

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, TensorImpl) and instance._dtype is cls.dtype and instance._device == CPU

    @property
    def layout(cls):
        return _layout.strided

    @property
    def is_cuda(cls) -> bool:
        return False

    @property
    def is_sparse(cls) -> bool:
        return False


def _legacy_type(dtype) -> type:
    name = f"{dtype.c10_name}Tensor"
    return tensortype(name, (), {"__module__": _PACKAGE, "dtype": dtype, "__doc__": None})


# the element types of python_tensor.cpp's list (no complex legacy types)
LEGACY_TENSOR_TYPES = {cls.__name__: cls for cls in map(_legacy_type, (
    st.float64, st.float32, st.float16, st.bfloat16, st.int64, st.int32, st.int16, st.int8, st.uint8, st.bool_))}
