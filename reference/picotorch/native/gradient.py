"""``torch.gradient``: the derivative estimated by central differences inside and one-sided ones at the edges.

Models ``gradient`` of ``aten/src/ATen/native/ReduceOps.cpp`` (``CompositeImplicitAutograd``, seven overloads by
the form of ``spacing`` and ``dim``): ``pre_check_gradient``'s checks, then per dim, with a uniform spacing ``h``,
``(y[2:] - y[:-2]) / h / 2`` between ``(y[1] - y[0]) / h`` and ``(y[-1] - y[-2]) / h`` (``edge_order=2``: the
second-order one-sided stencils), joined by ``cat``; with coordinates, the non-uniform three-point stencil. So
the graph is made of slices, subs, divs, muls and a cat.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from . import checks
from .dispatcher import ops


def gradient_scalarint(self, spacing=None, dim=None, edge_order=1):
    dims = _dims_of(self, dim)
    steps = [1.0 if spacing is None else spacing] * (1 if dim is not None else self.dim())
    _pre_check(self, len(steps) if spacing is not None else None, dims if dim is not None else None, edge_order)
    return _uniform(self, steps, dims, edge_order)


def gradient_scalararray(self, spacing, dim, edge_order=1):
    steps = [spacing] * len(dim)
    _pre_check(self, len(steps), dim, edge_order)
    return _uniform(self, steps, dim, edge_order)


def gradient_array(self, dim, edge_order=1):
    steps = [1.0] * len(dim)
    _pre_check(self, len(steps), dim, edge_order)
    return _uniform(self, steps, dim, edge_order)


def gradient_scalarrayint(self, spacing, dim=None, edge_order=1):
    dims = _dims_of(self, dim)
    _pre_check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _uniform(self, list(spacing), dims, edge_order)


def gradient_scalarrayarray(self, spacing, dim, edge_order=1):
    _pre_check(self, len(spacing), dim, edge_order)
    return _uniform(self, list(spacing), dim, edge_order)


def gradient_tensorarrayint(self, spacing, dim=None, edge_order=1):
    dims = _dims_of(self, dim)
    _pre_check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _coordinates(self, spacing, dims, edge_order)


def gradient_tensorarray(self, spacing, dim, edge_order=1):
    _pre_check(self, len(spacing), dim, edge_order)
    return _coordinates(self, spacing, dim, edge_order)


def _dims_of(self, dim):
    return [dim] if dim is not None else list(range(self.dim()))


def _pre_check(self, spacing_size, dim, edge_order):
    if self.dtype is st.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dim is None and spacing_size != self.dim():
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                           f"'self.dim() = {self.dim()}', since dim argument was not given, but got a list of length "
                           f"{spacing_size}")
    if spacing_size is not None and dim is not None and spacing_size != len(dim):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {spacing_size} "
                           f"and a dim argument of length {len(dim)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    seen = set()
    for d in dim if dim is not None else range(self.dim()):
        wrapped = checks.wrap_dim(d, self.dim())
        if dim is not None and wrapped in seen:
            raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        seen.add(wrapped)
    for d in dim if dim is not None else range(self.dim()):
        if self.shape[checks.wrap_dim(d, self.dim())] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")


def _uniform(self, spacing, dims, edge_order):
    """``gradient_helper_float``: one spacing per dim."""
    result = []
    for h, dim in zip(spacing, dims):
        d = checks.wrap_dim(dim, self.dim())
        # NOTE [C++ operand order] (composite.py): each ``a - b`` below makes b's nodes before a's
        lower = ops.slice(self, d, 0, -2)
        center = ops.div(ops.sub(ops.slice(self, d, 2), lower), h)
        if edge_order == 1:
            first = ops.slice(self, d, 0, 1)
            prepend = ops.div(ops.sub(ops.slice(self, d, 1, 2), first), h)
            before_last = ops.slice(self, d, -2, -1)
            append = ops.div(ops.sub(ops.slice(self, d, -1), before_last), h)
        else:  # (y0 * -1.5 + y1 * 2 - y2 * 0.5) / h and (y-3 * 0.5 - y-2 * 2 + y-1 * 1.5) / h
            right = ops.mul(ops.slice(self, d, 2, 3), 0.5)
            middle = ops.mul(ops.slice(self, d, 1, 2), 2)
            prepend = ops.div(ops.sub(ops.add(ops.mul(ops.slice(self, d, 0, 1), -1.5), middle), right), h)
            right = ops.mul(ops.slice(self, d, -1), 1.5)
            middle = ops.mul(ops.slice(self, d, -2, -1), 2)
            append = ops.div(ops.add(ops.sub(ops.mul(ops.slice(self, d, -3, -2), 0.5), middle), right), h)
        result.append(ops.cat([prepend, ops.div(center, 2), append], d))
    return tuple(result)


def _coordinates(self, coordinates, dims, edge_order):
    """``gradient_helper``: the sample points of each dim given as a 1-D tensor."""
    for c in coordinates:
        if c.device != self.device:
            raise RuntimeError(f"torch.gradient expected each tensor to be on the same device, but got devices "
                               f"{self.device} and {c.device}!")
    result = []
    for coordinate, dim in zip(coordinates, dims):
        if coordinate.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {coordinate.dim()} dimensions!")
        d = checks.wrap_dim(dim, self.dim())
        shape = [1] * self.dim()
        shape[d] = -1
        dx = ops.diff(coordinate, 1, 0)
        dx1, dx2 = ops.slice(dx, 0, 0, -1), ops.slice(dx, 0, 1)
        a = ops.reshape(ops.div(ops.neg(dx2), ops.mul(dx1, ops.add(dx1, dx2))), shape)
        b = ops.reshape(ops.div(ops.sub(dx2, dx1), ops.mul(dx1, dx2)), shape)
        c = ops.reshape(ops.div(dx1, ops.mul(dx2, ops.add(dx1, dx2))), shape)
        center = _three_point(self, d, (a, b, c), ((0, -2), (1, -1), (2, None)))
        first, second = ops.select(dx, 0, 0), ops.select(dx, 0, 1) if dx.shape[0] > 1 else None
        last, before = ops.select(dx, 0, -1), ops.select(dx, 0, -2) if dx.shape[0] > 1 else None
        if edge_order == 1:  # NOTE [C++ operand order] (composite.py): b's nodes before a's in ``a - b``
            lower = ops.slice(self, d, 0, 1)
            prepend = ops.div(ops.sub(ops.slice(self, d, 1, 2), lower), first)
            lower = ops.slice(self, d, -2, -1)
            append = ops.div(ops.sub(ops.slice(self, d, -1), lower), last)
        else:
            total = ops.add(first, second)
            a0 = ops.div(ops.neg(ops.add(ops.mul(first, 2.0), second)), ops.mul(first, total))
            b0 = ops.div(total, ops.mul(first, second))
            c0 = ops.div(ops.neg(first), ops.mul(second, total))
            prepend = _three_point(self, d, (a0, b0, c0), ((0, 1), (1, 2), (2, 3)))
            total = ops.add(last, before)
            a1 = ops.div(last, ops.mul(before, total))
            b1 = ops.div(ops.neg(total), ops.mul(last, before))
            c1 = ops.div(ops.add(ops.mul(last, 2), before), ops.mul(last, total))
            append = _three_point(self, d, (a1, b1, c1), ((-3, -2), (-2, -1), (-1, None)))
        result.append(ops.cat([prepend, center, append], d))
    return tuple(result)


def _three_point(self, d, weights, bounds):
    """``w0 * y[s0] + w1 * y[s1] + w2 * y[s2]`` along ``d``, its nodes made as PyTorch's C++ expression makes
    them (NOTE [C++ operand order] in composite.py): the last product first."""
    (w0, w1, w2), (s0, s1, s2) = weights, bounds
    last = ops.mul(w2, ops.slice(self, d, *s2))
    middle = ops.mul(w1, ops.slice(self, d, *s1))
    return ops.add(ops.add(ops.mul(w0, ops.slice(self, d, *s0)), middle), last)
