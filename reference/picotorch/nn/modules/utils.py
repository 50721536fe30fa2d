"""The argument helpers of the conv and pooling layers. Models ``torch/nn/modules/utils.py``: ``_pair(3)`` is
``(3, 3)``, an iterable is made a tuple as it is; ``_reverse_repeat_tuple`` turns a layer's per-dim padding into
``F.pad``'s order (last dim first, each amount twice)."""

from __future__ import annotations

import collections.abc
from itertools import repeat

__all__ = ["_pair", "_reverse_repeat_tuple", "_single", "_triple"]


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t, n):
    return tuple(x for x in reversed(t) for _ in range(n))
