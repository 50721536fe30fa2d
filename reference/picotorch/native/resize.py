"""Writing a result into a caller's ``out=`` tensor: resize it if needed, check the dtype, copy.

Models ``aten/src/ATen/native/Resize.cpp`` (``resize_output``) and the output checks of the ``*_out``
kernels. In PyTorch each out= overload (``add.out``, ``sum.IntList_out``) has a kernel of its own that
computes straight into ``out``; picotorch's out= overloads compute the functional result and write it
here (``write_out``), with PyTorch's rules:

- an ``out`` of another shape is resized; if it had elements, with the deprecation ``UserWarning``;
- the result's dtype must fit ``out``'s, by the rule of the op's kernel family (:data:`OUT_DTYPE_CHECKS`):
  TensorIterator ops cast when ``can_cast`` allows it, matmul-like ops and ``argmax`` want the exact dtype,
  ``cat`` and ``stack`` raise a ``TypeError``;
- the generated wrapper then bumps ``out``'s version and returns ``out`` itself.
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np

from ..c10 import scalar_type as st
from .checks import check_same_device
from .helpers import (
    convert,
    placed_view,
    shape_of,
    storage_array,
    storage_bytes,
    storage_offset,
    xp_of,
    zeros_array,
)


def write_out(out, result, overload: str) -> None:
    """Check ``result`` against ``out`` as the kernel of ``overload`` (``add.out``) does, then copy it in."""
    check_same_device(out, result)  # TensorIterator's check, outputs first (not measured: no GPU here)
    if overload in _RESIZED_FIRST:
        resize_output(out, tuple(result._data.shape))
    check_out_dtype(overload, result._dtype, out)
    if overload in RESIZED_SILENTLY:
        if shape_of(out) != tuple(result._data.shape):
            out._data = zeros_array(out, tuple(result._data.shape))
    else:
        twice = result._dtype is not out._dtype and overload in _COMPUTED_IN_A_TEMPORARY
        resize_output(out, tuple(result._data.shape), twice)
    with np.errstate(over="ignore", invalid="ignore"):  # a cast out of range is inf (or wraps), quietly, as in C++
        out._data[...] = convert(xp_of(out), result._data, out._dtype)


def check_out_dtype(overload: str, dtype, out) -> None:
    """The dtype check of ``overload``'s out= kernel, for a result of ``dtype``."""
    OUT_DTYPE_CHECKS.get(overload, _castable)(dtype, out._dtype)


def dot_out_checks(self, tensor, out) -> None:
    """``dot_out``: ``out`` made zero-dim, then its dtype checked, before the product (and its checks)."""
    check_same_device(out, self, tensor)
    resize_output(out, ())
    _dot(self._dtype, out._dtype)


def mv_out_checks(self, vec, out) -> None:
    """``mv_out`` is ``addmv_out(out, input, self, vec, 0, 1)``, whose meta function checks the vector added
    (``input``) before anything is computed, then its kernel the three dtypes: ``input`` is ``out`` itself when
    it can be that vector (one dim at most, of the product's size or of one element), else a new vector of
    ``self``'s rows in ``vec``'s dtype; then ``out``'s own dtype is checked and ``out`` resized, before the
    kernel (which refuses bool) runs."""
    if out._data.ndim > 1 or out._data.size not in (_size_0(self), 1):
        added, added_dtype = (_size_0(self),), vec._dtype
    else:
        added, added_dtype = tuple(out._data.shape), out._dtype
    if not (self._data.ndim == 2 and vec._data.ndim == 1 and len(added) <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {len(added)}, {self._data.ndim}, "
                           f"{vec._data.ndim}")
    rows, cols = self._data.shape
    if cols != vec._data.shape[0] or (rows != math.prod(added) and math.prod(added) != 1):
        if not added:  # the message asks for the size of its dim 0
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"size mismatch, got input ({added[0]}), mat ({rows}x{cols}), vec ({vec._data.shape[0]})")
    if not (added_dtype is self._dtype and self._dtype is vec._dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {added_dtype.c10_name}, "
                           f"{self._dtype.c10_name}, and {vec._dtype.c10_name}")
    check_out_dtype("mm.out", vec._dtype, out)  # (the output takes vec's options; then it is resized)
    resize_output(out, (rows,))


def _size_0(t) -> int:
    if not t._data.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return t._data.shape[0]


# out= kernels that call ``result.resize_(...)`` themselves rather than ``resize_output``: no deprecation warning
RESIZED_SILENTLY = frozenset({"eye.out", "eye.m_out", "multinomial.out", "normal.float_float_out"})


