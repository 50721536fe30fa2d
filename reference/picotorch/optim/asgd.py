"""Averaged SGD. Models ``torch/optim/asgd.py`` (``ASGD``, ``_single_tensor_asgd``).

Per parameter the state holds ``step``, ``eta`` (the current rate) and ``mu`` (the averaging weight), all zero-dim
float32 tensors, and ``ax``, the average of the iterates. One step, in PyTorch's order: ``step += 1``; weight
decay ``grad + weight_decay * param``; ``param *= 1 - lambd * eta``; ``param -= eta * grad``; ``ax`` moves to
``param`` by ``mu`` (a plain copy while ``mu`` is 1); then the next ``eta = lr / (1 + lambd * lr * step) **
alpha`` and ``mu = 1 / max(1, step - t0)``, computed in Python floats and stored through a tensor of the
default dtype (so rounded to float32 even where ``eta`` is float64, as after loading a float64 parameter's state).
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_capturable, _check_lr, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class ASGD(Optimizer):
    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach=None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _state_of(self, param, group) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            lr = _to_scalar(group["lr"])
            state["step"] = _new_scalar(0.0)
            state["eta"] = _new_scalar(lr.item() if hasattr(lr, "item") else lr)
            state["mu"] = _new_scalar(1.0)
            state["ax"] = _VF.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._state_of(param, group)
        _check_capturable(param, group, "params, mus, etas, and state_steps")
        grad = param.grad if not group["maximize"] else -param.grad
        lambd, lr, alpha = group["lambd"], _to_scalar(group["lr"]), group["alpha"]
        mu, ax, eta = state["mu"], state["ax"], state["eta"]
        if param.is_complex():  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            grad, param, ax = (_VF.view_as_real(t) for t in (grad, param, ax))
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = state["step"].item()
        # made in the default dtype, then copied: a float64 eta (after load_state_dict) holds float32 values
        eta.copy_(_C.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(_C.as_tensor(1 / max(1, step - group["t0"])))
