"""What a tensor is below autograd: data, dtype, device and a version counter.

Models ``c10/core/TensorImpl.h`` (storage + metadata) and ``c10/core/impl/VariableVersion`` (the
version counter shared by a tensor and its views and ``detach()``-ed aliases). The Python class of new
tensors is registered from above (``picotorch/_tensor.py``), as ``THPVariableClass`` is in PyTorch,
so this layer never imports the layers that build on it.
"""

from __future__ import annotations

_tensor_class = None


def set_tensor_class(cls) -> None:
    global _tensor_class
    _tensor_class = cls


class VersionCounter:
    """Bumped by every in-place op; saved tensors remember the value they saw."""

    __slots__ = ("version",)

    def __init__(self) -> None:
        self.version = 0

    def bump(self) -> None:
        self.version += 1


def new_tensor(data, dtype, device, *, version=None, wrapped_number=False):
    """A fresh tensor (``requires_grad=False``, no ``grad_fn``) around an array."""
    t = object.__new__(_tensor_class)
    init_tensor(t, data, dtype, device, version=version)
    t._is_wrapped_number = wrapped_number
    return t


def init_tensor(t, data, dtype, device, *, version=None) -> None:
    t._data = data
    t._dtype = dtype
    t._device = device
    t._version_counter = version if version is not None else VersionCounter()
    t._is_wrapped_number = False
    t._requires_grad = False
    t._grad_fn = None
    t._output_nr = 0
    t._grad = None
    t._grad_accumulator = None
    t._hooks = None
    t._retains_grad = False
    t._post_accumulate_grad_hooks = None
    t._base = None
    t._is_param = False
