"""What every kernel file shares: the array namespace, operands, promotion, new tensors and views.

ATen spreads these facts over several files, none of them an op file: ``TensorIterator.cpp`` (the
common device, the broadcast shape and the cast operands a binary op starts from),
``TypeProperties.cpp`` (``result_type``), ``ScalarOps.h`` (``scalar_to_tensor``, a Python number as a
wrapped zero-dim tensor) and ``TensorShape.cpp`` (``as_strided``). picotorch keeps them in this one
module so each op file (``binary_ops.py``, ``tensor_shape.py``, ...) reads as its ops alone.

Public names are the ones used from outside a kernel file: the op files, ``native/cuda/``, and the
layers above (autograd's view and formula helpers, ``_C``'s indexing and argument parser) — those
reach kernels only through the dispatcher or through these helpers.
"""

from __future__ import annotations

import math
import threading
import warnings

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import CPU
from . import checks
from .device import backend, to_numpy
from .numpy_namespace import np_xp
from .tensor_impl import TensorImpl, new_tensor

# ----------------------------------------------------------------------------- arrays and tensors


def xp_of(t):
    """The Array-API namespace of ``t``'s device (NumPy on cpu, CuPy on cuda)."""
    if t._device is CPU:  # nearly every tensor: one look instead of the backend's lookup (every kernel asks)
        return np_xp
    return backend(t._device).xp


def xp_dtype(xp, dtype):
    """The array library's dtype for ``dtype``; bfloat16 exists only on NumPy, through ml_dtypes."""
    if dtype is st.bfloat16 and xp is np_xp:
        return st.to_numpy_dtype(st.bfloat16)  # raises the "pip install ml_dtypes" error without it
    found = getattr(xp, dtype.name, None) if dtype is not st.bfloat16 else None
    if found is None:  # array_api_strict has neither float16 nor bfloat16; CuPy has no bfloat16
        raise TypeError(f"{dtype} is not supported on this device: its array library ({xp.__name__}) has no "
                        f"{dtype.name} dtype" + (" (picotorch's bfloat16 is ml_dtypes' NumPy dtype, CPU only)"
                                                 if dtype is st.bfloat16 else ""))
    return found


def shape_of(t) -> tuple:
    return tuple(t._data.shape)


def strides_of(t) -> tuple:
    """``t``'s strides in elements (``TensorImpl::strides()``); an array with no strides of its own (the
    Array API's) is row-major."""
    strides = getattr(t._data, "strides", None)
    if strides is None or (t._base is None and t._data.size == 0 and strides and not any(strides)):
        return contiguous_strides(t._data.shape, 1)  # (NumPy gives a new empty array strides of 0)
    return tuple(map(t._dtype.itemsize.__rfloordiv__, strides))  # each stride // itemsize


def contiguous_strides(shape, itemsize: int) -> tuple:
    """The strides of a row-major array of ``shape`` (a size of 0 counts as 1, as PyTorch's do)."""
    strides, step = [], itemsize
    for size in reversed(tuple(shape)):
        strides.append(step)
        step *= max(int(size), 1)
    return tuple(reversed(strides))


def wrap(t_like, data, dtype=None):
    """A new tensor on ``t_like``'s device around ``data``."""
    if type(data) is not np.ndarray:  # an ndarray is an array already: asarray's wrapper costs a microsecond
        data = xp_of(t_like).asarray(data)
    return new_tensor(data, dtype or t_like._dtype, t_like._device)


# array-api-compat wraps a few NumPy functions in Python (to accept the Array API's keywords); for the
# calls below NumPy's own function is the same and costs a microsecond less, on every matmul and transpose.
def matmul(xp, a, b):
    if xp is not np_xp:
        return xp.matmul(a, b)
    # Two matrices, the first row-major: ``np.dot`` hands them to BLAS's gemm as ``matmul`` does, with less
    # set-up (half a microsecond), and an outer product (k = 1: every Linear's backward to a single output) in a
    # quarter of ``matmul``'s time, whose own loop takes it. (A transposed first matrix: ``matmul`` is faster.)
    if a.ndim == 2 and b.ndim == 2 and a.flags.c_contiguous:
        return np.dot(a, b)
    return np.matmul(a, b)


def reshaped_view(xp, data, shape: tuple):
    """``data`` seen with ``shape`` without a copy; raises (ValueError, TypeError...) when it cannot be."""
    if type(data) is np.ndarray and _RESHAPE_TAKES_COPY:
        return data.reshape(shape, copy=False)  # np.reshape is this method behind two Python calls
    return xp.reshape(data, shape, copy=False)


_RESHAPE_TAKES_COPY = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


def permute_dims(xp, a, axes: tuple):
    return np.transpose(a, axes) if xp is np_xp else xp.permute_dims(a, axes)


