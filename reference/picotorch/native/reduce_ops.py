"""The reductions: ``sum`` and ``mean``, ``amax``/``amin``, ``argmax``/``argmin``, ``logsumexp``, ``var`` and
``std``, ``all``/``any``, over all dims or some; ``equal`` (ATen's ``cpu_equal``); ``prod``, ``cumsum`` and
``cumprod``; ``cummax`` and ``cummin``; ``trace``; ``nansum``, ``count_nonzero``, ``std_mean`` and ``var_mean``.

Models ``aten/src/ATen/native/ReduceOps.cpp``. An integer ``sum`` accumulates in int64 (``Long``); a
``mean`` needs a floating-point dtype and says so in PyTorch's words. ``max()`` without a dim lives in
``reduce_all_ops.py``, ``max.dim`` in ``tensor_compare.py``, as in ATen.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .binary_ops import complex_log_add, type_meta_name, write_inplace
from .device import to_numpy
from .dispatcher import ops
from .helpers import (
    cast,
    convert,
    float_dtype,
    in_float32,
    is_reduced_float,
    np_xp,
    reduce_dims,
    row_major_copy,
    truth,
    xp_dtype,
    xp_of,
)
from .layout import row_major
from .tensor_impl import new_tensor


def sum(self, dtype=None):
    return sum_dim(self, None, False, dtype=dtype)


def sum_dim(self, dim, keepdim=False, dtype=None):
    out_dtype = _sum_dtype(self, dtype)
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    if is_reduced_float(out_dtype):  # accumulated in float32, rounded once (PyTorch's reduced-float sums)
        data = convert(xp, _sum_float32(xp, cast(self, out_dtype, xp), axes, keepdim), out_dtype)
    elif xp is np_xp:  # np.sum is this call behind a Python wrapper (a third of a small sum's time)
        data = np.add.reduce(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim,
                             dtype=None if out_dtype is self._dtype and out_dtype.is_floating_point
                             else xp_dtype(xp, out_dtype))  # (NumPy would widen a small int itself)
        return new_tensor(row_major(data) if type(data) is np.ndarray else np.asarray(data), out_dtype, self._device)
    else:
        data = xp.sum(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim, dtype=xp_dtype(xp, out_dtype))
    return new_tensor(row_major(xp.asarray(data)), out_dtype, self._device)


def _sum_float32(xp, data, axes, keepdim):
    return xp.sum(in_float32(xp, data), axis=axes, keepdims=keepdim, dtype=xp.float32)


def _sum_dtype(self, dtype):
    if dtype is not None:
        return dtype
    return self._dtype if self._dtype.is_floating_point or self._dtype.is_complex else st.int64


def mean(self, dtype=None):
    return mean_dim(self, None, False, dtype=dtype)


def mean_dim(self, dim, keepdim=False, dtype=None):
    out_dtype = _mean_dtype(self, dtype)
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    if xp is np_xp and self._data.size and not is_reduced_float(out_dtype):
        return new_tensor(row_major(_mean_numpy(cast(self, out_dtype, xp), axes, keepdim)), out_dtype, self._device)
    with warnings.catch_warnings():  # NumPy warns on an empty mean; PyTorch quietly returns nan
        warnings.simplefilter("ignore", RuntimeWarning)
        if is_reduced_float(out_dtype):
            # the input goes to float32 directly (``mean(dtype=bfloat16)`` of float32 values sums those values)
            data = convert(xp, _mean_float32(xp, cast(self, st.float32, xp), axes, keepdim), out_dtype)
        else:
            data = xp.mean(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim)
    return new_tensor(row_major(xp.asarray(data)), out_dtype, self._device)


def _mean_numpy(data, axes, keepdim):
    """ATen's CPU mean, ``sum(...).div_(count)``, for a non-empty NumPy array: the division in the array's own
    dtype (``np.mean`` divides in float64 and rounds again: the same float32, as double rounding of a
    quotient is harmless, but through a Python wrapper and a warnings context that cost half a small mean)."""
    count = 1
    for axis in axes:
        count *= data.shape[axis]
    return np.asarray(np.true_divide(np.add.reduce(data, axis=axes, keepdims=keepdim), count))


def _mean_float32(xp, data, axes, keepdim):
    """PyTorch's CPU mean of float16 / bfloat16: a float32 sum divided in float32, then rounded once."""
    count = 1
    for axis in axes:
        count *= data.shape[axis]
    total = _sum_float32(xp, data, axes, keepdim)
    with np.errstate(all="ignore"):  # an empty mean is 0 / 0: nan, quietly
        return xp.divide(total, xp.asarray(count, dtype=xp.float32, device=total.device))


