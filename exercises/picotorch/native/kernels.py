"""The CPU and CUDA kernels of every op, written once against the Array API.

Models ``aten/src/ATen/native/`` (``BinaryOps.cpp``, ``UnaryOps.cpp``, ``ReduceOps.cpp``,
``LinearAlgebra.cpp``, ``TensorShape.cpp``, ``TensorFactories.cpp``). A kernel takes tensors, checks
its arguments with PyTorch's messages, computes the result dtype and shape, runs the array library of
the tensors' device and returns new tensors. It knows nothing of autograd.
Kernels whose output is a view share the input's version counter and remember its base.
"""

from __future__ import annotations

import builtins
import math
import warnings

from ..c10 import scalar_type as st
from ..c10.device import device as Device
from . import checks
from .device import backend, normalize, to_numpy
from .layout import follow_inputs
from .tensor_impl import new_tensor

# ----------------------------------------------------------------------------- helpers


def xp_of(t):
    return backend(t._device).xp


def xp_dtype(xp, dtype):
    return getattr(xp, dtype.name)


def wrap(t_like, data, dtype=None):
    """A new tensor on ``t_like``'s device around ``data``."""
    xp = xp_of(t_like)
    return new_tensor(xp.asarray(data), dtype or t_like._dtype, t_like._device)


def view_of(base, data):
    """A tensor that views ``base``'s data: same version counter, ``_base`` set."""
    out = new_tensor(data, base._dtype, base._device, version=base._version_counter)
    out._base = base._base if base._base is not None else base
    return out


def cast(t, dtype, xp, device=None):
    """``t``'s array in ``dtype`` on ``device`` (CPU zero-dim operands move to the device)."""
    data = t._data
    if device is not None and t._device != device:
        value = to_numpy(data).item()
        return xp.asarray(value, dtype=xp_dtype(xp, dtype), device=backend(device).array_device(device.index))
    if t._dtype is dtype:
        return data
    return xp.astype(data, xp_dtype(xp, dtype))


def scalar_tensor(value):
    """A Python number as a wrapped zero-dim CPU tensor (``at::scalar_to_tensor`` + ``set_wrapped_number``).

    It stores the number at full precision (float64 / int64 / bool), as PyTorch does; type promotion
    then treats it as a "wrapped number", which only decides the category (see ``result_type``).
    """
    dtype = st.float64 if isinstance(value, float) else st.scalar_dtype(value)
    cpu = backend(Device("cpu")).xp
    return new_tensor(cpu.asarray(value, dtype=xp_dtype(cpu, dtype)), dtype, Device("cpu"), wrapped_number=True)


def as_operand(value):
    return value if hasattr(value, "_data") else scalar_tensor(value)


def priority(t) -> int:
    if t._is_wrapped_number:
        return 0
    return 1 if t._data.ndim == 0 else 2


def result_type(*tensors):
    return st.result_type(*[(_promotion_dtype(t), priority(t)) for t in tensors])


def _promotion_dtype(t):
    """A wrapped float number takes part in promotion as the default dtype, not as its float64 storage."""
    if t._is_wrapped_number and t._dtype.is_floating_point:
        return st.get_default_dtype()
    return t._dtype


def common_device(*tensors):
    checks.check_same_device(*tensors)
    for t in tensors:
        if not t._is_wrapped_number and t._device.type != "cpu":
            return t._device
    return tensors[0]._device


def shape_of(t) -> tuple:
    return tuple(t._data.shape)


def float_dtype(dtype):
    return dtype if dtype.is_floating_point else st.get_default_dtype()


# ----------------------------------------------------------------------------- elementwise


def binary_operands(self, other, *, to_float=False):
    """What every binary elementwise kernel starts with (TensorIterator's set-up): the other operand as
    a tensor, the common device, the promoted dtype, the broadcast shape (or PyTorch's error), the
    namespace, and both arrays cast to that dtype on that device."""
    other = as_operand(other)
    dev = common_device(self, other)
    dtype = result_type(self, other)
    if to_float:
        dtype = float_dtype(dtype)
    shape = checks.broadcast_shapes(shape_of(self), shape_of(other))
    xp = backend(dev).xp
    return other, dev, dtype, shape, xp, cast(self, dtype, xp, dev), cast(other, dtype, xp, dev)


