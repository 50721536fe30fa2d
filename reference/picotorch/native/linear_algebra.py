"""Matrix products: ``mm``, ``mv``, ``dot``, ``addmm``, ``bmm``, ``baddbmm``; ``linalg_vector_norm`` and ``dist`` at
the end.

Models ``aten/src/ATen/native/LinearAlgebra.cpp`` (``mm``, ``addmm``) and its neighbour ``Blas.cpp``
(``mv``, ``dot``). They check the operands' dimensions, shapes and dtypes with PyTorch's messages and
leave the arithmetic to the array library's ``matmul``; they never promote (``float @ double`` is an
error, as in PyTorch). ``matmul`` itself is a composite of these (:mod:`picotorch.native.composite`).
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .binary_ops import sub
from .helpers import (
    cast,
    common_device,
    convert,
    in_float32,
    is_reduced_float,
    matmul,
    np_xp,
    reduce_dims,
    result_type,
    scaled,
    shape_of,
    xp_of,
)
from .layout import row_major
from .resize import check_out_dtype, resize_output
from .tensor_impl import new_tensor
from .tensor_shape import expand, expanded_shape


def mm(self, mat2):
    _check_mm_meta(self, mat2)
    _check_matmul_dtypes(self, mat2)
    _check_not_bool(self, "addmm_impl_cpu_")
    dev = common_device(self, mat2)
    return new_tensor(_product(xp_of(self), self._data, mat2._data, self._dtype), self._dtype, dev)


def bmm(self, mat2):
    """A batch of matrix products: (b, n, m) @ (b, m, p) -> (b, n, p)."""
    _check_bmm_meta(self, mat2)
    _check_not_bool(self, "bmm")
    if mat2._dtype is not self._dtype:  # bmm's kernel reads mat2 as self's dtype, and says so
        raise RuntimeError(f"expected scalar type {self._dtype.c10_name} but found {mat2._dtype.c10_name}")
    return new_tensor(_product(xp_of(self), self._data, mat2._data, self._dtype), self._dtype,
                      common_device(self, mat2))


def _check_mm_meta(self, mat2) -> None:
    if self._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm_shapes(self, mat2)


def _check_bmm_meta(self, mat2) -> None:
    if self._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b, _, m), (b2, m2, _) = self._data.shape, mat2._data.shape
    if (b2, m2) != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] "
                           f"but got: [{b2}, {m2}].")


def mm_out_checks(self, mat2, out) -> None:
    """``mm.out``'s meta function: the shapes, then ``out``'s dtype checked and ``out`` resized, before the
    kernel's own checks (the two dtypes agree, not bool) and the product."""
    _check_mm_meta(self, mat2)
    check_out_dtype("mm.out", self._dtype, out)
    resize_output(out, (self._data.shape[0], mat2._data.shape[1]))


def bmm_out_checks(self, mat2, out) -> None:
    """``bmm.out``'s meta function, as ``mm_out_checks`` (the output's dtype is ``mat2``'s)."""
    _check_bmm_meta(self, mat2)
    check_out_dtype("bmm.out", mat2._dtype, out)  # (bmm's output takes batch2's options)
    resize_output(out, tuple(self._data.shape[:2]) + (mat2._data.shape[2],))


def _check_not_bool(t, kernel) -> None:
    """The CPU gemm / gemv / dot kernels are dispatched for numbers, not for bool."""
    if t._dtype is st.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_mm_shapes(m1, m2) -> None:
    (a, b), (c, d) = m1._data.shape, m2._data.shape
    if b != c:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})")


def mv(self, vec):
    """``at::addmv_`` into ``empty({self.size(0)}, vec.options())``: that size is asked first (a zero-dim
    ``self`` fails there), and the output, of ``vec``'s dtype, is addmv's ``self`` in its messages."""
    if self._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if self._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self._data.ndim}, {vec._data.ndim}")
    if self._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self._data.shape[0]}), mat ({self._data.shape[0]}x"
                           f"{self._data.shape[1]}), vec ({vec._data.shape[0]})")
    if self._dtype is not vec._dtype:
        names = (vec._dtype.c10_name, self._dtype.c10_name, vec._dtype.c10_name)
        raise RuntimeError("addmv input tensors must have the same dtype, but got {}, {}, and {}".format(*names))
    _check_not_bool(self, "addmv_impl_cpu")
    return new_tensor(_product(xp_of(self), self._data, vec._data, self._dtype), self._dtype,
                      common_device(self, vec))