def _mean_dtype(self, dtype, name="mean"):
    out = dtype or self._dtype
    if not (out.is_floating_point or out.is_complex):
        which = "Input" if dtype is None else "Optional"  # the dtype that was asked for is the one named
        raise RuntimeError(f"{name}(): could not infer output dtype. {which} dtype must be either a floating "
                           f"point or complex dtype. Got: {out.c10_name}")
    return out


# ----------------------------------------------------------------------------- amax, amin
# The largest (smallest) value over some dims, as the input's dtype; NaN wins. An empty input has no
# maximum: PyTorch asks for a dim, and a dim it reduces must not be empty.


def amax(self, dim=(), keepdim=False):
    return _extreme(self, dim, keepdim, "amax", "max")


def amin(self, dim=(), keepdim=False):
    return _extreme(self, dim, keepdim, "amin", "min")


def aminmax(self, dim=None, keepdim=False):
    """``(amin, amax)`` in one pass (both over all dims without ``dim``); no identity, so nothing empty."""
    if self._data.size == 0:
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        wrapped = checks.wrap_dim(dim, self._data.ndim)
        if self._data.ndim and self._data.shape[wrapped] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {wrapped} to have non-zero size.")
    dims = () if dim is None or self._data.ndim == 0 else (checks.wrap_dim(dim, self._data.ndim),)
    keep = keepdim and self._data.ndim > 0
    return _extreme(self, dims, keep, "aminmax", "min"), _extreme(self, dims, keep, "aminmax", "max")


def _extreme(self, dim, keepdim, name, xp_name):
    axes = reduce_dims(self, dim)
    if self._data.size == 0:
        _check_nonempty_reduction(self, dim, name)
    xp = xp_of(self)
    data = xp.asarray(getattr(xp, xp_name)(self._data, axis=axes, keepdims=keepdim))
    if self._dtype.is_floating_point:
        if xp.any(data == 0):
            data = _first_zero_sign(xp, self._data, axes, keepdim, data)
    elif self._dtype.is_complex:  # complex numbers have no order
        kernel = "aminmax_cpu" if name == "aminmax" else f"{xp_name}_values_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")
    return new_tensor(row_major(data), self._dtype, self._device)


def _first_zero_sign(xp, x, axes, keepdim, data):
    """A zero extreme takes the sign of the first zero of its slice: PyTorch's loop keeps its running best
    unless a later value is strictly greater (smaller), and -0. == 0. (for slices shorter than a vector;
    longer ones take their lanes' order, which is not modelled)."""
    kept = tuple(d for d in range(x.ndim) if d not in axes)
    rows = xp.reshape(xp.permute_dims(x, kept + tuple(axes)), (-1, _numel(x, axes)))
    first = xp.take_along_axis(rows, xp.argmax(rows == 0, axis=1, keepdims=True), axis=1)
    return xp.where(data == 0, xp.reshape(first, data.shape), data)


def _numel(x, axes):
    count = 1
    for axis in axes:
        count *= x.shape[axis]
    return count


def _check_nonempty_reduction(self, dim, name):
    dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if self._data.ndim and self._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


# ----------------------------------------------------------------------------- argmax, argmin
# The index (int64) of the first largest (smallest) element, or of the first NaN; without a dim, in the
# flattened tensor. Not for bool (max and amax are).


def argmax(self, dim=None, keepdim=False):
    return _arg_extreme(self, dim, keepdim, "argmax")


def argmin(self, dim=None, keepdim=False):
    return _arg_extreme(self, dim, keepdim, "argmin")


