"""Adadelta. Models ``torch/optim/adadelta.py`` (``Adadelta``, ``_single_tensor_adadelta``).

Per parameter the state holds ``step`` (a zero-dim float32 tensor), ``square_avg`` and ``acc_delta``. One step,
in PyTorch's order: ``step += 1``; weight decay ``grad + weight_decay * param``;
``square_avg * rho + (1 - rho) * grad * grad``; ``delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * grad``;
``acc_delta * rho + (1 - rho) * delta * delta``; ``param -= lr * delta``. A complex parameter's buffers step as
real numbers and its delta is seen as complex again for the update.
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _check_lr, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class Adadelta(Optimizer):
    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach=None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state_of(self, param) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            state["step"] = _new_scalar(0.0)
            state["square_avg"] = _VF.zeros_like(param)
            state["acc_delta"] = _VF.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param)
        _check_capturable(param, group, supports_xla=False)
        rho, eps = group["rho"], group["eps"]
        state["step"] += 1
        grad = param.grad if not group["maximize"] else -param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        complex_param = param.is_complex()
        if complex_param:  # the buffers step as real numbers (torch's view_as_real)
            square_avg, acc_delta, grad = (_VF.view_as_real(t) for t in (square_avg, acc_delta, grad))
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        if complex_param:
            delta = _VF.view_as_complex(delta)
        param.add_(delta, alpha=-_to_scalar(group["lr"]))
