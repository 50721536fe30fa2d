"""NAdam. Models ``torch/optim/nadam.py`` (``NAdam``, ``_single_tensor_nadam``).

Adam with Nesterov momentum whose coefficient ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``
warms up over the steps. Per parameter the state holds ``step`` and ``mu_product`` (zero-dim float32 tensors:
the product of the ``mu`` so far, rounded to float32 at each step as PyTorch's is), ``exp_avg`` and
``exp_avg_sq``. One step, in PyTorch's order: ``step += 1``; weight decay (decoupled:
``param *= 1 - lr * weight_decay``; else ``grad + weight_decay * param``); ``mu_product *= mu``;
``exp_avg.lerp_(grad, 1 - beta1)``; ``exp_avg_sq * beta2 + (1 - beta2) * grad * grad``;
``denom = sqrt(exp_avg_sq / (1 - beta2 ** step)) + eps``; then two updates,
``param -= lr * (1 - mu) / (1 - mu_product) * grad / denom`` and
``param -= lr * mu_next / (1 - mu_product * mu_next) * exp_avg / denom``, their factors in Python floats.
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _check_eps_betas_weight_decay, _check_lr, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class NAdam(Optimizer):
    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_eps_betas_weight_decay(eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state_of(self, param) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            state["step"] = _new_scalar(0.0)
            state["mu_product"] = _new_scalar(1.0)
            state["exp_avg"] = _VF.zeros_like(param)
            state["exp_avg_sq"] = _VF.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param)
        _check_capturable(param, group, "params, mu_products and state_steps")
        grad = param.grad if not group["maximize"] else -param.grad
        lr, weight_decay, momentum_decay = _to_scalar(group["lr"]), group["weight_decay"], group["momentum_decay"]
        beta1, beta2 = group["betas"]
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        if param.is_complex():  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            param, grad, exp_avg, exp_avg_sq = (_VF.view_as_real(t) for t in (param, grad, exp_avg, exp_avg_sq))
        state["step"] += 1
        step = state["step"].item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom.add_(group["eps"])
        param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product.item())))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
