"""``constant_pad_nd``: a tensor grown (or cut, by a negative amount) at both ends of its last dims.

Models ``aten/src/ATen/native/PadNd.cpp``. ``pad`` lists (before, after) pairs from the last dim backwards:
``(1, 2)`` pads the last dim by 1 in front and 2 behind, ``(1, 2, 0, 3)`` also the dim before it. A negative
amount narrows the input first; the new elements hold ``value``. When no amount is positive the result is a copy
of the narrowed input (``clone``: in the input's dim order), else a new row-major tensor.
"""

from __future__ import annotations

import builtins  # ``slice`` is the name of a kernel elsewhere in this package; keep the built-in plain

from .helpers import stored_scalar, wrap, xp_dtype, xp_of
from .tensor_factories import clone


def constant_pad_nd(self, pad, value=0):
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    sizes = tuple(self._data.shape)
    ndim, padded = len(sizes), len(pad) // 2
    if ndim < padded:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)}while the input has {ndim}dimensions.")
    first = ndim - padded
    amounts = {first + i: (pad[2 * (padded - 1 - i)], pad[2 * (padded - 1 - i) + 1]) for i in range(padded)}
    kept = [builtins.slice(None)] * ndim
    for d, (before, after) in amounts.items():
        start, length = max(-before, 0), sizes[d] + min(before, 0)  # narrowed from the front, then the back
        if length < 0 or length + min(after, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        kept[d] = builtins.slice(start, start + length + min(after, 0))
    source = self._data[tuple(kept)]
    xp = xp_of(self)
    if all(before <= 0 and after <= 0 for before, after in amounts.values()):
        return clone(wrap(self, source))
    shape = list(sizes)
    for d, (before, after) in amounts.items():
        shape[d] = sizes[d] + before + after
        if shape[d] < 0:
            raise RuntimeError(f"The input size {sizes[d]}, plus negative padding {before} and {after} resulted in a "
                               f"negative output size, which is invalid. Check dimension {d} of your input.")
    out = xp.full(tuple(shape), stored_scalar(value, self._dtype), dtype=xp_dtype(xp, self._dtype),
                  device=self._data.device)
    placed = [builtins.slice(None)] * ndim
    for d, (before, after) in amounts.items():
        placed[d] = builtins.slice(max(before, 0), shape[d] - max(after, 0))
    out[tuple(placed)] = source
    return wrap(self, out)
