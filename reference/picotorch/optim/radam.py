"""RAdam. Models ``torch/optim/radam.py`` (``RAdam``, ``_single_tensor_radam``).

Adam whose adaptive term is switched on only once its variance is tractable. Per parameter the state holds
``step`` (a zero-dim float32 tensor), ``exp_avg`` and ``exp_avg_sq``. One step, in PyTorch's order:
``step += 1``; weight decay (decoupled: ``param *= 1 - lr * weight_decay``; else ``grad + weight_decay *
param``); ``exp_avg.lerp_(grad, 1 - beta1)``; ``exp_avg_sq * beta2 + (1 - beta2) * grad * grad``; the length
of the approximated moving average ``rho_t = rho_inf - 2 * step * beta2 ** step / (1 - beta2 ** step)`` with
``rho_inf = 2 / (1 - beta2) - 1``; past 5 the step is ``exp_avg / bc1 * lr * (sqrt(bc2) / (sqrt(exp_avg_sq)
+ eps)) * rect`` with the rectification ``rect`` in Python floats, else plain momentum ``exp_avg / bc1 * lr``.
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _check_eps_betas_weight_decay, _check_lr, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class RAdam(Optimizer):
    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_eps_betas_weight_decay(eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state_of(self, param) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            state["step"] = _new_scalar(0.0)
            state["exp_avg"] = _VF.zeros_like(param)
            state["exp_avg_sq"] = _VF.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param)
        _check_capturable(param, group)
        grad = param.grad if not group["maximize"] else -param.grad
        lr, weight_decay = _to_scalar(group["lr"]), group["weight_decay"]
        beta1, beta2 = group["betas"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        if param.is_complex():  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            param, grad, exp_avg, exp_avg_sq = (_VF.view_as_real(t) for t in (param, grad, exp_avg, exp_avg_sq))
        state["step"] += 1
        step = state["step"].item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(group["eps"])
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