def _arg_extreme(self, dim, keepdim, name):
    if self._dtype is st.bool_ or self._dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support {'bool' if self._dtype is st.bool_ else 'complex'} input")
    xp = xp_of(self)
    ndim = self._data.ndim
    if dim is None:
        if self._data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        index = getattr(xp, name)(xp.reshape(self._data, (-1,)))
        shape = (1,) * ndim if keepdim else ()
        return new_tensor(xp.reshape(xp.astype(xp.asarray(index), xp.int64), shape), st.int64, self._device)
    axis = checks.wrap_dim(dim, ndim)
    if ndim == 0:
        return new_tensor(xp.zeros((), dtype=xp.int64, device=self._data.device), st.int64, self._device)
    if self._data.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    index = getattr(xp, name)(self._data, axis=axis, keepdims=keepdim)
    return new_tensor(xp.astype(xp.asarray(index), xp.int64), st.int64, self._device)


# ----------------------------------------------------------------------------- logsumexp


def logsumexp(self, dim, keepdim=False):
    """``log(sum(exp(x)))`` computed as ``m + log(sum(exp(x - m)))`` with ``m`` the max (0 where it is
    infinite, so that all ``-inf`` gives ``-inf``); an integer input gives the default float dtype."""
    out_dtype = float_dtype(self._dtype)
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    if len(dim) == 0 and self._data.ndim and self._data.size and not keepdim:
        # PyTorch 2.13 reduces everything for dim=() but adds the max back with its dims kept: an error
        ones = ", ".join("1" for _ in axes)
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape [{ones}]")
    data = cast(self, out_dtype, xp)
    with warnings.catch_warnings():  # log(0) of a row of -inf, or of nothing, is -inf: NumPy would warn
        warnings.simplefilter("ignore", RuntimeWarning)
        if self._data.size == 0:
            out = xp.log(xp.sum(xp.exp(data), axis=axes, keepdims=keepdim))
        else:
            maxes = xp.max(data, axis=axes, keepdims=True)
            maxes = xp.where(xp.abs(maxes) == xp.inf, xp.zeros_like(maxes), maxes)
            exps = xp.exp(data - maxes)  # float16 / bfloat16 arrays round each step, as PyTorch's composite ops
            total = convert(xp, _sum_float32(xp, exps, axes, keepdim), out_dtype) if is_reduced_float(out_dtype) \
                else xp.sum(exps, axis=axes, keepdims=keepdim)
            out = xp.log(total)
            out = out + (maxes if keepdim else xp.reshape(maxes, out.shape))
    return new_tensor(row_major(xp.asarray(out)), out_dtype, self._device)


# ----------------------------------------------------------------------------- var, std
# The sum of squared deviations from the mean over N elements, divided by N - correction (default 1,
# Bessel's correction). Computed in float64 and rounded once to the input's dtype: PyTorch's CPU kernel
# (Welford's algorithm) agrees to the float32 rounding.


def var(self, dim=None, correction=None, keepdim=False):
    return _var(self, dim, correction, keepdim, "var")


def std(self, dim=None, correction=None, keepdim=False):
    return _var(self, dim, correction, keepdim, "std")


def std_mean(self, dim=None, correction=None, keepdim=False):
    """``(std, mean)`` over the same dims, as two tensors (a plain tuple, not a named one)."""
    return _var(self, dim, correction, keepdim, "std_mean"), mean_dim(self, dim, keepdim)


def var_mean(self, dim=None, correction=None, keepdim=False):
    return _var(self, dim, correction, keepdim, "var_mean"), mean_dim(self, dim, keepdim)


def _var(self, dim, correction, keepdim, name):
    out_dtype = self._dtype
    if not out_dtype.is_floating_point:
        if not out_dtype.is_complex:
            which = name if name.endswith("_mean") else "std and var"
            raise RuntimeError(f"{which} only support floating point and complex dtypes")
        out_dtype = out_dtype.to_real()  # the spread of complex numbers is the real sum of |z - mean|^2
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    count = 1
    for axis in axes:
        count *= self._data.shape[axis]
    dof = count - (1 if correction is None else correction)
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel). (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)", UserWarning, stacklevel=2)
    data = xp.astype(self._data, xp.float64 if out_dtype is self._dtype else xp.complex128)
    with warnings.catch_warnings():  # an empty mean, a division by zero dof: NaN or inf, as in PyTorch
        warnings.simplefilter("ignore", RuntimeWarning)
        deviations = data - xp.mean(data, axis=axes, keepdims=True)
        if out_dtype is not self._dtype:
            deviations = xp.abs(deviations)
        out = xp.sum(deviations * deviations, axis=axes, keepdims=keepdim) / max(dof, 0)
        if name.startswith("std"):
            out = xp.sqrt(out)
    return new_tensor(row_major(convert(xp, xp.asarray(out), out_dtype)), out_dtype, self._device)