def _binary(self, other, compute, *, to_float=False):
    other, dev, dtype, _, xp, a, b = binary_operands(self, other, to_float=to_float)
    data = compute(xp, a, b, dtype)
    return new_tensor(follow_inputs(xp, xp.asarray(data), [self._data, other._data]), dtype, dev)


def _check_alpha(dtype, alpha) -> None:
    if not dtype.is_floating_point and isinstance(alpha, float) and alpha != int(alpha):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def const(xp, value, like):
    """A scalar as an array of ``like``'s dtype on ``like``'s device (arrays of two devices never mix)."""
    return xp.asarray(value, dtype=like.dtype, device=like.device)


def _scaled(xp, b, alpha, dtype):
    return b if alpha == 1 else xp.multiply(b, const(xp, alpha, b))


def add(self, other, alpha=1):
    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        if dtype is st.bool_:
            return xp.logical_or(a, b)
        return xp.add(a, _scaled(xp, b, alpha, dtype))
    return _binary(self, other, compute)


def _check_bool_sub(self, other) -> None:
    other_is_bool = isinstance(other, bool) or getattr(other, "_dtype", None) is st.bool_
    if self._dtype is st.bool_ and other_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if self._dtype is st.bool_ or other_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def sub(self, other, alpha=1):
    _check_bool_sub(self, other)

    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        return xp.subtract(a, _scaled(xp, b, alpha, dtype))
    return _binary(self, other, compute)


def rsub(self, other, alpha=1):
    """``other - alpha * self`` (what ``2 - x`` calls)."""
    _check_bool_sub(self, other)

    def compute(xp, a, b, dtype):
        _check_alpha(dtype, alpha)
        return xp.subtract(b, _scaled(xp, a, alpha, dtype))
    return _binary(self, other, compute)


def mul(self, other):
    def compute(xp, a, b, dtype):
        return xp.logical_and(a, b) if dtype is st.bool_ else xp.multiply(a, b)
    return _binary(self, other, compute)


def div(self, other):
    return _binary(self, other, lambda xp, a, b, dtype: xp.divide(a, b), to_float=True)


def _pow_compute(xp, a, b, dtype):
    if not dtype.is_floating_point and bool(xp.any(b < 0)):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return xp.pow(a, b)


def pow(self, exponent):
    return _binary(self, exponent, _pow_compute)


def pow_scalar_base(self, exponent):
    """``pow.Scalar``: a Python number raised to a tensor (what ``2 ** x`` calls)."""
    base = scalar_tensor(self)
    return _binary(base, exponent, _pow_compute)


def _unary_float(self, fn):
    dtype = float_dtype(self._dtype)
    xp = xp_of(self)
    return new_tensor(follow_inputs(xp, xp.asarray(fn(xp, cast(self, dtype, xp))), [self._data]), dtype,
                      self._device)


def neg(self):
    if self._dtype is st.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    xp = xp_of(self)
    return wrap(self, follow_inputs(xp, xp.negative(self._data), [self._data]))


def exp(self):
    return _unary_float(self, lambda xp, a: xp.exp(a))


def log(self):
    return _unary_float(self, lambda xp, a: xp.log(a))


def reciprocal(self):
    return _unary_float(self, lambda xp, a: xp.divide(const(xp, 1, a), a))


def sigmoid(self):
    return _unary_float(self, lambda xp, a: xp.divide(const(xp, 1, a),
                                                      xp.add(const(xp, 1, a), xp.exp(xp.negative(a)))))


def tanh(self):
    return _unary_float(self, lambda xp, a: xp.tanh(a))


def relu(self):
    if self._dtype is st.bool_:
        raise NotImplementedError('"clamp_min_cpu" not implemented for \'Bool\'')
    xp = xp_of(self)
    return wrap(self, follow_inputs(xp, xp.where(self._data > 0, self._data, xp.zeros_like(self._data)), [self._data]))


def threshold_backward(grad_output, self, threshold):
    xp = xp_of(grad_output)
    keep = self._data > threshold
    data = xp.where(keep, grad_output._data, xp.zeros_like(grad_output._data))
    return wrap(grad_output, follow_inputs(xp, data, [grad_output._data, self._data]))


