"""``nn.Dropout`` and ``nn.Dropout2d``. Models ``torch/nn/modules/dropout.py``: ``F.dropout`` (``F.dropout2d``,
whole channels) with the module's ``training`` flag, so ``model.eval()`` turns it into the identity."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout2d"]


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)