# ----------------------------------------------------------------------------- all, any, equal
# ``all``/``any`` give bool, except for a uint8 input, which gives uint8 (NumPy's rule, kept by PyTorch for
# old code that used uint8 as its bool). An empty ``dim`` list reduces nothing (``all.dims``); None reduces all.


def all(self):
    return _all_any(self, None, False, "all")


def all_dim(self, dim, keepdim=False):
    return _all_any(self, dim, keepdim, "all")


def all_dims(self, dim=None, keepdim=False):
    return _all_any(self, dim, keepdim, "all")


def any(self):
    return _all_any(self, None, False, "any")


def any_dim(self, dim, keepdim=False):
    return _all_any(self, dim, keepdim, "any")


def any_dims(self, dim=None, keepdim=False):
    return _all_any(self, dim, keepdim, "any")


def _all_any(self, dim, keepdim, name):
    axes = () if isinstance(dim, (list, tuple)) and len(dim) == 0 else reduce_dims(self, dim)
    xp = xp_of(self)
    truth = self._data if self._dtype is st.bool_ else self._data != 0  # NaN counts as true
    data = xp.asarray(getattr(xp, name)(truth, axis=axes, keepdims=keepdim))
    dtype = st.uint8 if self._dtype is st.uint8 else st.bool_
    data = row_major_copy(xp, xp.astype(data, xp_dtype(xp, dtype)))  # NumPy keeps the input's dim order
    return new_tensor(data, dtype, self._device)


def equal(self, other):
    """True when both have one shape and equal values after type promotion (``cpu_equal``): NaN is never equal."""
    if self._device != other._device:
        raise RuntimeError(f"Cannot compare two tensors on different devices. Got: {self._device} and "
                           f"{other._device}")
    if self._data.shape != other._data.shape:
        return False
    same = ops.eq(self, other)
    return bool(xp_of(same).all(same._data))


# ----------------------------------------------------------------------------- prod, cumsum, cumprod
# Integers (and bool) multiply and add up in int64 unless a ``dtype`` is given, as ``sum``. ``prod`` multiplies
# in the output dtype itself, one element after another (ATen's ``prod_kernel_impl`` keeps a float16 running
# product in float16; a row of 32 elements or more is multiplied in vector lanes, whose order is not modelled:
# the last bits may differ there); ``cumsum`` and ``cumprod`` accumulate in ATen's CPU ``acc_type`` (float64 for
# float32, float32 for float16 and bfloat16) and round each output.


def prod(self, dtype=None):
    return _prod(self, None, False, dtype)


def prod_dim(self, dim, keepdim=False, dtype=None):
    return _prod(self, dim, keepdim, dtype)


def _prod(self, dim, keepdim, dtype):
    out_dtype = _sum_dtype(self, dtype)
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    data = cast(self, out_dtype, xp)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is inf (and inf * 0 NaN) quietly, as in C++
        if is_reduced_float(out_dtype):
            product = _running_product_reduced(xp, data, axes, keepdim, out_dtype)
        else:
            product = xp.prod(data, axis=axes, keepdims=keepdim, dtype=xp_dtype(xp, out_dtype))
    return new_tensor(row_major(xp.asarray(product)), out_dtype, self._device)


def _running_product_reduced(xp, data, axes, keepdim, dtype):
    """float16 / bfloat16: each partial product rounded to ``dtype`` before the next factor multiplies it."""
    kept = tuple(d for d in range(data.ndim) if d not in axes)
    out_shape = tuple(1 if d in axes else data.shape[d] for d in range(data.ndim)) if keepdim \
        else tuple(data.shape[d] for d in kept)
    rows = xp.reshape(xp.permute_dims(data, kept + tuple(axes)), (-1, _numel(data, axes)))
    product = convert(xp, xp.ones((rows.shape[0],), dtype=xp.float32, device=rows.device), dtype)
    for i in range(rows.shape[1]):
        product = convert(xp, in_float32(xp, product) * in_float32(xp, rows[:, i]), dtype)
    return xp.reshape(product, out_shape)


