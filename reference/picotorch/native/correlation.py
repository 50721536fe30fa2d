"""``cov`` and ``corrcoef``: the covariance and correlation matrices of variables (rows) over observations.

Models ``aten/src/ATen/native/Correlation.cpp`` (``CompositeImplicitAutograd``): the weighted mean of each row
(``fweights`` times ``aweights``), the normalisation ``w_sum - correction`` (with ``aweights``:
``w_sum - correction * sum(w * aweights) / w_sum``), a warning and a zero factor when that is not positive,
then ``mm(in - avg, ((in - avg) * w).t()) / factor``, squeezed. ``corrcoef`` divides that by the square roots of
its diagonal, as a column then as a row, and clips to [-1, 1].
"""

from __future__ import annotations

import warnings

from ..c10 import scalar_type as st
from .dispatcher import ops
from .helpers import scalar_tensor

_DOF_WARNING = ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                "observations. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Correlation.cpp:"
                "129.)")


def cov(self, correction=1, fweights=None, aweights=None):
    if self.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {self.dim()} "
                           "dimensions")
    if self.dtype is st.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    data = ops.view(self, [1, -1]) if self.dim() < 2 else self
    observations = data.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", "integral", not fweights.dtype.is_floating_point
                       and fweights.dtype is not st.bool_, observations)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", "floating point", aweights.dtype.is_floating_point, observations)
        w = aweights if w is None else ops.mul(w, aweights)
    w_sum = ops.sum(w) if w is not None else _long(observations)
    if w is not None and not ops.ne(w_sum, 0).item():
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = ops.div(ops.sum(ops.mul(data, w) if w is not None else data, [1]), w_sum)
    factor = _normalization(w, w_sum, aweights, fweights, observations, correction)
    if ops.le(factor, 0).item():
        warnings.warn(_DOF_WARNING, UserWarning, stacklevel=2)
        ops.zero_(factor)
    if observations == 1 and (fweights is None) != (aweights is None):
        ops.zero_(data)  # one observation, one kind of weight: the mean is the value (torch zeroes the input)
        if not data.dtype.is_floating_point:
            data = ops._to_copy(data, dtype=st.float32)
    else:
        data = ops.sub(data, ops.unsqueeze(avg, 1))
    c = ops.mm(data, ops.conj(ops.t(ops.mul(data, w) if w is not None else data)))  # a real tensor's conj: itself
    return ops.squeeze(ops.div(c, factor))


def _normalization(w, w_sum, aweights, fweights, observations, correction):
    if w is None:
        return _long(observations - correction)
    if correction == 0:
        return w_sum
    if aweights is None:
        return ops.sub(w_sum, correction)
    if fweights is None and observations == 1 and correction == 1:
        return _long(0)
    return ops.sub(w_sum, ops.div(ops.mul(ops.sum(ops.mul(w, aweights)), correction), w_sum))


def _long(value):
    """``at::scalar_tensor(value, kLong)``: a zero-dim int64 tensor (not a wrapped number)."""
    t = scalar_tensor(int(value))
    t._is_wrapped_number = False
    return t


def _check_weights(w, name, kind, kind_ok, observations):
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.dim()} "
                           "dimensions")
    if not kind_ok:
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{w.dtype.c10_name} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input but "
                           f"got {w.numel()} != {observations}")
    if observations and not ops.ge(ops.min(w), 0).item():
        raise RuntimeError(f"cov(): {name} cannot be negative")


def corrcoef(self):
    if self.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.dim()} dimensions")
    c = cov(self)
    if c.dim() == 0:
        return ops.div(c, c)  # NaN for a variance of 0, inf or NaN; 1 otherwise
    stddev = ops.sqrt(ops.diagonal(c))
    c = ops.div(c, ops.view(stddev, [-1, 1]))
    c = ops.div(c, ops.view(stddev, [1, -1]))
    if c.dtype.is_complex:  # each part clipped on its own
        return ops.complex(ops.clamp(ops.real(c), -1, 1), ops.clamp(ops.imag(c), -1, 1))
    return ops.clamp(c, -1, 1)
