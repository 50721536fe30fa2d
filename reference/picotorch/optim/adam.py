"""Adam (and AdamW's update, ``adamw.py``). Models ``torch/optim/adam.py`` (``Adam``, ``_single_tensor_adam``).

Per parameter the state holds ``step`` (a float32 zero-dim tensor, as PyTorch keeps it), ``exp_avg``,
``exp_avg_sq`` and, with ``amsgrad``, ``max_exp_avg_sq``. One step, in PyTorch's order of operations:
``step += 1``; weight decay (AdamW: ``param *= 1 - lr * weight_decay``; Adam: ``grad + weight_decay * param``);
``exp_avg.lerp_(grad, 1 - beta1)``; ``exp_avg_sq * beta2 + (1 - beta2) * grad * grad``; the bias
corrections in Python floats from ``step.item()``; ``denom = sqrt(exp_avg_sq) / sqrt(bc2) + eps``;
``param += -(lr / bc1) * exp_avg / denom``. A complex parameter steps its real and imaginary parts as two
real numbers (its tensors seen through ``view_as_real``).
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _check_eps_betas_weight_decay, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class Adam(Optimizer):
    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None, decoupled_weight_decay: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        _check_eps_betas_weight_decay(eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _state_of(self, param, group) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            state["step"] = _new_scalar(0.0)
            state["exp_avg"] = _VF.zeros_like(param)
            state["exp_avg_sq"] = _VF.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _VF.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param, group)
        _check_capturable(param, group)
        grad = param.grad if not group["maximize"] else -param.grad
        lr, weight_decay, eps = _to_scalar(group["lr"]), group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        state["step"].add_(1)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        if param.is_complex():  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            param, grad, exp_avg, exp_avg_sq = (_VF.view_as_real(t) for t in (param, grad, exp_avg, exp_avg_sq))
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = state["step"].item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if group["amsgrad"]:
            largest = state["max_exp_avg_sq"]
            largest = _VF.view_as_real(largest) if largest.is_complex() else largest
            bigger = _VF.where(largest.ge(exp_avg_sq), largest, exp_avg_sq)
            largest.zero_().add_(bigger)
            denom = (largest.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)

