"""``torch._C.TensorBase``: the tensor type the extension module defines.

Models ``torch/csrc/autograd/python_variable.cpp`` (the properties: ``grad``, ``grad_fn``,
``requires_grad``, ``is_leaf``, ``data``, ...) and the hand-written part of
``python_variable_methods.cpp`` (``item``, ``tolist``, ``numpy``, ``detach``, ``to``, ``size`` ...).
The generated methods (``add``, ``mul``, ...) are attached by :mod:`picotorch._C` from the tables in
``_generated/python_bindings.py``, as ``initModule`` attaches ``variable_methods``.

Every property and hand-written method starts as its C++ counterpart does (``THPVariable_get_grad_fn``:
``if (check_has_torch_function(self)) return handle_torch_function_getter(self, "grad_fn");``): for a
tensor subclass with a ``__torch_function__``, that handler answers (``_C/_torch_function.py``). The
first test, ``_TORCH_FUNCTION.active``, is false until such a subclass exists.
"""

from __future__ import annotations

import warnings
import weakref

from ..autograd import variable as autograd_meta
from ..c10 import inference_mode
from ..c10 import scalar_type as st
from ..c10.device import device as Device
from ..c10.layout import strided
from ..c10.scalar_type import is_differentiable_type
from ..c10.size import Size, size_of_shape
from ..native import checks
from ..native.device import normalize, to_numpy
from ..native.dispatcher import ops
from ..native.helpers import (
    contiguous_strides,
    data_ptr,
    legacy_type_string,
    storage_array,
    storage_offset,
    strides_of,
)
from ..native.tensor_impl import NO_VERSION_COUNTER, TensorImpl, VersionCounter, new_tensor
from . import _factories
from ._tensor_types import _PACKAGE, tensortype
from ._torch_function import STATE as _TORCH_FUNCTION
from ._torch_function import (
    check_has_torch_function,
    handle_torch_function,
    handle_torch_function_c,
    handle_torch_function_getter,
    handle_torch_function_setter,
)
from .invalid_arguments import format_invalid_args

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. "
    "(Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")

_SHAPE_CPP = "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:{}.)"
_T_NOT_2D = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
             "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
             "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. "
             + _SHAPE_CPP.format(4314))
_T_0D = ("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
         + _SHAPE_CPP.format(4321))
_MT_0D = ("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases. "
          + _SHAPE_CPP.format(4373))
_H_0D = "Tensor.H is deprecated on 0-D tensors. Consider using x.conj(). " + _SHAPE_CPP.format(4335)
_MH_0D = "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj(). " + _SHAPE_CPP.format(4382)
_FLOAT_OF_REQUIRES_GRAD = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                           "Consider using tensor.detach() first. (Triggered internally at /__w/pytorch/pytorch/torch/"
                           "csrc/autograd/generated/python_variable_methods.cpp:822.)")  # float(t) only, not int/item
_warned: set = set()  # TORCH_WARN_ONCE: each of these warns the first time in the process only


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


# caffe2::TypeMeta names (C++ type names), which some autograd errors print instead of ScalarType names.
_TYPE_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                    "complex128": "c10::complex<double>"}


def _real_item(tensor, cpp_name):
    """``item()`` as a real number: a complex one only without an imaginary part (``c10::checked_convert``)."""
    value = tensor.item()
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {cpp_name} without overflow")
        return value.real
    return value


def _write_part(part, value) -> None:
    """``x.real = value``: the values written into the part's view (a number fills it)."""
    if isinstance(value, TensorImpl):
        ops.copy_(part, value)
    else:
        ops.fill_(part, value)


