"""``trapezoid``, ``trapz`` and ``cumulative_trapezoid``: the trapezoid rule along a dim, built from other ops.

Models ``aten/src/ATen/native/Integration.cpp`` (``CompositeImplicitAutograd``): with sample points ``x`` the
spacings are ``x[1:] - x[:-1]`` (a 1-D ``x`` viewed along ``dim``, a shorter one padded with leading 1s) and the
result ``((y[:-1] + y[1:]) * dx).sum(dim) / 2``; with a constant ``dx`` it is
``(y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx``. The cumulative forms take ``cumsum`` instead of ``sum`` (and
``dx / 2 * (y[:-1] + y[1:])`` for a constant). So the graph is made of those ops.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from . import checks
from .dispatcher import ops


def trapezoid_x(y, x, dim=-1):
    dim = checks.wrap_dim(dim, y.dim())
    if _size(y, dim) == 0:
        return _zeros_without(y, dim)
    if y.dtype is st.bool_ or x.dtype is st.bool_:
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    dx = _spacings(y, x, dim, "trapezoid")
    return ops.div(ops.sum(ops.mul(_pair_sums(y, dim), dx), [dim]), 2.0)


def trapezoid_dx(y, dx=1, dim=-1):
    if _size(y, dim) == 0:
        return _zeros_without(y, dim)
    if y.dtype is st.bool_:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    _check_real(dx, "trapezoid")
    ends = ops.add(ops.select(y, dim, 0), ops.select(y, dim, -1))
    return ops.mul(ops.sub(ops.sum(y, [dim]), ops.mul(ends, 0.5)), float(dx))


def trapz_x(y, x, dim=-1):
    return trapezoid_x(y, x, dim)


def trapz_dx(y, dx=1, dim=-1):
    return trapezoid_dx(y, dx, dim)


def cumulative_trapezoid_x(y, x, dim=-1):
    dim = checks.wrap_dim(dim, y.dim())
    if y.dtype is st.bool_ or x.dtype is st.bool_:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    dx = _spacings(y, x, dim, "cumulative_trapezoid")
    return ops.div(ops.cumsum(ops.mul(_pair_sums(y, dim), dx), dim), 2.0)


def cumulative_trapezoid_dx(y, dx=1, dim=-1):
    if y.dtype is st.bool_:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is not supported")
    _check_real(dx, "cumulative_trapezoid")
    return ops.cumsum(ops.mul(_pair_sums(y, dim), float(dx) / 2.0), dim)


def _size(y, dim):
    """``y.size(dim)``: a zero-dim tensor has no dim to ask about."""
    return y.shape[checks.wrap_dim(dim, y.dim(), wrap_scalar=False)]


def _pair_sums(y, dim):
    """``y[:-1] + y[1:]`` along ``dim``: each interval's two ends."""
    return ops.add(ops.slice(y, dim, 0, -1), ops.slice(y, dim, 1))


def _spacings(y, x, dim, name):
    if x.dim() == 1:
        if x.shape[0] != _size(y, dim):
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.dim()
        sizes[dim] = x.shape[0]
        x = ops.view(x, sizes)
    elif x.dim() < y.dim():
        x = ops.view(x, [1] * (y.dim() - x.dim()) + list(x.shape))
    left = ops.slice(x, dim, 0, -1)  # made first: the engine then runs the right slice's node first, as torch's
    return ops.sub(ops.slice(x, dim, 1), left)


def _zeros_without(y, dim):
    """Zeros shaped like ``y`` without ``dim``: the integral over no samples (NumPy's answer)."""
    sizes = list(y.shape)
    del sizes[checks.wrap_dim(dim, y.dim())]
    return ops.new_empty(y, sizes)  # (picotorch's new_empty is zero-filled)


def _check_real(dx, name):
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
