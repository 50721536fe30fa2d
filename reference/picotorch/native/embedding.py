"""``embedding`` and its gradient: rows of a table picked by integer indices.

Models ``aten/src/ATen/native/Embedding.cpp`` (``embedding``, ``embedding_backward``,
``embedding_dense_backward_cpu``). The forward is ``index_select`` of the rows, viewed back to the
indices' shape plus the row size. The gradient adds each output row into the row it came from, so a
repeated index sums its rows; the ``padding_idx`` row gets nothing, and with ``scale_grad_by_freq``
each contribution is divided by how often its index occurs in the batch. ``embedding_renorm_`` (what
``max_norm`` asks for) rescales the rows a lookup will read, in place, before the lookup.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .device import to_numpy
from .helpers import add_at, error_type_string, has_scatter, np_xp, wrap, xp_of
from .scatter_gather import index_select


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_index_dtype(indices, 1, "embedding")
    xp = xp_of(weight)
    rows = index_select(weight, 0, wrap(indices, xp.reshape(indices._data, (-1,))))
    return wrap(weight, xp.reshape(rows._data, tuple(indices._data.shape) + (weight._data.shape[1],)))


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    _check_index_dtype(indices, 2, "embedding_backward")
    xp = xp_of(grad_output)
    width = grad_output._data.shape[-1] if grad_output._data.ndim else 1
    rows = xp.reshape(grad_output._data, (-1, width))
    positions = xp.astype(xp.reshape(indices._data, (-1,)), xp.int64)
    if scale_grad_by_freq:  # the kernel adds each row times ``1 / count``, the count over all indices
        rows = rows * xp.reshape(1.0 / xp.astype(_counts(xp, positions, num_weights), xp.float64), (-1, 1))
        rows = xp.astype(rows, grad_output._data.dtype)
    kept = positions != padding_idx
    out = xp.zeros((num_weights, width), dtype=rows.dtype, device=rows.device)
    if has_scatter(out):
        add_at(out, positions[kept], rows[kept])
    else:  # the Array API has no scatter: a one-hot table of which row goes where
        hits = xp.reshape(positions, (1, -1)) == xp.reshape(xp.arange(num_weights, device=rows.device), (-1, 1))
        hits = hits & xp.reshape(kept, (1, -1))
        out = xp.matmul(xp.astype(hits, rows.dtype), rows)
    return wrap(grad_output, out)


def _counts(xp, positions, num_weights):
    """How often each position's index occurs among all of them."""
    if xp is np_xp:
        return np.bincount(positions, minlength=num_weights)[positions]
    hits = xp.reshape(positions, (1, -1)) == xp.reshape(xp.arange(num_weights, device=positions.device), (-1, 1))
    return xp.take(xp.sum(xp.astype(hits, xp.int64), axis=1), positions)


def _check_index_dtype(indices, position: int, op: str) -> None:
    """``checkScalarTypes``: the argument named with its position and its legacy type name."""
    if indices._dtype not in (st.int64, st.int32):
        raise RuntimeError(f"Expected tensor for argument #{position} 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {error_type_string(indices)} instead (while "
                           f"checking arguments for {op})")


def embedding_renorm_(self, indices, max_norm, norm_type):
    """Each row that ``indices`` names, scaled down in place to a ``norm_type``-norm of ``max_norm`` when longer
    (by ``max_norm / (norm + 1e-7)``); what ``nn.Embedding(max_norm=...)`` does before each lookup."""
    if self._data.ndim != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {self._data.ndim}-dimensional tensor for argument "
                           "#1 'self' (while checking arguments for embedding_renorm_)")
    _check_index_dtype(indices, 2, "embedding_renorm_")
    xp = xp_of(self)
    for row in sorted({int(i) for i in to_numpy(indices._data).reshape(-1)}):
        values = self._data[row, ...]
        norm = _norm(xp, xp.astype(values, xp.float64), norm_type)
        if norm > max_norm:
            scale = xp.asarray(max_norm / (norm + 1e-7), dtype=values.dtype, device=values.device)
            self._data[row, ...] = values * scale
    return self


def _norm(xp, values, p) -> float:
    magnitudes = xp.abs(values)
    if p == float("inf"):
        return float(xp.max(magnitudes)) if magnitudes.shape[0] else 0.0
    if p == 0:
        return float(xp.sum(xp.astype(magnitudes != 0, xp.float64)))
    return float(xp.sum(magnitudes ** p) ** (1.0 / p))