class TensorBase(TensorImpl):
    """The tensor type of the extension module: a ``TensorImpl`` with Python's view of it.

    ``TensorImpl`` declares the fields; this class adds the properties and hand-written methods.
    It adds no fields of its own (``Tensor``, the Python subclass, gets a ``__dict__`` as in PyTorch).
    """

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        """``torch.Tensor(...)``, the legacy constructor (``THPVariable_pynew``): data, sizes or a tensor (aliased,
        whatever its dtype), in the default dtype; a subclass's call gives an instance of the subclass."""
        tensor = _factories.legacy_construct(st.get_default_dtype(), None, False, args, kwargs)
        if type(tensor) is not cls:
            tensor.__class__ = cls
        return tensor

    def __init__(self, *args, **kwargs) -> None:
        pass  # __new__ made it (a tensor made inside picotorch is set up by new_tensor, which calls no __init__)

    # ---- metadata
    @property
    def shape(self) -> Size:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "shape")
        return size_of_shape(self._data.shape)

    def size(self, dim: int | None = None):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return _handle_method(self, TensorBase.size, () if dim is None else (dim,))
        if dim is None:
            return size_of_shape(self._data.shape)
        return int(self._data.shape[checks.wrap_dim(dim, self._data.ndim, wrap_scalar=False)])

    def dim(self, *args, **kwargs) -> int:
        if args or kwargs:
            _no_arguments("dim", args)
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return _handle_method(self, TensorBase.dim, ())
        return self._data.ndim

    def ndimension(self) -> int:
        return self.dim()

    @property
    def ndim(self) -> int:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "ndim")
        return self._data.ndim

    def numel(self, *args, **kwargs) -> int:
        if args or kwargs:
            _no_arguments("numel", args)
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return _handle_method(self, TensorBase.numel, ())
        return checks.numel(self._data.shape)

    def nelement(self) -> int:
        return self.numel()

    def __len__(self) -> int:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):  # torch/_tensor.py's, in Python
            return handle_torch_function(TensorBase.__len__, (self,), self)
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    @property
    def dtype(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "dtype")
        return self._dtype

    @property
    def device(self) -> Device:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "device")
        return self._device

    @property
    def layout(self):
        """Always ``torch.strided``: picotorch has no sparse tensors (``c10/layout.py``)."""
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "layout")
        return strided

    @property
    def is_cuda(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_cuda")
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_cpu")
        return self._device.type == "cpu"

    # the layouts and kinds picotorch has none of: a sparse, quantized, MKL-DNN or nested tensor
    @property
    def is_sparse(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_sparse")
        return False

    @property
    def is_sparse_csr(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_sparse_csr")
        return False

    @property
    def is_quantized(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_quantized")
        return False

    @property
    def is_mkldnn(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_mkldnn")
        return False

    @property
    def is_nested(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_nested")
        return False

    @property
    def is_meta(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_meta")
        return self._device.type == "meta"

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """The bytes of the elements the tensor shows (``numel() * itemsize``), not of its storage."""
        return self.numel() * self._dtype.itemsize

    def get_device(self) -> int:
        """The CUDA device's index; -1 on the CPU."""
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def element_size(self) -> int:
        return self._dtype.itemsize

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def data_ptr(self) -> int:
        return data_ptr(self)

    def storage_offset(self) -> int:
        """Elements from the start of the storage to the first element (NOTE [A tensor's storage is the array that
        owns its memory] in native/helpers.py)."""
        return storage_offset(self)

    def untyped_storage(self):
        """The tensor's storage: one ``UntypedStorage`` object for every tensor that shares it, as long as it is
        alive (PyTorch keeps one Python object per ``StorageImpl``)."""
        array = storage_array(self)
        storage = _storages.get(id(array))
        if storage is None:
            storage = _storage_class._wrap(array, self._device)
            _storages[id(array)] = storage  # (the storage holds its array: the id stays its own while it lives)
        return storage

    def stride(self, dim: int | None = None):
        elements = strides_of(self)
        return elements if dim is None else elements[checks.wrap_dim(dim, self._data.ndim, wrap_scalar=False)]

    def is_contiguous(self, memory_format=None) -> bool:
        if 0 in self._data.shape:
            return True  # an empty tensor is contiguous whatever its strides (``compute_contiguous``)
        expected = contiguous_strides(self._data.shape, 1)
        return all(size == 1 or s == e for size, s, e in zip(self._data.shape, self.stride(), expected))

    @property
    def _version(self) -> int:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "_version")
        return self._version_counter.version

    # ---- autograd (python_variable.cpp: THPVariable_get_* / THPVariable_set_*)
    @property
    def requires_grad(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "requires_grad")
        return autograd_meta.requires_grad(self)

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_setter(self, "requires_grad", value)
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        if self._grad_fn is not None:
            raise RuntimeError(_requires_grad_leaf_error(value))
        if value and not is_differentiable_type(self._dtype):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        _check_not_inference(self, value)
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True):
        """``THPVariable_requires_grad_``: in place, returns self; only leaves may turn it off."""
        if not isinstance(requires_grad, bool):
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(_requires_grad_leaf_error(requires_grad))
        if requires_grad and not is_differentiable_type(self._dtype):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        _check_not_inference(self, requires_grad)
        if self._grad_fn is None:
            self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for every tensor that does not require grad, and for those the user created."""
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "is_leaf")
        if self._attr_version is not None and self._attr_version != self._version_counter.version:
            autograd_meta.refresh_view_grad_fn(self)  # ``!grad_fn()``: a stale view gets its new node (or raises)
        return self._grad_fn is None

    @property
    def grad_fn(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "grad_fn")
        if self._attr_version is not None and self._attr_version != self._version_counter.version:
            autograd_meta.refresh_view_grad_fn(self)  # its base was modified in place since
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "output_nr")
        return self._output_nr

    @property
    def grad(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "grad")
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_setter(self, "grad", value)
        if value is not None:
            _check_grad_assignment(self, value)
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_setter(self, "grad", None, delete=True)
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "retains_grad")
        return self._retains_grad

    def retain_grad(self) -> None:
        autograd_meta.retain_grad(self)

    @property
    def data(self):
        """The same storage without autograd history and with a fresh version counter.

        Unlike ``detach()``, changes made through ``.data`` are invisible to the version checks of
        saved tensors (the historical escape hatch from before tensors and Variables merged).
        """
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "data")
        return self.detach_shallow(share_version=False)

    @data.setter
    def data(self, value) -> None:
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_setter(self, "data", value)
        if not isinstance(value, TensorImpl):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and not is_differentiable_type(value._dtype):  # VariableHooks::set_data
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data, self._dtype, self._device = value._data, value._dtype, value._device

    def new_tensor(self, *args, **kwargs):
        """``THPVariable_new_tensor``: a copy of the data, with ``self``'s dtype and device unless given."""
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_c([self], TensorBase.new_tensor, (self, *args), kwargs or None,
                                           "torch.Tensor.new_tensor")
        return _factories.new_tensor_method(self, *args, **kwargs)

    def new(self, *args, **kwargs):
        """``Tensor.new``, the legacy constructor (``legacy_tensor_generic_ctor_new``)."""
        return _factories.legacy_new(self, *args, **kwargs)

    def detach(self):
        """A new leaf sharing data and version counter, cut from the graph (``requires_grad=False``)."""
        return self.detach_shallow()

    def detach_shallow(self, share_version: bool = True):
        """A new tensor on the same data; ``share_version=False`` (``.data``) gives it a counter of its own, or none
        for an inference tensor's: whether it is an inference tensor follows ``self``, not the mode it is made in."""
        if share_version:
            version = self._version_counter
        else:
            version = VersionCounter() if self._version_counter.tracked else NO_VERSION_COUNTER
        return new_tensor(self._data, self._dtype, self._device, version=version)

    def detach_(self):
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                               "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                               "be called on these gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    def _is_view(self) -> bool:
        return self._base is not None

    def is_inference(self) -> bool:
        """Made inside ``inference_mode()``, or a view of such a tensor: NOTE [Inference tensors have no version
        counter] (native/tensor_impl.py)."""
        return not self._version_counter.tracked

    # ---- getting numbers out
    def item(self, *args, **kwargs):
        if args or kwargs:
            _no_arguments("item", args)
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return _handle_method(self, TensorBase.item, ())
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return to_numpy(self._data).reshape(()).item()

    def tolist(self):
        return to_numpy(self._data).tolist()

    def numpy(self, *, force: bool = False):
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self._device.type != "cpu" and not force:
            raise TypeError(f"can't convert {self._device.type}:{self._device.index or 0} device type tensor to "
                            "numpy. Use Tensor.cpu() to copy the tensor to host memory first.")
        if self._dtype is st.bfloat16:  # NumPy has no bfloat16: PyTorch refuses rather than hand out ml_dtypes'
            raise TypeError("Got unsupported ScalarType BFloat16")
        return to_numpy(self._data)

    def __array__(self, dtype=None, copy=None):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):  # torch/_tensor.py's, in Python
            return handle_torch_function(TensorBase.__array__, (self,), self, dtype=dtype)
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                               "is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        if self._requires_grad:
            _warn_once(_FLOAT_OF_REQUIRES_GRAD)
        self._check_one_element()
        return float(_real_item(self, "double"))

    def __int__(self) -> int:
        self._check_one_element()
        return int(_real_item(self, "int64_t"))

    def __complex__(self) -> complex:
        self._check_one_element()
        return complex(self.item())

    def _check_one_element(self) -> None:
        """``float(t)``/``int(t)`` (python_variable_methods.cpp) word the error unlike ``item()``."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self._dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    # ---- conversions (all through _to_copy, so autograd records ToCopyBackward0)
    def to(self, *args, **kwargs):
        dtype, device, copy = _parse_to(args, kwargs)
        if dtype is self._dtype and (device is None or device == self._device) and not copy:
            return self
        if (dtype is None or dtype is self._dtype) and (device is None or device == self._device) and not copy:
            return self
        return ops._to_copy(self, dtype=dtype if dtype is not self._dtype else None,
                            device=device if device != self._device else None)

    def cpu(self, memory_format=None):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        index = device if isinstance(device, int) else (Device(device).index if device is not None else 0)
        return self.to(Device("cuda", index or 0))

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """``x.type()``: the legacy type name (``torch.FloatTensor``); ``x.type(torch.float64)`` or
        ``x.type("torch.DoubleTensor")``: the tensor in that dtype (``self`` when it already is)."""
        if dtype is None:
            return legacy_type_string(self)
        if isinstance(dtype, st.dtype):
            return self.to(dtype)
        if not isinstance(dtype, (str, type)):
            raise TypeError("dtype must be a type, str, or dtype object")
        if isinstance(dtype, tensortype):  # torch.DoubleTensor
            return self.to(dtype.dtype)
        if isinstance(dtype, str):
            name = dtype
        else:  # the class's dotted name, with torch's name for the package (the strings are torch's: "torch.IntTensor")
            module = "torch" if dtype.__module__ == _PACKAGE else dtype.__module__
            name = dtype.__name__ if module == "builtins" else f"{module}.{dtype.__name__}"
        device, _, legacy = name.rpartition(".")
        found = (st.get_default_dtype() if legacy == "Tensor" else _LEGACY_TYPES.get(legacy)) \
            if device in ("torch", "torch.cuda") else None
        if found is None:
            raise ValueError(f"invalid type: '{name}'")
        return self.to("cuda" if device == "torch.cuda" else self._device, found)

    def type_as(self, other):
        return self.to(other.dtype)

    def double(self):
        return self.to(st.float64)

    def cfloat(self):
        return self.to(st.complex64)

    def cdouble(self):
        return self.to(st.complex128)

    def float(self):
        return self.to(st.float32)

    def half(self):
        return self.to(st.float16)

    def bfloat16(self):
        return self.to(st.bfloat16)

    def long(self):
        return self.to(st.int64)

    def int(self):
        return self.to(st.int32)

    def short(self):
        return self.to(st.int16)

    def char(self):
        return self.to(st.int8)

    def byte(self):
        return self.to(st.uint8)

    def bool(self):
        return self.to(st.bool_)

    # ---- views with Python names
    @property
    def T(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "T")
        n = self._data.ndim
        if n != 2:  # numpy_T (TensorShape.cpp)
            _warn_once(_T_NOT_2D if n else _T_0D)
        return ops.permute(self, tuple(reversed(range(n))))

    @property
    def mT(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "mT")
        n = self._data.ndim
        if n == 0:  # the tensor itself, not a view
            _warn_once(_MT_0D)
            return self
        if n < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {n}-D tensor.")
        return ops.transpose(self, -2, -1)

    @property
    def H(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "H")
        n = self._data.ndim
        if n == 0:
            _warn_once(_H_0D)
            return self
        if n != 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
                               + (" For batches of matrices, consider using tensor.mH" if n > 2 else ""))
        return ops.conj(ops.transpose(self, -2, -1))

    @property
    def mH(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "mH")
        n = self._data.ndim
        if n == 0:
            _warn_once(_MH_0D)
            return self
        if n < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {n}-D tensor.")
        return ops.conj(ops.transpose(self, -2, -1))

    # ---- a complex tensor's parts (python_variable.cpp: THPVariable_get_real / THPVariable_set_real)
    @property
    def real(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "real")
        return ops.real(self)

    @real.setter
    def real(self, value):
        _write_part(ops.real(self), value)

    @property
    def imag(self):
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_getter(self, "imag")
        return ops.imag(self)

    @imag.setter
    def imag(self, value):
        _write_part(ops.imag(self), value)

    def __hash__(self) -> int:
        return id(self)


# the storage objects alive, by their array's id; ``picotorch/storage.py`` registers ``UntypedStorage``
# (PyTorch's THPStorageClass)
_storages: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_storage_class: type = None


def set_storage_class(cls: type) -> None:
    """Called once by ``picotorch/storage.py``: ``untyped_storage()`` returns instances of ``UntypedStorage``."""
    global _storage_class
    _storage_class = cls


def _handle_method(self, method, args: tuple):
    return handle_torch_function_c([self], method, (self, *args), None, f"torch.Tensor.{method.__name__}")


# METH_NOARGS methods: CPython refuses any argument before the method runs, in its own words.
_NO_ARGUMENTS = frozenset({"ndimension", "nelement", "is_floating_point", "is_complex", "data_ptr", "storage_offset",
                           "untyped_storage",
                           "element_size", "retain_grad", "detach", "detach_", "_is_view", "is_inference", "tolist",
                           "__bool__", "__float__", "__int__", "__index__", "dim", "numel", "item"})


def _no_arguments(name: str, args: tuple):
    if args:
        raise TypeError(f"TensorBase.{name}() takes no arguments ({len(args)} given)")
    raise TypeError(f"TensorBase.{name}() takes no keyword arguments")


def _handles_torch_function(name: str):
    """A hand-written method of ``python_variable_methods.cpp``, each of which starts with
    ``if (check_has_torch_function(self)) return handle_torch_function(self, "<name>", args, kwargs)``.
    The most used ones (``size``, ``dim``, ``numel``, ``item``) say it inline: no wrapper to pay for."""
    method = getattr(TensorBase, name)
    takes_none = name in _NO_ARGUMENTS

    def checked(self, *args, **kwargs):
        if takes_none and (args or kwargs):
            _no_arguments(name, args)
        if _TORCH_FUNCTION.active and check_has_torch_function(self):
            return handle_torch_function_c([self], checked, (self, *args), kwargs or None, f"torch.Tensor.{name}")
        return method(self, *args, **kwargs)
    checked.__name__, checked.__qualname__, checked.__doc__ = name, f"TensorBase.{name}", method.__doc__
    setattr(TensorBase, name, checked)


for _name in ("ndimension", "nelement", "is_floating_point", "is_complex", "data_ptr", "storage_offset",
              "untyped_storage",
              "element_size", "stride", "is_inference",
              "is_contiguous", "requires_grad_", "retain_grad", "detach", "detach_", "_is_view", "tolist",
              "numpy", "__bool__", "__float__", "__int__", "__index__", "to", "cpu", "cuda", "type_as", "double",
              "float", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"):
    _handles_torch_function(_name)
del _name


def _check_not_inference(self, requires_grad: bool) -> None:
    """``TensorImpl::set_requires_grad``'s check, after the caller's own."""
    if requires_grad and not self._version_counter.tracked and not inference_mode.state.enabled:
        raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")


def _requires_grad_leaf_error(requires_grad: bool) -> str:
    message = "you can only change requires_grad flags of leaf variables."
    if not requires_grad:
        message += (" If you want to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach().")
    return message


def _check_grad_assignment(self, value) -> None:
    """``THPVariable_set_grad``: a gradient must be a tensor like its variable."""
    if not isinstance(value, TensorImpl):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(value).__name__}")
    if value is self:
        raise RuntimeError("can't assign Variable as its own grad")
    if value._dtype is not self._dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{_TYPE_META_NAMES[value._dtype.name]}' to a tensor "
            f"with grad_dtype '{self._dtype.c10_name}'. The gradient must match the tensor's grad_dtype "
            "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
            "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
            "and its gradient may break downstream systems that assume they match.")
    if value._device.type != self._device.type:
        raise RuntimeError(f"attempting to assign a gradient with device type '{value._device.type}' to a "
                           f"tensor with device type '{self._device.type}'. Please ensure that the gradient "
                           "and the tensor are on the same device")
    if value._device != self._device:
        raise RuntimeError(f"attempting to assign a gradient located on device with index "
                           f"'{value._device.index or 0}' to a tensor located on device with index "
                           f"'{self._device.index or 0}'. Please ensure that the gradient and the tensor are "
                           "on the same device")
    if tuple(value._data.shape) != tuple(self._data.shape):
        raise RuntimeError(f"attempting to assign a gradient of size '{_sizes(value)}' to a tensor of size "
                           f"'{_sizes(self)}'. Please ensure that the gradient and the tensor are the same size")


def _sizes(t) -> str:
    return "[" + ", ".join(str(int(n)) for n in t._data.shape) + "]"


def _parse_to(args, kwargs):
    """``to(device=None, dtype=None, ...)``, ``to(dtype, ...)``, ``to(other, ...)`` (the first argument decides which),
    then ``non_blocking`` and ``copy`` as bools, as ``parse_to_conversion``; a dtype may be Python's ``float``/
    ``int``/``bool`` (float64, int64, bool); anything else gets the argument parser's message."""
    def invalid():
        return TypeError(format_invalid_args(args, kwargs, "to()", _TO_SIGNATURES))

    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    copy = kwargs.get("copy", False)
    if dtype is not None:
        dtype = st.as_dtype(dtype)
        if dtype is None:
            raise invalid()
    rest = list(args)
    if rest and not isinstance(rest[0], bool):
        first = rest.pop(0)
        as_dtype = st.as_dtype(first)
        if isinstance(first, TensorImpl):
            dtype, device = first._dtype, first._device
        elif as_dtype is not None:
            dtype = as_dtype
        elif first is None or isinstance(first, (str, Device, int)):
            device = first
            if rest and not isinstance(rest[0], bool):  # to(device, dtype, ...): the second must be a dtype
                second = rest.pop(0)
                if second is not None:
                    dtype = st.as_dtype(second)
                    if dtype is None:
                        raise invalid()
        else:
            raise invalid()
    if len(rest) > 2 or any(not isinstance(a, bool) for a in rest):  # non_blocking, copy
        raise invalid()
    if len(rest) == 2:
        copy = rest[1]
    return dtype, (normalize(device) if device is not None else None), copy


# ``torch.FloatTensor`` and the other legacy type names: each dtype's C++ name and "Tensor"
_LEGACY_TYPES = {f"{d.c10_name}Tensor": d for d in (st.float32, st.float64, st.float16, st.bfloat16, st.int64,
                                                     st.int32, st.int16, st.int8, st.uint8, st.bool_)}

_TO_SIGNATURES = [
    "(torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
    "(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)"]
