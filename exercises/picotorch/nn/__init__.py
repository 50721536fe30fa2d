"""``picotorch.nn``: ``Parameter``, ``Module``, ``Linear``, ``ReLU``, ``Sequential`` and ``functional``.

Models ``torch/nn/parameter.py``, ``torch/nn/modules/module.py``, ``linear.py``, ``activation.py``,
``container.py`` — only what the course needs.
"""

from . import functional, init
from .modules import Linear, Module, ReLU, Sequential
from .parameter import Parameter

__all__ = ["Linear", "Module", "Parameter", "ReLU", "Sequential", "functional", "init"]
