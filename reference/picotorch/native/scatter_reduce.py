"""``scatter_reduce`` and ``index_reduce``: ``src``'s values reduced into ``self`` at the positions ``index``
names along ``dim``.

Models ``scatter_reduce.two`` of ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` on CPU: ``scatter``'s
checks (dim, dtypes, shapes, bounds), then the reduction's name; each targeted position starts from ``self``'s
value (``include_self``) or from the reduction's identity, and takes ``src``'s values in order (sum, prod, amax,
amin; NaN wins a max or min); ``mean`` divides the sum by the count of values reduced (integers with floor
division). Positions no index names keep ``self``'s value. The result is a new row-major tensor.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import checks
from .binary_ops import write_inplace
from .device import to_numpy
from .helpers import wrap, xp_of
from .layout import row_major
from .scatter_gather import _check_scatter, check_index_func

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce_two(self, dim, index, src, reduce, include_self=True):
    dim = _check_scatter(self, dim, index, src)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if self._dtype.is_complex and reduce in ("amax", "amin"):
        raise NotImplementedError(f"\"scatter_gather_tensor_cpu_reduce_{reduce}\" not implemented for "
                                  f"'{self._dtype.c10_name}'")
    data = np.array(to_numpy(self._data), order="C")
    if index.numel() == 0:
        return wrap(self, xp_of(self).asarray(data, device=self._data.device))
    flat = data.reshape(-1)
    positions = to_numpy(index._data).astype(np.int64)
    coordinates = np.indices(positions.shape)
    coordinates[dim] = positions
    offsets = np.ravel_multi_index(tuple(coordinates), data.shape).reshape(-1)
    values = to_numpy(src._data)[tuple(slice(0, size) for size in positions.shape)].reshape(-1)
    counts = np.zeros(flat.shape, dtype=np.int64)
    np.add.at(counts, offsets, 1)
    touched = counts > 0
    if not include_self:
        flat[touched] = _identity(reduce, flat.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        if reduce in ("sum", "mean"):
            np.add.at(flat, offsets, values)
        elif reduce == "prod":
            np.multiply.at(flat, offsets, values)
        else:
            (np.maximum if reduce == "amax" else np.minimum).at(flat, offsets, values)  # NaN wins either
        if reduce == "mean":
            total = counts + (1 if include_self else 0)
            total = np.where(total == 0, 1, total)
            if flat.dtype.kind in "fc":
                flat[touched] = (flat[touched] / total[touched]).astype(flat.dtype)
            else:
                flat[touched] = flat[touched] // total[touched]
    return wrap(self, xp_of(self).asarray(row_major(data), device=self._data.device))


def scatter_reduce__two(self, dim, index, src, reduce, include_self=True):
    write_inplace(self, scatter_reduce_two(self, dim, index, src, reduce, include_self))
    return self


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:  # bool
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max



# ----------------------------------------------------------------------------- index_reduce
# ``index_reduce``: whole slices of ``source`` along ``dim`` reduced into the slices of ``self`` that ``index``
# names (prod, mean, amax, amin), by the same rules; torch warns once per process that the op is in beta.

_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")
_BETA_WARNING = ("index_reduce() is in beta and the API may change at any time. (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)")
_warned = []


def index_reduce(self, dim, index, source, reduce, include_self=True):
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim = checks.wrap_dim(dim, self._data.ndim)
    check_index_func(self, dim, index, source, "index_reduce")
    if self._dtype.is_complex:
        raise NotImplementedError(f"\"index_func_\" not implemented for '{self._dtype.c10_name}'")
    if not _warned:
        _warned.append(True)
        warnings.warn(_BETA_WARNING, UserWarning, stacklevel=3)
    data = np.array(to_numpy(self._data), order="C")
    positions = to_numpy(index._data).astype(np.int64).reshape(-1)
    size = data.shape[dim] if data.ndim else 1
    if positions.size and ((positions < 0) | (positions >= size)).any():
        raise IndexError("index out of range in self")
    rows = np.moveaxis(data.reshape(1) if data.ndim == 0 else data, dim, 0)
    sources = np.moveaxis(to_numpy(source._data).reshape(1) if source._data.ndim == 0 else to_numpy(source._data),
                          dim, 0)
    counts = np.bincount(positions, minlength=rows.shape[0])
    if not include_self:
        rows[counts > 0] = _identity(reduce, rows.dtype)
    how = {"prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}[reduce]
    with np.errstate(over="ignore", invalid="ignore"):
        for i, p in enumerate(positions):
            rows[p] = how(rows[p], sources[i])
        if reduce == "mean":
            total = counts + (1 if include_self else 0)
            for p in np.flatnonzero(counts):
                rows[p] = rows[p] / total[p] if rows.dtype.kind == "f" else rows[p] // total[p]
    return wrap(self, xp_of(self).asarray(row_major(data), device=self._data.device))


def index_reduce_(self, dim, index, source, reduce, include_self=True):
    write_inplace(self, index_reduce(self, dim, index, source, reduce, include_self))
    return self