def zero_where(xp, condition, data):
    """``condition ? 0 : data``, bit for bit (a NaN or ``-0.`` in ``data`` is kept where ``condition`` is
    false). NumPy: the data's bits ANDed with a mask of ones where ``condition`` is false, a third of
    ``where``'s time on relu's arrays (``where`` broadcasts the zero); elsewhere, and for arrays too small for
    the two extra calls to pay (under 512 elements), ``where``."""
    if type(condition) is np.ndarray and condition.size >= 512 and condition.shape == data.shape \
            and data.dtype.itemsize in _SAME_WIDTH_INT and data.dtype.kind not in "bc":
        bits = _SAME_WIDTH_INT[data.dtype.itemsize]
        mask = np.subtract(condition, 1, dtype=bits)  # True -> 0, False -> -1 (every bit set)
        return np.bitwise_and(data.view(bits), mask, out=mask).view(data.dtype)
    return xp.where(condition, _zero_like(xp, data), data)


_SAME_WIDTH_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def _zero_like(xp, data):
    """A zero ``where`` can take beside ``data``: NumPy's own scalar of its dtype (no array of zeros to fill and
    read), else a zero-dim array on its device."""
    if xp is np_xp:
        return data.dtype.type(0)
    return xp.zeros((), dtype=data.dtype, device=data.device)


def zeros_array(like, shape, dtype=None):
    """An array of zeros of ``shape`` on ``like``'s device, in ``dtype`` (default: ``like``'s)."""
    xp = xp_of(like)
    dtype = dtype or like._dtype
    return xp.zeros(tuple(shape), dtype=xp_dtype(xp, dtype), device=like._data.device)


def row_major_copy(xp, data):
    """A new array in row-major order (``at::empty(sizes)``, ``clone(MemoryFormat::Contiguous)``), never a view
    of ``data``: what an op that allocates a contiguous output holds."""
    if xp is np_xp:
        return np.array(data, order="C", copy=True)
    return xp.asarray(data, copy=True)


def has_scatter(data) -> bool:
    """Whether ``data``'s library can add at repeated positions itself (NumPy, CuPy); the Array API cannot."""
    return type(data) is np.ndarray or type(data).__module__.startswith("cupy")


def add_at(data, positions, values) -> None:
    """``data[positions] += values``, repeated positions adding up (``np.add.at``), where ``has_scatter(data)``."""
    if type(data) is np.ndarray:
        np.add.at(data, positions, values)
    else:
        import cupyx  # CuPy is imported only when a CUDA tensor exists

        cupyx.scatter_add(data, positions, values)


def const(xp, value, like):
    """A scalar as an array of ``like``'s dtype on ``like``'s device (arrays of two devices never mix)."""
    return xp.asarray(value, dtype=like.dtype, device=like.device)


def scaled(xp, b, alpha):
    """``alpha * b``, skipping the multiplication when ``alpha`` is 1."""
    return b if alpha == 1 else xp.multiply(b, const(xp, alpha, b))


def cast(t, dtype, xp, device=None):
    """``t``'s array in ``dtype`` on ``device`` (CPU zero-dim operands move to the device)."""
    data = t._data
    if device is not None and t._device is not device and t._device != device:  # identity first: one call fewer
        value = to_numpy(data).item()
        if is_reduced_float(dtype):
            value = float(np.float32(value))  # C++ converts to Half / BFloat16 through float (see ``convert``)
        return xp.asarray(value, dtype=xp_dtype(xp, dtype), device=backend(device).array_device(device.index))
    if t._dtype is dtype:
        return data
    return convert(xp, data, dtype)


def convert(xp, data, dtype):
    """``data`` converted to ``dtype`` (a new array), as C++'s ``static_cast`` does it.

    ``c10::Half`` and ``c10::BFloat16`` are built from a ``float`` only, so a double (or an integer)
    becomes float32 first and is then rounded again: ``1 + 2**-11 + 2**-30`` gives 1.0 in float16,
    where NumPy's direct rounding gives 1.0009765625.
    """
    target = xp_dtype(xp, dtype)
    if (data.dtype.kind == "c" if xp is np_xp else is_complex_array(xp, data)) and not dtype.is_complex:
        data = data != 0 if dtype is st.bool_ else _real_part(data)
    if dtype.itemsize == 2 and dtype.is_floating_point and data.dtype.itemsize != 2:  # is_reduced_float, inline
        data = _astype(xp, data, xp.float32)
    if xp is np_xp:  # _astype, inline: a cast is on every mixed-dtype op's path
        return data.astype(target, copy=True)
    return xp.astype(data, target)


_CASTING_COMPLEX = ("Casting complex values to real discards the imaginary part (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)")
_warned_casting_complex = []


