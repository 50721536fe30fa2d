"""``nll_loss_forward`` / ``nll_loss2d_forward`` and their backwards: the negative log likelihood.

Models ``aten/src/ATen/native/LossNLL.cpp`` (1-D and 2-D input: ``(C)`` or ``(N, C)``) and
``LossNLL2d.cpp`` (``(N, C, H, W)``). For each sample the loss is ``-input[class] * weight[class]``; a
target equal to ``ignore_index`` adds nothing. ``mean`` divides the sum by the total weight of the
targets that were not ignored (``total_weight``, the second output, which the backward reads).

NOTE [Cascade sum of nll_loss]
PyTorch's CPU kernel adds the losses of a batch in a cascade of 8 partial sums: every loss goes to
level 0, and level j is moved up into level j + 1 whenever the sample index has its j-th group of
``level_power`` (4 for any realistic batch) bits all zero. That bounds the rounding error like a
pairwise sum while reading the batch once; we replay the same additions in the same order (so a
float32 loss prints as PyTorch's), then add the levels up from the lowest.

The public ``nll_loss`` (any number of dims) is ``nll_loss_nd`` in ``composite.py``.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .device import to_numpy
from .helpers import np_xp, shape_of, xp_dtype, xp_of
from .tensor_impl import new_tensor

_NONE, _MEAN = 0, 1


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    _check_target_dtype(target)  # after the meta function's dim checks, before the sizes'
    no_batch_dim = self.dim() == 1 and target.dim() == 0
    if not no_batch_dim and shape_of(self)[0] != shape_of(target)[0]:
        raise RuntimeError(f"size mismatch (got input: {list(shape_of(self))}, target: {list(shape_of(target))})")
    n_classes = shape_of(self)[-1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {list(shape_of(weight))}")
    _check_dtypes(self, weight, "nll_loss_out_frame")
    x = to_numpy(self._data).reshape(-1, n_classes)
    t = to_numpy(target._data).reshape(-1).astype(np.int64)
    if reduction == _NONE and self.dim() == 2:
        return _tensor(self, _unreduced(x, t, weight, ignore_index, n_classes)), _tensor(self, 0)
    return _reduced(self, x, t, weight, reduction, ignore_index, n_classes)


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    n_classes = shape_of(self)[-1]
    x_shape = (-1, n_classes)
    grad = np.zeros(to_numpy(self._data).reshape(x_shape).shape, dtype=np.dtype(self._dtype.name))
    t = to_numpy(target._data).reshape(-1).astype(np.int64)
    go = to_numpy(grad_output._data).reshape(-1)
    _scatter_grad(grad, t, go, weight, reduction == _NONE and self.dim() == 2, reduction, ignore_index,
                  to_numpy(total_weight._data), n_classes)
    return _tensor(self, grad.reshape(shape_of(self)))


def nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    _check_inputs_nll_loss2d(self, target, weight)
    _check_dtypes(self, weight, "nll_loss2d_forward_out_frame")
    x, t, n_classes = _as_rows(self, target)
    if reduction == _NONE:
        out = _unreduced(x, t, weight, ignore_index, n_classes)
        return _tensor(self, out.reshape(shape_of(target))), _tensor(self, 0)
    return _reduced(self, x, t, weight, reduction, ignore_index, n_classes)


def nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    x, t, n_classes = _as_rows(self, target)
    grad = np.zeros(x.shape, dtype=np.dtype(self._dtype.name))
    go = to_numpy(grad_output._data).reshape(-1)
    _scatter_grad(grad, t, go, weight, reduction == _NONE, reduction, ignore_index, to_numpy(total_weight._data),
                  n_classes)
    n, c, h, w = shape_of(self)
    return _tensor(self, np.ascontiguousarray(grad.reshape(n, h, w, c).transpose(0, 3, 1, 2)))


# ----------------------------------------------------------------------------- the shared steps


def _check_target_dtype(target) -> None:
    if target._dtype not in (st.int64, st.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target._dtype.c10_name}")


def _check_dtypes(self, weight, kernel: str) -> None:
    if weight is not None and weight._dtype is not self._dtype:
        raise RuntimeError(f"expected scalar type {self._dtype.c10_name} but found {weight._dtype.c10_name}")
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")


def _check_inputs_nll_loss2d(self, target, weight) -> None:
    if target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.dim()}")
    if self.dim() != 4:
        raise RuntimeError("only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{self.dim()}")
    _check_target_dtype(target)  # after the dims, before the weight and the sizes
    if weight is not None and weight.numel() != shape_of(self)[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    n, _, h, w = shape_of(self)
    if (n, h, w) != shape_of(target):
        raise RuntimeError(f"size mismatch (got input: {list(shape_of(self))} , target: {list(shape_of(target))}")


def _as_rows(self, target):
    """``(N, C, H, W)`` as ``(N * H * W, C)`` rows in PyTorch's order (sample, then position)."""
    n_classes = shape_of(self)[1]
    x = np.moveaxis(to_numpy(self._data), 1, -1).reshape(-1, n_classes)
    return x, to_numpy(target._data).reshape(-1).astype(np.int64), n_classes