def dot(self, tensor):
    return _dot(self, tensor, False)


def vdot(self, other):
    """``dot`` of ``self``'s conjugate, with dot's checks and texts, as PyTorch's CPU kernel."""
    return _dot(self, other, True)


def _dot(self, tensor, conjugate):
    if self._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and {tensor._data.ndim}D tensors")
    if self._dtype is not tensor._dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{self._dtype.c10_name} and {tensor._dtype.c10_name}")
    n, m = self._data.shape[0], tensor._data.shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the "
                           f"same number of elements, but got {n} and {m} elements respectively")
    _check_not_bool(self, "dot")
    xp = xp_of(self)
    if is_reduced_float(self._dtype):
        data = convert(xp, xp.asarray(xp.vecdot(in_float32(xp, self._data), in_float32(xp, tensor._data))),
                       self._dtype)
    else:
        # vecdot conjugates its first operand, which ``dot`` must undo
        first = xp.conj(self._data) if self._dtype.is_complex and not conjugate else self._data
        data = xp.asarray(xp.vecdot(first, tensor._data))
    return new_tensor(data, self._dtype, common_device(self, tensor))


def addmm(self, mat1, mat2, beta=1, alpha=1):
    _check_addmm_dtypes(self, mat1, mat2)
    if mat1._data.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2._data.ndim}-D tensor")
    _check_mm_shapes(mat1, mat2)
    _check_not_bool(mat1, "addmm_impl_cpu_")
    xp = xp_of(mat1)
    reduced = is_reduced_float(mat1._dtype)
    if mat1._data.shape[1] == 0 or (alpha == 0 and not reduced):
        return _addmm_without_product(self, mat1, mat2, beta, xp)
    if reduced:
        return _addmm_reduced_float(self, mat1, mat2, beta, alpha, xp)
    product = matmul(xp, mat1._data, mat2._data)
    _check_addmm_out_shape(self, tuple(product.shape))
    if beta == 0:  # NOTE [addmm's beta and alpha of 0]
        data = xp.asarray(scaled(xp, product, alpha))
    elif xp is np_xp and alpha == 1:
        data = np.add(product, scaled(xp, cast(self, mat1._dtype, xp), beta), out=product)  # in place: one array fewer
    else:
        data = xp.asarray(scaled(xp, product, alpha) + scaled(xp, cast(self, mat1._dtype, xp), beta))
    return new_tensor(data, mat1._dtype, common_device(self, mat1, mat2))


# NOTE [addmm's beta and alpha of 0]
# BLAS's gemm computes ``alpha * (mat1 @ mat2) + beta * self`` and reads neither operand whose factor is 0:
# with ``beta=0`` a NaN in ``self`` does not reach the result, with ``alpha=0`` (float32 / float64) a NaN in the
# matrices does not either. An empty inner dimension (k = 0) never calls gemm: the result is ``beta * self``
# (its -0. kept), or zeros for ``beta=0``. PyTorch's float16 / bfloat16 gemm does read the matrices at ``alpha=0``.
def _addmm_without_product(self, mat1, mat2, beta, xp):
    shape = (mat1._data.shape[0], mat2._data.shape[1])
    _check_addmm_out_shape(self, shape)
    if beta == 0:
        data = xp.zeros(shape, dtype=mat1._data.dtype, device=mat1._data.device)
    else:
        bias = xp.broadcast_to(scaled(xp, cast(self, mat1._dtype, xp), beta), shape)
        data = xp.reshape(xp.asarray(xp.reshape(bias, (-1,)), copy=True), shape)  # a contiguous copy, -0. kept
    return new_tensor(data, mat1._dtype, common_device(self, mat1, mat2))


