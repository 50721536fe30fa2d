"""The reductions: ``sum`` and ``mean``, over all dims or some.

Models ``aten/src/ATen/native/ReduceOps.cpp``. An integer ``sum`` accumulates in int64 (``Long``); a
``mean`` needs a floating-point dtype and says so in PyTorch's words.
"""

from __future__ import annotations

import warnings

from ..c10 import scalar_type as st
from .helpers import cast, reduce_dims, xp_dtype, xp_of
from .tensor_impl import new_tensor


def sum(self, dtype=None):
    return sum_dim(self, None, False, dtype=dtype)


def sum_dim(self, dim, keepdim=False, dtype=None):
    out_dtype = _sum_dtype(self, dtype)
    xp = xp_of(self)
    axes = reduce_dims(self, dim)
    data = xp.sum(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim, dtype=xp_dtype(xp, out_dtype))
    return new_tensor(xp.asarray(data), out_dtype, self._device)


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
        data = xp.mean(cast(self, out_dtype, xp), axis=axes, keepdims=keepdim)
    return new_tensor(xp.asarray(data), out_dtype, self._device)


def _mean_dtype(self, dtype, name="mean"):
    out = dtype or self._dtype
    if not out.is_floating_point:
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {out.c10_name}")
    return out
