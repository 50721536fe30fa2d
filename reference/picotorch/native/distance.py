"""``cdist``: the p-norm distance between each row of ``x1`` and each row of ``x2`` (batched).

Models ``aten/src/ATen/native/Distance.cpp`` and ``cpu/DistanceOpsKernel.cpp``. ``cdist`` itself is a composite
that picks, as torch does, between ``_euclidean_dist`` (for ``p == 2`` with ``compute_mode`` 1, or 0 with more
than 25 rows on either side: ``|a|^2 - 2 a.b + |b|^2`` through one matmul, clamped at 0, square-rooted; its node
is ``EuclideanDistBackward0``, and the result is viewed to the output shape) and ``_cdist_forward`` (the
distances summed per pair; node ``CdistBackward0``, whose gradient is ``_cdist_backward``). Empty inputs always
take ``_cdist_forward``.
"""

from __future__ import annotations

import math

import numpy as np

from . import checks
from .device import to_numpy
from .dispatcher import ops
from .helpers import wrap, xp_of
from .layout import row_major


def _check_shapes(x1, x2):
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")


def _uses_mm(p, mode, r1, r2):
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


def cdist(x1, x2, p=2.0, compute_mode=None):
    _check_shapes(x1, x2)
    if x1.numel() == 0 or x2.numel() == 0:
        return ops._cdist_forward(x1, x2, p, compute_mode)
    mode = 0 if compute_mode is None else compute_mode
    if _uses_mm(p, mode, x1.shape[-2], x2.shape[-2]):
        return _cdist_impl(x1, x2, p, compute_mode, recorded=True)
    return ops._cdist_forward(x1, x2, p, compute_mode)


def _cdist_forward(x1, x2, p, compute_mode=None):
    _check_shapes(x1, x2)
    return _cdist_impl(x1, x2, p, compute_mode, recorded=False)


def _cdist_impl(x1, x2, p, compute_mode, recorded):
    """``cdist_impl``: its checks, the batch dims broadcast, then the matmul form or the direct sums."""
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {x1.dtype.c10_name}")
    if not x1.dtype.is_floating_point:  # (torch tests X1's dtype twice; X2's is never checked)
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {x2.dtype.c10_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = 0 if compute_mode is None else compute_mode
    if not 0 <= mode <= 2:
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {mode}")
    (r1, c1), (r2, c2) = x1.shape[-2:], x2.shape[-2:]
    batch = checks.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    count = math.prod(batch)
    out_shape = list(batch) + [r1, r2]
    if r1 == 0 or r2 == 0 or count == 0:
        return wrap(x1, xp_of(x1).zeros(tuple(out_shape), dtype=x1._data.dtype, device=x1._data.device))
    if c1 == 0:
        return wrap(x1, xp_of(x1).zeros(tuple(out_shape), dtype=x1._data.dtype, device=x1._data.device))
    if _uses_mm(p, mode, r1, r2):
        if not recorded:
            a = np.broadcast_to(to_numpy(x1._data), tuple(batch) + (r1, c1))
            b = np.broadcast_to(to_numpy(x2._data), tuple(batch) + (r2, c2))
            return _tensor(x1, _euclidean(a, b))
        if count == 1:
            return ops.view(ops._euclidean_dist(x1, x2), out_shape)
        a = ops.view(ops.contiguous(ops.expand(x1, list(batch) + [r1, c1])), [count, r1, c1])
        b = ops.view(ops.contiguous(ops.expand(x2, list(batch) + [r2, c2])), [count, r2, c2])
        return ops.view(ops._euclidean_dist(a, b), out_shape)
    if x2.dtype is not x1.dtype:  # the kernel reads X2's memory as X1's type
        raise RuntimeError(f"expected scalar type {x1.dtype.c10_name} but found {x2.dtype.c10_name}")
    a = np.broadcast_to(to_numpy(x1._data), tuple(batch) + (r1, c1))
    b = np.broadcast_to(to_numpy(x2._data), tuple(batch) + (r2, c2))
    return _tensor(x1, _pairwise(a, b, float(p)).reshape(out_shape))


def _tensor(like, array):
    return wrap(like, xp_of(like).asarray(row_major(np.asarray(array)), device=like._data.device))


def _pairwise(a, b, p):
    """Each pair's distance: the count of differing coordinates (p = 0), the largest difference (inf), or
    ``sum(|d|^p)^(1/p)`` (1 and 2 without the powers)."""
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(axis=-1).astype(a.dtype)
    if math.isinf(p):
        return diff.max(axis=-1)
    if p == 1:
        return diff.sum(axis=-1)
    if p == 2:
        return np.sqrt((diff * diff).sum(axis=-1))
    return np.power(np.power(diff, a.dtype.type(p)).sum(axis=-1), a.dtype.type(1.0 / p))


def _euclidean(a, b):
    """``_euclidean_dist``'s arithmetic: ``[-2a, |a|^2, 1] @ [b, 1, |b|^2]^T``, clamped at 0, square-rooted."""
    a_norm = (a * a).sum(axis=-1, keepdims=True)
    b_norm = (b * b).sum(axis=-1, keepdims=True)
    left = np.concatenate([a * a.dtype.type(-2), a_norm, np.ones_like(a_norm)], axis=-1)
    right = np.concatenate([b, np.ones_like(b_norm), b_norm], axis=-1)
    return np.sqrt(np.maximum(left @ np.swapaxes(right, -1, -2), 0))


def _euclidean_dist(x1, x2):
    return _tensor(x1, _euclidean(to_numpy(x1._data), to_numpy(x2._data)))


def _cdist_backward(grad, x1, x2, p, cdist):
    """The gradient of every distance with respect to ``x1``'s rows (``cdist_backward`` of the CPU kernel),
    summed over ``x2``'s rows; broadcast batch dims are left to the engine to sum."""
    (r1, c1), (r2, _) = x1.shape[-2:], x2.shape[-2:]
    batch = checks.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    if r1 == 0 or r2 == 0 or c1 == 0 or math.prod(batch) == 0:
        return wrap(x1, xp_of(x1).zeros(tuple(x1.shape), dtype=x1._data.dtype, device=x1._data.device))
    a = np.broadcast_to(to_numpy(x1._data), tuple(batch) + (r1, c1))
    b = np.broadcast_to(to_numpy(x2._data), tuple(batch) + tuple(x2.shape[-2:]))
    g = to_numpy(grad._data)[..., None]
    dist = to_numpy(cdist._data)[..., None]
    diff = a[..., :, None, :] - b[..., None, :, :]
    kind = a.dtype.type
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 0:
            each = np.zeros_like(diff)
        elif p == 1:
            each = g * np.sign(diff)
        elif math.isinf(p):
            each = g * np.sign(diff) * (1 - np.minimum(1, np.ceil(np.abs(np.abs(diff) - dist))))
        elif p == 2:
            each = np.where(dist == 0, 0, g * diff / dist)
        elif p < 2:
            each = np.where((dist == 0) | ((diff == 0) & (p < 1)), 0,
                            np.sign(diff) * np.power(np.abs(diff), kind(p - 1)) * g / np.power(dist, kind(p - 1)))
        else:
            each = np.where(dist == 0, 0,
                            diff * np.power(np.abs(diff), kind(p - 2)) * g / np.power(dist, kind(p - 1)))
    return _tensor(x1, each.sum(axis=-2).astype(a.dtype))