def _check_addmm_out_shape(self, out_shape) -> None:
    """``self`` is expanded to the product's shape first: ``expand``'s errors (the last dim that does not fit)."""
    shape = self._data.shape
    if shape == out_shape or shape == out_shape[1:]:
        return  # a Linear's bias (a row of the product's width) or a whole matrix: expands as it is
    expanded_shape(self, out_shape)  # the check alone: the view it would make is not used


# NOTE [float16 and bfloat16 matrix products]
# PyTorch's CPU gemm for float16 / bfloat16 multiplies and accumulates in float32 and rounds each
# output once; ``addmm`` first copies the bias into the output and lets gemm compute
# ``alpha * product + beta * bias`` in float32, so the bias is added before that one rounding.
# NumPy's own float16 matmul rounds every partial sum (and ml_dtypes' bfloat16 one is slow), so these
# kernels widen to float32, compute, and round once.
def _product(xp, a, b, dtype):
    if not is_reduced_float(dtype):
        return matmul(xp, a, b)
    return convert(xp, matmul(xp, in_float32(xp, a), in_float32(xp, b)), dtype)


def _addmm_reduced_float(self, mat1, mat2, beta, alpha, xp):
    product = matmul(xp, in_float32(xp, mat1._data), in_float32(xp, mat2._data))
    _check_addmm_out_shape(self, tuple(product.shape))
    data = scaled(xp, product, alpha)
    if beta != 0:  # NOTE [addmm's beta and alpha of 0]
        data = data + scaled(xp, in_float32(xp, cast(self, mat1._dtype, xp)), beta)
    data = convert(xp, xp.asarray(data), mat1._dtype)
    return new_tensor(data, mat1._dtype, common_device(self, mat1, mat2))


def _check_addmm_dtypes(self, mat1, mat2) -> None:
    """addmm's meta function checks dtypes before anything else (``nn.Linear`` on float64 input lands here)."""
    for name, t in (("self", self), ("mat1", mat1)):
        if t._dtype is not mat2._dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {t._dtype.c10_name} and "
                               f"{mat2._dtype.c10_name}")


def _check_matmul_dtypes(a, b, what="m1 and m2") -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected {what} to have the same dtype, but got: "
                           f"{_cpp_name(a._dtype)} != {_cpp_name(b._dtype)}")


def _cpp_name(dtype) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}[dtype.name]


# ----------------------------------------------------------------------------- linalg_vector_norm
# ``(sum |x|^ord)^(1/ord)`` over some dims (all by default): ord 0 counts the nonzero elements, inf and
# -inf take the largest and smallest |x|. torch.norm and Tensor.norm land here for a numeric p.


def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None):
    if not self._dtype.is_floating_point:
        if not self._dtype.is_complex:
            raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                               f"Got {self._dtype.c10_name}")
        return _complex_vector_norm(self, ord, dim, keepdim, dtype)
    ord = float(ord)
    axes = reduce_dims(self, dim)
    if self._data.size == 0 and (ord < 0 or ord == math.inf):
        _check_norm_identity(self, ord, dim)
    if dtype is not None and dtype.is_complex != self._dtype.is_complex:
        kind = "complex for complex" if self._dtype.is_complex else "real for real"
        raise RuntimeError(f"linalg.vector_norm: dtype should be {kind} inputs, but got {dtype.c10_name}")
    out_dtype = dtype or self._dtype
    xp = xp_of(self)
    if out_dtype.is_complex:  # the norm of complex numbers is real: of their moduli
        data = xp.astype(xp.abs(cast(self, out_dtype, xp)), xp.float64)  # |z| in its precision: max(|z|) is abs's
        out_dtype = out_dtype.to_real()
    else:
        data = xp.abs(xp.astype(cast(self, out_dtype, xp), xp.float64))
    out = _vector_norm(xp, data, ord, axes, keepdim)
    # float16: via float32
    return new_tensor(row_major(convert(xp, xp.asarray(out), out_dtype)), out_dtype, self._device)