def sigmoid_backward(grad_output, output):
    xp = xp_of(grad_output)
    one = const(xp, 1, output._data)
    return wrap(grad_output, grad_output._data * (one - output._data) * output._data)


def tanh_backward(grad_output, output):
    xp = xp_of(grad_output)
    one = const(xp, 1, output._data)
    return wrap(grad_output, grad_output._data * (one - output._data * output._data))


def _compare(self, other, fn):
    other, dev, _, _, xp, a, b = binary_operands(self, other)
    return new_tensor(follow_inputs(xp, xp.asarray(fn(xp, a, b)), [self._data, other._data]), st.bool_, dev)


def eq(self, other):
    return _compare(self, other, lambda xp, a, b: xp.equal(a, b))


def ne(self, other):
    return _compare(self, other, lambda xp, a, b: xp.not_equal(a, b))


def lt(self, other):
    return _compare(self, other, lambda xp, a, b: xp.less(a, b))


def le(self, other):
    return _compare(self, other, lambda xp, a, b: xp.less_equal(a, b))


def gt(self, other):
    return _compare(self, other, lambda xp, a, b: xp.greater(a, b))


def ge(self, other):
    return _compare(self, other, lambda xp, a, b: xp.greater_equal(a, b))


def where(condition, self, other):
    self, other = as_operand(self), as_operand(other)
    dev = common_device(condition, self, other)
    dtype = result_type(self, other)
    checks.broadcast_shapes(checks.broadcast_shapes(shape_of(condition), shape_of(self)), shape_of(other))
    xp = backend(dev).xp
    data = xp.where(cast(condition, st.bool_, xp, dev), cast(self, dtype, xp, dev), cast(other, dtype, xp, dev))
    return new_tensor(follow_inputs(xp, xp.asarray(data), [condition._data, self._data, other._data]), dtype, dev)


# ----------------------------------------------------------------------------- in place


def _check_inplace_dtype(self, dtype) -> None:
    if st.promote_types(dtype, self._dtype) is not self._dtype:
        raise RuntimeError(f"result type {dtype.c10_name} can't be cast to the desired output type "
                           f"{self._dtype.c10_name}")


def _write(self, result) -> None:
    _check_inplace_dtype(self, result._dtype)
    if tuple(result._data.shape) != shape_of(self):
        raise RuntimeError(f"output with shape {list(shape_of(self))} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}")
    xp = xp_of(self)
    self._data[...] = xp.astype(result._data, xp_dtype(xp, self._dtype))


def add_(self, other, alpha=1):
    _write(self, add(self, other, alpha))
    return self


def mul_(self, other):
    _write(self, mul(self, other))
    return self


def zero_(self):
    xp = xp_of(self)
    self._data[...] = xp.zeros_like(self._data)
    return self


# ----------------------------------------------------------------------------- reductions


def _reduce_dims(self, dim) -> tuple:
    ndim = self._data.ndim
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    wrapped = tuple(checks.wrap_dim(d, ndim) for d in dims)
    for d in set(wrapped):
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped if ndim else ()  # a zero-dim tensor accepts dim 0 / -1 and has nothing to reduce


def _sum_dtype(self, dtype):
    if dtype is not None:
        return dtype
    return self._dtype if self._dtype.is_floating_point else st.int64


def sum(self, dtype=None):
    return sum_dim(self, None, False, dtype=dtype)


def sum_dim(self, dim, keepdim=False, dtype=None):
    out_dtype = _sum_dtype(self, dtype)
    xp = xp_of(self)
    axes = _reduce_dims(self, dim)
    data = xp.sum(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim, dtype=xp_dtype(xp, out_dtype))
    return new_tensor(xp.asarray(data), out_dtype, self._device)


def _mean_dtype(self, dtype, name="mean"):
    out = dtype or self._dtype
    if not out.is_floating_point:
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {out.c10_name}")
    return out


def mean(self, dtype=None):
    return mean_dim(self, None, False, dtype=dtype)


def mean_dim(self, dim, keepdim=False, dtype=None):
    out_dtype = _mean_dtype(self, dtype)
    xp = xp_of(self)
    axes = _reduce_dims(self, dim)
    with warnings.catch_warnings():  # NumPy warns on an empty mean; PyTorch quietly returns nan
        warnings.simplefilter("ignore", RuntimeWarning)
        data = xp.mean(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim)
    return new_tensor(xp.asarray(data), out_dtype, self._device)


