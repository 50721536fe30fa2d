"""RMSprop. Models ``torch/optim/rmsprop.py`` (``RMSprop``, ``_single_tensor_rmsprop``).

Per parameter the state holds ``step`` (a float32 zero-dim tensor), ``square_avg`` and, when asked,
``momentum_buffer`` and ``grad_avg`` (centered). One step, in PyTorch's order: ``step += 1``; weight decay
``grad + weight_decay * param``; ``square_avg * alpha + (1 - alpha) * grad * grad``; centered:
``grad_avg.lerp_(grad, 1 - alpha)`` and ``avg = sqrt(square_avg - grad_avg ** 2)``, else
``avg = sqrt(square_avg)``; ``avg += eps``; with momentum ``buf = buf * momentum + grad / avg`` and
``param -= lr * buf``, else ``param -= lr * grad / avg``. A complex parameter steps its two parts as real
numbers (``view_as_real``).
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class RMSprop(Optimizer):
    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach=None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state_of(self, param, group) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            state["step"] = _new_scalar(0.0)
            state["square_avg"] = _VF.zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = _VF.zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = _VF.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param, group)
        _check_capturable(param, group)
        grad = param.grad if not group["maximize"] else -param.grad
        alpha, eps, lr, momentum = group["alpha"], group["eps"], _to_scalar(group["lr"]), group["momentum"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg = state["square_avg"]
        complex_param = param.is_complex()
        if complex_param:  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            param, grad, square_avg = (_VF.view_as_real(t) for t in (param, grad, square_avg))
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg = _VF.view_as_real(grad_avg) if complex_param else grad_avg
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps) if group["differentiable"] else avg.add_(eps)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf = _VF.view_as_real(buf) if complex_param else buf
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)
