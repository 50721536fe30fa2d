"""``relu`` and its gradient.

Models ``aten/src/ATen/native/Activation.cpp`` (``relu``, ``threshold_backward``). The CUDA versions
that launch hand-written CUDA C are in :mod:`picotorch.native.cuda.elementwise`.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from .helpers import np_xp, wrap, xp_of
from .layout import follow_inputs


def relu(self):
    """``x < 0 ? 0 : x``: a NaN stays NaN and ``-0.`` stays ``-0.`` (``NaN < 0`` and ``-0. < 0`` are false), as
    PyTorch's ``clamp_min(self, 0)`` gives; ``where(x > 0, x, 0)`` would make both ``0.``."""
    if self._dtype is st.bool_:
        raise NotImplementedError('"clamp_min_cpu" not implemented for \'Bool\'')
    xp = xp_of(self)
    data = self._data
    return wrap(self, follow_inputs(xp, xp.where(data < 0, _zero(xp, data), data), [data]))


def threshold_backward(grad_output, self, threshold):
    """``self <= threshold ? 0 : grad_output``: relu's backward when ``threshold`` is 0 (a NaN lets its
    gradient through, as in ATen's ``threshold_kernel``)."""
    xp = xp_of(grad_output)
    grad = grad_output._data
    data = xp.where(self._data <= threshold, _zero(xp, grad), grad)
    return wrap(grad_output, follow_inputs(xp, data, [grad, self._data]))


def _zero(xp, like):
    """A zero ``where`` can take beside ``like``: NumPy's own scalar of ``like``'s dtype (no array of zeros
    to fill and read: a third of relu's time on a large input), else a zero-dim array."""
    if xp is np_xp:
        return like.dtype.type(0)
    return xp.zeros((), dtype=like.dtype, device=like.device)