# ----------------------------------------------------------------------------- linear algebra


def _check_matmul_dtypes(a, b, what="m1 and m2") -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected {what} to have the same dtype, but got: "
                           f"{_cpp_name(a._dtype)} != {_cpp_name(b._dtype)}")


def _cpp_name(dtype) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}[dtype.name]


def mm(self, mat2):
    if self._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm_shapes(self, mat2)
    _check_matmul_dtypes(self, mat2)
    dev = common_device(self, mat2)
    return new_tensor(xp_of(self).matmul(self._data, mat2._data), self._dtype, dev)


def _check_mm_shapes(m1, m2) -> None:
    (a, b), (c, d) = m1._data.shape, m2._data.shape
    if b != c:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})")


def mv(self, vec):
    if self._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self._data.ndim}, {vec._data.ndim}")
    # (PyTorch's message lists the dims of the implicit output, the matrix and the vector)
    if self._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self._data.shape[0]}), mat ({self._data.shape[0]}x"
                           f"{self._data.shape[1]}), vec ({vec._data.shape[0]})")
    _check_matmul_dtypes(self, vec)
    return new_tensor(xp_of(self).matmul(self._data, vec._data), self._dtype, common_device(self, vec))


def dot(self, tensor):
    if self._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and {tensor._data.ndim}D tensors")
    if self._dtype is not tensor._dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{self._dtype.c10_name} and {tensor._dtype.c10_name}")
    n, m = self._data.shape[0], tensor._data.shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the "
                           f"same number of elements, but got {n} and {m} elements respectively")
    xp = xp_of(self)
    return new_tensor(xp.asarray(xp.vecdot(self._data, tensor._data)), self._dtype, common_device(self, tensor))


def addmm(self, mat1, mat2, beta=1, alpha=1):
    if mat1._data.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2._data.ndim}-D tensor")
    _check_mm_shapes(mat1, mat2)
    _check_matmul_dtypes(mat1, mat2, "mat1 and mat2")
    xp = xp_of(mat1)
    product = xp.matmul(mat1._data, mat2._data)
    out_shape = tuple(product.shape)
    if checks.broadcast_shapes(shape_of(self), out_shape) != out_shape:
        raise RuntimeError(f"The expanded size of the tensor ({out_shape[-1]}) must match the existing "
                           f"size ({shape_of(self)[-1]}) at non-singleton dimension 1.  Target sizes: "
                           f"{list(out_shape)}.  Tensor sizes: {list(shape_of(self))}")
    data = _scaled(xp, product, alpha, mat1._dtype) + _scaled(xp, cast(self, mat1._dtype, xp), beta, mat1._dtype)
    return new_tensor(xp.asarray(data), mat1._dtype, common_device(self, mat1, mat2))


# ----------------------------------------------------------------------------- views


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


def _address(array) -> int:
    if hasattr(array, "__array_interface__"):
        return array.__array_interface__["data"][0]
    return array.data.ptr  # CuPy


def as_strided_view(t, sizes, strides, offset):
    """A tensor viewing ``t``'s (contiguous) data with the given geometry (``Tensor.as_strided``)."""
    data = t._data
    itemsize = t._dtype.itemsize
    flat = xp_of(t).reshape(data, (-1,))[offset:]
    if type(data).__module__.startswith("cupy"):
        from cupy.lib.stride_tricks import as_strided
    else:
        from numpy.lib.stride_tricks import as_strided
    return view_of(t, as_strided(flat, shape=sizes, strides=tuple(s * itemsize for s in strides)))


def alias(self):
    return view_of(self, self._data)


def t(self):
    ndim = self._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return transpose(self, 0, 1) if ndim == 2 else view_of(self, self._data)


def transpose(self, dim0, dim1):
    ndim = self._data.ndim
    d0, d1 = checks.wrap_dim(dim0, ndim), checks.wrap_dim(dim1, ndim)
    if ndim == 0:
        return view_of(self, self._data)
    axes = list(range(ndim))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return view_of(self, xp_of(self).permute_dims(self._data, tuple(axes)))