def resize_output(out, shape: tuple, twice: bool = False) -> bool:
    """``at::native::resize_output``: give ``out`` the result's shape; True if it changed. Resizing an out
    that had elements is deprecated: PyTorch warns (and will one day refuse). ``twice``: a structured
    TensorIterator kernel computing into a temporary of another dtype resizes ``out`` twice, and warns twice."""
    if shape_of(out) == shape:
        return False
    for _ in range(2 if twice and out._data.size else 1 if out._data.size else 0):
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {list(shape_of(out))}, which does "
            f"not match the required output shape {list(shape)}. This behavior is deprecated, and in a future "
            "PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse "
            "an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)", UserWarning, stacklevel=_caller_level())
    out._data = zeros_array(out, shape)
    return True


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside picotorch, from ``resize_output``'s: the user's call,
    which C++'s warnings name too (the Python line that called into the extension)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == _PACKAGE:
        frame, level = frame.f_back, level + 1
    return level


_PACKAGE = __name__.split(".")[0]


# The structured TensorIterator out= kernels (``structured_inherits: TensorIteratorBase``) and the composites that
# call them: an out of a dtype other than the computed one is resized twice (measured on PyTorch 2.13).
_COMPUTED_IN_A_TEMPORARY = frozenset("""
add.out sub.out mul.out div.out div.out_mode reciprocal.out pow.Tensor_Tensor_out pow.Tensor_Scalar_out
exp.out log.out sigmoid.out tanh.out rsqrt.out exp2.out expm1.out log2.out log10.out log1p.out sin.out cos.out
maximum.out minimum.out remainder.Scalar_out remainder.Tensor_out bitwise_and.Scalar_out bitwise_and.Tensor_out
bitwise_or.Scalar_out bitwise_or.Tensor_out bitwise_xor.Scalar_out bitwise_xor.Tensor_out sqrt.out addcmul.out
addcdiv.out gelu.out silu.out softplus.out leaky_relu.out elu.out atan2.out arctan2.out lerp.Scalar_out lerp.Tensor_out
tan.out asin.out acos.out atan.out sinh.out cosh.out asinh.out acosh.out atanh.out erf.out erfc.out erfinv.out sinc.out
lgamma.out digamma.out hypot.out logaddexp.out logaddexp2.out xlogy.OutTensor fmin.out fmax.out copysign.out square.out
arcsin.out arccos.out arctan.out arcsinh.out arccosh.out arctanh.out divide.out divide.out_mode true_divide.out
multiply.out subtract.out bitwise_left_shift.Tensor_out bitwise_left_shift.Tensor_Scalar_out
bitwise_right_shift.Tensor_out bitwise_right_shift.Tensor_Scalar_out
""".split())


# out= kernels that resize ``out`` before they check its dtype (its warning comes before the error).
_RESIZED_FIRST = frozenset({"mean.out", "pow.Scalar_out", "dot.out"})


# ---- the dtype checks of the out= kernels, by family


def _castable(result, out) -> None:
    """TensorIterator (``structured_inherits: TensorIteratorBase``) and reductions: compute in the result's
    dtype, cast into out's, if ``can_cast`` allows (float64 into float32 yes, float into an integer no)."""
    if not st.can_cast(result, out):
        raise RuntimeError(f"result type {result.c10_name} can't be cast to the desired output type {out.c10_name}")


def _exact_type_meta(result, out) -> None:
    """``mm_out``, ``bmm_out``, ``argmax_out``, ``gather_out``...: out must have the result's dtype (C++ names)."""
    if result != out:
        raise RuntimeError(f"Expected out tensor to have dtype {_TYPE_META[result.name]}, but got "
                           f"{_TYPE_META[out.name]} instead")


def _exact_found(result, out) -> None:
    """``abs``, ``sign``, ``clamp``: out must have the result's dtype."""
    if result != out:
        raise RuntimeError(f"Found dtype {out.c10_name} but expected {result.c10_name}")


def _exact_where(result, out) -> None:
    if result != out:
        raise RuntimeError(f"Expected out type to be {result.c10_name} but got {out.c10_name}")


def _castable_cat(result, out) -> None:
    """``cat_out`` (and ``stack``, which calls it): a ``TORCH_CHECK_TYPE``, so a TypeError."""
    if not st.can_cast(result, out):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {out.c10_name}")


