"""``relu`` and its gradient.

Models ``aten/src/ATen/native/Activation.cpp`` (``relu``, ``threshold_backward``). The CUDA versions
that launch hand-written CUDA C are in :mod:`picotorch.native.cuda.elementwise`.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from .helpers import wrap, xp_of
from .layout import follow_inputs


def relu(self):
    if self._dtype is st.bool_:
        raise NotImplementedError('"clamp_min_cpu" not implemented for \'Bool\'')
    xp = xp_of(self)
    return wrap(self, follow_inputs(xp, xp.where(self._data > 0, self._data, xp.zeros_like(self._data)), [self._data]))


def threshold_backward(grad_output, self, threshold):
    """``grad_output`` where ``self > threshold``, else 0: relu's backward when ``threshold`` is 0."""
    xp = xp_of(grad_output)
    keep = self._data > threshold
    data = xp.where(keep, grad_output._data, xp.zeros_like(grad_output._data))
    return wrap(grad_output, follow_inputs(xp, data, [grad_output._data, self._data]))