def permute(self, dims):
    ndim = self._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {ndim} "
                           f"is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(checks.wrap_dim(d, ndim) for d in dims)
    if len(set(wrapped)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return view_of(self, xp_of(self).permute_dims(self._data, wrapped))


def view(self, size):
    shape = checks.infer_size(size, math.prod(shape_of(self)))
    xp = xp_of(self)
    try:
        data = xp.reshape(self._data, shape, copy=False)
    except (ValueError, AttributeError, TypeError):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return view_of(self, data)


def can_view(self, size) -> bool:
    """Whether ``view(size)`` would succeed without a copy (``at::detail::computeStride``)."""
    shape = checks.infer_size(size, math.prod(shape_of(self)))
    try:
        xp_of(self).reshape(self._data, shape, copy=False)
    except (ValueError, AttributeError, TypeError):
        return False
    return True


def _unsafe_view(self, size):
    shape = checks.infer_size(size, math.prod(shape_of(self)))
    return wrap(self, xp_of(self).reshape(self._data, shape))


def expand(self, size, implicit=False):
    size = tuple(int(s) for s in size)
    current = shape_of(self)
    if len(size) < len(current):
        raise RuntimeError(f"expand(torch.{self._dtype.c10_name}Tensor{{{list(current)}}}, size={list(size)}): "
                           "the number of sizes provided "
                           f"({len(size)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(current)})")
    target = _expanded_shape(current, size)
    return view_of(self, xp_of(self).broadcast_to(self._data, target))


def _expanded_shape(current, size):
    offset = len(size) - len(current)
    out = []
    for i, s in enumerate(size):
        existing = current[i - offset] if i >= offset else None
        if existing is None:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   "non-existing dimension 0")
            out.append(s)
        elif s == -1:
            out.append(existing)
        elif existing != s and existing != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size "
                               f"({existing}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                               f"Tensor sizes: {list(current)}")
        else:
            out.append(s)
    return tuple(out)


def unsqueeze(self, dim):
    d = checks.wrap_dim(dim, self._data.ndim + 1)
    return view_of(self, xp_of(self).expand_dims(self._data, axis=d))


def _squeezed(self, dims):
    shape = shape_of(self)
    if not shape:
        return self._data  # a zero-dim tensor has nothing to squeeze
    axes = tuple(d for d in dims if shape[d] == 1)
    return xp_of(self).squeeze(self._data, axis=axes) if axes else self._data


def squeeze(self):
    return view_of(self, _squeezed(self, range(self._data.ndim)))


def squeeze_dim(self, dim):
    return view_of(self, _squeezed(self, (checks.wrap_dim(dim, self._data.ndim),)))


def squeeze_dims(self, dim):
    return view_of(self, _squeezed(self, _reduce_dims(self, dim) if len(dim) else ()))


def _squeeze_inplace(self, data):
    self._data = data
    return self


def squeeze_(self):
    return _squeeze_inplace(self, _squeezed(self, range(self._data.ndim)))


def squeeze_dim_(self, dim):
    return _squeeze_inplace(self, _squeezed(self, (checks.wrap_dim(dim, self._data.ndim),)))


def squeeze_dims_(self, dim):
    return _squeeze_inplace(self, _squeezed(self, _reduce_dims(self, dim) if len(dim) else ()))


def select(self, dim, index):
    ndim = self._data.ndim
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = checks.wrap_dim(dim, ndim)
    size = self._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape_of(self))} at "
                         f"dimension {d}")
    key = (builtins.slice(None),) * d + (index, ...)
    return view_of(self, self._data[key])