def _check_targets(t, ignore_index, n_classes) -> np.ndarray:
    """The rows that count, after PyTorch's bounds check (the first bad target, in order, is reported)."""
    kept = t != ignore_index
    bad = kept & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {t[np.argmax(bad)]} is out of bounds.")
    return kept


def _unreduced(x, t, weight, ignore_index, n_classes):
    kept = _check_targets(t, ignore_index, n_classes)
    rows = np.nonzero(kept)[0]
    out = np.zeros(len(t), dtype=x.dtype)
    picked = x[rows, t[rows]]
    out[rows] = -picked * to_numpy(weight._data)[t[rows]] if weight is not None else -picked
    return out


def _reduced(self, x, t, weight, reduction, ignore_index, n_classes):
    """The sum (or weighted mean) over the batch, added in PyTorch's cascade (NOTE [Cascade sum of nll_loss])."""
    dtype = x.dtype.type
    if t.size == 0:  # an empty batch: mean is NaN, sum is 0
        return _tensor(self, np.nan if reduction == _MEAN else 0), _tensor(self, 0)
    kept = _check_targets(t, ignore_index, n_classes)
    rows = np.nonzero(kept)[0]
    values = x[rows, t[rows]]
    w = to_numpy(weight._data)[t[rows]] if weight is not None else None
    loss, weight_sum = _cascade_sum(rows, values, w, len(t), dtype)
    total_weight = weight_sum if w is not None else dtype(len(rows))  # the batch less the ignored targets
    if reduction == _MEAN:
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = dtype(loss / total_weight)
    return _tensor(self, loss), _tensor(self, total_weight)