def _complex_vector_norm(self, ord, dim, keepdim, dtype):
    """The norm of the magnitudes, a real tensor of the parts' dtype (a ``dtype`` asked for must be complex)."""
    if dtype is not None and not dtype.is_complex:
        raise RuntimeError(f"linalg.vector_norm: dtype should be complex for complex inputs, but got {dtype.c10_name}")
    ord = float(ord)
    axes = reduce_dims(self, dim)
    if self._data.size == 0 and (ord < 0 or ord == math.inf):
        _check_norm_identity(self, ord, dim)
    out_dtype = (dtype or self._dtype).to_real()
    xp = xp_of(self)
    # max / min pick one magnitude: in the tensor's own precision, so that backward finds it among abs(self)
    wide = self._data if math.isinf(ord) else xp.astype(self._data, xp.complex128)
    out = _vector_norm(xp, xp.abs(wide), ord, axes, keepdim)
    return new_tensor(row_major(convert(xp, xp.asarray(out), out_dtype)), out_dtype, self._device)


def _vector_norm(xp, data, ord, axes, keepdim):
    if ord == math.inf:
        return xp.max(data, axis=axes, keepdims=keepdim)
    if ord == -math.inf:
        return xp.min(data, axis=axes, keepdims=keepdim)
    if ord == 0:
        return xp.sum(xp.astype(data != 0, xp.float64), axis=axes, keepdims=keepdim)
    if ord == 1:
        return xp.sum(data, axis=axes, keepdims=keepdim)
    if ord == 2:
        return xp.sqrt(xp.sum(data * data, axis=axes, keepdims=keepdim))
    with np.errstate(divide="ignore"):  # 0 ** negative is inf, as in PyTorch
        return xp.pow(xp.sum(xp.pow(data, ord), axis=axes, keepdims=keepdim), 1 / ord)


def _check_norm_identity(self, ord, dim):
    """max and min (and a negative power of 0) have no value on nothing: each reduced dim must have elements."""
    dims = () if dim is None else tuple(dim)
    if not dims:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because the "
                           "operation does not have an identity")
    for d in dims:
        if self._data.shape[d] == 0:  # PyTorch's message has no space before "because"
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on the dimension {d}because "
                               "this dimension is empty and the operation does not have an identity")


# ----------------------------------------------------------------------------- baddbmm (indexing group, issue 10)


def baddbmm(self, batch1, batch2, beta=1, alpha=1):
    """``beta * self + alpha * (batch1 @ batch2)``, ``self`` broadcast to the output; ``beta == 0`` ignores ``self``
    (its NaNs too). The meta function's order: expand ``self``, compare dtypes, then the batches' shapes."""
    target = (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2))
    if shape_of(self) != target:
        self = expand(self, target)
    if self._dtype is not batch1._dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cpp_name(self._dtype)}, batch1: "
                           f"{_cpp_name(batch1._dtype)}, batch2: {_cpp_name(batch2._dtype)}")
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (b, _, m), (b2, m2, _) = batch1._data.shape, batch2._data.shape
    if (b2, m2) != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] "
                           f"but got: [{b2}, {m2}].")
    if batch2._dtype is not batch1._dtype:
        raise RuntimeError(f"expected scalar type {batch1._dtype.c10_name} but found {batch2._dtype.c10_name}")
    if batch1._dtype is st.bool_:
        raise NotImplementedError("\"baddbmm\" not implemented for 'Bool'")
    xp = xp_of(batch1)
    reduced = is_reduced_float(batch1._dtype)  # float32 products and sums, rounded once (NOTE above)
    product = matmul(xp, *[in_float32(xp, t._data) if reduced else t._data for t in (batch1, batch2)])
    beta, alpha = _scalars_as(batch1._dtype, beta, alpha)
    data = scaled(xp, product, alpha)
    if beta != 0:
        data = data + scaled(xp, in_float32(xp, self._data) if reduced else self._data, beta)
    data = convert(xp, xp.asarray(data), batch1._dtype) if reduced else xp.asarray(data)
    return new_tensor(data, batch1._dtype, common_device(self, batch1, batch2))


