"""``pixel_shuffle``, ``pixel_unshuffle`` and ``channel_shuffle``: channels moved into space and back, or
interleaved.

Models ``aten/src/ATen/native/PixelShuffle.cpp`` and ``ChanelShuffle.cpp`` (sic): the checks and texts, then the
element moves of the CPU kernels. Each writes a new row-major tensor (PyTorch keeps channels-last inputs so, which
picotorch does not model), and each has a node of its own, whose gradient is the inverse move
(``PixelShuffleBackward0`` calls ``pixel_unshuffle``, ``ChannelShuffleBackward0`` shuffles by ``C / groups``).
"""

from __future__ import annotations

from .helpers import row_major_copy, shape_of, xp_of
from .tensor_impl import new_tensor


def pixel_shuffle(self, upscale_factor):
    """``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``: viewed ``(*, C, r, r, H, W)``, laid out ``(*, C, H, r, W, r)``."""
    shape = shape_of(self)
    if len(shape) < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{len(shape)} dimension(s)")
    if upscale_factor <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}")
    r, (c, h, w) = upscale_factor, shape[-3:]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    batch = shape[:-3]
    n = len(batch)
    data = xp_of(self).reshape(self._data, batch + (c // (r * r), r, r, h, w))
    moved = xp_of(self).permute_dims(data, tuple(range(n)) + tuple(n + d for d in (0, 3, 1, 4, 2)))
    return _new(self, moved, batch + (c // (r * r), h * r, w * r))


def pixel_unshuffle(self, downscale_factor):
    """``(*, C, H r, W r)`` to ``(*, C r^2, H, W)``: viewed ``(*, C, H, r, W, r)``, laid out ``(*, C, r, r, H, W)``."""
    shape = shape_of(self)
    if len(shape) < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{len(shape)} dimension(s)")
    if downscale_factor <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}")
    r, (c, h, w) = downscale_factor, shape[-3:]
    for label, index, size in (("height", -2, h), ("width", -1, w)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {label} to be divisible by downscale_factor, but "
                               f"input.size({index})={size} is not divisible by {r}")
    batch = shape[:-3]
    n = len(batch)
    data = xp_of(self).reshape(self._data, batch + (c, h // r, r, w // r, r))
    moved = xp_of(self).permute_dims(data, tuple(range(n)) + tuple(n + d for d in (0, 2, 4, 1, 3)))
    return _new(self, moved, batch + (c * r * r, h // r, w // r))


def channel_shuffle(self, groups):
    """``(N, C, *)`` viewed ``(N, g, C / g, *)``, the two group dims swapped, flattened back."""
    shape = shape_of(self)
    if len(shape) <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"[{', '.join(map(str, shape))}]")
    c = shape[1]
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    data = xp_of(self).reshape(self._data, (shape[0], groups, c // groups) + shape[2:])
    moved = xp_of(self).permute_dims(data, (0, 2, 1) + tuple(range(3, len(shape) + 1)))
    return _new(self, moved, shape)


def _new(self, moved, shape):
    xp = xp_of(self)
    return new_tensor(xp.reshape(row_major_copy(xp, moved), shape), self._dtype, self._device)
