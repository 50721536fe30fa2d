"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``. Models ``torch/nn/utils/clip_grad.py``.

``clip_grad_norm_`` treats all the gradients as one long vector: it takes each gradient's p-norm, then the
p-norm of those norms (``get_total_norm``), and multiplies every gradient in place by
``min(max_norm / (total + 1e-6), 1)`` (``clip_grads_with_norm_``), so gradients only ever shrink. It returns
the total norm from before clipping, which training loops log. ``clip_grad_value_`` clamps each gradient
element into ``[-clip_value, clip_value]``. Everything runs under ``no_grad``.

PyTorch groups the gradients by device and dtype and uses its ``_foreach_*`` kernels where it can; those
compute the same per-tensor norms, products and clamps, so picotorch loops over the tensors one by one.
"""

from __future__ import annotations

import math
import types
import warnings

from ... import _C
from ..._tensor import Tensor
from ...autograd import no_grad

_VF = _C._VariableFunctions


def _as_list(tensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@no_grad()
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None):
    """The ``norm_type``-norm of all of ``tensors`` as if they were one vector (0 for none)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _C.tensor(0.0)
    first_device = tensors[0].device
    norms = [_C._linalg.linalg_vector_norm(t, norm_type) for t in tensors]
    total = _C._linalg.linalg_vector_norm(_VF.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Multiply every ``.grad`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    coefficient = _VF.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for grad in grads:
        grad.mul_(coefficient.to(grad.device))


@no_grad()
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None):
    """Clip the gradients' total norm to ``max_norm`` in place; return the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        from_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if from_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


@no_grad()
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every ``.grad`` element into ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    for grad in [p.grad for p in _as_list(parameters) if p.grad is not None]:
        grad.clamp_min_(-clip_value)
        grad.clamp_max_(clip_value)