def _cascade_sum(rows, values, weights, batch_size, dtype):
    levels, level_power = 8, max(4, _ceil_log2(batch_size) // 8)
    if dtype in (np.float32, np.float64) and len(rows) > 128:  # fewer rows: the loop makes fewer calls
        # the losses subtracted from level 0 are their negations added (IEEE: ``a - b`` is ``a + (-b)``)
        losses = -values if weights is None else -(values * weights)
        loss = _cascade_levels(rows, losses, levels, level_power)
        weight = _cascade_levels(rows, weights, levels, level_power) if weights is not None else dtype(0)
        return loss, weight
    return _cascade_loop(rows, values, weights, levels, level_power, dtype)


def _cascade_levels(rows, items, levels, level_power):
    """The cascade of NOTE [Cascade sum of nll_loss], a level at a time: level ``j`` adds the items reaching it
    in order and, after each item whose index has its ``j``-th group of bits zero, moves its sum up (the
    moved sums, in order, are the next level's items); what it holds at the end is its share of the total."""
    total, mask = items.dtype.type(0), (1 << level_power) - 1
    for level in range(levels):
        closing = np.nonzero(rows & (mask << (level * level_power)) == 0)[0] if level < levels - 1 else []
        last = closing[-1] if len(closing) else -1
        total = total + _sums_from_zero(items[last + 1:], [len(items) - last - 1])[0]  # what stays here
        if not len(closing):
            return total  # nothing moved up: the higher levels hold +0, which leaves a total begun at +0 as is
        if len(closing) == 1 and rows[closing[0]] == 0:  # sample 0 alone: its sum goes up to the last level
            return total + (items.dtype.type(0) + _sums_from_zero(items[:1], [1])[0])
        items, rows = _sums_from_zero(items[:last + 1], np.diff(closing, prepend=-1)), rows[closing]
    return total


def _sums_from_zero(items, lengths):
    """Each run of ``lengths`` consecutive items added in order to a zero, as the kernel's ``+=`` does: one
    row per run, padded with ``-0.`` (``x + -0.`` is ``x`` for every ``x``, the sign of a zero included)."""
    lengths = np.asarray(lengths)
    dtype = items.dtype
    if len(items) == 0:
        return np.zeros(len(lengths), dtype)
    width = int(lengths.max())
    if len(lengths) * width > 4 * len(items) + 64:  # runs of very different lengths (ignored targets)
        starts = np.cumsum(lengths) - lengths
        return np.array([_sums_from_zero(items[a:a + n], [n])[0] for a, n in zip(starts, lengths)], dtype)
    table = np.full((len(lengths), width + 1), -0.0, dtype)
    table[:, 0] = 0.0
    starts = np.cumsum(lengths) - lengths
    runs = np.repeat(np.arange(len(lengths)), lengths)
    table[runs, 1 + np.arange(len(items)) - starts[runs]] = items
    return np.add.accumulate(table, axis=1)[:, -1]  # accumulate adds left to right, unlike sum's pairs


def _cascade_loop(rows, values, weights, levels, level_power, dtype):
    """The same additions one sample at a time: for small batches (fewer calls than a level at a time) and
    dtypes NumPy's ufuncs cannot accumulate exactly."""
    mask = (1 << level_power) - 1
    loss, weight = [dtype(0)] * levels, [dtype(0)] * levels
    for b, value, w in zip(rows.tolist(), values, weights if weights is not None else [None] * len(rows)):
        if w is None:
            loss[0] = dtype(loss[0] - value)
        else:
            loss[0] = dtype(loss[0] - dtype(value * w))
            weight[0] = dtype(weight[0] + w)
        if b & mask:
            continue  # most samples: level 0 keeps its sum
        for j in range(levels - 1):
            if b & (mask << (j * level_power)):
                break
            loss[j + 1], weight[j + 1] = dtype(loss[j + 1] + loss[j]), dtype(weight[j + 1] + weight[j])
            loss[j], weight[j] = dtype(0), dtype(0)
    total_loss, total_weight = dtype(0), dtype(0)
    for j in range(levels):
        total_loss, total_weight = dtype(total_loss + loss[j]), dtype(total_weight + weight[j])
    return total_loss, total_weight


def _ceil_log2(n: int) -> int:
    return max(n - 1, 0).bit_length()


def _scatter_grad(grad, t, go, weight, unreduced, reduction, ignore_index, total_weight, n_classes):
    kept = _check_targets(t, ignore_index, n_classes)
    rows = np.nonzero(kept)[0]
    w = to_numpy(weight._data)[t[rows]] if weight is not None else None
    if unreduced:
        value = -go[rows] if w is None else -w * go[rows]
    else:
        scale = go[0] / total_weight.reshape(-1)[0] if reduction == _MEAN else go[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            value = -np.asarray(scale, dtype=grad.dtype)
        value = value if w is None else w * value
    grad[rows, t[rows]] = value


def _tensor(like, data):
    xp = xp_of(like)
    array = np.asarray(data, dtype=np.dtype(like._dtype.name))
    if xp is not np_xp:
        array = xp.asarray(array, dtype=xp_dtype(xp, like._dtype), device=like._data.device)
    return new_tensor(array, like._dtype, like._device)
