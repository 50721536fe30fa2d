"""``picotorch.nn``: ``Parameter``, ``Module`` and the layers, losses, ``functional`` and ``init``.

Models ``torch/nn/__init__.py``: ``torch/nn/parameter.py``, ``torch/nn/modules/`` (one file per kind of
layer), ``torch/nn/functional.py`` and ``torch/nn/init.py`` — what a first training loop needs.
"""

from . import functional, init, utils
from .modules import (
    GELU,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    L1Loss,
    LayerNorm,
    Linear,
    LogSoftmax,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "Embedding", "Flatten", "GELU", "Identity", "L1Loss",
    "LayerNorm", "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleDict", "ModuleList", "NLLLoss", "Parameter",
    "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Tanh", "functional", "init", "utils",
]
