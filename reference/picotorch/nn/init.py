"""``nn.init``: the uniform initialisation ``nn.Linear`` uses. Models ``torch/nn/init.py``."""

from __future__ import annotations

import math

from .._C import rand
from ..autograd.grad_mode import no_grad


def uniform_(tensor, a: float = 0.0, b: float = 1.0):
    with no_grad():
        values = rand(*tensor.shape, dtype=tensor.dtype)
        tensor._data[...] = (values._data * (b - a) + a)
        tensor._version_counter.bump()
    return tensor


def kaiming_uniform_(tensor, a: float = 0.0):
    fan_in = tensor.shape[1] if tensor.dim() > 1 else tensor.shape[0]
    gain = math.sqrt(2.0 / (1 + a**2))
    bound = gain * math.sqrt(3.0 / fan_in) if fan_in else 0.0
    return uniform_(tensor, -bound, bound)
