"""``picotorch.nn``: ``Parameter``, ``Module`` and the layers, losses, ``functional`` and ``init``.

Models ``torch/nn/__init__.py``: ``torch/nn/parameter.py``, ``torch/nn/modules/`` (one file per kind of
layer), ``torch/nn/functional.py`` and ``torch/nn/init.py`` — what a first training loop needs.
"""

from . import functional, init, utils
from .modules import (
    ELU,
    GELU,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Hardtanh,
    HuberLoss,
    Identity,
    L1Loss,
    LayerNorm,
    LeakyReLU,
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
    SmoothL1Loss,
    Softmax,
    Softplus,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU",
    "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss",
    "Module", "ModuleDict", "ModuleList", "NLLLoss", "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid",
    "SmoothL1Loss", "Softmax", "Softplus", "Tanh", "functional", "init", "utils",
]
