"""``quantile`` and ``nanquantile``: the q-th quantiles along a dim (or of everything), built from other ops.

Models ``quantile_impl`` and ``quantile_compute`` of ``aten/src/ATen/native/Sorting.cpp``
(``CompositeImplicitAutograd``): the values sorted along the reduced dim (flattened without ``dim``, moved last
by ``unsqueeze(-1).transpose(dim, -1)`` otherwise) and viewed to the output's shape plus that dim; ranks
``q * (n - 1)`` (NaN rows pointed at their last, NaN, value; for ``nanquantile`` ``q * (count of numbers - 1)``),
rounded as the interpolation says; the values at the rank's floor gathered and, for ``linear`` and ``midpoint``,
``lerp_``-ed towards the values at its ceiling. So the graph is ``SortBackward0``, ``ViewBackward0``,
``GatherBackward0`` twice, ``LerpBackward1`` and the in-place squeezes that put q first.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from . import checks
from .dispatcher import ops

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, ignore_nan=False)


def quantile_scalar(self, q, dim=None, keepdim=False, interpolation="linear"):
    _check_scalar_q(q)
    return _quantile(self, _q_tensor(self, q), dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, ignore_nan=True)


def nanquantile_scalar(self, q, dim=None, keepdim=False, interpolation="linear"):
    _check_scalar_q(q)
    return _quantile(self, _q_tensor(self, q), dim, keepdim, interpolation, ignore_nan=True)


def _check_scalar_q(q):
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")


def _q_tensor(self, q):
    """``at::scalar_tensor(q, self.options())``: a zero-dim tensor of ``self``'s dtype, on its device."""
    return ops.fill_(ops.new_empty(self, []), float(q)) if self.dtype.is_floating_point else ops.new_empty(self, [])


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan):
    if interpolation not in _MODES:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    _checks(self, q)
    wrapped = checks.wrap_dim(0 if dim is None else dim, self.dim())
    out_shape = _out_shape(self, q, dim, keepdim, wrapped)
    if not ops.all(ops.logical_and(ops.ge(q, 0), ops.le(q, 1))).item():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        values = ops.sort(ops.flatten(self))[0]
    elif wrapped == self.dim() - 1:
        values = ops.sort(self)[0]
    else:
        values = ops.sort(ops.transpose(ops.unsqueeze(self, -1), wrapped, -1))[0]
    if q.dim() == 0:
        out_shape = [q.numel()] + out_shape
    in_shape = out_shape[1:] + [values.shape[-1]]
    values = ops.view(values, in_shape)
    if values.shape[-1] > 2 ** 24:
        raise RuntimeError("quantile() input tensor is too large")
    ranks = _ranks(values, q, ignore_nan)
    if interpolation == "lower":
        ops.floor_(ranks)
    elif interpolation == "higher":
        ops.ceil_(ranks)
    elif interpolation == "nearest":
        ops.round_(ranks)
    below_index = ops._to_copy(ranks, dtype=st.int64)
    below = ops.gather(values, -1, below_index)
    if interpolation in ("linear", "midpoint"):
        weights = ops.full_like(ranks, 0.5) if interpolation == "midpoint" else ops.sub(ranks, below_index)
        above = ops.gather(values, -1, ops._to_copy(ops.ceil_(ranks), dtype=st.int64))
        ops.lerp_(below, above, weights)
    if q.dim() == 0:
        return ops.squeeze_(below, -1)
    return ops.squeeze_(ops.transpose_(ops.unsqueeze_(below, 0), 0, -1), -1)


def _ranks(values, q, ignore_nan):
    if ignore_nan:
        counts = ops.sum(ops.logical_not_(ops.isnan(values)), [-1], True)
        ranks = ops.mul(q, ops.sub(counts, 1))
        return ops.masked_fill_(ranks, ops.lt(ranks, 0), 0)
    last = values.shape[-1] - 1
    scaled, has_nan = ops.broadcast_tensors([ops.mul(q, last), ops.any(ops.isnan(values), -1, True)])
    return ops.masked_fill(scaled, has_nan, last)


def _checks(self, q):
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in (st.float32, st.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not self.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")


def _out_shape(self, q, dim, keepdim, wrapped):
    shape = []
    if dim is not None and self.dim() > 0:
        shape = list(self.shape)
        if keepdim:
            shape[wrapped] = 1
        else:
            del shape[wrapped]
    elif keepdim:
        shape = [1] * self.dim()
    if q.dim() > 0:
        shape = [q.numel()] + shape
    return shape
