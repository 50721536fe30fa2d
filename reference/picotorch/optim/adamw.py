"""AdamW. Models ``torch/optim/adamw.py``: Adam with decoupled weight decay, a subclass that sets Adam's flag
(the update itself is ``adam.py``'s)."""

from __future__ import annotations

from .adam import Adam


class AdamW(Adam):
    """Adam with decoupled weight decay (``torch/optim/adamw.py``): ``Adam`` with its flag set."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach=None, capturable: bool = False,
                 differentiable: bool = False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
