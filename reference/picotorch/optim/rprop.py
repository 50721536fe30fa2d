"""Rprop, resilient backpropagation. Models ``torch/optim/rprop.py`` (``Rprop``, ``_single_tensor_rprop``).

Only the gradient's sign is used. Per parameter the state holds ``step`` (a zero-dim float32 tensor), ``prev``
(the last gradient used) and ``step_size`` (one per element, starting at ``lr``). One step, in PyTorch's order:
``step += 1``; ``sign = sign(grad * prev)`` replaced by ``etaplus`` where positive, ``etaminus`` where negative, 1
where zero; ``step_size = clamp(step_size * sign, *step_sizes)``; where the sign flipped the gradient counts as
0; ``param -= sign(grad) * step_size``; ``prev = grad``. A complex parameter steps its two parts as real numbers.
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _check_lr, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class Rprop(Optimizer):
    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _state_of(self, param, group) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            lr = group["lr"]
            state["step"] = _new_scalar(0.0)
            state["prev"] = _VF.zeros_like(param)
            fill = complex(lr, lr) if param.is_complex() else _to_scalar(lr)
            state["step_size"] = _VF.full_like(param.grad, fill)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param, group)
        _check_capturable(param, group)
        grad = param.grad if not group["maximize"] else -param.grad
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        state["step"] += 1
        if param.is_complex():  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            grad, prev, param, step_size = (_VF.view_as_real(t) for t in (grad, prev, param, step_size))
        sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0  # a sign change: no step this time, and no sign change counted next time
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
