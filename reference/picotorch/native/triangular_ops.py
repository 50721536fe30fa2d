"""``tril`` and ``triu``: the lower or upper triangle of the last two dims, the rest zeroed.

Models ``aten/src/ATen/native/TriangularOps.cpp``. ``diagonal`` moves the border: 0 is the main diagonal,
a positive value keeps more of the matrix in ``tril`` (less in ``triu``). Every leading dim is a batch.
The output is a new row-major tensor whatever the input's layout (the structured kernel allocates it so).
"""

from __future__ import annotations

from .binary_ops import write_inplace
from .helpers import row_major_copy, wrap, xp_of, zero_where


def tril(self, diagonal=0):
    return _triangle(self, diagonal, "tril")


def triu(self, diagonal=0):
    return _triangle(self, diagonal, "triu")


def tril_(self, diagonal=0):
    write_inplace(self, tril(self, diagonal))
    return self


def triu_(self, diagonal=0):
    write_inplace(self, triu(self, diagonal))
    return self


def _triangle(self, diagonal, name):
    data = self._data
    if data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    xp = xp_of(self)
    rows, cols = data.shape[-2:]
    offset = xp.arange(cols, device=data.device)[None, :] - xp.arange(rows, device=data.device)[:, None]
    dropped = offset > diagonal if name == "tril" else offset < diagonal
    return wrap(self, row_major_copy(xp, zero_where(xp, xp.broadcast_to(dropped, data.shape), data)))