def _real_part(data):
    """A complex array cast to a real dtype keeps its real part, with PyTorch's warning (once a process:
    TORCH_WARN_ONCE). Bool is the exception: nonzero, either part (``z.bool()``)."""
    if not _warned_casting_complex:
        _warned_casting_complex.append(True)
        warnings.warn(_CASTING_COMPLEX, UserWarning, stacklevel=6)
    return data.real


def is_complex_array(xp, data) -> bool:
    kind = getattr(data.dtype, "kind", None)  # NumPy's and CuPy's dtypes; the Array API's have none
    return kind == "c" if kind is not None else xp.isdtype(data.dtype, "complex floating")


def _astype(xp, data, target):
    if xp is np_xp:  # what array-api-compat's astype calls, without its wrapper (half the cost of a cast)
        return data.astype(target, copy=True)
    return xp.astype(data, target)


def stored_scalar(value, dtype):
    """A Python number as a tensor of ``dtype`` stores it when written into it (``2.7`` into an integer
    tensor is ``2``, ``-1`` into uint8 is ``255``, anything into a bool tensor is ``bool(value)``); floats
    unchanged. A number the dtype cannot hold is an error (``Scalar::to<T>``, ``c10::checked_convert``)."""
    if dtype is st.bool_:
        return bool(value)
    check_scalar_fits(value, dtype)
    if isinstance(value, complex) and not dtype.is_complex:
        value = value.real  # its imaginary part is 0: check_scalar_fits refuses any other
    if dtype.is_floating_point or dtype.is_complex:
        return value
    if isinstance(value, float) and value >= 2.0**63:
        return -2**63  # passes the check (2**63 - 1 is 2**63 as a double); x86's conversion gives INT64_MIN
    return int(value) % 256 if dtype is st.uint8 else int(value)


# The largest finite value of each float dtype narrower than a Python float.
_FLOAT_MAX = {st.float16: 65504.0, st.bfloat16: 3.3895313892515355e38, st.float32: 3.4028234663852886e38}
# The C++ type each dtype's ``checked_convert`` names in its error.
_CPP_NAMES = {st.float16: "c10::Half", st.bfloat16: "c10::BFloat16", st.float32: "float", st.float64: "double",
              st.uint8: "uint8_t", st.int8: "int8_t", st.int16: "int16_t", st.int32: "int", st.int64: "int64_t",
              st.complex64: "c10::complex<float>", st.complex128: "c10::complex<double>"}


def check_scalar_fits(value, dtype) -> None:
    """``c10::overflows``: an infinity fits a float dtype and NaN any dtype that has one; any other number must
    lie in the dtype's range (an unsigned dtype also takes a negative integer, which wraps)."""
    name = _CPP_NAMES.get(dtype)
    if name is None:
        return
    if isinstance(value, complex) or dtype.is_complex:
        _check_complex_fits(complex(value), dtype, name)
        return
    if dtype.is_floating_point:
        magnitude = abs(float(value))
        fits = not _FLOAT_MAX.get(dtype, math.inf) < magnitude < math.inf  # NaN and the infinities fit
    else:
        info = np.iinfo(st.to_numpy_dtype(dtype))
        if isinstance(value, float):
            fits = float(info.min) <= value <= float(info.max)  # as C++ compares: in double; False for NaN, inf
        else:
            fits = info.min <= value <= info.max or (info.min == 0 and -info.max <= value < 0)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def _check_complex_fits(value, dtype, name) -> None:
    """``c10::overflows`` with a complex number on either side: a real dtype takes only a zero imaginary part (and
    a real part that fits it), a complex dtype takes parts that fit its real dtype."""
    if not dtype.is_complex:
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        check_scalar_fits(value.real, dtype)
        return
    largest = _FLOAT_MAX.get(dtype.to_real(), math.inf)
    if any(largest < abs(part) < math.inf for part in (value.real, value.imag)):
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def rounded_scalar(value, dtype) -> float:
    """A Python number as ``dtype`` would hold it (``alpha`` of a float16 ``add`` is a float16)."""
    return convert(np_xp, np.asarray(value, dtype=np.float64), dtype).item()


def is_reduced_float(dtype) -> bool:
    """float16 and bfloat16: PyTorch's CPU kernels compute them in float32 (their ``opmath`` type)."""
    return dtype.itemsize == 2 and dtype.is_floating_point