def cumsum(self, dim, dtype=None):
    return _cumulative(self, dim, dtype, "cumulative_sum")


def cumprod(self, dim, dtype=None):
    return _cumulative(self, dim, dtype, "cumulative_prod")


def _cumulative(self, dim, dtype, how):
    out_dtype = _sum_dtype(self, dtype)
    axis = checks.wrap_dim(dim, self._data.ndim)
    xp = xp_of(self)
    data = cast(self, out_dtype, xp)
    if self._data.ndim == 0:
        return new_tensor(xp.asarray(data, copy=True), out_dtype, self._device)
    if out_dtype.is_floating_point or out_dtype.is_complex:
        wide = xp.float32 if is_reduced_float(out_dtype) else xp.float64  # ATen's CPU acc_type
        if out_dtype.is_complex:
            wide = xp.complex128
        with np.errstate(over="ignore", invalid="ignore"):
            running = getattr(xp, how)(xp.astype(data, wide), axis=axis)
            if how == "cumulative_sum":
                running = running + 0.0  # ATen's sums start from +0 (so -0. sums to 0.); NumPy's from the first value
            total = convert(xp, running, out_dtype)
        return new_tensor(row_major_copy(xp, total), out_dtype, self._device)
    with np.errstate(over="ignore"):
        total = getattr(xp, how)(data, axis=axis, dtype=xp_dtype(xp, out_dtype))
    return new_tensor(row_major_copy(xp, total), out_dtype, self._device)


def cumsum_(self, dim, dtype=None):
    """In place: the sums in ``self``'s own dtype (``self`` is the output whose dtype the op keeps)."""
    return _cumulative_(self, dim, dtype, cumsum)


def cumprod_(self, dim, dtype=None):
    return _cumulative_(self, dim, dtype, cumprod)


def _cumulative_(self, dim, dtype, op):
    if dtype is not None and dtype is not self._dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {type_meta_name(self._dtype)} and output tensor "
                           f"dtype {type_meta_name(dtype)} should match")
    write_inplace(self, op(self, dim, dtype=self._dtype))
    return self


# ----------------------------------------------------------------------------- trace
# The diagonal of a matrix summed in ATen's CPU ``acc_type`` (float64 for float32, float32 for float16 and bfloat16;
# integers in int64, their result's dtype too); bool has no kernel.


def trace(self):
    if self._dtype is st.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if self._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self._data.ndim}")
    out_dtype = _sum_dtype(self, None)
    xp = xp_of(self)
    n = min(self._data.shape)
    steps = xp.arange(n, device=self._data.device)
    diagonal = self._data[steps, steps]
    if out_dtype.is_floating_point:
        wide = xp.float32 if is_reduced_float(out_dtype) else xp.float64
        total = convert(xp, xp.sum(xp.astype(diagonal, wide)), out_dtype)
    else:
        total = xp.sum(diagonal, dtype=xp_dtype(xp, out_dtype))
    return new_tensor(row_major(xp.asarray(total)), out_dtype, self._device)


# ----------------------------------------------------------------------------- cummax, cummin
# The running extreme and where it was last reached: an element equal to the running value takes its place
# (``>=`` for cummax, ``<=`` for cummin), so among ties the latest index wins; a NaN takes over and every later
# NaN takes over again (``cummax_helper_cpu``). Outputs are new contiguous tensors, indices int64.


def cummax(self, dim):
    return _cumulative_extreme(self, dim, np.greater_equal, "cummax")


def cummin(self, dim):
    return _cumulative_extreme(self, dim, np.less_equal, "cummin")