def _size(t, dim):
    """``t.size(dim)`` with PyTorch's check of the dim."""
    return t._data.shape[checks.wrap_dim(dim, t._data.ndim)] if t._data.ndim else 1


def baddbmm_(self, batch1, batch2, beta=1, alpha=1):
    result = baddbmm(self, batch1, batch2, beta, alpha)
    if shape_of(result) != shape_of(self):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(shape_of(self))} and output tensor size "
                           f"{list(shape_of(result))} should match")
    self._data[...] = result._data
    return self


# ----------------------------------------------------------------------------- dist
# ``dist(a, b, p)`` is the p-norm of ``a - b`` (broadcast, promoted), with ``norm``'s own dtype check; its
# backward (``DistBackward0``) is ``norm_backward`` of that difference.


def dist(self, other, p=2):
    difference = sub(self, other)
    if not (difference._dtype.is_floating_point or difference._dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {difference._dtype.c10_name} instead.")
    return linalg_vector_norm(difference, p)


def norm_scalar(self, p=2):
    """``at::norm(self, p)``: the vector norm of all elements, recorded as ``NormBackward0``."""
    _check_norm_dtype(self)
    return linalg_vector_norm(self, 2 if p is None else p)


def norm_scalaropt_dim(self, p, dim, keepdim=False):
    """``at::norm(self, p, dim, keepdim)`` (what ``pairwise_distance`` calls): ``NormBackward1``."""
    _check_norm_dtype(self)
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim)


def _check_norm_dtype(self) -> None:
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{self._dtype.c10_name} instead.")
# ----------------------------------------------------------------------------- ops batch 8: vdot, addmv, addr, addbmm
# ``beta * self + alpha * product``, ``self`` broadcast to the product's shape; ``beta == 0`` ignores ``self`` (its NaNs
# too), as ``addmm`` does.


def _scalars_as(dtype, *values):
    """``beta`` and ``alpha`` as the kernel's scalar type reads them: complex, float or int."""
    kind = complex if dtype.is_complex else float if dtype.is_floating_point else int
    return tuple(kind(v) for v in values)


def _beta_self_plus_alpha(self, product, dtype, beta, alpha, devices):
    """``beta * self + alpha * product`` in ``dtype`` (``product`` computed in float32 for float16/bfloat16)."""
    xp = xp_of(product)
    shape = tuple(product._data.shape)
    if shape_of(self) != shape:
        self = expand(self, shape)
    beta, alpha = _scalars_as(dtype, beta, alpha)
    data = scaled(xp, in_float32(xp, product._data) if is_reduced_float(dtype) else product._data, alpha)
    if beta != 0:
        data = data + scaled(xp, in_float32(xp, self._data) if is_reduced_float(dtype) else cast(self, dtype, xp), beta)
    return new_tensor(convert(xp, xp.asarray(data), dtype), dtype, common_device(*devices))


def addmv(self, mat, vec, beta=1, alpha=1):
    if not (mat._data.ndim == 2 and vec._data.ndim == 1 and self._data.ndim <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {self._data.ndim}, {mat._data.ndim}, "
                           f"{vec._data.ndim}")
    n, m = mat._data.shape
    if m != vec._data.shape[0] or (n != self.numel() and self.numel() != 1):
        raise RuntimeError(f"size mismatch, got input ({_size(self, 0) if self._data.ndim else 1}), mat ({n}x{m}), "
                           f"vec ({vec._data.shape[0]})")
    if not (self._dtype is mat._dtype is vec._dtype):
        names = (self._dtype.c10_name, mat._dtype.c10_name, vec._dtype.c10_name)
        raise RuntimeError("addmv input tensors must have the same dtype, but got {}, {}, and {}".format(*names))
    _check_not_bool(mat, "addmv_impl_cpu")
    product = new_tensor(_product(xp_of(mat), mat._data, vec._data, mat._dtype), mat._dtype, mat._device)
    return _beta_self_plus_alpha(self, product, mat._dtype, beta, alpha, (self, mat, vec))