def products_of_others(t, dim):
    """For each element of ``t``, the product of the other elements along ``dim``, zeros included, as a new tensor
    without history (``prod``'s gradient where an element is 0): the running product of the elements before it
    times that of the elements after it, each a ``cumprod`` accumulated in ATen's CPU ``acc_type`` (float64 for
    float32, float32 for float16 and bfloat16) and rounded to ``t``'s dtype, as ``prod_safe_zeros_backward``."""
    xp, data = xp_of(t), t._data
    n = data.shape[dim]
    wide = xp.float32 if is_reduced_float(t._dtype) else xp.float64 if t._dtype.is_floating_point else xp.int64

    def part(start, stop):
        return data[(slice(None),) * dim + (slice(start, stop),)]

    ones = xp.ones(data.shape[:dim] + (1,) + data.shape[dim + 1:], dtype=data.dtype, device=data.device)
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN quietly, as in C++
        before = xp.cumulative_prod(xp.astype(xp.concat([ones, part(0, n - 1)], axis=dim), wide), axis=dim)
        after = xp.cumulative_prod(xp.astype(xp.concat([ones, xp.flip(part(1, n), axis=dim)], axis=dim), wide),
                                   axis=dim)
        before, after = convert(xp, before, t._dtype), xp.flip(convert(xp, after, t._dtype), axis=dim)
        if is_reduced_float(t._dtype):
            return wrap(t, row_major_copy(xp, convert(xp, in_float32(xp, before) * in_float32(xp, after), t._dtype)))
        return wrap(t, row_major_copy(xp, before * after))


_ERF = np.frompyfunc(math.erf, 1, 1)


def erf_float64(xp, x):
    """The error function of a float64 array: the Array API has none, so C's ``erf`` (``math.erf``) on NumPy's
    copy of the values, moved back to ``x``'s device."""
    values = np.asarray(_ERF(x if xp is np_xp else to_numpy(x)), dtype=np.float64)
    return values if xp is np_xp else xp.asarray(values, device=x.device)


def in_float32(xp, data):
    """A float16 / bfloat16 array widened to float32, exactly, to compute in (PyTorch's ``opmath``)."""
    return _astype(xp, data, xp.float32)


def rounded_to(xp, data, dtype):
    """A float32 array rounded to ``dtype`` (float16 / bfloat16) and widened back: one of PyTorch's steps that
    stores its result in the tensor's dtype before the next step reads it."""
    return in_float32(xp, convert(xp, data, dtype))


# ----------------------------------------------------------------------------- operands and promotion


def scalar_tensor(value):
    """A Python number as a wrapped zero-dim CPU tensor (``at::scalar_to_tensor`` + ``set_wrapped_number``).

    It stores the number at full precision (float64 / int64 / bool), as PyTorch does; type promotion
    then treats it as a "wrapped number", which only decides the category (see ``result_type``).
    """
    dtype = st.float64 if isinstance(value, float) else st.complex128 if isinstance(value, complex) else \
        st.scalar_dtype(value)
    cpu = backend(_CPU).xp
    if cpu is np_xp:  # NumPy itself, what array-api-compat's asarray ends in: a sixth of its cost
        data = np.asarray(value, dtype=xp_dtype(cpu, dtype))
    else:
        data = cpu.asarray(value, dtype=xp_dtype(cpu, dtype))
    return new_tensor(data, dtype, _CPU, wrapped_number=True)


# One device object shared by every wrapped number: parsing "cpu" on each Python number an op
# receives cost as much as the rest of this function, and left one more object per saved number
# for the cyclic GC to scan.
_CPU = CPU


def as_operand(value):
    return value if isinstance(value, TensorImpl) else scalar_tensor(value)


def binary_operands(self, other, *, to_float=False):
    """What every binary elementwise kernel starts with (TensorIterator's set-up): the other operand as
    a tensor, the common device, the promoted dtype, the broadcast shape (or PyTorch's error), the
    namespace, and both arrays cast to that dtype on that device."""
    if not isinstance(other, TensorImpl):  # as_operand(), inlined
        other = scalar_tensor(other)
    if (other._is_wrapped_number and not self._is_wrapped_number and self._dtype.is_floating_point
            and not other._dtype.is_complex):
        # A floating tensor and a Python number (``y * 0.5``): the general steps below would find the
        # tensor's device, dtype and shape (a number never widens a float, broadcasts, or pins a
        # device); answered here, this saves a third of the set-up.
        dev, dtype = self._device, self._dtype
        xp = np_xp if dev is CPU else backend(dev).xp  # xp_of, inline
        return other, dev, dtype, tuple(self._data.shape), xp, self._data, cast(other, dtype, xp, dev)
    if (other._dtype is self._dtype and other._device is self._device and other._data.shape == self._data.shape
            and not other._is_wrapped_number and not self._is_wrapped_number
            and (not to_float or self._dtype.is_floating_point)):
        # Two tensors of one dtype, device and shape (a backward adding up gradients): nothing to promote,
        # broadcast or move, so the general steps below would return the inputs as they are.
        dev = self._device
        xp = np_xp if dev is CPU else backend(dev).xp  # xp_of, inline
        return other, dev, self._dtype, tuple(self._data.shape), xp, self._data, other._data
    dev = common_device(self, other)
    dtype = result_type(self, other)
    if to_float:
        dtype = float_dtype(dtype)
    shape = checks.broadcast_shapes(shape_of(self), shape_of(other))
    xp = backend(dev).xp
    return other, dev, dtype, shape, xp, cast(self, dtype, xp, dev), cast(other, dtype, xp, dev)


