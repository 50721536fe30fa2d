"""The reductions: ``sum`` and ``mean``, over all dims or some.

Models ``aten/src/ATen/native/ReduceOps.cpp``. An integer ``sum`` accumulates in int64 (``Long``); a
``mean`` needs a floating-point dtype and says so in PyTorch's words.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..c10 import scalar_type as st
from .helpers import cast, convert, in_float32, is_reduced_float, reduce_dims, xp_dtype, xp_of
from .tensor_impl import new_tensor


def sum(self, dtype=None):
    return sum_dim(self, None, False, dtype=dtype)


def sum_dim(self, dim, keepdim=False, dtype=None):
    out_dtype = _sum_dtype(self, dtype)
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    if is_reduced_float(out_dtype):  # accumulated in float32, rounded once (PyTorch's reduced-float sums)
        data = convert(xp, _sum_float32(xp, cast(self, out_dtype, xp), axes, keepdim), out_dtype)
    else:
        data = xp.sum(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim, dtype=xp_dtype(xp, out_dtype))
    return new_tensor(xp.asarray(data), out_dtype, self._device)


def _sum_float32(xp, data, axes, keepdim):
    return xp.sum(in_float32(xp, data), axis=axes, keepdims=keepdim, dtype=xp.float32)


def _sum_dtype(self, dtype):
    if dtype is not None:
        return dtype
    return self._dtype if self._dtype.is_floating_point else st.int64


def mean(self, dtype=None):
    return mean_dim(self, None, False, dtype=dtype)


def mean_dim(self, dim, keepdim=False, dtype=None):
    out_dtype = _mean_dtype(self, dtype)
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    with warnings.catch_warnings():  # NumPy warns on an empty mean; PyTorch quietly returns nan
        warnings.simplefilter("ignore", RuntimeWarning)
        if is_reduced_float(out_dtype):
            # the input goes to float32 directly (``mean(dtype=bfloat16)`` of float32 values sums those values)
            data = convert(xp, _mean_float32(xp, cast(self, st.float32, xp), axes, keepdim), out_dtype)
        else:
            data = xp.mean(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim)
    return new_tensor(xp.asarray(data), out_dtype, self._device)


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
    if not out.is_floating_point:
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {out.c10_name}")
    return out