def _same_as_input(result, out) -> None:
    """``amax_out``, ``amin_out``: the input's dtype (the result's) and out's must be one."""
    if result != out:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {result.c10_name} for input's "
                           f"dtype and {out.c10_name} for out's dtype.")


def _index_select(result, out) -> None:
    if result != out:
        raise RuntimeError("index_select(): self and result must have the same scalar type")


def _dot(result, out) -> None:
    if result != out:
        raise RuntimeError(f"result dtype {out.c10_name} does not match input dtype {result.c10_name}")


def _mv(result, out) -> None:
    """``mv`` is ``addmv`` with out as its input: the three dtypes (out, matrix, vector) must agree."""
    if result != out:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {out.c10_name}, "
                           f"{result.c10_name}, and {result.c10_name}")


def _floating_result(result, out) -> None:
    """``logsumexp_out``: a floating out, into which the result is cast."""
    if not out.is_floating_point:
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: {out.c10_name}")
    _castable(result, out)


def _can_cast_check(result, out) -> None:
    """``max_unary_out``, ``min_unary_out``: a bare ``TORCH_CHECK(canCast(...))``, whose message is its condition."""
    if not st.can_cast(result, out):
        raise RuntimeError("Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
                           "to be true, but got false.  (Could this error message be improved?  If so, please report "
                           "an enhancement request to PyTorch.)")


def _mean_all(result, out) -> None:
    if not st.can_cast(result, out):
        raise RuntimeError(f"mean.dtype_out(): input types can't be cast to the desired output type {out.c10_name}")


def _bool_result(name: str):
    """``all_out``, ``any_out``: a bool or uint8 out, whatever the input's dtype."""
    def check(result, out) -> None:
        if out not in (st.bool_, st.uint8):
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {out.c10_name}")
    return check


def _searchsorted_out(result, out) -> None:
    """``searchsorted_out``: exactly int32 with ``out_int32`` (then the result is int32), int64 without."""
    if out is not result:
        raise RuntimeError("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                           "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's dtype "
                           f"{out.c10_name} and out_int32 flag is {result is st.int32}")


def _isin_out(result, out) -> None:
    if out is not st.bool_:
        raise RuntimeError(f"Expected out tensor to have dtype bool, but got {_TYPE_META[out.name]} instead")


def _structured_same(result, out) -> None:
    """A structured kernel's ``set_output``: exactly the result's dtype, named by its C++ type."""
    if out is not result:
        raise RuntimeError(f"Expected out tensor to have dtype {_TYPE_META[result.name]}, but got "
                           f"{_TYPE_META[out.name]} instead")


def _scalar_type_found(result, out) -> None:
    """``logcumsumexp_out``'s ``check_scalar_type``."""
    if out is not result:
        raise RuntimeError(f"expected scalar_type {result.c10_name} but found {out.c10_name}")


def _quantile_out(result, out) -> None:
    if out is not result:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")


def _bool_only(name: str):
    def check(result, out) -> None:
        if out is not st.bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return check


def _histc_out(result, out) -> None:
    if out is not result:
        raise RuntimeError("torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
                           f"{_TYPE_META[result.name]} and hist {_TYPE_META[out.name]}")


_TYPE_META = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}

def _frexp_out(result, out) -> None:
    """``frexp_out``: the mantissa in ``self``'s dtype, the exponent int32, exactly."""
    if result is st.int32 and out is not st.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got {_TYPE_META[out.name]}")
    if result is not st.int32 and result != out:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {_TYPE_META[result.name]} but got "
                           f"{_TYPE_META[out.name]}")