def common_device(*tensors):
    for t in tensors:
        if t._device is not CPU:
            break
    else:
        return CPU  # every tensor on the CPU (most calls): nothing to check or choose
    checks.check_same_device(*tensors)
    for t in tensors:
        if not t._is_wrapped_number and t._device.type != "cpu":
            return t._device
    return tensors[0]._device


def result_type(*tensors):
    if len(tensors) == 2:  # a binary op's common cases, answered without building the promotion state
        a, b = tensors
        if not a._is_wrapped_number:
            if b._is_wrapped_number and a._dtype.is_floating_point and not b._dtype.is_complex:
                return a._dtype  # a real Python number never widens a floating tensor
            if b._dtype is a._dtype and not b._is_wrapped_number:
                return a._dtype
    return st.result_type(*[(_promotion_dtype(t), _priority(t)) for t in tensors])


def _priority(t) -> int:
    """How strongly ``t`` takes part in promotion: wrapped number < zero-dim tensor < tensor."""
    if t._is_wrapped_number:
        return 0
    return 1 if t._data.ndim == 0 else 2


def _promotion_dtype(t):
    """A wrapped float (complex) number takes part in promotion as the default (complex) dtype, not as its
    float64 (complex128) storage."""
    if t._is_wrapped_number:
        if t._dtype.is_floating_point:
            return st.get_default_dtype()
        if t._dtype.is_complex:
            return st.get_default_complex_dtype()
    return t._dtype


def float_dtype(dtype):
    """``promote_integer_inputs_to_float``: integers and bool compute in the default dtype; floats and complex
    numbers in their own."""
    return dtype if dtype.is_floating_point or dtype.is_complex else st.get_default_dtype()


def reduce_dims(self, dim) -> tuple:
    """The dims a reduction (or ``squeeze(dims)``) works on: all for None or ``()``, else ``dim`` wrapped."""
    ndim = self._data.ndim
    dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    # wrap_dim only for what needs it (a negative dim, a bool, a wrong one): a reduction's dims are asked every call
    wrapped = tuple([d if type(d) is int and 0 <= d < ndim else checks.wrap_dim(d, ndim) for d in dims])
    if len(wrapped) > 1 and len(set(wrapped)) < len(wrapped):
        # the first dim seen twice, as dim_list_to_bitset reports it
        repeated = next(d for i, d in enumerate(wrapped) if d in wrapped[:i])
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    return wrapped if ndim else ()  # a zero-dim tensor accepts dim 0 / -1 and has nothing to reduce


# ----------------------------------------------------------------------------- views


def view_of(base, data, dtype=None):
    """A tensor that views ``base``'s data: same version counter, ``_base`` set (not for an inference tensor's
    views: NOTE [Inference tensors have no version counter] in tensor_impl.py). ``dtype``: a view that reads the
    memory as another dtype (``view_as_real``)."""
    out = new_tensor(data, base._dtype if dtype is None else dtype, base._device, version=base._version_counter)
    if out._version_counter.tracked:
        out._base = base._base if base._base is not None else base
    return out


def tensor_geometry(t) -> tuple:
    """(sizes, strides, storage offset) of ``t`` in elements: PyTorch's ``TensorGeometry``, which
    ``as_strided``'s backward saves."""
    return tuple(t._data.shape), strides_of(t), storage_offset(t)


