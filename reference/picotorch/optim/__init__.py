"""``picotorch.optim``: ``SGD``. Models ``torch/optim/optimizer.py`` and ``torch/optim/sgd.py``."""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad


class Optimizer:
    def __init__(self, params, defaults: dict) -> None:
        params = list(params)
        if len(params) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        self.defaults = defaults
        self.param_groups = []
        self.state = {}
        for group in params:
            self.add_param_group(group)

    def add_param_group(self, group: dict) -> None:
        group = dict(group)
        group["params"] = [group["params"]] if isinstance(group["params"], Tensor) else list(group["params"])
        for p in group["params"]:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_().zero_()


class SGD(Optimizer):
    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    @no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return loss

    def _update(self, p, group) -> None:
        grad = p.grad
        if group["weight_decay"]:
            grad = grad.add(p, alpha=group["weight_decay"])
        if group["momentum"]:
            buf = self.state.setdefault(p, {}).get("momentum_buffer")
            if buf is None:
                buf = grad.clone().detach()
            else:
                buf.mul_(group["momentum"]).add_(grad, alpha=1 - group["dampening"])
            self.state[p]["momentum_buffer"] = buf
            grad = grad.add(buf, alpha=group["momentum"]) if group["nesterov"] else buf
        p.add_(grad, alpha=-group["lr"])