# Each op whose out= kernel checks the dtype otherwise than TensorIterator (``_castable``, the default),
# as measured on PyTorch 2.13.
OUT_DTYPE_CHECKS = {
    **dict.fromkeys(("mm.out", "bmm.out", "matmul.out", "addmm.out", "baddbmm.out", "argmax.out", "argmin.out",
                     "gather.out", "scatter.src_out", "scatter.value_out", "scatter_add.out", "index_add.out",
                     "sort.values", "sort.values_stable", "topk.values", "max.dim_max", "min.dim_min",
                     "softmax.int_out", "log_softmax.int_out", "argsort.stable_out", "sum.IntList_out",
                     "aminmax.out", "linalg_vector_norm.out"),
                    _exact_type_meta),
    **dict.fromkeys(("max.unary_out", "min.unary_out"), _can_cast_check),
    "mean.dtype_out": _mean_all,
    **dict.fromkeys(("abs.out", "sign.out", "clamp.out", "clamp_min.out", "clamp_max.out", "bitwise_not.out",
                     "neg.out", "round.out", "floor.out", "ceil.out", "trunc.out", "frac.out"), _exact_found),
    **dict.fromkeys(("cat.out", "stack.out"), _castable_cat),
    **dict.fromkeys(("amax.out", "amin.out"), _same_as_input),
    "where.self_out": _exact_where, "index_select.out": _index_select, "dot.out": _dot, "mv.out": _mv,
    "logsumexp.out": _floating_result,
    **{f"{name}.{overload}": _bool_result(name) for name in ("all", "any")
       for overload in ("out", "dims_out", "all_out")},
    **dict.fromkeys(("searchsorted.Tensor_out", "bucketize.Tensor_out"), _searchsorted_out),
    **dict.fromkeys(("isin.Tensor_Tensor_out", "isin.Tensor_Scalar_out", "isin.Scalar_Tensor_out"), _isin_out),
    "isposinf.out": _bool_only("isposinf"), "isneginf.out": _bool_only("isneginf"), "histc.out": _histc_out,
    **dict.fromkeys(("renorm.out", "scatter_reduce.two_out", "index_reduce.out", "matrix_power.out"),
                    _structured_same),
    "logcumsumexp.out": _scalar_type_found,
    "frexp.Tensor_out": _frexp_out,
    **dict.fromkeys(("quantile.out", "quantile.scalar_out", "nanquantile.out", "nanquantile.scalar_out"),
                    _quantile_out),
}


# ----------------------------------------------------------------------------- resize_, resize_as_ (Resize.cpp),
# is_pinned, pin_memory (Memory.cpp)


def resize_(self, size, memory_format=None):
    """``self`` row-major with ``size``, at its storage offset; a storage too small grows (its bytes kept, the new
    ones zeros where PyTorch's are uninitialized). Another tensor over the old storage keeps the old one: picotorch
    has no storage object to swap the memory under both."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    size = tuple(size)
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    if size == shape_of(self):  # nothing to do: the strides stay, and so does the version
        return self
    self._version_counter.bump()
    itemsize, offset = self._dtype.itemsize, storage_offset(self)
    if not isinstance(self._data, np.ndarray):  # another device's array: a new one, the old elements first
        flat = xp_of(self).reshape(self._data, (-1,))
        data = zeros_array(self, (math.prod(size),))
        count = min(flat.shape[0], data.shape[0])
        data[:count] = flat[:count]
        self._data = xp_of(self).reshape(data, size)
        return self
    storage = storage_array(self)
    needed = (offset + math.prod(size)) * itemsize
    if needed > storage.nbytes:
        grown = np.zeros(needed, np.uint8)
        grown[:storage.nbytes] = storage_bytes(storage)
        storage = grown
    strides, step = [], itemsize
    for s in reversed(size):
        strides.insert(0, step)
        step *= max(s, 1)
    self._data = placed_view(storage, offset * itemsize, size, strides, self._data.dtype)
    return self


def resize_as_(self, the_template, memory_format=None):
    return resize_(self, shape_of(the_template), memory_format)


def is_pinned(self, device=None):
    """A CPU tensor without an accelerator is never pinned; naming a device is deprecated."""
    if device is not None:
        warnings.warn("The argument 'device' of Tensor.is_pinned() is deprecated. Please do not pass this argument. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Memory.cpp:31.)",
                      DeprecationWarning, stacklevel=_caller_level())
    return False


def pin_memory(self, device=None):
    """Pinning needs an accelerator's allocator; a CPU-only build has none (``is_pinned`` is asked first)."""
    if device is not None:
        warnings.warn("The argument 'device' of Tensor.pin_memory() is deprecated. Please do not pass this argument. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Memory.cpp:46.)",
                      DeprecationWarning, stacklevel=_caller_level())
    is_pinned(self, device)
    kind = None if device is None else getattr(device, "type", str(device).split(":")[0])
    if kind == "cpu":
        raise RuntimeError("CPU device type not an accelerator.")
    if kind == "cuda":
        raise RuntimeError(_NO_CUDA_LIBRARY)
    raise RuntimeError("Cannot access accelerator device when none is available.")


_NO_CUDA_LIBRARY = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU "
    "library and a CUDA library; this error has occurred because you are trying to use some CUDA functionality, but "
    "the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, "
    "EVEN IF you don't directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library dependencies if you "
    "don't depend on any of their symbols.  You can check if this has occurred by using ldd on your binary to see if "
    "there is a dependency on *_cuda.so library.")