def strided_geometry(view, base) -> tuple:
    """(sizes, strides, offset) of ``view`` inside ``base``'s storage, in elements (NumPy / CuPy)."""
    itemsize = view._dtype.itemsize
    try:
        offset = _address(view._data) - _address(base._data)
    except AttributeError:
        raise NotImplementedError("in-place ops on views need NumPy or CuPy arrays (strides and addresses); "
                                  f"this device's arrays are {type(view._data).__module__}") from None
    strides = tuple(s // itemsize for s in view._data.strides)
    return tuple(view._data.shape), strides, offset // itemsize


def truth(xp, data):
    """``data`` as bools, zero false and anything else (NaN too) true (the Array API compares no bool with 0)."""
    return data if data.dtype == xp.bool else data != 0


def data_ptr(t) -> int:
    """The address of ``t``'s first element (``TensorImpl::data()``): a view's is its base's plus its offset in
    bytes; an empty tensor has none (0)."""
    return 0 if t._data.size == 0 else _address(t._data)


def address_of(array) -> int:
    """The address of an array's first element."""
    return _address(array)


def _address(array) -> int:
    if hasattr(array, "__array_interface__"):
        return array.__array_interface__["data"][0]
    return array.data.ptr  # CuPy


# NOTE [A tensor's storage is the array that owns its memory]
# PyTorch's tensor points into a ``StorageImpl`` at an offset; picotorch's holds only an array. The storage is found
# when asked (``storage_offset()``, ``untyped_storage()``): NumPy records, in ``.base``, the array whose memory a
# view borrows, so the end of the ``.base`` chain is the array that owns the bytes, which every view, ``detach()``,
# ``unsafe_split`` piece, ``view(dtype)`` and ``as_strided_`` of one tensor shares; the offset is the distance
# from its first byte. Nothing is kept on the tensor, so no op pays for it. (``as_strided``'s ``DummyArray`` has a
# ``.base`` too.) NumPy drops the place of an empty slice (its first element is the array's), so ``slice`` puts
# an empty result where PyTorch's would be (``placed_view``).
def storage_array(t):
    """The array that owns ``t``'s memory: its storage."""
    array = t._data
    base = getattr(array, "base", None)
    while base is not None and (hasattr(base, "__array_interface__") or hasattr(base, "__cuda_array_interface__")):
        array, base = base, getattr(base, "base", None)
    return array


def storage_offset(t) -> int:
    """Elements from the start of ``t``'s storage to its first element (``TensorImpl::storage_offset()``)."""
    storage = storage_array(t)
    if storage is t._data:  # (also every array without NumPy's .base: the Array API's)
        return 0
    return (_address(t._data) - _address(storage)) // t._dtype.itemsize


class _ArrayInterface:
    """Memory of ``base`` from the address ``start`` on, with a shape and byte strides: what NumPy reads a view
    from (``np.asarray``), and ``.base`` keeps the chain to the storage."""

    __slots__ = ("__array_interface__", "base")

    def __init__(self, base, start: int, shape, byte_strides, typestr: str) -> None:
        readonly = not base.flags.writeable
        self.__array_interface__ = {"version": 3, "shape": tuple(shape), "strides": tuple(byte_strides),
                                    "typestr": typestr, "data": (start, readonly)}
        self.base = base


def placed_view(data, byte_offset: int, shape, byte_strides, dtype=None):
    """A NumPy view of ``data``'s memory starting ``byte_offset`` bytes after ``data``'s first element (which may
    be one past its last when the view is empty), of ``data``'s dtype or ``dtype``."""
    dtype = data.dtype if dtype is None else dtype
    array = np.asarray(_ArrayInterface(data, _address(data) + byte_offset, shape, byte_strides, dtype.str))
    return array if array.dtype == dtype else array.view(dtype)  # (ml_dtypes' bfloat16 has no type string)


def numpy_storage_view(array):
    """``array``'s elements over a storage of their own (``torch.from_numpy``): the bytes from its first element to
    one past its last, whose ``.base`` is a ``memoryview``, no array, so the storage chain ends there and does not
    reach the arrays ``array`` borrows from (another ``from_numpy`` of them is another storage, as in PyTorch)."""
    if array.size == 0:
        storage = np.empty(0, dtype=np.uint8)
    else:
        nbytes = array.itemsize + sum((n - 1) * s for n, s in zip(array.shape, array.strides))
        span = np.asarray(_ArrayInterface(array, _address(array), (nbytes,), (1,), "|u1"))
        storage = np.frombuffer(memoryview(span), dtype=np.uint8)
    return placed_view(storage, 0, array.shape, array.strides, array.dtype)


def tensor_in_storage(storage, like):
    """A new tensor over the NumPy array ``storage`` with ``like``'s dtype, sizes, strides and storage offset."""
    return strided_tensor(storage, storage_offset(like), like._data.shape, strides_of(like), like._dtype,
                          like._device)


def strided_tensor(storage, offset: int, shape, strides, dtype, device=CPU):
    """A new tensor over the NumPy array ``storage``: ``offset``, ``shape`` and ``strides`` in elements of ``dtype``
    (``Tensor.set_(storage, offset, size, stride)`` on a new tensor)."""
    itemsize = dtype.itemsize
    data = placed_view(storage, offset * itemsize, tuple(shape), tuple(s * itemsize for s in strides),
                       st.to_numpy_dtype(dtype))
    return new_tensor(data, dtype, device)


def storage_bytes(array):
    """A storage array's bytes: a uint8 NumPy array over the same memory (a copy for a CUDA one)."""
    if not isinstance(array, np.ndarray):
        array = to_numpy(array)
    return np.asarray(_ArrayInterface(array, _address(array), (array.nbytes,), (1,), "|u1"))


def as_strided_view(t, sizes, strides, offset):
    """A tensor viewing ``t``'s data with the given geometry (``Tensor.as_strided``), in elements from the
    start of ``t``'s storage (its first element: PyTorch's strides are never negative)."""
    data = t._data
    itemsize = t._dtype.itemsize
    as_strided = _as_strided_of(data)
    flat = as_strided(data, shape=(_storage_extent(data, itemsize),), strides=(itemsize,))[offset:]
    return view_of(t, as_strided(flat, shape=sizes, strides=tuple(s * itemsize for s in strides)))


def writable_data(t):
    """The array ``fill_`` and ``zero_`` write into: an expanded view's own array is read-only (NOTE [Writing
    into a tensor that overlaps itself] in dispatcher.py), but PyTorch lets these two write there (every copy
    of an element gets the same value), so they write through a writeable alias of the same memory."""
    data = t._data
    if t._base is None or getattr(data, "flags", None) is None or data.flags.writeable:
        return data
    sizes, strides, offset = strided_geometry(t, t._base)
    return as_strided_view(t._base, sizes, strides, offset)._data


def empty_strided(like, shape, strides, zeros: bool = False):
    """An array of ``shape`` with ``strides`` (elements) on ``like``'s device, over storage of its own."""
    xp = xp_of(like)
    data = like._data
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if 0 not in shape else 0
    make = xp.zeros if zeros else xp.empty
    flat = make((extent,), dtype=data.dtype, device=data.device)
    if tuple(strides) == contiguous_strides(shape, 1) or extent == 0:
        return xp.reshape(flat, tuple(shape))
    itemsize = like._dtype.itemsize
    return _as_strided_of(flat)(flat, shape=tuple(shape), strides=tuple(s * itemsize for s in strides))


def restrided(data, shape, strides, writeable: bool = True):
    """Another view of ``data``'s memory with ``shape`` and ``strides`` (in elements), from its first element."""
    byte_strides = tuple(s * data.dtype.itemsize for s in strides)
    if type(data) is np.ndarray:
        return np.lib.stride_tricks.as_strided(data, tuple(shape), byte_strides,
                                               writeable=writeable and data.flags.writeable)
    return _as_strided_of(data)(data, shape=tuple(shape), strides=byte_strides)


def _as_strided_of(data):
    if type(data).__module__.startswith("cupy"):
        from cupy.lib.stride_tricks import as_strided  # CuPy is imported only when a CUDA tensor exists

        return as_strided
    return np.lib.stride_tricks.as_strided


def _storage_extent(data, itemsize: int) -> int:
    """Elements from ``data``'s first element to one past its last."""
    if data.size == 0:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(data.shape, data.strides)) // itemsize


