"""Adagrad. Models ``torch/optim/adagrad.py`` (``Adagrad``, ``_single_tensor_adagrad``, dense gradients).

The state is made at construction, for every parameter: ``step`` (a float32 zero-dim tensor) and ``sum``, filled
with ``initial_accumulator_value``. One step, in PyTorch's order: ``step += 1``; weight decay
``grad + weight_decay * param``; the decayed rate ``clr = lr / (1 + (step - 1) * lr_decay)`` in Python floats;
``sum += grad * grad``; ``param -= clr * grad / (sqrt(sum) + eps)``. A complex parameter steps its two parts as
real numbers (``view_as_real``).
"""

from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _new_scalar, _to_scalar

_VF = _C._VariableFunctions


class Adagrad(Optimizer):
    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, fused=None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if fused:
            raise NotImplementedError("picotorch's Adagrad has no fused implementation")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._new_state(p)

    def _new_state(self, param) -> dict:
        state = self.state.setdefault(param, {})
        if len(state) == 0:
            value = self.defaults["initial_accumulator_value"]
            state["step"] = _new_scalar(0.0)
            state["sum"] = _VF.full_like(param, complex(value, value) if param.is_complex() else value)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient (``Optimizer._step``)."""
        return self._step(closure)

    def _update(self, param, group) -> None:
        state = self._new_state(param)
        state["step"] += 1
        step = state["step"].item()
        grad = param.grad if not group["maximize"] else -param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = _to_scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"]
        if param.is_complex():  # the real and imaginary parts step as separate numbers (torch's view_as_real)
            param, grad, state_sum = (_VF.view_as_real(t) for t in (param, grad, state_sum))
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + group["eps"] if group["differentiable"] else state_sum.sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-clr)
