"""``bincount`` and ``histc``: counting values into bins.

Models ``aten/src/ATen/native/SummaryOps.cpp`` (``bincount``: how often each non-negative integer occurs, or the
sum of its ``weights``; float weights keep their dtype, any other weights count in float64) and
``HistogramKernel.cpp`` as ``histc`` uses it: ``bins`` equal bins between ``min`` and ``max`` (the data's own
extremes when both are equal, widened by one each way when those are equal too), values outside ignored, a value
on ``max`` in the last bin; the position is computed in the input's float dtype.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .device import to_numpy
from .helpers import wrap


def bincount(self, weights=None, minlength=0):
    if self._dtype.is_floating_point or self._dtype is st.bool_ or self._dtype.is_complex:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{self._dtype.c10_name}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    data = to_numpy(self._data)
    if data.ndim == 1 and data.size == 0:
        return wrap(self, np.zeros(minlength, dtype=np.int64), st.int64)
    if data.ndim != 1 or data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.shape[0] != data.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = max(int(data.max()) + 1, minlength)
    if weights is None:
        return wrap(self, np.bincount(data, minlength=length).astype(np.int64), st.int64)
    dtype = weights._dtype if weights._dtype in (st.float32, st.float64) else st.float64
    counts = np.zeros(length, dtype=dtype._numpy)
    np.add.at(counts, data, to_numpy(weights._data).astype(dtype._numpy))
    return wrap(weights, counts, dtype)


def histc(self, bins=100, min=0, max=0):
    if not self._dtype.is_floating_point:
        if self._dtype.is_complex and bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        kernel = "aminmax_cpu" if self._dtype.is_complex else "histogram_cpu"  # histc's range comes first
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    data = to_numpy(self._data).reshape(-1)
    kind = np.float32 if self._dtype.itemsize < 4 else self._dtype._numpy.type
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_number(lo)}, {_number(hi)}] is not finite")
    values = data.astype(kind)
    lo_k, hi_k = kind(lo), kind(hi)
    inside = values[(values >= lo_k) & (values <= hi_k)]
    with np.errstate(invalid="ignore", over="ignore"):
        position = ((inside - lo_k) * kind(bins) / (hi_k - lo_k)).astype(np.int64)
    position = np.minimum(position, bins - 1)
    counts = np.bincount(position, minlength=bins).astype(self._dtype._numpy)
    return wrap(self, counts)


def _number(value: float) -> str:
    """A double as C++'s ``<<`` prints it (``%g``-like: ``1``, ``inf``, ``0.5``)."""
    return f"{value:g}"