FMA_BLOCK = 65536  # elements: two float64 blocks of scratch (1 MB) stay in the L2 cache, and few enough
# blocks that NumPy's per-call cost stays small (a 100k-element step: 8192 -> 0.2 ms, 65536 -> 0.13 ms)


def _blockwise(a, b, c) -> bool:
    """A large ``a * b + c`` whose operands are each a float32 array of one shape, C-contiguous, or a scalar
    (``add(x, y, alpha=a)`` and an optimizer's step; ``1 - y * y`` in tanh's backward)."""
    arrays = [x for x in (a, b, c) if np.ndim(x) != 0]
    if not arrays:
        return False
    shape = arrays[0].shape
    return all(type(x) is np.ndarray and x.dtype == np.float32 and x.shape == shape and x.flags.c_contiguous
               for x in arrays) and arrays[0].size >= 4096


def _fused_multiply_add_blockwise(a, b, c, out=None):
    """``fused_multiply_add`` block by block through float64 scratch that stays in cache: the whole-array
    version writes and reads three float64 temporaries the size of the input (8 bytes an element each way).

    ``out`` (float32, the arrays' shape, C-contiguous) may be one of the operands: each block is read whole
    before it is written."""
    if np.ndim(a) == 0:  # the product is symmetric: the array (if any) goes first
        a, b = b, a
    shape = next(np.shape(x) for x in (a, b, c) if np.ndim(x) != 0)
    out = np.empty(shape, np.float32) if out is None else out
    flat_out = out.reshape(-1)
    a_array, b_array, c_array = (np.ndim(x) != 0 for x in (a, b, c))
    a, b, c = (x.reshape(-1) if np.ndim(x) else np.float64(x) for x in (a, b, c))
    wide, addend = _fma_scratch()
    for start in range(0, flat_out.size, FMA_BLOCK):
        stop = min(start + FMA_BLOCK, flat_out.size)
        block = wide[:stop - start]
        if a_array:
            np.copyto(block, a[start:stop])
            np.multiply(block, b[start:stop] if b_array else b, out=block)
        else:
            block.fill(a * b)  # two float32 scalars: their product is exact in float64
        if c_array:
            block_addend = addend[:stop - start]
            np.copyto(block_addend, c[start:stop])
            np.add(block, block_addend, out=block)
        else:
            np.add(block, c, out=block)
        np.copyto(flat_out[start:stop], block, casting="same_kind")
    return out