def _cumulative_extreme(self, dim, reaches, name):
    if self._data.ndim == 0 and dim not in (-1, 0):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    axis = checks.wrap_dim(dim, self._data.ndim)
    if self._dtype.is_complex:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{self._dtype.c10_name}'")
    xp = xp_of(self)
    data = to_numpy(self._data)
    rows = np.moveaxis(data.reshape(1) if data.ndim == 0 else data, axis, -1)
    values, indices = np.empty_like(rows), np.empty(rows.shape, dtype=np.int64)
    if rows.size:
        floating = self._dtype.is_floating_point
        current, where = rows[..., 0].copy(), np.zeros(rows.shape[:-1], dtype=np.int64)
        for i in range(rows.shape[-1]):
            x = rows[..., i]
            taken = reaches(x, current)
            if floating:
                taken = np.isnan(x) | (~np.isnan(current) & taken)
            current, where = np.where(taken, x, current), np.where(taken, i, where)
            values[..., i], indices[..., i] = current, where
    values, indices = np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)
    shape = data.shape
    return (new_tensor(xp.asarray(np.ascontiguousarray(values).reshape(shape), device=self._data.device),
                       self._dtype, self._device),
            new_tensor(xp.asarray(np.ascontiguousarray(indices).reshape(shape), device=self._data.device),
                       st.int64, self._device))


# ----------------------------------------------------------------------------- nansum, count_nonzero


def nansum(self, dim=None, keepdim=False, dtype=None):
    """``sum`` with every NaN counted as zero."""
    if self._dtype.is_floating_point:
        xp = xp_of(self)
        data = self._data
        self = new_tensor(xp.where(xp.isnan(data), xp.zeros_like(data), data), self._dtype, self._device)
    elif self._dtype.is_complex:
        reduce_dims(self, dim)  # the dims' checks first
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return sum_dim(self, dim, keepdim, dtype=dtype)


def count_nonzero(self, dim):
    """How many elements are not zero over ``dim`` (every dim when it is empty), as int64."""
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    data = xp.sum(truth(xp, self._data), axis=axes, dtype=xp.int64)
    return new_tensor(row_major(xp.asarray(data)), st.int64, self._device)


# ----------------------------------------------------------------------------- logcumsumexp
# The running log(sum(exp)) along ``dim``, one step at a time in ATen's CPU accumulation type (float64 for float32,
# float32 for the half types): log(e^a + e^b) = max + log1p(exp(min - max)), except that two equal infinities
# (and anything with NaN) give the first operand, so -inf stays -inf and +inf stays +inf (``_log_add_exp_helper``).


def logcumsumexp(self, dim):
    if self._dtype.is_complex:
        return _complex_logcumsumexp(self, dim)
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{self._dtype.c10_name}'")
    axis = checks.wrap_dim(dim, self._data.ndim)
    data = to_numpy(self._data)
    if data.ndim == 0 or data.size == 0:
        return new_tensor(xp_of(self).asarray(np.array(data, order="C"), device=self._data.device), self._dtype,
                          self._device)
    wide = np.float32 if is_reduced_float(self._dtype) else np.float64
    rows = np.moveaxis(data, axis, -1).astype(wide)
    out = np.empty(rows.shape, dtype=wide)
    running = rows[..., 0]
    out[..., 0] = running
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(1, rows.shape[-1]):
            x = rows[..., i]
            low, high = np.minimum(running, x), np.maximum(running, x)
            added = high + np.log1p(np.exp(low - high))
            running = np.where((low != high) | np.isfinite(low), added, running)
            out[..., i] = running
    result = np.ascontiguousarray(np.moveaxis(out, -1, axis)).astype(self._dtype._numpy)
    return new_tensor(xp_of(self).asarray(result, device=self._data.device), self._dtype, self._device)


def _complex_logcumsumexp(self, dim):
    """The running ``log(e^a + e^b)`` of complex numbers (``complex_log_add``), in the input's dtype."""
    axis = checks.wrap_dim(dim, self._data.ndim)
    data = to_numpy(self._data)
    out = np.array(data, order="C")
    if data.ndim and data.size:
        rows = np.moveaxis(out, axis, -1)
        for i in range(1, rows.shape[-1]):
            rows[..., i] = complex_log_add(np, rows[..., i - 1], rows[..., i])
    return new_tensor(xp_of(self).asarray(out, device=self._data.device), self._dtype, self._device)
