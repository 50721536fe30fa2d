"""``copy_``: write another tensor's values into this one, broadcast and cast.

Models ``aten/src/ATen/native/Copy.cpp``: ``src`` broadcasts to ``self``'s shape (never the other
way), any dtype converts to ``self``'s (float into int truncates, anything into bool tests for
non-zero), and a tensor of another device is moved first. Its autograd (``CopyBackwards``) is
hand-written: ``autograd/variable_type_manual.py``.
"""

from __future__ import annotations

from . import checks
from .device import to_numpy
from .helpers import convert, np_xp, shape_of, xp_of
from .memory_overlap import assert_no_partial_overlap


def copy_(self, src, non_blocking=False):
    assert_no_partial_overlap(self, src)
    shape = shape_of(self)
    if checks.broadcast_shapes(shape, shape_of(src)) != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(checks.broadcast_shapes(shape, shape_of(src)))}")
    xp = xp_of(self)
    data = src._data
    if src._device != self._device:  # convert on the host, then move (a device may lack src's dtype)
        data = xp.asarray(convert(np_xp, to_numpy(data), self._dtype), device=self._data.device)
    self._data[...] = convert(xp, data, self._dtype)
    return self