def addr(self, vec1, vec2, beta=1, alpha=1):
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    dtype = result_type(self, vec1, vec2)
    xp = xp_of(vec1)
    outer = xp.multiply(xp.reshape(cast(vec1, dtype, xp), (-1, 1)), xp.reshape(cast(vec2, dtype, xp), (1, -1)))
    product = new_tensor(outer, dtype, vec1._device)
    return _beta_self_plus_alpha(self, product, dtype, beta, alpha, (self, vec1, vec2))


def addbmm(self, batch1, batch2, beta=1, alpha=1):
    """``addmm_`` of each batch's product into ``self`` expanded to the product's shape, first of all."""
    target = (_size(batch1, 1), _size(batch2, 2))
    if shape_of(self) != target:
        self = expand(self, target)
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (b, n, m), (b2, m2, p) = batch1._data.shape, batch2._data.shape
    if b != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if m != m2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    if self._dtype is not batch2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {self._dtype.c10_name} and "
                           f"{batch2._dtype.c10_name}")
    _check_matmul_dtypes(batch1, batch2)
    _check_not_bool(batch1, "addbmm")
    xp = xp_of(batch1)
    reduced = is_reduced_float(batch1._dtype)
    summed = xp.sum(matmul(xp, *[in_float32(xp, t._data) if reduced else t._data for t in (batch1, batch2)]), axis=0)
    product = new_tensor(convert(xp, summed, batch1._dtype) if reduced else summed, batch1._dtype, batch1._device)
    return _beta_self_plus_alpha(self, product, batch1._dtype, beta, alpha, (self, batch1, batch2))


def _written_into(self, result, name):
    if shape_of(result) != shape_of(self):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(shape_of(self))} and output tensor size "
                           f"{list(shape_of(result))} should match")
    self._data[...] = convert(xp_of(self), result._data, self._dtype)
    return self


def addmv_(self, mat, vec, beta=1, alpha=1):
    return _written_into(self, addmv(self, mat, vec, beta, alpha), "addmv")


def addr_(self, vec1, vec2, beta=1, alpha=1):
    """``addr_out(self, self, ...)``: ``self`` must already be the outer product's matrix."""
    if self._data.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self._data.ndim}D tensor for input")
    shape = (_size(vec1, 0), _size(vec2, 0))
    if vec1._data.ndim == 1 and vec2._data.ndim == 1 and shape_of(self) != shape:
        raise RuntimeError(f"size mismatch, input: {list(shape_of(self))}, v1: {list(shape_of(vec1))}, "
                           f"v2: {list(shape_of(vec2))}")
    return _written_into(self, addr(self, vec1, vec2, beta, alpha), "addr")


def addbmm_(self, batch1, batch2, beta=1, alpha=1):
    return _written_into(self, addbmm(self, batch1, batch2, beta, alpha), "addbmm")


def addmm_(self, mat1, mat2, beta=1, alpha=1):
    return _written_into(self, addmm(self, mat1, mat2, beta, alpha), "addmm")


# ----------------------------------------------------------------------------- linalg_cross (Cross.cpp)


def linalg_cross(self, other, dim=-1):
    """The cross product of 3-vectors along ``dim``, the other dims broadcast."""
    if self._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if self._dtype is not other._dtype:
        raise RuntimeError(f"expected scalar type {self._dtype.c10_name} but found {other._dtype.c10_name}")
    d = checks.wrap_dim(dim, self._data.ndim)
    if self._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{self._data.shape[d]} and {other._data.shape[d]}")
    dtype = result_type(self, other)
    if dtype is st.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    xp = xp_of(self)
    a, b = np.asarray(cast(self, dtype, xp)), np.asarray(cast(other, dtype, xp))
    shape = np.broadcast_shapes(a.shape, b.shape)
    data = np.ascontiguousarray(np.cross(np.broadcast_to(a, shape), np.broadcast_to(b, shape), axis=d))
    return new_tensor(xp.asarray(data, dtype=data.dtype), dtype, common_device(self, other))
