"""Adamax. Models ``torch/optim/adamax.py`` (``Adamax``, ``_single_tensor_adamax``).

Adam with the infinity norm in place of the second moment. Per parameter the state holds ``step`` (a zero-dim
float32 tensor), ``exp_avg`` and ``exp_inf``. One step, in PyTorch's order: ``step += 1``; weight decay
``grad + weight_decay * param``; ``exp_avg.lerp_(grad, 1 - beta1)``;
``exp_inf = max(exp_inf * beta2, |grad| + eps)``; ``param -= lr / (1 - beta1 ** step) * exp_avg / exp_inf``
(the bias correction in Python floats). A complex parameter steps its two parts as real numbers.
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _check_eps_betas_weight_decay, _check_lr, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class Adamax(Optimizer):
    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach=None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_lr(lr)
        _check_eps_betas_weight_decay(eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _state_of(self, param) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            state["step"] = _new_scalar(0.0)
            state["exp_avg"] = _VF.zeros_like(param)
            state["exp_inf"] = _VF.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param)
        _check_capturable(param, group)
        grad = param.grad if not group["maximize"] else -param.grad
        beta1, beta2 = group["betas"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        if param.is_complex():  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            param, grad, exp_avg, exp_inf = (_VF.view_as_real(t) for t in (param, grad, exp_avg, exp_inf))
        exp_avg.lerp_(grad, 1 - beta1)
        _VF.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
        clr = _to_scalar(group["lr"]) / (1 - beta1 ** state["step"].item())
        param.addcdiv_(exp_avg, exp_inf, value=-clr)