def slice(self, dim=0, start=None, end=None, step=1):
    d = checks.wrap_dim(dim, self._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (builtins.slice(None),) * d + (builtins.slice(start, end, step), ...)
    return view_of(self, self._data[key])


def _zeros(like, shape, dtype=None):
    xp = xp_of(like)
    dtype = dtype or like._dtype
    return xp.zeros(tuple(shape), dtype=xp_dtype(xp, dtype), device=like._data.device)


def select_backward(grad_output, input_sizes, dim, index):
    data = _zeros(grad_output, input_sizes)
    d = checks.wrap_dim(dim, len(input_sizes))
    data[(builtins.slice(None),) * d + (index, ...)] = grad_output._data
    return wrap(grad_output, data)


def slice_backward(grad_output, input_sizes, dim, start, end, step):
    data = _zeros(grad_output, input_sizes)
    d = checks.wrap_dim(dim, len(input_sizes))
    data[(builtins.slice(None),) * d + (builtins.slice(start, end, step), ...)] = grad_output._data
    return wrap(grad_output, data)


# ----------------------------------------------------------------------------- indexing


def _index_key(indices):
    return tuple(builtins.slice(None) if i is None else i._data for i in indices)


def _check_indices(self, indices) -> None:
    for i in indices:
        if i is not None and i._dtype not in (st.int64, st.int32, st.bool_, st.uint8, st.int8, st.int16):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def index(self, indices):
    _check_indices(self, indices)
    try:
        data = self._data[_index_key(indices)]
    except IndexError as e:
        raise IndexError(str(e)) from None
    return wrap(self, data)


def _index_put_impl_(self, indices, values, accumulate=False, unsafe=False):
    key = _index_key(indices)
    data = self._data
    if accumulate and hasattr(data, "__array__") and type(data).__module__ == "numpy":
        import numpy as np

        np.add.at(data, key, values._data)
    elif accumulate and type(data).__module__.startswith("cupy"):
        import cupyx

        cupyx.scatter_add(data, key, values._data)
    elif accumulate:
        data[key] = data[key] + values._data
    else:
        data[key] = values._data
    return self


# ----------------------------------------------------------------------------- copies and joins


def clone(self, memory_format=None):
    return wrap(self, xp_of(self).asarray(self._data, copy=True))


def _to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    dtype = dtype or self._dtype
    device = normalize(device) if device is not None else self._device
    target = backend(device)
    data = self._data
    if device != self._device:
        data = target.xp.asarray(to_numpy(data), device=target.array_device(device.index))
    data = target.xp.astype(data, xp_dtype(target.xp, dtype), copy=True)
    return new_tensor(data, dtype, device)


def _join_dtype(tensors):
    return st.result_type(*[(t._dtype, 2) for t in tensors])


def stack(tensors, dim=0):
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = shape_of(tensors[0])
    for i, t in enumerate(tensors):
        if shape_of(t) != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 "
                               f"and {list(shape_of(t))} at entry {i}")
    d = checks.wrap_dim(dim, len(first) + 1)
    dtype = _join_dtype(tensors)
    xp = xp_of(tensors[0])
    dev = common_device(*tensors)
    return new_tensor(xp.stack([cast(t, dtype, xp) for t in tensors], axis=d), dtype, dev)


def cat(tensors, dim=0):
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    ref = next((t for t in tensors if shape_of(t) != (0,)), tensors[0])
    if ref._data.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = checks.wrap_dim(dim, ref._data.ndim)
    parts = [t for t in tensors if shape_of(t) != (0,)]
    for i, t in enumerate(tensors):
        _check_cat_shape(ref, t, d, i)
    dtype = _join_dtype(tensors)
    xp = xp_of(ref)
    dev = common_device(*tensors)
    return new_tensor(xp.concat([cast(t, dtype, xp) for t in parts], axis=d), dtype, dev)


def _check_cat_shape(ref, t, d, i) -> None:
    if shape_of(t) == (0,) and ref is not t:
        return
    if t._data.ndim != ref._data.ndim:
        raise RuntimeError(f"Tensors must have same number of dimensions: got {ref._data.ndim} and "
                           f"{t._data.ndim}")
    for k, (a, b) in enumerate(zip(shape_of(ref), shape_of(t))):
        if k != d and a != b:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} "
                               f"but got size {b} for tensor number {i} in the list.")


def _filled_like(self, value, dtype, device):
    """A new tensor shaped like ``self``, filled with ``value``, on ``device`` (default: ``self``'s)."""
    dtype = dtype or self._dtype
    device = normalize(device) if device is not None else self._device
    target = backend(device)
    data = target.xp.full(shape_of(self), value, dtype=xp_dtype(target.xp, dtype),
                          device=target.array_device(device.index))
    return new_tensor(data, dtype, device)


def zeros_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _filled_like(self, 0, dtype, device)


def ones_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _filled_like(self, 1, dtype, device)
