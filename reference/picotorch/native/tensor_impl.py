"""What a tensor is below autograd: ``TensorImpl``, its fields, and the version counter.

Models ``c10/core/TensorImpl.h`` (storage + metadata) with the ``AutogradMeta`` fields of
``torch/csrc/autograd/variable.h`` folded in, and ``c10/core/impl/VariableVersion`` (the version
counter shared by a tensor and its views and ``detach()``-ed aliases).

Every picotorch tensor *is* a ``TensorImpl``: ``_C.TensorBase`` derives from it (PyTorch's
``THPVariable`` wraps one), ``Tensor`` derives from ``TensorBase``. So ``isinstance(x, TensorImpl)``
is how any layer asks "is this a tensor?" without importing the layers above. The fields are
declared once, in ``TensorImpl.__slots__``, and set once, in ``TensorImpl.__init__``:

======================================  =========================================================
``_data``                               the storage: an Array-API array (NumPy, CuPy, ...)
``_dtype``, ``_device``                 ``c10.scalar_type.dtype``, ``c10.device.device``
``_version_counter``                    a :class:`VersionCounter`, shared with views and aliases (an
                                        inference tensor's is ``NO_VERSION_COUNTER``)
``_is_wrapped_number``                  a Python number passed where a tensor was expected
``_requires_grad``                      set by the user on a leaf (``requires_grad_()``)
``_grad_fn``, ``_output_nr``            the node that made this tensor, and which of its outputs
``_grad``                               the accumulated gradient (leaves, or ``retain_grad()``)
``_grad_accumulator``                   a weak reference to the leaf's ``AccumulateGrad`` node
``_backward_hooks``                     ``register_hook`` hooks (an OrderedDict, or None)
``_retains_grad``                       ``retain_grad()`` was called on this non-leaf
``_post_accumulate_grad_hooks``         hooks run after the leaf's ``.grad`` was written
``_base``                               the tensor this one is a view of, or None
``_creation_meta``                      how a view was made (``DEFAULT``, ``NO_GRAD_MODE``, ...)
``_attr_version``                       a view's version when its ``_grad_fn`` was set, or None
======================================  =========================================================

The Python class of new tensors is registered from above (``picotorch/_tensor.py``), as
``THPVariableClass`` is in PyTorch, so this layer never imports the layers that build on it.
"""

from __future__ import annotations

from ..c10 import inference_mode


class VersionCounter:
    """Bumped by every in-place op; saved tensors remember the value they saw."""

    __slots__ = ("version",)
    tracked = True  # False for inference tensors' (below)

    def __init__(self) -> None:
        self.version = 0

    def bump(self) -> None:
        self.version += 1


# NOTE [Inference tensors have no version counter]
# A tensor made inside ``inference_mode()`` (not a view of a normal tensor) is an inference tensor: PyTorch gives it
# no version counter at all (``VariableVersion`` with a null pointer), which is what makes inference mode cheaper
# than ``no_grad``. Everything that follows comes from that one absence. Its version cannot be read, so it cannot be
# saved for backward (a saved tensor is checked against its version) and ``_version`` raises; an in-place op cannot
# bump it, which is fine inside inference mode (nobody is recording) and an error outside it. The error comes from
# the bump, after the op's kernel: the tensor has already changed when it is raised, in PyTorch too. Its views and
# ``detach()``-ed aliases share the absent counter, so they are inference tensors as well, and no autograd views.
class _NoVersionCounter:
    """The version counter of every inference tensor: one shared object that tracks nothing."""

    __slots__ = ()
    tracked = False

    @property
    def version(self) -> int:
        raise RuntimeError("Inference tensors do not track version counter.")

    def bump(self) -> None:
        if not inference_mode.is_enabled():
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed."
                "You can make a clone to get a normal tensor before doing inplace update."
                "See https://github.com/pytorch/rfcs/pull/17 for more details.")


NO_VERSION_COUNTER = _NoVersionCounter()


class TensorImpl:
    """A tensor's data and metadata; autograd and every kernel read these fields."""

    __slots__ = ("_data", "_dtype", "_device", "_version_counter", "_is_wrapped_number",
                 "_requires_grad", "_grad_fn", "_output_nr", "_grad", "_grad_accumulator",
                 "_backward_hooks", "_retains_grad", "_post_accumulate_grad_hooks", "_base", "_creation_meta",
                 "_attr_version", "__weakref__")

    def __init__(self, data, dtype, device, *, version: VersionCounter | None = None,
                 wrapped_number: bool = False) -> None:
        self._data = data
        self._dtype = dtype
        self._device = device
        if version is None:
            version = NO_VERSION_COUNTER if inference_mode.state.enabled else VersionCounter()
        self._version_counter = version
        self._is_wrapped_number = wrapped_number
        self._requires_grad = False
        self._grad_fn = None
        self._output_nr = 0
        self._grad = None
        self._grad_accumulator = None
        self._backward_hooks = None
        self._retains_grad = False
        self._post_accumulate_grad_hooks = None
        self._base = None
        self._creation_meta = "DEFAULT"  # a view's CreationMeta (autograd/variable.py: as_view)
        self._attr_version = None  # a view's version when its grad_fn was made (autograd/variable.py)


def new_tensor(data, dtype, device, *, version=None, wrapped_number=False):
    """A fresh tensor of the registered class (``requires_grad=False``, no ``grad_fn``) around an array."""
    if not data.size and data.ndim:
        data = _empty_with_strides(data)
    t = object.__new__(_tensor_class)
    TensorImpl.__init__(t, data, dtype, device, version=version, wrapped_number=wrapped_number)
    return t


def _empty_with_strides(data):
    """An empty NumPy array with PyTorch's row-major strides (a size of 0 counting as 1) where NumPy gave it none:
    NumPy makes every new empty array's strides 0, and its views (``permute``, slices) then show 0 too."""
    strides = getattr(data, "strides", None)
    if strides is None or any(strides) or type(data).__module__ != "numpy":
        return data
    step, row_major = data.itemsize, []
    for size in reversed(data.shape):
        row_major.append(step)
        step *= max(size, 1)
    from numpy.lib.stride_tricks import as_strided

    return as_strided(data, data.shape, tuple(reversed(row_major)), writeable=data.flags.writeable)


_tensor_class: type = TensorImpl


def tensor_class() -> type:
    return _tensor_class


def set_tensor_class(cls: type) -> None:
    """Called once by ``picotorch/_tensor.py``: new tensors are instances of ``Tensor``."""
    global _tensor_class
    _tensor_class = cls
