"""``renorm``: each slice along ``dim`` scaled down so that its p-norm is at most ``maxnorm``.

Models ``renorm`` of ``aten/src/ATen/native/Normalization.cpp`` and ``cpu/RenormKernel.cpp``: the checks of its
meta function in order, the norms over every other dim (``linalg_vector_norm``, so its errors), a factor
``maxnorm / (norm + 1e-7)`` where the norm exceeds ``maxnorm`` and 1 elsewhere, and ``self * factor`` into a new
contiguous tensor.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .binary_ops import write_inplace
from .device import to_numpy
from .helpers import is_reduced_float, wrap, xp_of
from .layout import row_major
from .linear_algebra import linalg_vector_norm


def renorm(self, p, dim, maxnorm):
    _check(self, p, maxnorm)
    axis = checks.wrap_dim(dim, self._data.ndim)
    others = [d for d in range(self._data.ndim) if d != axis]
    norm = linalg_vector_norm(self, float(p), others, True, dtype=st.float32 if is_reduced_float(self._dtype) else None)
    kind = np.float32 if is_reduced_float(self._dtype) else self._dtype._numpy.type
    norms = to_numpy(norm._data).astype(kind)
    limit = kind(maxnorm)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        factor = np.where(norms > limit, limit / (norms + kind(1e-7)), kind(1.0)).astype(self._dtype._numpy)
    scaled = row_major(np.multiply(to_numpy(self._data), factor))
    return wrap(self, xp_of(self).asarray(scaled, device=self._data.device))


def renorm_(self, p, dim, maxnorm):
    write_inplace(self, renorm(self, p, dim, maxnorm))
    return self


def _check(self, p, maxnorm):
    if float(p) <= 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if self._data.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self._data.ndim} dimensions")