_scratch = threading.local()


def _fma_scratch() -> tuple:
    """Two float64 blocks of ``FMA_BLOCK`` elements, kept per thread: freshly allocated each call, 1 MB of
    scratch is new pages from the allocator, and their page faults cost as much as the arithmetic (an SGD
    step's 320x320 update, on a rank thread: 250 -> 110 us)."""
    blocks = getattr(_scratch, "blocks", None)
    if blocks is None:
        blocks = _scratch.blocks = (np.empty(FMA_BLOCK, np.float64), np.empty(FMA_BLOCK, np.float64))
    return blocks


def fused_multiply_add_into(out, a, b) -> bool:
    """``out = a * b + out`` rounded once, written into ``out``'s own memory, when the block-by-block path
    applies (float32 NumPy arrays of one shape, C-contiguous, ``b`` a scalar, ``a`` either ``out`` itself or
    apart from it); False, writing nothing, when not. An optimizer's ``param.add_(grad, alpha=-lr)`` saves
    the result's allocation and the copy back."""
    if not (type(a) is np.ndarray and type(out) is np.ndarray and np.ndim(b) == 0 and _blockwise(a, b, out)):
        return False
    if a is not out and np.may_share_memory(a, out):
        return False
    _fused_multiply_add_blockwise(a, b, out, out=out)
    return True


def _float64(x):
    return x.astype(np.float64) if hasattr(x, "astype") else np.asarray(x, dtype=np.float64)


def fused_multiply_add(xp, a, b, c):
    """``a * b + c`` rounded once, as the FMA instruction of PyTorch's vectorised CPU kernels does.

    A float32 product is exact in float64, so computing there and rounding to float32 gives the fused
    result (barring a rare double rounding); other dtypes compute unfused.
    """
    if a.dtype != xp.float32:
        return xp.add(xp.multiply(a, b), c)
    if xp is np_xp:
        if _blockwise(a, b, c):
            return _fused_multiply_add_blockwise(a, b, c)
        # Each operand cast whole first: a ufunc told dtype=float64 casts float32 inputs through small buffers,
        # several times slower; the bits are the same.
        product = np.multiply(_float64(a), _float64(b))
        addend = _float64(c)
        if type(product) is np.ndarray and addend.shape == product.shape:
            return np.add(product, addend, out=product).astype(np.float32)
        return np.add(product, addend).astype(np.float32)
    wide = xp.float64
    product = xp.multiply(xp.astype(a, wide), xp.astype(b, wide))
    return xp.astype(xp.add(product, xp.astype(c, wide)), xp.float32)


def fused_multiply_add_float64(xp, a, b, c):
    """``a * b + c`` rounded once, for float64 (no wider type to compute in): the product's rounding error from
    Dekker's split, the sum's from Knuth's two-sum, added back before the last rounding. (A result exactly halfway
    between two doubles may still round the other way; in range, never seen against torch.)"""
    product = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    c_part = total - product
    sum_error = (product - (total - c_part)) + (c - c_part)
    return total + (sum_error + product_error)


def _split(x):
    """``x`` as a high part of 26 bits and the rest (Veltkamp's split): products of the parts are exact."""
    t = 134217729.0 * x  # 2**27 + 1
    high = t - (t - x)
    return high, x - high


def legacy_type_string(t) -> str:
    """``x.type()``: the legacy type name, ``torch.FloatTensor`` / ``torch.cuda.FloatTensor``."""
    prefix = "torch.cuda." if t._device.type == "cuda" else "torch."
    return f"{prefix}{t._dtype.c10_name}Tensor"


# The legacy names Python's error translation (``processErrorMsg``) puts in place of ``CPUFloatType``...: bool,
# bfloat16 and the complex types have none, and keep ``Tensor::toString()``'s own.
_LEGACY_IN_ERRORS = {"Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"}


def error_type_string(t) -> str:
    """How an error message names ``t``'s type (``Tensor::toString()`` as a Python error shows it)."""
    if t._dtype.c10_name in _LEGACY_IN_ERRORS:
        return legacy_type_string(t)
    return f"{'CUDA' if t._device.type == 'cuda' else 'CPU'}{t._dtype.c10_name}Type"
